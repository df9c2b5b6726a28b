/**
 * The view texts entities.list and balances.check reuse are never stale: after any sequence of calls
 * (every kind of write, clock moves, forced states, resets, imports, reads in between), each listing
 * and each check answers exactly what the domain computes afresh from the data, and the texts were
 * really reused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../fixtures/random.ts';
import { operations } from '../spec/operations.ts';
import { createControlPlane } from './control-plane.ts';
import { check } from './domain/balances.ts';
import { DomainError } from './domain/context.ts';
import { listEntities } from './domain/entities.ts';
import { handlers, textHandlers } from './domain/handlers.ts';
import { ViewTexts } from './domain/view-texts.ts';
import { createRouter } from './router.ts';
import { type SeedCall, tenantStates } from './tenant-states.ts';
import { DEFAULT_KEYS, Tenants } from './tenants.ts';

const KEY = DEFAULT_KEYS[0]!.key;
const T0 = Date.UTC(2026, 0, 31, 12);
const HOUR = 3_600_000;
const CUSTOMERS = ['c1', 'c2'] as const;
const ENTITIES = ['e0', 'e1', 'e2', 'e3', 'e4'] as const;

/** The start state, replayed on every reset: plans of every kind, customers, entities that hold and use some of them. */
const SETUP: SeedCall[] = [
  { operation: 'features.create', body: { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false } },
  { operation: 'features.create', body: { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true } },
  { operation: 'features.create', body: { feature_id: 'sso', name: 'SSO', type: 'boolean' } },
  { operation: 'plans.create', body: { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'messages', included: 3, reset: { interval: 'day' } }] } },
  {
    operation: 'plans.create',
    body: {
      plan_id: 'base', name: 'Base', group: 'main',
      items: [{ feature_id: 'seats', included: 3 }, { feature_id: 'messages', included: 100, reset: { interval: 'month' } }, { feature_id: 'sso' }],
      licenses: [{ license_plan_id: 'seat', included: 2 }],
    },
  },
  { operation: 'plans.create', body: { plan_id: 'pro', name: 'Pro', group: 'main', price: { amount: 20, interval: 'month' }, free_trial: { duration_length: 3, duration_type: 'day', card_required: false }, items: [{ feature_id: 'messages', included: 500, reset: { interval: 'week' } }] } },
  { operation: 'plans.create', body: { plan_id: 'boost', name: 'Boost', add_on: true, items: [{ feature_id: 'messages', included: 10, reset: { interval: 'day' } }] } },
  ...CUSTOMERS.map((customer_id): SeedCall => ({ operation: 'customers.get_or_create', body: { customer_id } })),
  { operation: 'billing.attach', body: { customer_id: 'c1', plan_id: 'base' } },
  { operation: 'entities.create', body: { customer_id: 'c1', entity_id: 'e0', feature_id: 'seats', name: 'E0' } },
  { operation: 'entities.create', body: { customer_id: 'c2', entity_id: 'e1', feature_id: 'seats' } },
  { operation: 'billing.attach', body: { customer_id: 'c2', entity_id: 'e1', plan_id: 'boost' } },
  { operation: 'balances.track', body: { customer_id: 'c1', entity_id: 'e0', feature_id: 'messages', value: 7 } },
  { operation: 'balances.track', body: { customer_id: 'c2', entity_id: 'e1', feature_id: 'messages', value: 4 } },
];

/** The app's parts, wired as createFakeApp wires them, with the tenant at hand. */
function fake() {
  const tenants = new Tenants(DEFAULT_KEYS, { clock: { now: T0, frozen: true }, idSeed: 3 });
  const states = tenantStates({ tenants, configuredKeys: DEFAULT_KEYS, handlers, seed: SETUP });
  const route = createRouter({ tenants, handlers, textHandlers, faults: [], validateResponses: false });
  const control = createControlPlane({ tenants, bodyLimit: 1 << 20, faultRules: [], states });
  const head = (path: string) => ({ method: 'POST', path, header: (name: string) => (name === 'authorization' ? `Bearer ${KEY}` : null) });
  states.reset();
  return {
    tenant: () => tenants.open(KEY)!,
    states,
    call(operation: string, body: unknown) {
      return route(head(`/v1/${operation}`), { ok: true, text: JSON.stringify(body) });
    },
    async control(name: string, body: unknown) {
      const response = await control(new Request(`http://fake.invalid/_fake/${name}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) }));
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  };
}

type Fake = ReturnType<typeof fake>;

const customer = fc.constantFrom(...CUSTOMERS);
const entity = fc.constantFrom(...ENTITIES);
const holder = fc.record({ customer_id: customer, entity_id: fc.option(entity, { nil: undefined }) });

/** One step: a call that may change data (through the router or the control plane), or one that only reads. */
const step = fc.oneof(
  fc.record({ customer_id: customer, entity_id: entity, feature_id: fc.constant('seats'), name: fc.constantFrom('A', 'B') }).map((body) => ['entities.create', body] as const),
  fc.record({ customer_id: customer, entity_id: entity }).map((body) => ['entities.delete', body] as const),
  // A deleted customer takes its entities and records along; it comes back empty.
  fc.record({ customer_id: customer }).map((body) => ['customers.delete', body] as const),
  fc.record({ customer_id: customer }).map((body) => ['customers.get_or_create', body] as const),
  fc.record({ holder, plan_id: fc.constantFrom('base', 'pro', 'boost') }).map(({ holder, plan_id }) => ['billing.attach', { ...holder, plan_id }] as const),
  fc.record({ holder, required_balance: fc.integer({ min: 1, max: 40 }) }).map(({ holder, required_balance }) => ['balances.check', { ...holder, feature_id: 'messages', required_balance, send_event: true }] as const),
  fc.record({ holder, value: fc.integer({ min: -5, max: 60 }) }).map(({ holder, value }) => ['balances.track', { ...holder, feature_id: 'messages', value }] as const),
  fc.record({ customer_id: customer, entity_id: entity }).map(({ customer_id, entity_id }) => ['licenses.attach', { customer_id, plan_id: 'seat', entities: [{ entity_id, feature_id: 'seats' }] }] as const),
  fc.record({ customer_id: customer, entity_id: entity }).map(({ customer_id, entity_id }) => ['licenses.release', { customer_id, license_plan_id: 'seat', entity_ids: [entity_id] }] as const),
  fc.record({ plan_id: fc.constantFrom('boost', 'pro'), add_on: fc.boolean() }).map((body) => ['plans.update', body] as const),
  fc.record({ plan_id: fc.constantFrom('seat', 'boost'), included: fc.integer({ min: 1, max: 9 }) }).map(({ plan_id, included }) => ['plans.update', { plan_id, items: [{ feature_id: 'messages', included, reset: { interval: 'day' } }] }] as const),
  fc.record({ holder }).map(({ holder }) => ['balances.check', { ...holder, feature_id: 'messages' }] as const),
  fc.record({ customer_id: customer, entity_id: entity }).map((body) => ['entities.get', body] as const),
  fc.constant(['subscriptions.list', { limit: 50 }] as const),
  fc.integer({ min: 1, max: 40 * 24 }).map((hours) => ['control:clock.advance', { ms: hours * HOUR }] as const),
  fc.record({ pick: fc.nat(), state: fc.constantFrom('past_due', 'active', 'expired', 'scheduled') }).map((body) => ['control:records.force_state', body] as const),
  fc.constant(['control:reset', {}] as const),
  fc.constant(['control:state.export', {}] as const),
  fc.constant(['control:state.import', {}] as const),
  // In-process, as FakeServer offers them: the clock moved without a call (what falls due runs at the next call), reset and import.
  fc.integer({ min: 1, max: 40 * 24 }).map((hours) => ['in-process:clock.advance', { ms: hours * HOUR }] as const),
  fc.constant(['in-process:reset', {}] as const),
  fc.constant(['in-process:import', {}] as const),
);

/** The listings compared after every step: per customer and across them, by status, a short page and the next one. */
const LISTINGS: Record<string, unknown>[] = [
  { limit: 200 },
  { customer_id: 'c1', limit: 200 },
  { customer_id: 'c2', limit: 200, statuses: ['scheduled'] },
  { statuses: ['active'], limit: 2 },
];

/** Runs a step; the fake may refuse it (an entity that does not exist, a pool without seats): only what it changes matters. */
async function run(app: Fake, [name, body]: readonly [string, unknown], saved: { snapshot?: unknown }): Promise<void> {
  if (name === 'in-process:clock.advance') {
    app.tenant().clock.advance((body as { ms: number }).ms);
    return;
  }
  if (name === 'in-process:reset') return app.states.resetTenant(KEY);
  if (name === 'in-process:import') return saved.snapshot === undefined ? undefined : app.states.importState(saved.snapshot);
  if (!name.startsWith('control:')) {
    app.call(name, body);
    return;
  }
  const call = name.slice('control:'.length);
  if (call === 'records.force_state') {
    const { pick, state } = body as { pick: number; state: string };
    const ids = [...app.tenant().store.records.keys()];
    if (ids.length > 0) await app.control(call, { record_id: ids[pick % ids.length], state });
  } else if (call === 'state.export') {
    saved.snapshot = (await app.control(call, {})).body;
  } else if (call === 'state.import') {
    if (saved.snapshot !== undefined) expect((await app.control(call, saved.snapshot)).status).toBe(200);
  } else {
    await app.control(call, body);
  }
}

/** Checks that use no units, compared after every step: of customers and entities, a metered feature and a flag, with a preview. */
const CHECKS: Record<string, unknown>[] = [
  { customer_id: 'c1', feature_id: 'messages', required_balance: 5 },
  { customer_id: 'c1', entity_id: 'e0', feature_id: 'messages' },
  { customer_id: 'c2', entity_id: 'e1', feature_id: 'messages', required_balance: 30, with_preview: true },
  { customer_id: 'c2', feature_id: 'sso', with_preview: true },
];

/** The domain's answer to a check, computed afresh, as the router would send it: its JSON, or its error code. */
function freshCheck(app: Fake, body: Record<string, unknown>): string {
  try {
    return JSON.stringify(check(app.tenant(), operations['balances.check'].request.parse(body)));
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

/** Each listing and check, through the router twice (the second time from the texts), against the domain's answer computed afresh. */
function expectFresh(app: Fake): void {
  for (const body of CHECKS) {
    const answers = [app.call('balances.check', body), app.call('balances.check', body)];
    // Computed after the router's first call, which ran what fell due since the last step.
    const fresh = freshCheck(app, body);
    for (const [i, answer] of answers.entries()) {
      expect(answer.status === 200 ? answer.body : (JSON.parse(answer.body) as { code: string }).code, `${JSON.stringify(body)}${i === 0 ? '' : ', read again'}`).toBe(fresh);
    }
  }
  for (const body of LISTINGS) {
    const first = JSON.parse(app.call('entities.list', body).body) as { next_cursor: string | null };
    const pages = first.next_cursor === null ? [body] : [body, { ...body, start_cursor: first.next_cursor }];
    for (const page of pages) {
      const fresh = JSON.stringify(listEntities(app.tenant(), operations['entities.list'].request.parse(page)));
      expect(app.call('entities.list', page).body, JSON.stringify(page)).toBe(fresh);
      expect(app.call('entities.list', page).body, `${JSON.stringify(page)}, read again`).toBe(fresh);
    }
  }
}

describe('entities.list view texts', () => {
  it('answer what the data shows now, after any sequence of writes, clock moves, forced states, resets and imports (property)', { timeout: 180_000 }, async () => {
    let hits = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const app = fake();
        const saved: { snapshot?: unknown } = {};
        expectFresh(app);
        for (const s of steps) {
          await run(app, s, saved);
          expectFresh(app);
        }
        hits += app.tenant().viewTexts.hits;
      }),
      { seed: testSeed(), numRuns: 40 },
    );
    expect(hits, 'the listings were answered from the texts, not only computed').toBeGreaterThan(0);
  });
});

describe('ViewTexts', () => {
  it('computes a text once, keeps it by group and id, and forgets everything on clear', () => {
    const texts = new ViewTexts();
    let computed = 0;
    const compute = () => `"${++computed}"`;
    expect(texts.textOf('g', 'a', compute)).toBe('"1"');
    expect(texts.textOf('g', 'a', compute)).toBe('"1"');
    expect(texts.textOf('other', 'a', compute), 'another group is another view').toBe('"2"');
    expect(texts.hits).toBe(1);
    texts.clear();
    expect(texts.textOf('g', 'a', compute)).toBe('"3"');
  });

  it('holds a bounded amount of text: past the bound it starts over', () => {
    const texts = new ViewTexts();
    const big = 'x'.repeat(20 * 1024 * 1024);
    texts.textOf('g', 'a', () => big);
    texts.textOf('g', 'b', () => big);
    let recomputed = false;
    texts.textOf('g', 'a', () => {
      recomputed = true;
      return big;
    });
    expect(recomputed, 'the first text was dropped to make room for the second').toBe(true);
  });
});
