/** The entities domain without a socket: inputs parsed by the spec's request schemas, handlers called directly. */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { EmbeddedSubscription } from '../../spec/listings.ts';
import { type OperationName, operations } from '../../spec/operations.ts';
import { testSeed } from '../../fixtures/random.ts';
import type { DomainContext, OutputOf } from './context.ts';
import { forceState } from './lifecycle.ts';
import { callHandler, createTestFeatures, domainErrorCode as errorCode, testContext } from './testing.ts';

const NOW = 1_795_328_341_817;
let ctx: DomainContext;

function call<N extends OperationName>(name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
  return callHandler(ctx, name, body);
}

function list(body: z.input<(typeof operations)['entities.list']['request']> = {}) {
  return call('entities.list', body);
}

function ids(body: z.input<(typeof operations)['entities.list']['request']> = {}): string[] {
  return list(body).list.map((entity) => entity.id);
}

function customer(customerId: string): void {
  call('customers.get_or_create', { customer_id: customerId });
}

function entity(customerId: string, entityId: string, name: string | null = null) {
  return call('entities.create', { customer_id: customerId, entity_id: entityId, feature_id: 'seats', name });
}

/** The id of the record `customerId` (or its entity) holds of `planId`. */
function recordOf(customerId: string, planId: string, entityId: string | null = null): string {
  const record = ctx.store.recordsOf(customerId).find((r) => r.planId === planId && r.entityId === entityId);
  if (record === undefined) throw new Error(`${customerId} holds no ${planId}`);
  return record.id;
}

function seedCatalogue(): void {
  createTestFeatures(ctx);
  call('plans.create', { plan_id: 'team', name: 'Team', group: 'main', items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }] });
  call('plans.create', { plan_id: 'extra', name: 'Extra', add_on: true, items: [{ feature_id: 'messages', included: 20, reset: { interval: 'month' } }, { feature_id: 'sso' }] });
}

beforeEach(() => {
  ctx = testContext(NOW);
  seedCatalogue();
});

describe('entities.create, entities.get, entities.delete', () => {
  it('[ENT-CREATE, ENT-DETAIL-SHAPE] creates the entity under its customer (creating a missing customer) and answers it', () => {
    const created = entity('cus_a', 'ent_1', 'Alpha');
    expect(created).toMatchObject({ id: 'ent_1', name: 'Alpha', customer_id: 'cus_a', feature_id: 'seats', created_at: NOW, env: 'sandbox', flags: {}, billing_controls: {} });
    expect(ctx.store.customers.has('cus_a')).toBe(true);
    expect(operations['entities.get'].response.safeParse(call('entities.get', { customer_id: 'cus_a', entity_id: 'ent_1' })).success).toBe(true);
  });

  it('[ENT-CREATE-DUPLICATE] refuses an existing entity id, under any customer, and leaves the entity as it was', () => {
    entity('cus_a', 'ent_1', 'Alpha');
    expect(errorCode(() => entity('cus_a', 'ent_1', 'Renamed'))).toBe('entity_already_exists');
    expect(errorCode(() => entity('cus_b', 'ent_1', 'Elsewhere'))).toBe('entity_already_exists');
    expect(call('entities.get', { entity_id: 'ent_1' })).toMatchObject({ name: 'Alpha', customer_id: 'cus_a' });
  });

  it('[ENT-CREATE] refuses a consumable or unknown feature and creates nothing', () => {
    expect(errorCode(() => call('entities.create', { customer_id: 'cus_a', entity_id: 'ent_1', feature_id: 'messages' }))).toBe('invalid_request');
    expect(errorCode(() => call('entities.create', { customer_id: 'cus_a', entity_id: 'ent_1', feature_id: 'nope' }))).toBe('feature_not_found');
    expect(ctx.store.entities.size).toBe(0);
    expect(ctx.store.customers.has('cus_a'), 'a refused call does not create the missing customer either').toBe(false);
  });

  it('[ENT-GET, ENT-OWN-PLANS-BALANCES, ENT-BALANCES-MAP] an entity shows its own plans and those of its customer, with the balances both grant', () => {
    customer('cus_a');
    call('billing.attach', { customer_id: 'cus_a', plan_id: 'team' });
    entity('cus_a', 'ent_1');
    entity('cus_a', 'ent_2');
    call('billing.attach', { customer_id: 'cus_a', entity_id: 'ent_1', plan_id: 'extra' });

    const own = call('entities.get', { customer_id: 'cus_a', entity_id: 'ent_1' });
    expect(own.subscriptions.map((s) => s.plan_id)).toEqual(['extra', 'team']);
    expect(own.balances['messages']).toMatchObject({ feature_id: 'messages', granted: 120, remaining: 120 });
    expect(own.flags['sso']).toMatchObject({ feature_id: 'sso', plan_id: 'extra' });

    const sibling = call('entities.get', { customer_id: 'cus_a', entity_id: 'ent_2' });
    expect(sibling.subscriptions.map((s) => s.plan_id)).toEqual(['team']);
    expect(sibling.balances['messages']).toMatchObject({ granted: 100 });
    expect(sibling.flags).toEqual({});
    for (const [key, balance] of Object.entries(own.balances)) expect(balance.feature_id).toBe(key);
  });

  it('[ENT-EMBEDDED-SUBSCRIPTION-FIELDS] an embedded subscription carries exactly the documented fields', () => {
    customer('cus_a');
    call('billing.attach', { customer_id: 'cus_a', plan_id: 'team' });
    entity('cus_a', 'ent_1');
    const [subscription] = list().list[0]!.subscriptions;
    expect(Object.keys(subscription!).sort()).toEqual(Object.keys(EmbeddedSubscription.shape).sort());
  });

  it('[ERR-ENTITY-NOT-FOUND] get and delete answer entity_not_found for an unknown entity or one of another customer', () => {
    entity('cus_a', 'ent_1');
    customer('cus_b');
    expect(errorCode(() => call('entities.get', { customer_id: 'cus_a', entity_id: 'nope' }))).toBe('entity_not_found');
    expect(errorCode(() => call('entities.get', { customer_id: 'cus_b', entity_id: 'ent_1' }))).toBe('entity_not_found');
    expect(errorCode(() => call('entities.delete', { customer_id: 'cus_b', entity_id: 'ent_1' }))).toBe('entity_not_found');
    expect(ctx.store.entities.has('ent_1')).toBe(true);
  });

  it('[ENT-DELETE, ENT-DELETE-SHAPE] delete removes the entity, ends its own plans and gives its seat back', () => {
    call('plans.create', { plan_id: 'seats', name: 'Seats', group: 'seats', items: [{ feature_id: 'seats', included: 5 }] });
    customer('cus_a');
    call('billing.attach', { customer_id: 'cus_a', plan_id: 'seats' });
    entity('cus_a', 'ent_1');
    call('billing.attach', { customer_id: 'cus_a', entity_id: 'ent_1', plan_id: 'extra' });
    expect(call('customers.get', { customer_id: 'cus_a' }).balances['seats']).toMatchObject({ usage: 1 });

    expect(call('entities.delete', { customer_id: 'cus_a', entity_id: 'ent_1' })).toEqual({ success: true });
    expect(errorCode(() => call('entities.get', { entity_id: 'ent_1' }))).toBe('entity_not_found');
    expect(ids({ customer_id: 'cus_a' })).toEqual([]);
    expect(ctx.store.records.get(recordOf('cus_a', 'extra', 'ent_1'))!.status).toBe('expired');
    expect(call('customers.get', { customer_id: 'cus_a' }).balances['seats']).toMatchObject({ usage: 0 });
    expect(errorCode(() => call('entities.delete', { entity_id: 'ent_1' }))).toBe('entity_not_found');
  });

  it('deleting an entity licenses.attach created gives back nothing, since it took no unit of the customer\'s seats', () => {
    call('plans.create', { plan_id: 'seat', name: 'Seat' });
    call('plans.create', { plan_id: 'seats', name: 'Seats', group: 'seats', items: [{ feature_id: 'seats', included: 5 }], licenses: [{ license_plan_id: 'seat', included: 2 }] });
    customer('cus_a');
    call('billing.attach', { customer_id: 'cus_a', plan_id: 'seats' });
    entity('cus_a', 'ent_1');
    call('licenses.attach', { customer_id: 'cus_a', plan_id: 'seat', entities: [{ entity_id: 'lic_1', name: 'Licensed', feature_id: 'seats' }] });
    expect(call('customers.get', { customer_id: 'cus_a' }).balances['seats']).toMatchObject({ usage: 1 });
    call('entities.delete', { customer_id: 'cus_a', entity_id: 'lic_1' });
    expect(call('customers.get', { customer_id: 'cus_a' }).balances['seats'], 'ent_1 still holds its unit').toMatchObject({ usage: 1 });
    call('entities.delete', { customer_id: 'cus_a', entity_id: 'ent_1' });
    expect(call('customers.get', { customer_id: 'cus_a' }).balances['seats']).toMatchObject({ usage: 0 });
  });
});

describe('entities.list filters', () => {
  beforeEach(() => {
    // cus_a: team (customer level), ent_a1 also holds extra itself; cus_b: nothing attached.
    customer('cus_a');
    call('billing.attach', { customer_id: 'cus_a', plan_id: 'team' });
    entity('cus_a', 'ent_a1', 'Alpha Room');
    entity('cus_a', 'ent_a2', 'Beta Room');
    call('billing.attach', { customer_id: 'cus_a', entity_id: 'ent_a1', plan_id: 'extra' });
    entity('cus_b', 'ent_b1', 'Gamma Desk');
  });

  it('[ENT-LIST-ACROSS-ORG, ENT-CUSTOMER-FILTER] lists every customer\'s entities, or one customer\'s; an unknown customer has none', () => {
    expect(ids()).toEqual(['ent_b1', 'ent_a2', 'ent_a1']);
    expect(ids({ customer_id: 'cus_a' })).toEqual(['ent_a2', 'ent_a1']);
    expect(ids({ customer_id: 'nobody' })).toEqual([]);
  });

  it('[ENT-SEARCH, ENT-SEARCH-WIRE] search is a case-insensitive substring of the id or the name', () => {
    expect(ids({ search: 'ROOM' })).toEqual(['ent_a2', 'ent_a1']);
    expect(ids({ search: 'ent_B' })).toEqual(['ent_b1']);
    expect(ids({ search: '  desk ' })).toEqual(['ent_b1']);
    expect(ids({ search: 'zzz' })).toEqual([]);
  });

  it('[ENT-PLAN-FILTER-INHERITED, ENT-PLAN-FILTER-DIRECT, ENT-PLANS-FILTER-WIRE] plans match inherited and own plans, OR-ed, each entity once', () => {
    expect(ids({ plans: [{ id: 'team' }] })).toEqual(['ent_a2', 'ent_a1']);
    expect(ids({ plans: [{ id: 'extra' }] })).toEqual(['ent_a1']);
    expect(ids({ plans: [{ id: 'extra' }, { id: 'team' }] })).toEqual(['ent_a2', 'ent_a1']);
    expect(ids({ plans: [{ id: 'unknown' }] })).toEqual([]);
    expect(ids({ plans: [{ id: 'team' }], search: 'alpha' })).toEqual(['ent_a1']);
  });

  it('[ENT-PLAN-FILTER-VERSION] versions restrict to the plan versions held', () => {
    call('plans.update', { plan_id: 'team', items: [{ feature_id: 'messages', included: 200, reset: { interval: 'month' } }] });
    call('billing.attach', { customer_id: 'cus_b', plan_id: 'team' });
    expect(ids({ plans: [{ id: 'team', versions: [1] }] })).toEqual(['ent_a2', 'ent_a1']);
    expect(ids({ plans: [{ id: 'team', versions: [2] }] })).toEqual(['ent_b1']);
    expect(ids({ plans: [{ id: 'team', versions: [1, 2] }] })).toEqual(['ent_b1', 'ent_a2', 'ent_a1']);
    expect(ids({ plans: [{ id: 'team', versions: [3] }] })).toEqual([]);
  });

  it('[ENT-STATUSES-DEFAULT, ENT-STATUSES-FILTER] statuses pick the records hydrated and matched; the default takes active and scheduled', () => {
    forceState(ctx, recordOf('cus_a', 'extra', 'ent_a1'), 'scheduled');
    const hydrated = (statuses?: ('active' | 'scheduled')[]) =>
      list({ customer_id: 'cus_a', search: 'alpha', ...(statuses && { statuses }) }).list[0]!.subscriptions.map((s) => `${s.plan_id}:${s.status}`);
    expect(hydrated()).toEqual(['extra:scheduled', 'team:active']);
    expect(hydrated(['active'])).toEqual(['team:active']);
    expect(hydrated(['scheduled'])).toEqual(['extra:scheduled']);
    // A scheduled plan grants nothing.
    expect(list({ customer_id: 'cus_a', search: 'alpha' }).list[0]!.balances['messages']).toMatchObject({ granted: 100 });
    expect(ids({ plans: [{ id: 'extra' }] })).toEqual(['ent_a1']);
    expect(ids({ plans: [{ id: 'extra' }], statuses: ['active'] })).toEqual([]);
    expect(ids({ plans: [{ id: 'team' }], statuses: ['scheduled'] })).toEqual([]);
  });

  it('[ENT-PROCESSOR-FILTER, ENT-PROCESSORS-WIRE] processors match customers with that processor, OR-ed; only stripe is simulated', () => {
    expect(ids({ processors: ['stripe'] })).toEqual(['ent_a2', 'ent_a1']);
    expect(ids({ processors: ['revenuecat', 'stripe'] })).toEqual(['ent_a2', 'ent_a1']);
    expect(ids({ processors: ['revenuecat', 'vercel'] })).toEqual([]);
  });
});

describe('entities.list order and pages', () => {
  it('[ENT-LIST-ORDER] orders by created_at descending, then id descending for rows created at the same time', () => {
    entity('cus_a', 'ent_b');
    entity('cus_a', 'ent_c');
    entity('cus_a', 'ent_a');
    ctx.clock.advance(1);
    entity('cus_a', 'ent_0');
    expect(ids()).toEqual(['ent_0', 'ent_c', 'ent_b', 'ent_a']);
  });

  it('[ENT-LIMIT-DEFAULT, ENT-START-CURSOR-DEFAULT] 50 by default from the first page, whether start_cursor is omitted or ""', () => {
    for (let n = 0; n < 51; n++) entity('cus_a', `ent_${String(n).padStart(2, '0')}`);
    const first = list();
    expect(first.list).toHaveLength(50);
    expect(first.list[0]!.id).toBe('ent_50');
    expect(list({ start_cursor: '' })).toEqual(first);
    const second = list({ start_cursor: first.next_cursor! });
    expect(second.list.map((e) => e.id)).toEqual(['ent_00']);
    expect(second.next_cursor).toBeNull();
  });

  it('[ENT-CURSOR-WALK] next_cursor is null when the rows left do not pass the filters', () => {
    entity('cus_a', 'ent_x2', 'match');
    entity('cus_a', 'ent_x1', 'other');
    const page = list({ search: 'match', limit: 1 });
    expect(page.list.map((e) => e.id)).toEqual(['ent_x2']);
    expect(page.next_cursor).toBeNull();
  });

  it('[ENT-CURSOR-WALK, ENT-LIST-ORDER] walking with any limit and filter visits every matching entity once, newest first, in full pages', () => {
    const arbitraryEntities = fc.uniqueArray(
      fc.record({ id: fc.stringMatching(/^[a-z0-9]{1,4}$/), customer: fc.constantFrom('cus_a', 'cus_b'), name: fc.constantFrom('red', 'blue', null), tick: fc.boolean() }),
      { selector: (e) => e.id, maxLength: 25 },
    );
    const arbitraryFilter = fc.record({ customer_id: fc.option(fc.constantFrom('cus_a', 'cus_b'), { nil: undefined }), search: fc.option(fc.constantFrom('red', 'e', '1'), { nil: undefined }) });
    fc.assert(
      fc.property(arbitraryEntities, arbitraryFilter, fc.integer({ min: 1, max: 7 }), (rows, filter, limit) => {
        ctx = testContext(NOW);
        seedCatalogue();
        const created: { id: string; t: number; customer: string; name: string | null }[] = [];
        for (const row of rows) {
          if (row.tick) ctx.clock.advance(1);
          entity(row.customer, row.id, row.name);
          created.push({ id: row.id, t: ctx.clock.now(), customer: row.customer, name: row.name });
        }
        const body = { ...(filter.customer_id && { customer_id: filter.customer_id }), ...(filter.search && { search: filter.search }) };
        const expected = created
          .filter((e) => filter.customer_id === undefined || e.customer === filter.customer_id)
          .filter((e) => filter.search === undefined || e.id.includes(filter.search) || (e.name ?? '').includes(filter.search))
          .sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : -1))
          .map((e) => e.id);

        const walked: string[] = [];
        let cursor = '';
        for (let pages = 0; ; pages++) {
          expect(pages).toBeLessThanOrEqual(expected.length);
          const page = list({ ...body, limit, start_cursor: cursor });
          walked.push(...page.list.map((e) => e.id));
          if (page.next_cursor === null) break;
          expect(page.list).toHaveLength(limit);
          cursor = page.next_cursor;
        }
        expect(walked).toEqual(expected);
      }),
      { seed: testSeed(), numRuns: 60 },
    );
  });

  it('[ENT-CURSOR-WALK] a cursor names a position: rows deleted or added meanwhile neither repeat nor hide the others', () => {
    for (const id of ['ent_1', 'ent_2', 'ent_3', 'ent_4']) {
      entity('cus_a', id);
      ctx.clock.advance(1);
    }
    const first = list({ limit: 2 });
    expect(first.list.map((e) => e.id)).toEqual(['ent_4', 'ent_3']);
    call('entities.delete', { entity_id: 'ent_3' });
    entity('cus_a', 'ent_5');
    expect(ids({ limit: 2, start_cursor: first.next_cursor! })).toEqual(['ent_2', 'ent_1']);
  });

  it.each([
    ['limit 0', { limit: 0 }],
    ['limit 5001', { limit: 5001 }],
    ['limit 1.5', { limit: 1.5 }],
    ['customer_id ""', { customer_id: '' }],
    ['statuses [expired]', { statuses: ['expired'] }],
    ['statuses [past_due]', { statuses: ['past_due'] }],
  ])('[ENT-LIMIT-BOUNDS, ENT-CUSTOMER-ID-MIN-LENGTH, ENT-STATUSES-ENUM] the request schema refuses %s', (_case, body) => {
    expect(operations['entities.list'].request.safeParse(body).success).toBe(false);
  });

  it('[ENT-LIMIT-BOUNDS] the request schema accepts limits 1 and 5000', () => {
    expect(operations['entities.list'].request.parse({ limit: 1 }).limit).toBe(1);
    expect(operations['entities.list'].request.parse({ limit: 5000 }).limit).toBe(5000);
  });
});
