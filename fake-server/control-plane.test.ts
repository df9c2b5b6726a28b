/**
 * Tenants for parallel test files and state snapshots, through the control plane over HTTP and
 * in-process: every control call acts on the caller's tenant only [AUTH-TENANT-ISOLATION].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeApp, createFakeServer, type FakeServer, FakeControlError } from './index.ts';

const T0 = Date.UTC(2026, 0, 15);
const DAY = 86_400_000;
const ADMIN_KEY = 'admin-secret-for-tests-0123456789';

let fake: FakeServer;
beforeAll(async () => {
  fake = await createFakeServer({ now: T0, frozen: true, validateResponses: true, adminKey: ADMIN_KEY, maxTenants: 20 });
});
afterAll(() => fake.close());

async function call(path: string, body: unknown, key: string) {
  const response = await fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A tenant with a feature, a plan, a customer holding it, an entity, usage and a pending lock: most tables hold a row. */
async function populate(key: string): Promise<void> {
  const calls: [string, unknown][] = [
    ['features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true }],
    ['features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false }],
    ['features.create', { feature_id: 'flag', name: 'Flag', type: 'boolean' }],
    ['plans.create', { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'flag' }] }],
    ['plans.create', { plan_id: 'pro', name: 'Pro', price: { amount: 10, interval: 'month' }, items: [{ feature_id: 'messages', included: 10, reset: { interval: 'month' } }], licenses: [{ license_plan_id: 'seat', included: 2 }] }],
    ['customers.get_or_create', { customer_id: 'acme', name: 'Acme' }],
    ['billing.attach', { customer_id: 'acme', plan_id: 'pro' }],
    ['licenses.attach', { customer_id: 'acme', plan_id: 'seat', entities: [{ entity_id: 'seat1', name: 'Seat 1', feature_id: 'seats' }] }],
    ['balances.track', { customer_id: 'acme', feature_id: 'messages', value: 3 }],
    ['balances.check', { customer_id: 'acme', feature_id: 'messages', required_balance: 1, lock: { enabled: true, lock_id: 'hold', expires_at: T0 + 10 * DAY } }],
    ['rewards.create', { feature_grant: { id: 'bonus', name: 'Bonus', grants: [{ feature_id: 'messages', included: 5, expiry: null }], promo_codes: [{ code: 'B5', max_uses: 10 }] } }],
    ['referral_programs.create', { id: 'friends', reward_id: 'bonus', redeem_on: 'customer_creation', received_by: 'referrer' }],
  ];
  for (const [operation, body] of calls) expect((await call(`/v1/${operation}`, body, key)).status, operation).toBe(200);
}

describe('tenants.create: one organisation per test file [AUTH-TENANT-ISOLATION]', () => {
  it('gives fresh keys whose data, clock and reset are their own', async () => {
    const a = await fake.control().createTenant();
    const b = await fake.control().createTenant();
    expect(a.sandboxKey).not.toBe(b.sandboxKey);
    await call('/v1/customers.get_or_create', { customer_id: 'same' }, a.sandboxKey);
    await call('/v1/customers.get_or_create', { customer_id: 'same', name: 'B' }, b.sandboxKey);
    await a.control.advance(10 * DAY);
    expect(await a.control.now()).toBe(T0 + 10 * DAY);
    expect(await b.control.now(), "advancing one tenant's clock leaves another's").toBe(T0);
    await a.control.reset();
    expect(await a.control.now(), 'reset brings the clock back').toBe(T0);
    expect((await call('/v1/customers.get', { customer_id: 'same' }, a.sandboxKey)).status).toBe(404);
    expect((await call('/v1/customers.get', { customer_id: 'same' }, b.sandboxKey)).body).toMatchObject({ name: 'B' });
    await a.control.deleteTenant();
    await b.control.deleteTenant();
    expect((await call('/v1/customers.get', { customer_id: 'same' }, b.sandboxKey)).status, 'a deleted tenant\'s key stops working').toBe(401);
  });

  it("never lets one organisation's key reset, import into, export or read another's", async () => {
    const a = await fake.control().createTenant();
    const b = await fake.control().createTenant();
    await populate(b.sandboxKey);
    const before = JSON.stringify(fake.exportState(b.sandboxKey));
    const ownSnapshot = await a.control.call('state.export', {});
    const foreign = { ...ownSnapshot, tenants: (fake.exportState(b.sandboxKey).tenants as unknown[]).map((entry) => ({ ...(entry as object), tables: (ownSnapshot.tenants[0] as { tables: unknown }).tables })) };
    expect(await call('/_fake/state.import', foreign, a.sandboxKey)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    for (const [path, body] of [
      ['/_fake/reset', { all: true }],
      ['/_fake/state.export', { all: true }],
    ] as const) {
      expect(await call(path, body, a.sandboxKey), path).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    }
    await a.control.reset();
    await a.control.advance(DAY);
    expect((await a.control.call('events.list', {})).list).toEqual([]);
    expect(JSON.stringify(fake.exportState(b.sandboxKey)), "b's state is untouched").toBe(before);
    await a.control.deleteTenant();
    await b.control.deleteTenant();
  });

  it('two tenants resetting before every step, side by side, never see each other (issue 11, item 11)', async () => {
    const tenants = [await fake.control().createTenant(), await fake.control().createTenant()];
    const failures: string[] = [];
    await Promise.all(
      tenants.map(async (tenant, n) => {
        for (let round = 0; round < 20; round++) {
          await tenant.control.reset();
          const steps: [string, unknown][] = [
            ['features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true }],
            ['plans.create', { plan_id: 'pro', name: 'Pro', items: [{ feature_id: 'messages', included: 10, reset: { interval: 'month' } }] }],
            ['customers.get_or_create', { customer_id: 'acme' }],
            ['billing.attach', { customer_id: 'acme', plan_id: 'pro' }],
            ['balances.track', { customer_id: 'acme', feature_id: 'messages', value: n + 1 }],
          ];
          for (const [operation, body] of steps) {
            const answer = await call(`/v1/${operation}`, body, tenant.sandboxKey);
            if (answer.status !== 200) failures.push(`tenant ${n}, round ${round}, ${operation}: ${answer.status} ${String(answer.body['code'])}`);
          }
          await tenant.control.advance(DAY);
          if ((await tenant.control.now()) !== T0 + DAY) failures.push(`tenant ${n}, round ${round}: the clock is not its own`);
        }
      }),
    );
    expect(failures).toEqual([]);
    for (const tenant of tenants) await tenant.control.deleteTenant();
  }, 60_000);

  it('refuses to delete a configured organisation, and more created organisations than the cap', async () => {
    expect(await call('/_fake/tenants.delete', {}, fake.apiKey)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    const created: { control: { deleteTenant(): Promise<void> } }[] = [];
    let refused: unknown;
    while (refused === undefined && created.length <= 20) {
      await fake.control().createTenant().then((tenant) => created.push(tenant), (error: unknown) => (refused = error));
    }
    expect(refused).toBeInstanceOf(FakeControlError);
    expect((refused as FakeControlError).message).toMatch(/holds 20 created organisations/);
    for (const tenant of created) await tenant.control.deleteTenant();
  });

  it('the admin key resets and exports every tenant, and acts on no tenant of its own', async () => {
    const tenant = fake.tenant();
    await call('/v1/customers.get_or_create', { customer_id: 'x' }, tenant.apiKey);
    expect((await call('/_fake/state.export', { all: true }, ADMIN_KEY)).status).toBe(200);
    expect(await call('/_fake/clock.get', {}, ADMIN_KEY)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect(await call('/_fake/reset', { all: true }, ADMIN_KEY)).toEqual({ status: 200, body: { success: true } });
    expect((await call('/v1/customers.get', { customer_id: 'x' }, tenant.apiKey)).status).toBe(404);
    tenant.delete();
  });
});

describe('state snapshots', () => {
  it('export → import → export gives the same bytes, through HTTP and in-process', async () => {
    const tenant = fake.tenant();
    await populate(tenant.apiKey);
    await tenant.control.advance(2 * DAY);
    const exported = await tenant.control.call('state.export', {});
    const due = (exported.tenants[0] as { tables: { due: { at: number; kind: string }[] } }).tables.due;
    expect(due.map(({ kind }) => kind).sort(), 'what is still to fall due: the lock expiry, the monthly reset and period end').toEqual(['billing.period_end', 'grant.reset', 'lock.expire']);
    expect(due.map(({ at }) => at), 'in the order it falls due').toEqual(due.map(({ at }) => at).sort((a, b) => a - b));
    const text = JSON.stringify(exported);
    await tenant.control.reset();
    expect((await call('/v1/customers.get', { customer_id: 'acme' }, tenant.apiKey)).status).toBe(404);
    expect(await tenant.control.call('state.import', exported)).toEqual({ success: true });
    expect(JSON.stringify(await tenant.control.call('state.export', {}))).toBe(text);
    expect((await call('/v1/customers.get', { customer_id: 'acme' }, tenant.apiKey)).status).toBe(200);
    expect(await tenant.control.now()).toBe(T0 + 2 * DAY);
    // The imported state behaves like the original: the lock is still pending and can be confirmed.
    expect((await call('/v1/balances.finalize', { lock_id: 'hold', action: 'confirm' }, tenant.apiKey)).status).toBe(200);
    tenant.delete();
  });

  it('refuses a bad snapshot naming the bad path, and changes nothing', async () => {
    const tenant = fake.tenant();
    await populate(tenant.apiKey);
    const good = tenant.exportState();
    const before = JSON.stringify(good);
    const bad = structuredClone(good) as unknown as { tenants: { tables: { customers: { createdAt: unknown }[] } }[] };
    bad.tenants[0]!.tables.customers[0]!.createdAt = 'yesterday';
    const refused = await call('/_fake/state.import', bad, tenant.apiKey);
    expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
    expect(String(refused.body['message'])).toContain('tenants.0.tables.customers.0.createdAt');
    expect(() => fake.importState({ format: 'besi-fake-state', version: 2, tenants: [] })).toThrow(/version/);
    const dangling = structuredClone(good) as unknown as { tenants: { tables: { records: { planVersion: number }[] } }[] };
    dangling.tenants[0]!.tables.records[0]!.planVersion = 99;
    expect(() => fake.importState(dangling), 'a row naming what the snapshot lacks').toThrow(/tenants\.0\.tables\.records\.0\.planVersion: names version 99 of plan pro/);
    expect(JSON.stringify(tenant.exportState())).toBe(before);
    tenant.delete();
  });

  it('a snapshot seeds a fake: its tenants start, and reset, in the saved state', async () => {
    const source = createFakeApp({ now: T0, frozen: true });
    await source.fetch(new Request('http://fake/v1/customers.get_or_create', { method: 'POST', headers: { authorization: `Bearer ${source.keys[0]!.key}` }, body: JSON.stringify({ customer_id: 'saved' }) }));
    source.clock.advance(DAY);
    const snapshot = source.exportState();
    const seeded = createFakeApp({ seed: snapshot });
    expect(JSON.stringify(seeded.exportState())).toBe(JSON.stringify(snapshot));
    seeded.clock.advance(5 * DAY);
    seeded.reset();
    expect(JSON.stringify(seeded.exportState())).toBe(JSON.stringify(snapshot));
  });
});
