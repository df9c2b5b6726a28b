/** The preview domain module, called through the handler table with inputs parsed by the spec. */
import fc from 'fast-check';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../../fixtures/random.ts';
import { type Operations, operations } from '../../spec/operations.ts';
import type { DomainContext } from './context.ts';
import { runDue } from './lifecycle.ts';
import { roundMoney, usageCharge } from './preview.ts';
import { callHandler, domainErrorCode, testContext } from './testing.ts';

const DAY = 86_400_000;
/** 1 April 2026: the first monthly period is April, 30 days. */
const START = Date.UTC(2026, 3, 1);

function context(): DomainContext {
  return testContext(START);
}


function advance(ctx: DomainContext, ms: number): void {
  ctx.clock.advance(ms);
  runDue(ctx);
}

/** A customer `c` with a free flag plan `free`, and paid plans: `month` ($30/month), `addon` ($10/month add-on), `year` ($120/year add-on). */
function setup(): DomainContext {
  const ctx = context();
  callHandler(ctx, 'features.create', { feature_id: 'flag', name: 'Flag', type: 'boolean' });
  callHandler(ctx, 'plans.create', { plan_id: 'free', name: 'Free', add_on: true, items: [{ feature_id: 'flag' }] });
  callHandler(ctx, 'plans.create', { plan_id: 'month', name: 'Monthly', group: 'main', price: { amount: 30, interval: 'month' } });
  callHandler(ctx, 'plans.create', { plan_id: 'addon', name: 'Add-on', add_on: true, price: { amount: 10, interval: 'month' } });
  callHandler(ctx, 'plans.create', { plan_id: 'year', name: 'Yearly', add_on: true, price: { amount: 120, interval: 'year' } });
  callHandler(ctx, 'customers.get_or_create', { customer_id: 'c' });
  return ctx;
}

function preview(ctx: DomainContext, planIds: string[], extra: Partial<z.input<Operations['billing.preview_multi_update']['request']>> = {}) {
  return callHandler(ctx, 'billing.preview_multi_update', {
    customer_id: 'c',
    updates: planIds.map((plan_id) => ({ plan_id, cancel_action: 'cancel_immediately' as const })),
    ...extra,
  });
}


describe('roundMoney', () => {
  it('rounds to cents half away from zero, without binary noise', () => {
    expect(roundMoney(1.005)).toBe(1.01);
    expect(roundMoney(-1.005)).toBe(-1.01);
    expect(roundMoney(-6.665)).toBe(-6.67);
    expect(Object.is(roundMoney(-0.001), 0)).toBe(true);
  });

  it('a credit rounds like the charge it returns', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (amount) => {
        expect(roundMoney(-amount)).toBe(-roundMoney(amount) || 0);
        expect(Math.abs(roundMoney(amount) - amount)).toBeLessThanOrEqual(0.005 + 1e-9);
      }),
      { seed: testSeed(), numRuns: 200 },
    );
  });
});

describe('usageCharge', () => {
  const perUnit = { amount: 0.5, billing_units: 1 };
  const tiers = [
    { to: 10, amount: 3 },
    { to: 'inf' as const, amount: 2 },
  ];

  it('charges nothing for no usage beyond the included amount, the amount per unit otherwise', () => {
    expect(usageCharge(perUnit, 0)).toBe(0);
    expect(usageCharge(perUnit, -4)).toBe(0);
    expect(usageCharge(perUnit, 7)).toBe(3.5);
  });

  it('rounds the overage up to whole billing-unit packages, each costing the amount', () => {
    const packs = { amount: 2, billing_units: 100 };
    expect(usageCharge(packs, 1)).toBe(2);
    expect(usageCharge(packs, 100)).toBe(2);
    expect(usageCharge(packs, 101)).toBe(4);
    // 0.3 / 0.1 is 2.9999999999999996 in binary: still three packages, not four.
    expect(usageCharge({ amount: 1, billing_units: 0.1 }, 0.3)).toBeCloseTo(3, 9);
  });

  it('graduated tiers (the default) charge each band at its own rate; volume tiers all units at the last band', () => {
    expect(usageCharge({ tiers, billing_units: 1 }, 4)).toBe(12);
    expect(usageCharge({ tiers, billing_units: 1 }, 12)).toBe(10 * 3 + 2 * 2);
    expect(usageCharge({ tiers, tier_behavior: 'graduated', billing_units: 1 }, 12)).toBe(34);
    expect(usageCharge({ tiers, tier_behavior: 'volume', billing_units: 1 }, 10)).toBe(30);
    expect(usageCharge({ tiers, tier_behavior: 'volume', billing_units: 1 }, 12)).toBe(24);
    // Bounds count whole packages' units: 3 units in packages of 5 are 5 units of the first band.
    expect(usageCharge({ tiers, billing_units: 5 }, 3)).toBe(3);
  });

  it('graduated tiers never charge more than the dearest band nor less than the cheapest, and grow with usage', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100 }), (units, more) => {
        const charge = usageCharge({ tiers, billing_units: 1 }, units);
        expect(charge).toBeGreaterThanOrEqual(units * 2);
        expect(charge).toBeLessThanOrEqual(units * 3);
        expect(usageCharge({ tiers, billing_units: 1 }, units + more)).toBeGreaterThanOrEqual(charge);
      }),
      { seed: testSeed() },
    );
  });
});

describe('billing.preview_multi_update', () => {
  it('[PREV-FREE-PLANS-NO-ENTRY] [PREV-CURRENCY-ISO] a free plan has no processor subscription and so no entry', () => {
    const ctx = setup();
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'free' });
    const result = preview(ctx, ['free']);
    expect(operations['billing.preview_multi_update'].response.parse(result)).toEqual(result);
    expect(result).toEqual({ customer_id: 'c', currency: 'usd', total: 0, subscriptions: [] });
  });

  it('[PREV-ONE-ENTRY-PER-SUBSCRIPTION] [PREV-TOTAL-SUM] plans on one billing cycle share an entry; another cycle has its own', () => {
    const ctx = setup();
    for (const plan_id of ['free', 'month', 'addon', 'year']) callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id });
    const result = preview(ctx, ['free', 'month', 'addon', 'year']);
    expect(result.subscriptions.map((entry) => [entry.plan_ids, entry.total])).toEqual([
      [['month', 'addon'], -40],
      [['year'], -120],
    ]);
    expect(result.total).toBe(-160);
  });

  it('[PREV-REFUND-MODE] prorated refunds the unused share of the period, full the whole last payment', () => {
    const ctx = setup();
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'month' });
    expect(preview(ctx, ['month']).total).toBe(-30);
    advance(ctx, 10 * DAY); // 20 of April's 30 days are left
    expect(preview(ctx, ['month']).total).toBe(-20);
    expect(preview(ctx, ['month'], { refund_last_payment: 'prorated' }).total).toBe(-20);
    expect(preview(ctx, ['month'], { refund_last_payment: 'full' }).total).toBe(-30);
    advance(ctx, 27 * DAY); // 8 May: the period rolled over to May (31 days), 24 of them left
    expect(preview(ctx, ['month']).total).toBe(-23.23);
    expect(preview(ctx, ['month'], { refund_last_payment: 'full' }).total).toBe(-30);
  });

  it('[PREV-REFUND-MODE] a plan that joined the subscription mid-period paid, and gets back in full, only the rest of that period', () => {
    const ctx = setup();
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'month' });
    advance(ctx, 15 * DAY);
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'addon' });
    expect(preview(ctx, ['addon'], { refund_last_payment: 'full' }).total).toBe(-5);
    advance(ctx, 5 * DAY);
    expect(preview(ctx, ['addon'], { refund_last_payment: 'full' }).total).toBe(-5);
    expect(preview(ctx, ['addon']).total).toBe(roundMoney((-10 * 10) / 30));
  });

  it('[PREV-REFUND-MODE] nothing is paid during a free trial, so nothing is refunded, but the subscription still has its entry', () => {
    const ctx = setup();
    callHandler(ctx, 'plans.create', { plan_id: 'trial', name: 'Trial', group: 'main', price: { amount: 50, interval: 'month' }, free_trial: { duration_length: 14, duration_type: 'day' } });
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'trial' });
    advance(ctx, 3 * DAY);
    for (const refund_last_payment of ['prorated', 'full'] as const) {
      const result = preview(ctx, ['trial'], { refund_last_payment });
      expect(result.subscriptions.map((entry) => [entry.plan_ids, entry.total])).toEqual([[['trial'], 0]]);
    }
  });

  it('[PREV-PER-UPDATE-ENTITY] [PREV-REQUEST-ENTITY] an update targets the plan of its own entity, else of the request entity', () => {
    const ctx = setup();
    callHandler(ctx, 'features.create', { feature_id: 'seat', name: 'Seat', type: 'metered', consumable: false });
    for (const entity_id of ['e1', 'e2']) callHandler(ctx, 'entities.create', { customer_id: 'c', entity_id, feature_id: 'seat' });
    callHandler(ctx, 'billing.attach', { customer_id: 'c', entity_id: 'e1', plan_id: 'addon' });
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'month' });
    const onEntity = { updates: [{ plan_id: 'addon', entity_id: 'e1', cancel_action: 'cancel_immediately' as const }] };
    expect(preview(ctx, [], { ...onEntity, entity_id: 'e2' }).subscriptions.map((entry) => [entry.plan_ids, entry.total])).toEqual([[['addon'], -10]]);
    expect(preview(ctx, ['addon'], { entity_id: 'e1' }).total).toBe(-10);
    expect(domainErrorCode(() => preview(ctx, ['addon']))).toBe('cus_product_not_found');
    expect(domainErrorCode(() => preview(ctx, ['month'], { entity_id: 'e1' }))).toBe('cus_product_not_found');
  });

  it('[PREV-NO-CHANGES] changes nothing in the store', () => {
    const ctx = setup();
    for (const plan_id of ['free', 'month', 'year']) callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id });
    advance(ctx, 3 * DAY);
    const before = structuredClone({ records: ctx.store.records, grants: ctx.store.grants, billing: ctx.store.processorSubscriptions });
    preview(ctx, ['free', 'month', 'year'], { refund_last_payment: 'full', subscription_params: { metadata: { a: 1 } } });
    expect({ records: ctx.store.records, grants: ctx.store.grants, billing: ctx.store.processorSubscriptions }).toEqual(before);
  });

  it('[PREV-USAGE-OVERAGE-BILLED] cancelling now bills the usage beyond the included amount of usage-priced items, on its own line; within it, nothing', () => {
    const ctx = setup();
    callHandler(ctx, 'features.create', { feature_id: 'calls', name: 'Calls', type: 'metered', consumable: true });
    callHandler(ctx, 'features.create', { feature_id: 'tokens', name: 'Tokens', type: 'metered', consumable: true });
    callHandler(ctx, 'features.create', { feature_id: 'notes', name: 'Notes', type: 'metered', consumable: true });
    const usage = (extra: object) => ({ included: 10, reset: { interval: 'month' as const }, price: { interval: 'month' as const, billing_method: 'usage_based' as const, ...extra } });
    callHandler(ctx, 'plans.create', {
      plan_id: 'metered',
      name: 'Metered',
      add_on: true,
      price: { amount: 30, interval: 'month' },
      items: [
        { feature_id: 'notes', included: 5, reset: { interval: 'month' } },
        { feature_id: 'calls', ...usage({ amount: 0.5 }) },
        { feature_id: 'tokens', ...usage({ tiers: [{ to: 100, amount: 1 }, { to: 'inf', amount: 0.5 }], billing_units: 50 }) },
      ],
    });
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'metered' });
    const track = (feature_id: string, value: number) => callHandler(ctx, 'balances.track', { customer_id: 'c', feature_id, value });
    const cancelNow = () => preview(ctx, ['metered']);
    track('calls', 10);
    track('tokens', 10);
    // An item without a price lets no usage past its 5 (overflow forces it): nothing is billed for it.
    callHandler(ctx, 'balances.track', { customer_id: 'c', feature_id: 'notes', value: 9, overage_behavior: 'overflow' });
    expect(cancelNow().total, 'within the included amount only the base price comes back').toBe(-30);

    track('calls', 7);
    track('tokens', 120);
    const result = cancelNow();
    // Calls: 7 at 0.50. Tokens: 120 beyond, 150 in packages of 50: 100 at 1/50 and 50 at 0.5/50.
    expect(result.subscriptions[0]!.line_items.map((line) => [line.feature_id, line.total])).toEqual([
      [null, -30],
      ['calls', 3.5],
      ['tokens', 2.5],
    ]);
    expect(result.total).toBe(-24);
    const endOfCycle = preview(ctx, [], { updates: [{ plan_id: 'metered', cancel_action: 'cancel_end_of_cycle' }] });
    expect(endOfCycle.total, 'overage is due when the period ends, not today').toBe(0);
    const withoutProration = preview(ctx, [], { updates: [{ plan_id: 'metered', cancel_action: 'cancel_immediately', proration_behavior: 'none' }] });
    expect(withoutProration.total, 'no refund, but the usage is still owed').toBe(6);
  });

  it('refuses what the update itself would refuse: a billing-cycle action on a free plan, two updates of one plan, an unknown plan', () => {
    const ctx = setup();
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'free' });
    const endOfCycle = { updates: [{ plan_id: 'free', cancel_action: 'cancel_end_of_cycle' as const }] };
    expect(domainErrorCode(() => preview(ctx, [], endOfCycle))).toBe('invalid_request');
    expect(domainErrorCode(() => preview(ctx, ['free', 'free']))).toBe('invalid_request');
    expect(domainErrorCode(() => preview(ctx, ['month']))).toBe('cus_product_not_found');
  });
});
