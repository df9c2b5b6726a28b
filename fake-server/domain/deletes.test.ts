/**
 * The delete operations: the recorded reference exchanges (166–173) replayed over HTTP against the
 * fake, with the state they were recorded in; then what the recording does not show, from the
 * domain: versions, the refusals that keep every reference whole, and a snapshot that stays valid.
 */
import { describe, expect, it } from 'vitest';
import { loadExchanges } from '../../spec/reference/exchanges.ts';
import { createFakeApp } from '../app.ts';
import { callHandler, createTestFeatures, domainErrorCode, tenantPerTest } from './testing.ts';
import { DomainError } from './context.ts';

const NOW = Date.UTC(2026, 10, 26);
const DELETES = loadExchanges().filter((exchange) => Number(exchange.file.slice(0, 3)) >= 166);

/**
 * The state the exchanges were recorded in: a customer holding a free plan on a consumable feature,
 * an unused plan and feature, a reward and the referral program that links it.
 */
async function recordedState() {
  const fake = createFakeApp({ now: NOW, frozen: true, validateResponses: true });
  const key = fake.keys[0]!.key;
  const send = async (operation: string, body: unknown) => {
    const response = await fake.fetch(new Request(`http://fake.invalid/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-api-version': '2.3.0' }, body: JSON.stringify(body) }));
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const setup = async (operation: string, body: unknown) => expect((await send(operation, body)).status, `${operation} ${JSON.stringify(body)}`).toBe(200);
  await setup('features.create', { feature_id: 'ex4j7j2d_msgs', name: 'Messages', type: 'metered', consumable: true });
  await setup('features.create', { feature_id: 'ex4j7j2d_gone', name: 'Gone', type: 'boolean' });
  await setup('plans.create', { plan_id: 'ex4j7j2d_free', name: 'Free', items: [{ feature_id: 'ex4j7j2d_msgs', included: 100, reset: { interval: 'month' } }] });
  await setup('plans.create', { plan_id: 'ex4j7j2d_unused', name: 'Unused' });
  await setup('customers.get_or_create', { customer_id: 'ex4j7j2d_cus' });
  await setup('billing.attach', { customer_id: 'ex4j7j2d_cus', plan_id: 'ex4j7j2d_free' });
  const grant = { id: 'ex4j7j2d_rw', name: 'Reward', grants: [{ feature_id: 'ex4j7j2d_msgs', included: 10, expiry: null }], promo_codes: [{ code: 'EX4J7J2D', max_uses: null }] };
  await setup('rewards.create', { feature_grant: grant });
  await setup('referral_programs.create', { id: 'ex4j7j2d_prog', reward_id: 'ex4j7j2d_rw', redeem_on: 'customer_creation', received_by: 'referrer' });
  return { fake, key, send };
}

describe('the delete operations against the recorded exchanges', () => {
  it('holds the eight recorded exchanges of the deletes', () => {
    expect(DELETES.map((exchange) => exchange.file.slice(0, 3))).toEqual(['166', '167', '168', '169', '170', '171', '172', '173']);
  });

  it('[CUS-DELETE] [CUS-DELETE-SHAPE] [PLAN-DELETE] [PLAN-DELETE-SHAPE] [FEAT-DELETE-IN-USE] [FEAT-DELETE-SHAPE] [REF-PROGRAM-DELETE] [REF-DELETE-SHAPE] replayed in order, each is answered as the reference answered it', async () => {
    const { send, fake, key } = await recordedState();
    for (const exchange of DELETES) {
      const answer = await send(exchange.operation, exchange.request.body);
      expect({ status: answer.status, body: answer.body }, exchange.file).toEqual({ status: exchange.response.status, body: exchange.response.body });
    }
    // What the recording leaves: the feature the deleted plan used, nothing else of what it deleted.
    const tables = fake.exportState(key).tenants[0]!.tables;
    expect(tables.features.map((feature) => feature.id)).toEqual(['ex4j7j2d_msgs']);
    expect({ plans: tables.plans, customers: tables.customers, records: tables.records, grants: tables.grants, programs: tables.referralPrograms, rewards: tables.rewards }).toEqual({
      plans: [],
      customers: [],
      records: [],
      grants: [],
      programs: [],
      rewards: [],
    });
  });

  it('[FEAT-DELETE-IN-USE] the feature a plan uses is deleted once the plan is (the order a cleanup follows)', async () => {
    const { send } = await recordedState();
    expect((await send('features.delete', { feature_id: 'ex4j7j2d_msgs' })).status).toBe(409);
    expect((await send('customers.delete', { customer_id: 'ex4j7j2d_cus' })).status).toBe(200);
    expect((await send('plans.delete', { plan_id: 'ex4j7j2d_free' })).status).toBe(200);
    // The reward still grants the feature; the reference does not count rewards as users of a feature.
    expect(await send('features.delete', { feature_id: 'ex4j7j2d_msgs' })).toEqual({ status: 200, body: { success: true } });
    expect((await send('features.get', { feature_id: 'ex4j7j2d_msgs' })).status).toBe(404);
  });

  it('[REF-REWARD-DELETE-LINKED] a reward a program links is refused, and deleted once the program is; a program can then no longer name it', async () => {
    const { send } = await recordedState();
    expect(await send('rewards.delete', { reward_id: 'ex4j7j2d_rw' })).toEqual({
      status: 400,
      body: { message: 'Reward ex4j7j2d_rw is linked to referral programs: ex4j7j2d_prog. Delete them first.', code: 'invalid_request', env: 'sandbox' },
    });
    expect((await send('referral_programs.delete', { referral_program_id: 'ex4j7j2d_prog' })).status).toBe(200);
    expect((await send('referral_programs.get', { referral_program_id: 'ex4j7j2d_prog' })).body).toMatchObject({ code: 'reward_program_not_found' });
    expect((await send('rewards.delete', { reward_id: 'ex4j7j2d_rw' })).status).toBe(200);
    const again = await send('referral_programs.create', { id: 'ex4j7j2d_prog2', reward_id: 'ex4j7j2d_rw', redeem_on: 'customer_creation', received_by: 'referrer' });
    expect(again).toMatchObject({ status: 404, body: { code: 'reward_not_found' } });
  });

  it('an unknown ID is answered 404 with the code of its kind; the strict deletes refuse other keys', async () => {
    const { send } = await recordedState();
    const codes = await Promise.all([
      send('customers.delete', { customer_id: 'nobody' }),
      send('plans.delete', { plan_id: 'nothing' }),
      send('features.delete', { feature_id: 'nothing' }),
      send('referral_programs.delete', { referral_program_id: 'nothing' }),
      send('rewards.delete', { reward_id: 'nothing' }),
    ]);
    expect(codes.map((answer) => [answer.status, (answer.body as { code: string }).code])).toEqual([
      [404, 'customer_not_found'],
      [404, 'product_not_found'],
      [404, 'feature_not_found'],
      [404, 'reward_program_not_found'],
      [404, 'reward_not_found'],
    ]);
    expect((await send('rewards.delete', { reward_id: 'ex4j7j2d_rw', id: 'x' })).status).toBe(400);
  });
});

describe('the delete operations in the domain', () => {
  const tenant = tenantPerTest(NOW, (ctx) => {
    createTestFeatures(ctx);
    callHandler(ctx, 'plans.create', { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'sso' }] });
    callHandler(ctx, 'plans.create', { plan_id: 'team', name: 'Team', licenses: [{ license_plan_id: 'seat', included: 2 }] });
    callHandler(ctx, 'plans.create', { plan_id: 'free', name: 'Free', items: [{ feature_id: 'messages', included: 10, reset: { interval: 'month' } }] });
  });

  it('[PLAN-DELETE] without all_versions only the latest version goes, and the one before becomes active again', () => {
    tenant.call('customers.get_or_create', { customer_id: 'c' });
    tenant.call('billing.attach', { customer_id: 'c', plan_id: 'free' });
    tenant.call('plans.update', { plan_id: 'free', items: [{ feature_id: 'messages', included: 20, reset: { interval: 'month' } }] });
    // Version 1 is held, version 2 is not: the latest version can go, the whole plan cannot.
    expect(domainErrorCode(() => tenant.call('plans.delete', { plan_id: 'free', all_versions: true }))).toBe('invalid_request');
    expect(tenant.call('plans.delete', { plan_id: 'free' })).toEqual({ success: true });
    expect(tenant.call('plans.get', { plan_id: 'free' })).toMatchObject({ version: 1, active: true });
    expect(domainErrorCode(() => tenant.call('plans.delete', { plan_id: 'free' }))).toBe('invalid_request');
    tenant.call('customers.delete', { customer_id: 'c' });
    expect(tenant.call('plans.delete', { plan_id: 'free', all_versions: true })).toEqual({ success: true });
    expect(domainErrorCode(() => tenant.call('plans.get', { plan_id: 'free' }))).toBe('product_not_found');
  });

  it('a plan another plan offers as a license, a feature an entity or a credit system uses, are refused as in use (409)', () => {
    const inUse = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        if (error instanceof DomainError) return [error.status, error.code];
      }
      return undefined;
    };
    expect(inUse(() => tenant.call('plans.delete', { plan_id: 'seat' }))).toEqual([409, 'invalid_request']);
    tenant.call('plans.delete', { plan_id: 'team' });
    expect(tenant.call('plans.delete', { plan_id: 'seat' })).toEqual({ success: true });
    tenant.call('features.create', { feature_id: 'credits', name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: 'messages', credit_cost: 1 }] });
    tenant.call('plans.delete', { plan_id: 'free' });
    expect(inUse(() => tenant.call('features.delete', { feature_id: 'messages' }))).toEqual([409, 'invalid_request']);
    tenant.call('features.delete', { feature_id: 'credits' });
    expect(tenant.call('features.delete', { feature_id: 'messages' })).toEqual({ success: true });
    tenant.call('entities.create', { customer_id: 'c', entity_id: 'e', feature_id: 'seats' });
    expect(inUse(() => tenant.call('features.delete', { feature_id: 'seats' }))).toEqual([409, 'invalid_request']);
    tenant.call('entities.delete', { customer_id: 'c', entity_id: 'e' });
    expect(tenant.call('features.delete', { feature_id: 'seats' })).toEqual({ success: true });
  });
});

describe('customers.delete', () => {
  it('[CUS-DELETE] removes every row the customer owns, and the snapshot left is one the fake loads again', async () => {
    const fake = createFakeApp({ now: NOW, frozen: true, validateResponses: true });
    const key = fake.keys[0]!.key;
    const call = async (operation: string, body: unknown) => {
      const response = await fake.fetch(new Request(`http://fake.invalid/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify(body) }));
      expect(response.status, `${operation} ${await response.clone().text()}`).toBe(200);
    };
    await call('features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true });
    await call('features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false });
    await call('features.create', { feature_id: 'sso', name: 'SSO', type: 'boolean' });
    await call('plans.create', { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'sso' }] });
    await call('plans.create', { plan_id: 'team', name: 'Team', group: 'team', licenses: [{ license_plan_id: 'seat', included: 2 }] });
    await call('plans.create', { plan_id: 'pro', name: 'Pro', price: { amount: 10, interval: 'month' }, items: [{ feature_id: 'messages', included: 10, reset: { interval: 'month' } }] });
    for (const customer of ['gone', 'kept']) {
      await call('customers.get_or_create', { customer_id: customer });
      await call('billing.attach', { customer_id: customer, plan_id: 'team' });
      await call('billing.attach', { customer_id: customer, plan_id: 'pro' });
      await call('entities.create', { customer_id: customer, entity_id: `${customer}_e`, feature_id: 'seats' });
      await call('licenses.attach', { customer_id: customer, plan_id: 'seat', entities: [{ entity_id: `${customer}_seat`, name: 'Seat', feature_id: 'seats' }] });
      await call('balances.track', { customer_id: customer, feature_id: 'messages', value: 2 });
      await call('balances.check', { customer_id: customer, feature_id: 'messages', required_balance: 1, lock: { lock_id: `${customer}_lock`, enabled: true } });
    }
    const before = fake.exportState(key).tenants[0]!.tables;
    await call('customers.delete', { customer_id: 'gone' });
    const after = fake.exportState(key);
    const tables = after.tenants[0]!.tables;
    const owned = (rows: readonly { customerId: string }[]) => rows.map((row) => row.customerId);
    for (const name of ['entities', 'records', 'grants', 'pools', 'assignments', 'processorSubscriptions', 'events', 'locks'] as const) {
      expect(owned(before[name]), name).toContain('gone');
      expect(owned(tables[name]), name).not.toContain('gone');
      expect(owned(tables[name]), name).toEqual(owned(before[name]).filter((customer) => customer !== 'gone'));
    }
    expect(tables.customers.map((row) => row.id)).toEqual(['kept']);
    // Nothing is due any more for what went: the grants' resets, the paid plan's billing period, the lock.
    const kept = new Set([...tables.records, ...tables.grants, ...tables.processorSubscriptions].map((row) => row.id).concat(tables.locks.map((row) => row.lockId)));
    expect(before.due.filter((entry) => !kept.has(entry.id)).length).toBeGreaterThan(0);
    expect(tables.due.filter((entry) => !kept.has(entry.id))).toEqual([]);
    // Loading validates that every row names rows the snapshot holds.
    expect(() => fake.importState(after)).not.toThrow();
    expect(fake.exportState(key)).toEqual(after);
  });
});
