/** The customer setup calls without a socket: inputs parsed by the spec's request schemas, handlers called directly. */
import { describe, expect, it } from 'vitest';
import { operations } from '../../spec/operations.ts';
import { createTestFeatures, domainErrorCode as errorCode, tenantPerTest } from './testing.ts';

const NOW = 1_795_328_341_817;
const tenant = tenantPerTest(NOW, createTestFeatures);
const { call } = tenant;

describe('customers.get_or_create', () => {
  it('[CUS-GET-OR-CREATE-NEW, CUS-SHAPE] creates the customer with the fields sent, as the reference answers it', () => {
    const created = call('customers.get_or_create', { customer_id: 'cus_main', name: 'Main Customer', email: 'main@example.com' });
    expect(operations['customers.get_or_create'].response.safeParse(created).success).toBe(true);
    expect(created).toEqual({
      id: 'cus_main',
      name: 'Main Customer',
      email: 'main@example.com',
      created_at: NOW,
      fingerprint: null,
      stripe_id: null,
      env: 'sandbox',
      metadata: {},
      send_email_receipts: false,
      billing_controls: {},
      subscriptions: [],
      purchases: [],
      licenses: [],
      balances: {},
      flags: {},
      config: {},
    });
  });

  it('[CUS-GET-OR-CREATE-NEW] a new customer gets the auto-enable plans that are not archived', () => {
    call('plans.create', { plan_id: 'starter', name: 'Starter', group: 'main', auto_enable: true, items: [{ feature_id: 'messages', included: 50, reset: { interval: 'month' } }] });
    call('plans.create', { plan_id: 'retired', name: 'Retired', group: 'other', auto_enable: true, items: [{ feature_id: 'sso' }] });
    call('plans.update', { plan_id: 'retired', archived: true });
    const created = call('customers.get_or_create', { customer_id: 'cus_new' });
    expect(created.subscriptions.map((s) => [s.plan_id, s.status, s.auto_enable])).toEqual([['starter', 'active', true]]);
    expect(created.balances['messages']).toMatchObject({ granted: 50 });
    expect(created.flags).toEqual({});
  });

  it('[CUS-GET-OR-CREATE-EXISTING] an existing customer comes back unchanged, whatever the other fields say', () => {
    const first = call('customers.get_or_create', { customer_id: 'cus_main', name: 'Main', email: 'main@example.com', metadata: { a: 1 } });
    tenant.ctx.clock.advance(5_000);
    call('plans.create', { plan_id: 'later', name: 'Later', group: 'main', auto_enable: true });
    const again = call('customers.get_or_create', { customer_id: 'cus_main', name: 'Other', email: null, metadata: { b: 2 }, send_email_receipts: true });
    expect(again).toEqual(first);
  });
});

describe('customers.get', () => {
  it('[CUS-GET, CUS-SHAPE] shows the subscriptions, purchases, balances, flags and license pools, but not license seats', () => {
    call('plans.create', { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'sso' }] });
    call('plans.create', {
      plan_id: 'team',
      name: 'Team',
      group: 'main',
      items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }],
      licenses: [{ license_plan_id: 'seat', included: 2 }],
    });
    call('plans.create', { plan_id: 'pack', name: 'Pack', add_on: true, price: { amount: 10, interval: 'one_off' }, items: [{ feature_id: 'messages', included: 20 }] });
    call('customers.get_or_create', { customer_id: 'cus_team' });
    call('billing.attach', { customer_id: 'cus_team', plan_id: 'team' });
    call('billing.attach', { customer_id: 'cus_team', plan_id: 'pack' });
    call('licenses.attach', { customer_id: 'cus_team', plan_id: 'seat', entities: [{ entity_id: 'm1', name: 'One', feature_id: 'seats' }] });

    const got = call('customers.get', { customer_id: 'cus_team' });
    expect(operations['customers.get'].response.safeParse(got).success).toBe(true);
    expect(got.subscriptions.map((s) => [s.plan_id, s.scope])).toEqual([['team', 'customer']]);
    expect(got.purchases.map((p) => p.plan_id)).toEqual(['pack']);
    expect(got.balances['messages']).toMatchObject({ granted: 120, remaining: 120 });
    expect(got.flags).toEqual({});
    expect(got.licenses).toMatchObject([{ license_plan_id: 'seat', parent_plan_id: 'team', granted: 2, usage: 1 }]);
    expect(got.stripe_id).toEqual(expect.any(String));
    expect(got.processors).toEqual({ stripe: { id: got.stripe_id } });
  });

  it('[CUS-GET-UNKNOWN] an unknown customer is customer_not_found, and is not created', () => {
    expect(errorCode(() => call('customers.get', { customer_id: 'nobody' }))).toBe('customer_not_found');
    expect(tenant.ctx.store.customers.has('nobody')).toBe(false);
  });
});
