/** billing.attach without a socket: inputs parsed by the spec's request schemas, handlers called directly. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type OperationName, operations } from '../../spec/operations.ts';
import type { DomainContext, OutputOf } from './context.ts';
import { runDue } from './lifecycle.ts';
import { callHandler, domainErrorCode as errorCode, testContext } from './testing.ts';

const NOW = 1_795_328_341_817;
let ctx: DomainContext;

function call<N extends OperationName>(name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
  return callHandler(ctx, name, body);
}

function attach(body: z.input<(typeof operations)['billing.attach']['request']>) {
  return call('billing.attach', body);
}

/** The live records `customerId` (or its entity) holds, as plan ids. */
function held(customerId: string, entityId: string | null = null): string[] {
  return ctx.store
    .recordsOf(customerId)
    .filter((record) => record.entityId === entityId && record.status !== 'expired')
    .map((record) => record.planId);
}

function pools(customerId: string) {
  return call('licenses.list', { customer_id: customerId }).list;
}

beforeEach(() => {
  ctx = testContext(NOW);
  call('features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true, display: { singular: 'message', plural: 'messages' } });
  call('features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false, display: { singular: 'seat', plural: 'seats' } });
  call('plans.create', { plan_id: 'free', name: 'Free', group: 'main', items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }] });
  call('plans.create', { plan_id: 'seat', name: 'Seat' });
  call('plans.create', { plan_id: 'team', name: 'Team', group: 'main', licenses: [{ license_plan_id: 'seat', included: 2 }] });
  call('customers.get_or_create', { customer_id: 'cus_a' });
});

describe('billing.attach', () => {
  it('[BILL-ATTACH-FREE, BILL-ATTACH-SHAPE] a free plan takes effect at once, with its balances, and no processor subscription', () => {
    const result = attach({ customer_id: 'cus_a', plan_id: 'free' });
    expect(result).toEqual({ customer_id: 'cus_a', payment_url: null });
    expect(operations['billing.attach'].response.safeParse(result).success).toBe(true);
    expect(held('cus_a')).toEqual(['free']);
    const record = ctx.store.recordsOf('cus_a')[0]!;
    expect(record).toMatchObject({ status: 'active', startedAt: NOW, processorSubscriptionId: null, currentPeriodEnd: null });
    expect(call('customers.get', { customer_id: 'cus_a' }).balances['messages']).toMatchObject({ granted: 100, remaining: 100 });
  });

  it('[BILL-ATTACH-ENTITY] with entity_id the plan goes to the entity, not to its customer', () => {
    call('entities.create', { customer_id: 'cus_a', entity_id: 'ent_1', feature_id: 'seats' });
    expect(attach({ customer_id: 'cus_a', entity_id: 'ent_1', plan_id: 'free' })).toEqual({ customer_id: 'cus_a', entity_id: 'ent_1', payment_url: null });
    expect(held('cus_a', 'ent_1')).toEqual(['free']);
    expect(held('cus_a')).toEqual([]);
    expect(errorCode(() => attach({ customer_id: 'cus_a', entity_id: 'nope', plan_id: 'free' }))).toBe('entity_not_found');
  });

  it('refuses an unknown customer or plan, an archived plan, and a plan the holder already has', () => {
    expect(errorCode(() => attach({ customer_id: 'nobody', plan_id: 'free' }))).toBe('customer_not_found');
    expect(errorCode(() => attach({ customer_id: 'cus_a', plan_id: 'nope' }))).toBe('product_not_found');
    attach({ customer_id: 'cus_a', plan_id: 'free' });
    expect(errorCode(() => attach({ customer_id: 'cus_a', plan_id: 'free' }))).toBe('invalid_request');
    call('plans.create', { plan_id: 'old', name: 'Old', add_on: true });
    call('plans.update', { plan_id: 'old', archived: true });
    expect(errorCode(() => attach({ customer_id: 'cus_a', plan_id: 'old' }))).toBe('invalid_request');
    expect(held('cus_a')).toEqual(['free']);
  });

  it('a main plan replaces the main plan of its group; an add-on joins it', () => {
    attach({ customer_id: 'cus_a', plan_id: 'free' });
    call('plans.create', { plan_id: 'extra', name: 'Extra', add_on: true, group: 'main' });
    attach({ customer_id: 'cus_a', plan_id: 'extra' });
    attach({ customer_id: 'cus_a', plan_id: 'team' });
    expect(held('cus_a').sort()).toEqual(['extra', 'team']);
  });

  it('[LIC-POOL-PAID-QUANTITY, LIC-POOL-GRANTED] license_quantities is the total of seats: the seats beyond the included ones are paid, also on a free plan', () => {
    attach({ customer_id: 'cus_a', plan_id: 'team', license_quantities: [{ license_plan_id: 'seat', quantity: 5 }] });
    expect(pools('cus_a')).toMatchObject([{ license_plan_id: 'seat', granted: 5, paid_quantity: 3, remaining: 5 }]);
    expect(ctx.store.recordsOf('cus_a')[0]!.processorSubscriptionId).toBeNull();

    call('customers.get_or_create', { customer_id: 'cus_b' });
    attach({ customer_id: 'cus_b', plan_id: 'team', license_quantities: [{ license_plan_id: 'seat', quantity: 1 }] });
    expect(pools('cus_b')).toMatchObject([{ granted: 2, paid_quantity: 0 }]);

    call('plans.create', { plan_id: 'byo', name: 'Bring your own', add_on: true, licenses: [{ license_plan_id: 'seat' }] });
    call('customers.get_or_create', { customer_id: 'cus_c' });
    attach({ customer_id: 'cus_c', plan_id: 'byo' });
    expect(pools('cus_c'), 'no included seat and none bought: no pool').toEqual([]);
    call('customers.get_or_create', { customer_id: 'cus_d' });
    attach({ customer_id: 'cus_d', plan_id: 'byo', license_quantities: [{ license_plan_id: 'seat', quantity: 4 }] });
    expect(pools('cus_d')).toMatchObject([{ granted: 4, paid_quantity: 4 }]);
  });

  it('refuses license_quantities for a license the plan does not offer, or for the same license twice, and attaches nothing', () => {
    expect(errorCode(() => attach({ customer_id: 'cus_a', plan_id: 'team', license_quantities: [{ license_plan_id: 'free', quantity: 3 }] }))).toBe('invalid_request');
    expect(
      errorCode(() =>
        attach({
          customer_id: 'cus_a',
          plan_id: 'team',
          license_quantities: [
            { license_plan_id: 'seat', quantity: 3 },
            { license_plan_id: 'seat', quantity: 4 },
          ],
        }),
      ),
    ).toBe('invalid_request');
    expect(held('cus_a')).toEqual([]);
  });

  it('refuses a plan whose trial or period would end beyond the representable time range, and writes nothing', () => {
    call('plans.create', { plan_id: 'forever', name: 'Forever', price: { amount: 1, interval: 'month', interval_count: Number.MAX_SAFE_INTEGER } });
    call('plans.create', { plan_id: 'long_trial', name: 'Long trial', price: { amount: 1, interval: 'month' }, free_trial: { duration_length: 1e15, duration_type: 'day' } });
    for (const planId of ['forever', 'long_trial']) {
      expect(errorCode(() => attach({ customer_id: 'cus_a', plan_id: planId }))).toBe('invalid_request');
    }
    expect(ctx.store.recordsOf('cus_a')).toEqual([]);
    expect(ctx.store.processorSubscriptionsOf('cus_a')).toEqual([]);
    expect(call('customers.get', { customer_id: 'cus_a' }).stripe_id).toBeNull();
  });

  it('rolls billing periods over from the first one, so a month-end cycle keeps its day after a short month', () => {
    ctx = testContext(Date.parse('2026-01-31T12:00:00Z'));
    call('plans.create', { plan_id: 'pro', name: 'Pro', price: { amount: 20, interval: 'month' } });
    call('customers.get_or_create', { customer_id: 'cus_b' });
    attach({ customer_id: 'cus_b', plan_id: 'pro' });
    const periods: [string, string][] = [];
    for (const at of ['2026-02-28T12:00:00Z', '2026-03-31T12:00:00Z', '2026-04-30T12:00:00Z']) {
      ctx.clock.set({ now: Date.parse(at) });
      runDue(ctx);
      const record = ctx.store.recordsOf('cus_b')[0]!;
      periods.push([new Date(record.currentPeriodStart!).toISOString(), new Date(record.currentPeriodEnd!).toISOString()]);
    }
    expect(periods).toEqual([
      ['2026-02-28T12:00:00.000Z', '2026-03-31T12:00:00.000Z'],
      ['2026-03-31T12:00:00.000Z', '2026-04-30T12:00:00.000Z'],
      ['2026-04-30T12:00:00.000Z', '2026-05-31T12:00:00.000Z'],
    ]);
  });
});
