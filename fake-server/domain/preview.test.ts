/** The preview domain module, called through the handler table with inputs parsed by the spec. */
import fc from 'fast-check';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../../fixtures/random.ts';
import { type Operations, operations } from '../../spec/operations.ts';
import type { DomainContext } from './context.ts';
import { runDue } from './lifecycle.ts';
import { roundMoney } from './preview.ts';
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

  it('refuses what the update itself would refuse: a billing-cycle action on a free plan, two updates of one plan, an unknown plan', () => {
    const ctx = setup();
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'free' });
    const endOfCycle = { updates: [{ plan_id: 'free', cancel_action: 'cancel_end_of_cycle' as const }] };
    expect(domainErrorCode(() => preview(ctx, [], endOfCycle))).toBe('invalid_request');
    expect(domainErrorCode(() => preview(ctx, ['free', 'free']))).toBe('invalid_request');
    expect(domainErrorCode(() => preview(ctx, ['month']))).toBe('cus_product_not_found');
  });
});
