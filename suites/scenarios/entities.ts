/**
 * Conformance scenarios of entities: `entities.list` (listing across the organisation, pages,
 * filters, hydration) and the setup calls `entities.create`, `entities.get`, `entities.delete`.
 *
 * The organisation is shared: other data exists, and other scenarios add entities while these run.
 * So every listing is bounded to this scenario's own data (its customers, its namespaced ids in
 * `search`, or its plans), and a walk of the whole organisation only looks for its own entities
 * among everything, never at a total.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Entity } from '../../spec/entities.ts';
import { EmbeddedSubscription } from '../../spec/listings.ts';
import type { Exchange } from '../framework/evidence.ts';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, licenseEntities, scenario, type Ops, type T } from '../support.ts';

type ListBody = z.input<Ops['entities.list']['request']>;
type ListedEntity = z.output<typeof Entity>;

/** The scenario's scope of the namespace, read off one of its ids: `<root>_<scope>` without `_<kind>_<n>`. */
function scopeOf(id: string): string {
  return id.replace(/_[a-zA-Z0-9]+_\d+$/, '');
}

async function listPage(t: T, body: ListBody) {
  return t.expectOk(await t.client.call('entities.list', body));
}

async function listIds(t: T, body: ListBody): Promise<string[]> {
  return (await listPage(t, body)).list.map((entity) => entity.id);
}

interface WalkOptions {
  readonly limit: number;
  /** Stops the walk early once this holds. */
  readonly until?: (seen: readonly ListedEntity[]) => boolean;
  /** The most pages the walk may take before next_cursor is null (default 1000). */
  readonly maxPages?: number;
}

/**
 * Follows next_cursor from the first page until it is null (or `until` holds); no entity may come
 * twice, no page may exceed its limit, and the walk must end within `maxPages`.
 */
async function walk(t: T, body: ListBody, options: WalkOptions): Promise<ListedEntity[]> {
  const { limit, maxPages = 1_000 } = options;
  const seen: ListedEntity[] = [];
  const ids = new Set<string>();
  const cursors = new Set<string>();
  let cursor = '';
  for (let pages = 1; ; pages++) {
    expect(pages, `a walk of entities.list ends on next_cursor null within ${maxPages} pages`).toBeLessThanOrEqual(maxPages);
    const page = await listPage(t, { ...body, limit, start_cursor: cursor });
    expect(page.list.length, `a page asked with limit ${limit} holds at most ${limit} entities`).toBeLessThanOrEqual(limit);
    for (const entity of page.list) {
      expect(ids.has(entity.id), `a walk of entities.list lists ${entity.id} once only`).toBe(false);
      ids.add(entity.id);
      seen.push(entity);
    }
    if (page.next_cursor === null || options.until?.(seen)) return seen;
    expect(cursors.has(page.next_cursor), `next_cursor moves on (${page.next_cursor} came back)`).toBe(false);
    cursors.add(page.next_cursor);
    cursor = page.next_cursor;
  }
}

/** Whether the entities seen so far include all of `ids`. */
function foundAll(ids: ReadonlySet<string>): (seen: readonly ListedEntity[]) => boolean {
  return (seen) => seen.filter((entity) => ids.has(entity.id)).length === ids.size;
}

/** The ids in the order entities.list gives: created_at, then id, descending (ids of one series, see sameSeries). */
function newestFirstIds(entities: readonly { id: string; created_at: number }[]): string[] {
  return [...entities].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1)).map((entity) => entity.id);
}

/** Whether two ids are of one series (`<scope>_<kind>_<n>` with the same scope and kind), so that any collation orders them alike. */
function sameSeries(a: string, b: string): boolean {
  return a.replace(/\d+$/, '') === b.replace(/\d+$/, '');
}

/** created_at never increases down the list; between this run's ids of one series created at the same time, ids descend. */
function expectNewestFirst(entities: readonly ListedEntity[], owned: (id: string) => boolean): void {
  for (let i = 1; i < entities.length; i++) {
    const [before, after] = [entities[i - 1]!, entities[i]!];
    expect(after.created_at, `entities.list is newest first: ${after.id} (created ${after.created_at}) comes after ${before.id} (created ${before.created_at})`).toBeLessThanOrEqual(before.created_at);
    if (after.created_at === before.created_at && owned(before.id) && owned(after.id) && sameSeries(before.id, after.id)) {
      expect(after.id < before.id, `entities created at the same time are listed by id descending: ${before.id} before ${after.id}`).toBe(true);
    }
  }
}

/** Exactly the documented fields of the embedded subscriptions of a listing, read from its raw JSON (the client's parse drops unknown keys). */
function expectEmbeddedFieldsOnly(listing: Exchange | undefined): void {
  const documented = Object.keys(EmbeddedSubscription.shape).sort();
  const body = listing?.response?.body as { list?: { id: string; subscriptions: Record<string, unknown>[] }[] } | undefined;
  expect(Array.isArray(body?.list), 'the raw entities.list answer is at hand (not truncated)').toBe(true);
  for (const entity of body!.list!) {
    for (const subscription of entity.subscriptions) {
      expect(Object.keys(subscription).sort(), `a subscription embedded in entity ${entity.id} carries ${documented.join(', ')} only`).toEqual(documented);
    }
  }
}

/** The feature seats are tied to, a metered feature with a monthly balance, and a flag. */
async function entityCatalogue(t: T) {
  return { seat: await createFeature(t, 'allocated'), messages: await createFeature(t, 'consumable'), flag: await createFeature(t, 'boolean') };
}

function planIds(entity: { subscriptions: readonly { plan_id: string }[] }): string[] {
  return entity.subscriptions.map((subscription) => subscription.plan_id);
}

/** Limits outside 1..5000 or not integers. */
const LIMITS_REFUSED: readonly number[] = [0, -1, 5001, 1.5, 4999.5];

export const entitiesScenarios = [
  scenario(
    {
      id: 'entities.create-get-hydration',
      title: 'entities.create and entities.get answer the entity with its own plans and those of its customer, with the balances both grant; entities.list shows the same',
      rules: ['ENT-CREATE', 'ENT-DETAIL-SHAPE', 'ENT-GET', 'ENT-OWN-PLANS-BALANCES', 'ENT-BALANCES-MAP', 'ENT-EMBEDDED-SUBSCRIPTION-FIELDS', 'ENT-LIST-SHAPE'],
    },
    async (t) => {
      const { seat, messages, flag } = await entityCatalogue(t);
      const base = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 100, reset: { interval: 'month' } }] });
      const extra = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 20, reset: { interval: 'month' } }, { feature_id: flag.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, base.id);

      const created = await createEntity(t, customer.id, seat.id, 'Front desk');
      expect(created, 'entities.create answers the entity it created').toMatchObject({ name: 'Front desk', customer_id: customer.id, feature_id: seat.id });
      expect(planIds(created), 'a new entity inherits its customer\'s plan').toContain(base.id);
      expect(created.balances[messages.id], 'a new entity shows the balance its customer\'s plan grants').toMatchObject({ feature_id: messages.id, granted: 100 });

      const sibling = await createEntity(t, customer.id, seat.id, 'Back office');
      await attach(t, customer.id, extra.id, { entity_id: created.id });

      const own = t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: created.id }));
      expect(own, 'entities.get answers the entity asked for').toMatchObject({ id: created.id, name: 'Front desk', customer_id: customer.id, feature_id: seat.id });
      expect(planIds(own), 'entities.get shows the entity\'s own plan and the plan it inherits').toEqual(expect.arrayContaining([base.id, extra.id]));
      expect(own.balances[messages.id], 'the balance stacks the entity\'s own grant on the inherited one').toMatchObject({ feature_id: messages.id, granted: 120, remaining: 120 });
      expect(own.flags[flag.id], 'the entity\'s own plan grants its flag').toMatchObject({ feature_id: flag.id });

      const other = t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: sibling.id }));
      expect(planIds(other), 'a sibling inherits the customer\'s plan').toContain(base.id);
      expect(planIds(other), 'a plan attached to one entity is not held by its sibling').not.toContain(extra.id);
      expect(other.balances[messages.id], 'the sibling\'s balance has the inherited grant only').toMatchObject({ granted: 100 });
      expect(other.flags[flag.id], 'the sibling has no flag from the other entity\'s plan').toBeUndefined();

      const allowed = async (entityId: string) =>
        t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, entity_id: entityId, feature_id: flag.id })).allowed;
      expect(await allowed(created.id), 'balances.check allows the flag to the entity that holds it').toBe(true);
      expect(await allowed(sibling.id), 'balances.check refuses the flag to its sibling').toBe(false);

      const listed = t.expectOk(await t.client.call('entities.list', { customer_id: customer.id }));
      expect(listed.list.map((e) => e.id).sort(), 'entities.list of the customer lists both entities').toEqual([created.id, sibling.id].sort());
      for (const entity of listed.list) {
        for (const [key, balance] of Object.entries(entity.balances)) expect(balance.feature_id, `balances of ${entity.id} are keyed by feature_id`).toBe(key);
      }
      const listedOwn = listed.list.find((e) => e.id === created.id)!;
      expect(listedOwn.balances[messages.id], 'entities.list shows the same balance as entities.get').toMatchObject({ granted: 120 });
      expect(planIds(listedOwn).sort(), 'entities.list shows the same plans as entities.get').toEqual(planIds(own).sort());

      expectEmbeddedFieldsOnly(t.evidence.at(-1));

      // A consumable feature cannot back an entity (reference): refused, and nothing is created.
      const refusedId = t.ns.id('ent');
      t.expectError(await t.client.call('entities.create', { customer_id: customer.id, entity_id: refusedId, feature_id: messages.id, name: 'Refused' }));
      t.expectError(await t.client.call('entities.get', { customer_id: customer.id, entity_id: refusedId }), { status: 404 });
    },
  ),

  scenario(
    {
      id: 'entities.create-duplicate',
      title: 'entities.create with an existing entity_id is refused with 409 entity_already_exists, and the entity stays as it was',
      rules: ['ENT-CREATE-DUPLICATE'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const owner = await createCustomer(t);
      const entity = await createEntity(t, owner.id, seat.id, 'Original');
      t.expectError(await t.client.call('entities.create', { customer_id: owner.id, entity_id: entity.id, feature_id: seat.id, name: 'Impostor' }), {
        status: 409,
        code: 'entity_already_exists',
      });
      const after = t.expectOk(await t.client.call('entities.get', { customer_id: owner.id, entity_id: entity.id }));
      expect(after, 'a refused duplicate leaves the entity as it was').toMatchObject({ id: entity.id, name: 'Original', customer_id: owner.id });
      expect(await listIds(t, { customer_id: owner.id }), 'a refused duplicate adds no entity').toEqual([entity.id]);
    },
  ),

  scenario(
    {
      id: 'entities.delete',
      title: 'entities.delete answers {success: true}; the entity is then gone from entities.get (404 entity_not_found) and entities.list, and a second delete is 404',
      rules: ['ENT-DELETE', 'ENT-DELETE-SHAPE', 'ERR-ENTITY-NOT-FOUND'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const doomed = await createEntity(t, customer.id, seat.id, 'Doomed');
      const kept = await createEntity(t, customer.id, seat.id, 'Kept');

      expect(t.expectOk(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id })), 'entities.delete answers {success: true}').toEqual({ success: true });
      t.expectError(await t.client.call('entities.get', { customer_id: customer.id, entity_id: doomed.id }), { status: 404, code: 'entity_not_found' });
      expect(await listIds(t, { customer_id: customer.id }), 'entities.list no longer lists a deleted entity').toEqual([kept.id]);
      t.expectError(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), { status: 404, code: 'entity_not_found' });

      const unknown = t.ns.id('ent');
      t.expectError(await t.client.call('entities.get', { customer_id: customer.id, entity_id: unknown }), { status: 404, code: 'entity_not_found' });
      t.expectError(await t.client.call('balances.check', { customer_id: customer.id, entity_id: unknown, feature_id: seat.id }), { status: 404, code: 'entity_not_found' });
      expect(t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: kept.id })).id, 'the other entity is untouched').toBe(kept.id);
    },
  ),

  scenario(
    {
      id: 'entities.list-customer-filter',
      title: 'entities.list with customer_id lists exactly that customer\'s entities (none for an unknown customer); without it, the entities of every customer; an empty customer_id is refused',
      rules: ['ENT-CUSTOMER-FILTER', 'ENT-CUSTOMER-ID-MIN-LENGTH', 'ENT-LIST-ACROSS-ORG'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const first = await createCustomer(t);
      const second = await createCustomer(t);
      const firstEntities = [await createEntity(t, first.id, seat.id), await createEntity(t, first.id, seat.id)].map((e) => e.id);
      const secondEntities = [(await createEntity(t, second.id, seat.id)).id];

      const ofFirst = await listPage(t, { customer_id: first.id });
      expect(ofFirst.list.map((e) => e.id).sort(), `customer_id ${first.id} lists exactly its entities`).toEqual([...firstEntities].sort());
      expect(ofFirst.list.every((e) => e.customer_id === first.id), 'every entity listed for a customer belongs to it').toBe(true);
      expect(await listIds(t, { customer_id: second.id }), `customer_id ${second.id} lists exactly its entity`).toEqual(secondEntities);
      expect(await listIds(t, { customer_id: t.ns.id('cus') }), 'a customer that does not exist has no entities').toEqual([]);

      t.expectError(await t.client.call('entities.list', { customer_id: '' }));

      const mine = new Set([...firstEntities, ...secondEntities]);
      const entities = await walk(t, {}, { limit: 100, until: foundAll(mine) });
      expect(entities.filter((e) => mine.has(e.id)).map((e) => e.id).sort(), 'entities.list without customer_id lists the entities of both customers').toEqual([...mine].sort());
    },
  ),

  scenario(
    {
      id: 'entities.list-walk',
      title: 'Walking entities.list page by page across the organisation finds this scenario\'s entities newest first, each once; a walk of one customer ends on a null next_cursor',
      rules: ['ENT-LIST-ACROSS-ORG', 'ENT-CURSOR-WALK', 'ENT-LIST-ORDER', 'ENT-LIST-SHAPE'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const first = await createCustomer(t);
      const second = await createCustomer(t);
      const created = [await createEntity(t, first.id, seat.id), await createEntity(t, second.id, seat.id), await createEntity(t, first.id, seat.id)];
      const mine = new Set(created.map((e) => e.id));

      // Across the organisation: small pages until this scenario's entities are all found, whatever else exists.
      const org = await walk(t, {}, { limit: 2, until: foundAll(mine) });
      const found = org.filter((e) => mine.has(e.id));
      expect(found.map((e) => e.id).sort(), 'a walk of the whole organisation finds the entities of both customers').toEqual([...mine].sort());
      expectNewestFirst(org, t.ns.owns);
      const newestFirst = newestFirstIds(created);
      expect(found.map((e) => e.id), 'this scenario\'s entities come newest first (created_at, then id, descending)').toEqual(newestFirst);

      // One customer's two entities, one or two per page: the walk visits each once and ends on a null cursor,
      // at most one page after they are all listed (for a target that ends on an empty page).
      for (const limit of [1, 2]) {
        const ofFirst = await walk(t, { customer_id: first.id }, { limit, maxPages: Math.ceil(2 / limit) + 1 });
        expect(ofFirst.map((e) => e.id), `a walk of ${first.id} with limit ${limit} lists its entities, newest first`).toEqual(newestFirst.filter((id) => id !== created[1]!.id));
      }
    },
  ),

  scenario(
    {
      id: 'entities.list-order-ties',
      title: 'Entities created at the same instant are listed by id descending, and a walk with limit 1 through them visits each once',
      rules: ['ENT-LIST-ORDER', 'ENT-CURSOR-WALK'],
      needs: ['control-plane'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const before = await t.control.call('clock.get', {});
      await t.control.call('clock.set', { frozen: true });
      const created: { id: string; created_at: number }[] = [];
      try {
        for (let n = 0; n < 4; n++) created.push(await createEntity(t, customer.id, seat.id));
      } finally {
        // The clock is the target's: give it back as it was found.
        if (!before.frozen) await t.control.call('clock.set', { frozen: false });
      }
      // Under the frozen clock all four share created_at (unless another run moved the clock meanwhile); ties go by id descending.
      const expected = newestFirstIds(created);
      const page = await listPage(t, { customer_id: customer.id });
      expect(page.list.map((e) => e.id), 'entities with the same created_at are listed by id descending').toEqual(expected);
      const walked = await walk(t, { customer_id: customer.id }, { limit: 1, maxPages: created.length + 1 });
      expect(walked.map((e) => e.id), 'a walk with limit 1 through entities of one instant visits each once, in order').toEqual(expected);
    },
  ),

  scenario(
    {
      id: 'entities.list-limits',
      title: 'entities.list pages hold 50 entities by default, from the newest (start_cursor omitted or ""); limit accepts 1 and 5000 and refuses 0, 5001 and non-integers',
      rules: ['ENT-LIMIT-DEFAULT', 'ENT-START-CURSOR-DEFAULT', 'ENT-LIMIT-BOUNDS'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const created = [];
      for (let n = 0; n < 51; n++) created.push(await createEntity(t, customer.id, seat.id, `Desk ${n}`));
      const [newest] = newestFirstIds(created);

      const first = await listPage(t, { customer_id: customer.id });
      expect(first.list, 'without limit, a page holds 50 entities (51 exist)').toHaveLength(50);
      expect(first.list[0]!.id, 'without start_cursor the list starts at the newest entity').toBe(newest);
      expect(first.next_cursor, 'one entity is left after the first page').not.toBeNull();
      const fromEmpty = await listPage(t, { customer_id: customer.id, start_cursor: '' });
      expect(fromEmpty.list.map((e) => e.id), 'start_cursor "" is the first page').toEqual(first.list.map((e) => e.id));
      const rest = await listPage(t, { customer_id: customer.id, start_cursor: first.next_cursor! });
      expect([...first.list, ...rest.list].map((e) => e.id).sort(), 'the two default pages list all 51 entities').toEqual(created.map((e) => e.id).sort());

      expect(await listIds(t, { customer_id: customer.id, limit: 1 }), 'limit 1 lists one entity, the newest').toEqual([newest]);
      const all = await listPage(t, { customer_id: customer.id, limit: 5000 });
      expect(all.list, 'limit 5000 lists all 51 entities').toHaveLength(51);
      expect(all.next_cursor, 'nothing is left after a page that holds everything').toBeNull();

      for (const limit of LIMITS_REFUSED) {
        const refused = await t.client.call('entities.list', { customer_id: customer.id, limit });
        expect(refused.ok, `limit ${limit} is outside 1..5000 (integers): expected an error, got ${refused.status}`).toBe(false);
        t.expectError(refused);
      }
    },
  ),

  scenario(
    {
      id: 'entities.list-search',
      title: 'entities.list search matches a case-insensitive substring of the entity id or name',
      rules: ['ENT-SEARCH', 'ENT-SEARCH-WIRE'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      // Name tokens found in no id: namespaced ids without their underscores, which every id keeps.
      const [northTag, southTag] = [t.ns.id('tag'), t.ns.id('tag')].map((tag) => tag.replace(/_/g, '').toUpperCase());
      const north = await createEntity(t, customer.id, seat.id, `North Wing ${northTag}`);
      const south = await createEntity(t, customer.id, seat.id, `South Wing ${southTag}`);
      const search = (text: string) => listIds(t, { customer_id: customer.id, search: text });

      expect(await search(northTag!), 'search matches a name').toEqual([north.id]);
      expect(await search(southTag!.toLowerCase()), 'search matches a name whatever the case').toEqual([south.id]);
      expect((await search('th wi')).sort(), 'search matches a substring of names').toEqual([north.id, south.id].sort());
      expect(await search(south.id), 'search matches an id').toEqual([south.id]);
      expect(await search(north.id.toUpperCase()), 'search matches an id whatever the case').toEqual([north.id]);
      expect(await search(`${northTag}${southTag}`), 'search matching nothing lists nothing').toEqual([]);

      const orgWide = await listIds(t, { search: northTag! });
      expect(orgWide, 'search without customer_id finds the entity across the organisation').toContain(north.id);
      expect(orgWide).not.toContain(south.id);
    },
  ),

  scenario(
    {
      id: 'entities.list-plan-filter',
      title: 'The plans filter of entities.list matches plans inherited from the customer and plans held by the entity itself (license seats included); several plans are OR-ed, each entity listed once',
      rules: ['ENT-PLAN-FILTER-INHERITED', 'ENT-PLAN-FILTER-DIRECT', 'ENT-PLANS-FILTER-WIRE'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const customerPlan = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const entityPlan = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 5, reset: { interval: 'month' } }] });
      const otherPlan = await createPlan(t, { group: t.ns.id('grp') });

      const first = await createCustomer(t);
      await attach(t, first.id, customerPlan.id);
      const holder = await createEntity(t, first.id, seat.id);
      const sibling = await createEntity(t, first.id, seat.id);
      await attach(t, first.id, entityPlan.id, { entity_id: holder.id });
      const second = await createCustomer(t);
      await attach(t, second.id, otherPlan.id);
      const outsider = await createEntity(t, second.id, seat.id);

      const matching = async (plans: ListBody['plans'], extra: ListBody = {}) => (await listIds(t, { plans, ...extra })).sort();
      expect(await matching([{ id: customerPlan.id }]), 'a plan held by the customer matches all its entities (inherited)').toEqual([holder.id, sibling.id].sort());
      expect(await matching([{ id: entityPlan.id }]), 'a plan attached to an entity matches that entity only').toEqual([holder.id]);
      expect(await matching([{ id: entityPlan.id }, { id: otherPlan.id }]), 'several plans are OR-ed').toEqual([holder.id, outsider.id].sort());
      expect(await matching([{ id: customerPlan.id }, { id: entityPlan.id }]), 'an entity matching several plans is listed once').toEqual([holder.id, sibling.id].sort());
      expect(await matching([{ id: customerPlan.id }], { customer_id: second.id }), 'the plans filter combines with customer_id').toEqual([]);

      // A license seat is a plan of the entity itself.
      const pool = await createLicensePool(t, 2);
      const [licensed] = licenseEntities(t, pool, 1);
      t.expectOk(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: [licensed!] }));
      expect(await matching([{ id: pool.licensePlan.id }]), 'an entity holding a license seat matches the license plan').toEqual([licensed!.entity_id]);
      expect(await matching([{ id: pool.parentPlan.id }]), 'it also matches the parent plan its customer holds').toEqual([licensed!.entity_id]);
    },
  ),

  scenario(
    {
      id: 'entities.list-plan-version',
      title: 'A plan filter with versions matches only entities on those versions of the plan',
      rules: ['ENT-PLAN-FILTER-VERSION', 'ENT-PLANS-FILTER-WIRE'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const plan = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const early = await createCustomer(t);
      await attach(t, early.id, plan.id);
      const onFirst = await createEntity(t, early.id, seat.id);

      const updated = t.expectOk(await t.client.call('plans.update', { plan_id: plan.id, items: [{ feature_id: messages.id, included: 20, reset: { interval: 'month' } }] }));
      expect(updated.version, 'changing the items of a held plan makes version 2').toBe(2);
      const late = await createCustomer(t);
      await attach(t, late.id, plan.id);
      const onSecond = await createEntity(t, late.id, seat.id);

      const matching = async (versions?: number[]) => (await listIds(t, { plans: [{ id: plan.id, ...(versions && { versions }) }] })).sort();
      expect(await matching([1]), 'versions [1] matches the entity whose customer is on version 1').toEqual([onFirst.id]);
      expect(await matching([2]), 'versions [2] matches the entity whose customer is on version 2').toEqual([onSecond.id]);
      expect(await matching([1, 2]), 'versions [1, 2] matches both').toEqual([onFirst.id, onSecond.id].sort());
      expect(await matching(), 'without versions any version matches').toEqual([onFirst.id, onSecond.id].sort());
      expect(await matching([3]), 'a version nobody holds matches nothing').toEqual([]);
    },
  ),

  scenario(
    {
      id: 'entities.list-statuses',
      title: 'statuses choose the plans entities.list hydrates and matches; by default active and scheduled ones',
      rules: ['ENT-STATUSES-DEFAULT', 'ENT-STATUSES-FILTER'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const active = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const scheduled = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      await attach(t, customer.id, active.id);
      await attach(t, customer.id, scheduled.id);
      const [record] = t.expectOk(await t.client.call('subscriptions.list', { customer_id: customer.id, plan_id: scheduled.id })).list;
      expect(record, `subscriptions.list shows the record of ${scheduled.id}`).toBeDefined();
      await t.control.call('records.force_state', { record_id: record!.id, state: 'scheduled' });
      const entity = await createEntity(t, customer.id, seat.id);

      const hydrated = async (statuses?: ('active' | 'scheduled')[]) => {
        const [listed] = (await listPage(t, { customer_id: customer.id, ...(statuses && { statuses }) })).list;
        expect(listed?.id, `statuses ${statuses?.join(',') ?? '(default)'} still lists the entity`).toBe(entity.id);
        return Object.fromEntries(listed!.subscriptions.filter((s) => [active.id, scheduled.id].includes(s.plan_id)).map((s) => [s.plan_id, s.status]));
      };
      expect(await hydrated(), 'by default, active and scheduled plans are hydrated').toEqual({ [active.id]: 'active', [scheduled.id]: 'scheduled' });
      expect(await hydrated(['active', 'scheduled']), 'statuses [active, scheduled] hydrates both').toEqual({ [active.id]: 'active', [scheduled.id]: 'scheduled' });
      expect(await hydrated(['active']), 'statuses [active] hydrates only the active plan').toEqual({ [active.id]: 'active' });
      expect(await hydrated(['scheduled']), 'statuses [scheduled] hydrates only the scheduled plan').toEqual({ [scheduled.id]: 'scheduled' });

      const matched = (planId: string, statuses?: ('active' | 'scheduled')[]) => listIds(t, { customer_id: customer.id, plans: [{ id: planId }], ...(statuses && { statuses }) });
      expect(await matched(scheduled.id), 'by default, a scheduled plan matches the plans filter').toEqual([entity.id]);
      expect(await matched(scheduled.id, ['scheduled']), 'with statuses [scheduled], a scheduled plan matches').toEqual([entity.id]);
      expect(await matched(scheduled.id, ['active']), 'with statuses [active], a scheduled plan does not match').toEqual([]);
      expect(await matched(active.id, ['scheduled']), 'with statuses [scheduled], an active plan does not match').toEqual([]);
    },
  ),

  scenario(
    {
      id: 'entities.list-statuses-enum',
      title: 'statuses of entities.list accepts active and scheduled only',
      rules: ['ENT-STATUSES-ENUM'],
      mutates: false,
    },
    async (t) => {
      // A customer id nobody has keeps the answers empty on a shared organisation.
      const customerId = t.ns.id('cus');
      for (const statuses of [['active'], ['scheduled'], ['active', 'scheduled']] as const) {
        expect(await listIds(t, { customer_id: customerId, statuses: [...statuses] }), `statuses [${statuses.join(', ')}] is accepted`).toEqual([]);
      }
      for (const statuses of [['expired'], ['past_due'], ['active', 'cancelled']]) {
        const refused = await t.client.call('entities.list', { customer_id: customerId, statuses: statuses as never });
        expect(refused.ok, `statuses [${statuses.join(', ')}] is outside active, scheduled: expected an error, got ${refused.status}`).toBe(false);
        t.expectError(refused);
      }
    },
  ),

  scenario(
    {
      id: 'entities.list-processors',
      title: 'The processors filter of entities.list lists the entities whose customer has one of the processors (OR-ed); a customer gets Stripe on its first attach',
      rules: ['ENT-PROCESSOR-FILTER', 'ENT-PROCESSORS-WIRE'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const free = await createPlan(t, { group: t.ns.id('grp') });
      const billed = await createCustomer(t);
      await attach(t, billed.id, free.id);
      const unbilled = await createCustomer(t);
      const billedEntity = await createEntity(t, billed.id, seat.id);
      const unbilledEntity = await createEntity(t, unbilled.id, seat.id);

      const stripeIdOf = async (customerId: string) => t.expectOk(await t.client.call('customers.get', { customer_id: customerId })).stripe_id;
      expect(await stripeIdOf(billed.id), 'a customer has a Stripe customer after its first attach').not.toBeNull();
      // Auto-enabled plans of a shared organisation may give the other customer Stripe too; expect what it has.
      const withStripe = [billedEntity.id, ...((await stripeIdOf(unbilled.id)) === null ? [] : [unbilledEntity.id])].sort();

      const scope = scopeOf(billedEntity.id);
      const matching = async (processors: ('stripe' | 'revenuecat' | 'vercel')[]) => (await listIds(t, { search: scope, processors })).sort();
      expect(await matching(['stripe']), 'processors [stripe] lists the entities whose customer has Stripe').toEqual(withStripe);
      expect(await matching(['revenuecat']), 'processors [revenuecat] lists none of these entities').toEqual([]);
      expect(await matching(['vercel']), 'processors [vercel] lists none of these entities').toEqual([]);
      expect(await matching(['revenuecat', 'stripe']), 'several processors are OR-ed').toEqual(withStripe);
      t.expectError(await t.client.call('entities.list', { search: scope, processors: ['paypal' as never] }));
    },
  ),
];
