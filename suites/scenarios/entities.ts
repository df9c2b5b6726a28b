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
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, scenario, type Ops, type T } from '../support.ts';

type ListBody = z.input<Ops['entities.list']['request']>;
type ListedEntity = z.output<typeof Entity>;

type Rule = Parameters<T['check']>[0];

/** Runs `assertion` as a check of `rule`, or as a precondition when the scenario does not carry the rule it belongs to. */
function checkAs(t: T, rule: Rule | undefined, what: string, assertion: () => void): void {
  if (rule !== undefined && t.scenario.rules.includes(rule)) t.check(rule, assertion);
  else t.precondition(what, assertion);
}

/**
 * One page of entities.list: with `rule`, being answered is that rule's; without, a setup read. A
 * page asked for one customer must hold that customer's entities only: ENT-CUSTOMER-FILTER's check
 * in the scenario that proves it, a premise everywhere else (so that its fault blocks them).
 */
async function listPage(t: T, body: ListBody, rule?: Rule) {
  const result = await t.client.call('entities.list', body);
  const page = rule === undefined ? t.setup(result, ['list']) : t.expectOk(result, rule);
  const customerId = body.customer_id;
  if (customerId !== undefined && customerId !== '' && !t.scenario.rules.includes('ENT-CUSTOMER-FILTER')) {
    t.precondition(`entities.list with customer_id ${customerId} lists that customer's entities only`, () =>
      expect((page.list ?? []).filter((entity) => entity.customer_id !== customerId).map((entity) => entity.id)).toEqual([]),
    );
  }
  return page;
}

/** The page's next_cursor is there (a string or null) before a walk follows it: a missing one is ENT-LIST-SHAPE's FAIL, recorded by the client. */
function requireNextCursor(t: T, page: { next_cursor?: string | null }): void {
  t.precondition('entities.list answers next_cursor (a string or null)', () => expect(page.next_cursor === null || typeof page.next_cursor === 'string').toBe(true));
}

/** The customer's entities as entities.list shows them, by id (a setup read; the customer filter is a premise). */
async function entitiesById(t: T, customerId: string): Promise<Map<string, ListedEntity>> {
  return new Map((await listPage(t, { customer_id: customerId, limit: 100 })).list.map((entity) => [entity.id, entity]));
}

/** Creates an entity (setup) and requires that it was created with its name: names are ENT-CREATE's, which a scenario matching or comparing names rests on. */
async function namedEntity(t: T, customerId: string, featureId: string, name: string) {
  const entity = await createEntity(t, customerId, featureId, name);
  t.precondition(`entities.create gave ${entity.id} its name`, () => expect(entity.name).toBe(name));
  return entity;
}

async function listIds(t: T, body: ListBody, rule?: Rule): Promise<string[]> {
  return ((await listPage(t, body, rule)).list ?? []).map((entity) => entity.id);
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
 * twice, no page may exceed its limit, and the walk must end within `maxPages`: ENT-CURSOR-WALK's
 * checks where the scenario carries it, preconditions otherwise.
 */
async function walk(t: T, body: ListBody, options: WalkOptions): Promise<ListedEntity[]> {
  const { limit, maxPages = 1_000 } = options;
  const seen: ListedEntity[] = [];
  const ids = new Set<string>();
  const cursors = new Set<string>();
  // The first page is asked without start_cursor: an explicit "" is ENT-START-CURSOR-DEFAULT's, proven in entities.list-limits.
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    checkAs(t, 'ENT-CURSOR-WALK', 'a walk of entities.list ends', () => expect(pages, `a walk of entities.list ends on next_cursor null within ${maxPages} pages`).toBeLessThanOrEqual(maxPages));
    const page = await listPage(t, { ...body, limit, ...(cursor !== undefined && { start_cursor: cursor }) });
    requireNextCursor(t, page);
    checkAs(t, 'ENT-CURSOR-WALK', 'pages of a walk are well-formed', () => {
      expect(page.list.length, `a page asked with limit ${limit} holds at most ${limit} entities`).toBeLessThanOrEqual(limit);
      for (const entity of page.list) expect(ids.has(entity.id), `a walk of entities.list lists ${entity.id} once only`).toBe(false);
    });
    for (const entity of page.list) {
      ids.add(entity.id);
      seen.push(entity);
    }
    if (page.next_cursor === null || options.until?.(seen)) return seen;
    checkAs(t, 'ENT-CURSOR-WALK', 'next_cursor moves on', () => expect(cursors.has(page.next_cursor!), `next_cursor moves on (${page.next_cursor} came back)`).toBe(false));
    cursors.add(page.next_cursor);
    cursor = page.next_cursor;
  }
}

/**
 * Before an error's code is checked: the error came in the documented body (a top-level `code`), or
 * the body is ERR-BODY-SHAPE's FAIL, a premise here. Nothing to require when the call was accepted:
 * that fails the rule expecting the refusal.
 */
function requireErrorBody(t: T, result: { readonly ok: boolean; readonly body?: unknown }): void {
  if (result.ok) return;
  t.precondition('the error answer has the documented body {message, code, env}', () => expect(typeof (result.body as { code?: unknown } | null)?.code).toBe('string'));
}

/** `t.expectError` of a refusal with its code, after requireErrorBody. */
function expectCodedError(t: T, result: Parameters<T['expectError']>[0], expected: Parameters<T['expectError']>[1]): void {
  requireErrorBody(t, result);
  t.expectError(result, expected);
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

/** created_at never increases down the list; between this run's ids of one series created at the same time, ids descend. Assert inside ENT-LIST-ORDER's check. */
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
function expectEmbeddedFieldsOnly(t: T, listing: Exchange | undefined): void {
  const documented = Object.keys(EmbeddedSubscription.shape).sort();
  const body = listing?.response?.body as { list?: { id: string; subscriptions: Record<string, unknown>[] }[] } | undefined;
  t.precondition('the raw entities.list answer is at hand (not truncated)', () => expect(Array.isArray(body?.list)).toBe(true));
  t.check('ENT-EMBEDDED-SUBSCRIPTION-FIELDS', () => {
    for (const entity of body!.list!) {
      for (const subscription of entity.subscriptions ?? []) {
        expect(Object.keys(subscription).sort(), `a subscription embedded in entity ${entity.id} carries ${documented.join(', ')} only`).toEqual(documented);
      }
    }
  });
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

      const createdId = t.ns.id('ent');
      const created = t.expectOk(await t.client.call('entities.create', { customer_id: customer.id, entity_id: createdId, feature_id: seat.id, name: 'Front desk' }), 'ENT-CREATE');
      t.check('ENT-CREATE', () => {
        // feature_id is left out of the reference's answer (exchange 037): compared only when present.
        expect({ ...created, feature_id: created.feature_id ?? seat.id }, 'entities.create answers the entity it created').toMatchObject({ id: createdId, name: 'Front desk', customer_id: customer.id, feature_id: seat.id });
        expect(planIds(created), "a new entity inherits its customer's plan").toContain(base.id);
        // Found by its feature_id, not by its key: how the map is keyed is ENT-BALANCES-MAP's.
        const balance = Object.values(created.balances ?? {}).find((b) => b.feature_id === messages.id);
        expect(balance, "a new entity shows the balance its customer's plan grants").toMatchObject({ granted: 100 });
      });

      const sibling = await createEntity(t, customer.id, seat.id, 'Back office');
      await attach(t, customer.id, extra.id, { entity_id: created.id });

      const listed = t.expectOk(await t.client.call('entities.list', { customer_id: customer.id }), 'ENT-LIST-SHAPE');
      expectEmbeddedFieldsOnly(t, t.evidence.findLast((e) => e.label === 'entities.list'));
      t.precondition('entities.list of the customer lists both entities', () => expect(listed.list.map((e) => e.id).sort()).toEqual([created.id, sibling.id].sort()));
      const listedOwn = listed.list.find((e) => e.id === created.id)!;
      const listedSibling = listed.list.find((e) => e.id === sibling.id)!;
      // Which entity the attach gave the plan to is BILL-ATTACH-ENTITY's; balances and the rest build on it.
      t.precondition(`billing.attach with entity_id gave ${extra.id} to ${created.id} only`, () => {
        expect(planIds(listedOwn)).toContain(extra.id);
        expect(planIds(listedSibling)).not.toContain(extra.id);
      });
      t.check('ENT-BALANCES-MAP', () => {
        for (const entity of listed.list) {
          for (const [key, balance] of Object.entries(entity.balances ?? {})) expect(balance.feature_id, `balances of ${entity.id} are keyed by feature_id`).toBe(key);
        }
      });
      t.check('ENT-OWN-PLANS-BALANCES', () => {
        expect(planIds(listedOwn), "entities.list shows the entity's own plan and the one it inherits").toEqual(expect.arrayContaining([base.id, extra.id]));
        expect(listedOwn.balances?.[messages.id], "the entity's balance stacks its own grant on the inherited one").toMatchObject({ granted: 120 });
        expect(planIds(listedSibling), "the sibling inherits the customer's plan").toContain(base.id);
        expect(listedSibling.balances?.[messages.id], "the sibling's balance has the inherited grant only").toMatchObject({ granted: 100 });
      });

      // entities.get answers each entity as entities.list shows it (what it holds is ENT-OWN-PLANS-BALANCES's, above).
      const own = t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: created.id }), 'ENT-GET');
      const other = t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: sibling.id }), 'ENT-GET');
      t.check('ENT-GET', () => {
        for (const [got, asListed] of [[own, listedOwn], [other, listedSibling]] as const) {
          expect(got, 'entities.get answers the entity asked for').toMatchObject({ id: asListed.id, name: asListed.name, customer_id: customer.id });
          expect(planIds(got).sort(), `entities.get shows the plans of ${asListed.id} that entities.list shows`).toEqual(planIds(asListed).sort());
          expect(got.balances, `entities.get shows the balances of ${asListed.id} that entities.list shows`).toEqual(asListed.balances);
        }
      });
      // flags are ENT-DETAIL-SHAPE's field: what they hold is read only when they are there.
      t.precondition('entities.get answers flags', () => expect([own.flags, other.flags].every((flags) => typeof flags === 'object' && flags !== null)).toBe(true));
      t.check('ENT-GET', () => {
        expect(own.flags[flag.id], "the entity's own plan grants its flag").toBeDefined();
        expect(other.flags[flag.id], "the sibling has no flag from the other entity's plan").toBeUndefined();
      });

      // A consumable feature cannot back an entity (reference): refused, and nothing is created.
      const refusedId = t.ns.id('ent');
      t.expectError(await t.client.call('entities.create', { customer_id: customer.id, entity_id: refusedId, feature_id: messages.id, name: 'Refused' }), { rule: 'ENT-CREATE' });
      const after = await entitiesById(t, customer.id);
      t.check('ENT-CREATE', () => expect([...after.keys()].sort(), 'a refused entities.create creates no entity').toEqual([created.id, sibling.id].sort()));
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
      const entity = await namedEntity(t, owner.id, seat.id, 'Original');
      expectCodedError(t, await t.client.call('entities.create', { customer_id: owner.id, entity_id: entity.id, feature_id: seat.id, name: 'Impostor' }), {
        status: 409,
        code: 'entity_already_exists',
      });
      const after = t.setup(await t.client.call('entities.get', { customer_id: owner.id, entity_id: entity.id }));
      const listed = await listIds(t, { customer_id: owner.id });
      t.check('ENT-CREATE-DUPLICATE', () => {
        expect(after, 'a refused duplicate leaves the entity as it was').toMatchObject({ id: entity.id, name: 'Original', customer_id: owner.id });
        expect(listed, 'a refused duplicate adds no entity').toEqual([entity.id]);
      });
    },
  ),

  scenario(
    {
      id: 'entities.delete',
      title: 'entities.delete deletes the entity: it is then gone from entities.get (404 entity_not_found) and entities.list (neither its own plan nor search finds it), and a second delete is 404',
      rules: ['ENT-DELETE', 'ENT-DELETE-SHAPE', 'ERR-ENTITY-NOT-FOUND'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const doomed = await createEntity(t, customer.id, seat.id, 'Doomed');
      const kept = await createEntity(t, customer.id, seat.id, 'Kept');
      // The doomed entity holds a plan of its own; before the delete, the plan filter and search find it (premises, other rules').
      const ownPlan = await createPlan(t, { add_on: true });
      await attach(t, customer.id, ownPlan.id, { entity_id: doomed.id });
      const byOwnPlan = () => listIds(t, { customer_id: customer.id, plans: [{ id: ownPlan.id }] });
      const bySearch = () => listIds(t, { customer_id: customer.id, search: doomed.id });
      const [planBefore, searchBefore] = [await byOwnPlan(), await bySearch()];
      t.precondition(`before the delete, the plan filter and search find ${doomed.id}`, () => {
        expect(planBefore).toEqual([doomed.id]);
        expect(searchBefore).toEqual([doomed.id]);
      });

      // The answer's shape ({success: true}) is ENT-DELETE-SHAPE's, checked by the client.
      t.expectOk(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), 'ENT-DELETE');
      const gone = await t.client.call('entities.get', { customer_id: customer.id, entity_id: doomed.id });
      t.check('ENT-DELETE', () => expect(gone.ok, 'entities.get no longer finds a deleted entity').toBe(false));
      expectCodedError(t, gone, { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const listed = await listIds(t, { customer_id: customer.id });
      const [planAfter, searchAfter] = [await byOwnPlan(), await bySearch()];
      t.check('ENT-DELETE', () => {
        expect(listed, 'entities.list no longer lists a deleted entity').toEqual([kept.id]);
        expect(planAfter, 'a deleted entity is not matched by the plan it held').toEqual([]);
        expect(searchAfter, 'a deleted entity is not found by its id').toEqual([]);
      });
      expectCodedError(t, await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });

      const unknown = t.ns.id('ent');
      expectCodedError(t, await t.client.call('entities.get', { customer_id: customer.id, entity_id: unknown }), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const checked = await t.client.call('balances.check', { customer_id: customer.id, entity_id: unknown, feature_id: seat.id });
      // That a check names an entity at all is CHECK-ENTITY-SCOPED's; the error it answers for an unknown one is this rule's.
      t.precondition('balances.check with an unknown entity_id is refused', () => expect(checked.ok).toBe(false));
      expectCodedError(t, checked, { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const untouched = t.setup(await t.client.call('entities.get', { customer_id: customer.id, entity_id: kept.id }));
      t.check('ENT-DELETE', () => expect(untouched.id, 'the other entity is untouched').toBe(kept.id));
    },
  ),

  scenario(
    {
      id: 'entities.list-customer-filter',
      title: "entities.list with customer_id lists exactly that customer's entities (none for an unknown customer); without it, the entities of every customer; an empty customer_id is refused",
      rules: ['ENT-CUSTOMER-FILTER', 'ENT-CUSTOMER-ID-MIN-LENGTH', 'ENT-LIST-ACROSS-ORG'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const first = await createCustomer(t);
      const second = await createCustomer(t);
      const firstEntities = [await createEntity(t, first.id, seat.id), await createEntity(t, first.id, seat.id)].map((e) => e.id);
      const secondEntities = [(await createEntity(t, second.id, seat.id)).id];

      const ofFirst = await listPage(t, { customer_id: first.id }, 'ENT-CUSTOMER-FILTER');
      const ofSecond = await listIds(t, { customer_id: second.id }, 'ENT-CUSTOMER-FILTER');
      const ofNobody = await listIds(t, { customer_id: t.ns.id('cus') }, 'ENT-CUSTOMER-FILTER');
      t.check('ENT-CUSTOMER-FILTER', () => {
        expect(ofFirst.list.map((e) => e.id).sort(), `customer_id ${first.id} lists exactly its entities`).toEqual([...firstEntities].sort());
        expect(ofFirst.list.every((e) => e.customer_id === first.id), 'every entity listed for a customer belongs to it').toBe(true);
        expect(ofSecond, `customer_id ${second.id} lists exactly its entity`).toEqual(secondEntities);
        expect(ofNobody, 'a customer that does not exist has no entities').toEqual([]);
      });

      t.expectError(await t.client.call('entities.list', { customer_id: '' }), { rule: 'ENT-CUSTOMER-ID-MIN-LENGTH' });

      const mine = new Set([...firstEntities, ...secondEntities]);
      const entities = await walk(t, {}, { limit: 100, until: foundAll(mine) });
      t.check('ENT-LIST-ACROSS-ORG', () =>
        expect(entities.filter((e) => mine.has(e.id)).map((e) => e.id).sort(), 'entities.list without customer_id lists the entities of both customers').toEqual([...mine].sort()),
      );
    },
  ),

  scenario(
    {
      id: 'entities.list-walk',
      title: "Walking entities.list page by page across the organisation finds this scenario's entities, each once (newest first); a walk of one customer ends on a null next_cursor",
      rules: ['ENT-LIST-ACROSS-ORG', 'ENT-CURSOR-WALK', 'ENT-LIST-ORDER', 'ENT-LIST-SHAPE'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const first = await createCustomer(t);
      const second = await createCustomer(t);
      const created = [await createEntity(t, first.id, seat.id), await createEntity(t, second.id, seat.id), await createEntity(t, first.id, seat.id)];
      const mine = new Set(created.map((e) => e.id));

      const newestFirst = newestFirstIds(created);

      // One customer's two entities, one or two per page: the walk visits each once and ends on a null cursor,
      // at most one page after they are all listed (for a target that ends on an empty page). First, so
      // that a broken walk fails ENT-CURSOR-WALK here before the organisation-wide walk relies on it.
      const ofFirstIds = newestFirst.filter((id) => id !== created[1]!.id);
      for (const limit of [1, 2]) {
        const ofFirst = await walk(t, { customer_id: first.id }, { limit, maxPages: Math.ceil(2 / limit) + 1 });
        t.check('ENT-CURSOR-WALK', () => expect(ofFirst.map((e) => e.id).sort(), `a walk of ${first.id} with limit ${limit} lists its entities`).toEqual([...ofFirstIds].sort()));
        t.check('ENT-LIST-ORDER', () => expect(ofFirst.map((e) => e.id), `a walk of ${first.id} with limit ${limit} lists them newest first`).toEqual(ofFirstIds));
      }

      // Across the organisation: small pages until this scenario's entities are all found, whatever else exists.
      const org = await walk(t, {}, { limit: 2, until: foundAll(mine) });
      const found = org.filter((e) => mine.has(e.id));
      t.check('ENT-LIST-ACROSS-ORG', () => expect(found.map((e) => e.id).sort(), 'a walk of the whole organisation finds the entities of both customers').toEqual([...mine].sort()));
      t.check('ENT-LIST-ORDER', () => {
        expectNewestFirst(org, t.ns.owns);
        expect(found.map((e) => e.id), "this scenario's entities come newest first (created_at, then id, descending)").toEqual(newestFirst);
      });
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
      t.check('ENT-LIST-ORDER', () => expect(page.list.map((e) => e.id), 'entities with the same created_at are listed by id descending').toEqual(expected));
      const walked = await walk(t, { customer_id: customer.id }, { limit: 1, maxPages: created.length + 1 });
      t.check('ENT-CURSOR-WALK', () => expect(walked.map((e) => e.id).sort(), 'a walk with limit 1 through entities of one instant visits each once').toEqual([...expected].sort()));
    },
  ),

  scenario(
    {
      id: 'entities.list-limits',
      title: 'entities.list pages hold 50 entities by default, the first page when start_cursor is omitted or ""; limit accepts 1 and 5000 and refuses 0, 5001 and non-integers',
      rules: ['ENT-LIMIT-DEFAULT', 'ENT-START-CURSOR-DEFAULT', 'ENT-LIMIT-BOUNDS'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const created = [];
      for (let n = 0; n < 51; n++) created.push(await createEntity(t, customer.id, seat.id, `Desk ${n}`));
      const all51 = created.map((e) => e.id).sort();

      const first = await listPage(t, { customer_id: customer.id }, 'ENT-LIMIT-DEFAULT');
      requireNextCursor(t, first);
      t.check('ENT-LIMIT-DEFAULT', () => {
        expect(first.list, 'without limit, a page holds 50 entities (51 exist)').toHaveLength(50);
        expect(first.next_cursor, 'one entity is left after the first page').not.toBeNull();
      });
      const fromEmpty = await listPage(t, { customer_id: customer.id, start_cursor: '' }, 'ENT-START-CURSOR-DEFAULT');
      t.check('ENT-START-CURSOR-DEFAULT', () => expect(fromEmpty.list.map((e) => e.id), 'start_cursor "" and no start_cursor both give the first page').toEqual(first.list.map((e) => e.id)));

      const one = await listIds(t, { customer_id: customer.id, limit: 1 }, 'ENT-LIMIT-BOUNDS');
      const everything = await listPage(t, { customer_id: customer.id, limit: 5000 }, 'ENT-LIMIT-BOUNDS');
      t.check('ENT-LIMIT-BOUNDS', () => {
        expect(one.length === 1 && all51.includes(one[0]!), 'limit 1 lists one of the entities').toBe(true);
        expect(everything.list.map((e) => e.id).sort(), 'limit 5000 lists all 51 entities').toEqual(all51);
        expect(everything.next_cursor, 'nothing is left after a page that holds everything').toBeNull();
      });

      for (const limit of LIMITS_REFUSED) {
        const refused = await t.client.call('entities.list', { customer_id: customer.id, limit });
        t.check('ENT-LIMIT-BOUNDS', () => expect(refused.ok, `limit ${limit} is outside 1..5000 (integers): expected an error, got ${refused.status}`).toBe(false));
        t.expectError(refused, { rule: 'ENT-LIMIT-BOUNDS' });
      }
    },
  ),

  scenario(
    {
      id: 'entities.list-search',
      title: 'entities.list search matches the entity id or name (and, as the reference does, any case-insensitive substring of them)',
      rules: ['ENT-SEARCH', 'ENT-SEARCH-WIRE', 'ENT-LIST-ACROSS-ORG'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      // Name tokens found in no id: namespaced ids without their underscores, which every id keeps.
      const [northTag, southTag] = [t.ns.id('tag'), t.ns.id('tag')].map((tag) => tag.replace(/_/g, '').toUpperCase());
      const [northName, southName] = [`North Wing ${northTag}`, `South Wing ${southTag}`];
      const north = await namedEntity(t, customer.id, seat.id, northName);
      const south = await namedEntity(t, customer.id, seat.id, southName);
      const search = async (text: string, rule: 'ENT-SEARCH' | 'ENT-SEARCH-WIRE', why: string, expected: string[]) => {
        const found = (await listIds(t, { customer_id: customer.id, search: text }, rule)).sort();
        t.check(rule, () => expect(found, why).toEqual([...expected].sort()));
      };

      // What the document says: the id or the name matches.
      await search(northName, 'ENT-SEARCH', 'search matches a name', [north.id]);
      await search(south.id, 'ENT-SEARCH', 'search matches an id', [south.id]);
      await search(`${northTag}${southTag}`, 'ENT-SEARCH', 'search matching no id or name lists nothing', []);
      // Searching without customer_id is listing across the organisation (after the name search above proved the match).
      const orgWide = await listIds(t, { search: northName }, 'ENT-LIST-ACROSS-ORG');
      t.check('ENT-LIST-ACROSS-ORG', () => {
        expect(orgWide, 'search without customer_id finds the entity across the organisation').toContain(north.id);
        expect(orgWide).not.toContain(south.id);
      });

      // How the reference matches: case-insensitive substrings.
      await search(northTag!, 'ENT-SEARCH-WIRE', 'search matches a substring of a name', [north.id]);
      await search(southTag!.toLowerCase(), 'ENT-SEARCH-WIRE', 'search matches a name whatever the case', [south.id]);
      await search('th wi', 'ENT-SEARCH-WIRE', 'search matches a substring of names', [north.id, south.id]);
      await search(north.id.toUpperCase(), 'ENT-SEARCH-WIRE', 'search matches an id whatever the case', [north.id]);
    },
  ),

  scenario(
    {
      id: 'entities.list-plan-filter',
      title: 'The plans filter of entities.list matches plans inherited from the customer and plans held by the entity itself (license seats included), by exact plan id; several plans are OR-ed, each entity listed once',
      rules: ['ENT-PLAN-FILTER-INHERITED', 'ENT-PLAN-FILTER-DIRECT', 'ENT-PLANS-FILTER-WIRE'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const customerPlan = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const entityPlan = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 5, reset: { interval: 'month' } }] });
      const otherPlan = await createPlan(t, { group: t.ns.id('grp') });
      // An id that extends another one (`pro` and `pro_annual`): a filter must match plan ids exactly, not by prefix.
      const longerPlan = await createPlan(t, { plan_id: `${customerPlan.id}_annual`, add_on: true });

      const first = await createCustomer(t);
      await attach(t, first.id, customerPlan.id);
      const holder = await createEntity(t, first.id, seat.id);
      const sibling = await createEntity(t, first.id, seat.id);
      await attach(t, first.id, entityPlan.id, { entity_id: holder.id });
      const second = await createCustomer(t);
      await attach(t, second.id, otherPlan.id);
      await attach(t, second.id, longerPlan.id);
      const outsider = await createEntity(t, second.id, seat.id);
      const held = await entitiesById(t, first.id);
      t.precondition(`billing.attach with entity_id gave ${entityPlan.id} to ${holder.id} only`, () => {
        expect(planIds(held.get(holder.id) ?? { subscriptions: [] })).toContain(entityPlan.id);
        expect(planIds(held.get(sibling.id) ?? { subscriptions: [] })).not.toContain(entityPlan.id);
      });

      // Each customer's listing, joined: listing across the organisation is ENT-LIST-ACROSS-ORG's (entities.list-walk).
      const matching = async (rule: Rule, plans: ListBody['plans'], customers: readonly string[] = [first.id, second.id]) => {
        const ids: string[] = [];
        for (const customerId of customers) ids.push(...(await listIds(t, { customer_id: customerId, plans }, rule)));
        return ids.sort();
      };
      const inherited = await matching('ENT-PLAN-FILTER-INHERITED', [{ id: customerPlan.id }]);
      t.check('ENT-PLAN-FILTER-INHERITED', () =>
        expect(inherited, `a plan held by the customer matches all its entities (inherited), and only that exact plan id (not ${longerPlan.id})`).toEqual([holder.id, sibling.id].sort()),
      );
      const direct = await matching('ENT-PLAN-FILTER-DIRECT', [{ id: entityPlan.id }]);
      t.check('ENT-PLAN-FILTER-DIRECT', () => expect(direct, 'a plan attached to an entity matches that entity only').toEqual([holder.id]));
      const ored = await matching('ENT-PLANS-FILTER-WIRE', [{ id: entityPlan.id }, { id: otherPlan.id }]);
      const once = await matching('ENT-PLANS-FILTER-WIRE', [{ id: customerPlan.id }, { id: entityPlan.id }]);
      t.check('ENT-PLANS-FILTER-WIRE', () => {
        expect(ored, 'several plans are OR-ed').toEqual([holder.id, outsider.id].sort());
        expect(once, 'an entity matching several plans is listed once').toEqual([holder.id, sibling.id].sort());
      });

      // A license seat is a plan of the entity itself.
      const pool = await createLicensePool(t, 2);
      const licensed = await createEntity(t, pool.customerId, pool.seatFeature.id);
      t.setup(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: [{ entity_id: licensed.id, name: licensed.name ?? licensed.id }] }));
      const seatHolder = (await entitiesById(t, pool.customerId)).get(licensed.id);
      t.precondition(`licenses.attach gave ${licensed.id} a seat of ${pool.licensePlan.id}`, () => expect(planIds(seatHolder ?? { subscriptions: [] })).toContain(pool.licensePlan.id));
      const bySeat = await matching('ENT-PLAN-FILTER-DIRECT', [{ id: pool.licensePlan.id }], [pool.customerId]);
      t.check('ENT-PLAN-FILTER-DIRECT', () => expect(bySeat, 'an entity holding a license seat matches the license plan').toEqual([licensed.id]));
      const byParent = await matching('ENT-PLAN-FILTER-INHERITED', [{ id: pool.parentPlan.id }], [pool.customerId]);
      t.check('ENT-PLAN-FILTER-INHERITED', () => expect(byParent, 'it also matches the parent plan its customer holds').toEqual([licensed.id]));

      // Archiving a plan keeps it on the customers that hold it (it only cannot be attached again): still matched.
      t.setup(await t.client.call('plans.update', { plan_id: otherPlan.id, archived: true }));
      const stillHeld = (await entitiesById(t, second.id)).get(outsider.id);
      t.precondition(`${outsider.id} still inherits the archived ${otherPlan.id}`, () => expect(planIds(stillHeld ?? { subscriptions: [] })).toContain(otherPlan.id));
      const archived = await matching('ENT-PLAN-FILTER-INHERITED', [{ id: otherPlan.id }]);
      t.check('ENT-PLAN-FILTER-INHERITED', () => expect(archived, 'an archived plan its customer still holds matches the entity').toEqual([outsider.id]));
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

      const updated = t.setup(await t.client.call('plans.update', { plan_id: plan.id, items: [{ feature_id: messages.id, included: 20, reset: { interval: 'month' } }] }), ['version']);
      t.precondition('changing the items of a held plan makes version 2', () => expect(updated.version).toBe(2));
      const late = await createCustomer(t);
      await attach(t, late.id, plan.id);
      const onSecond = await createEntity(t, late.id, seat.id);

      // The early customer stays on version 1 (PLAN-UPDATE-NEW-VERSION): its grant keeps version 1's items.
      const earlyBalance = (await entitiesById(t, early.id)).get(onFirst.id)?.balances?.[messages.id];
      t.precondition(`${early.id} keeps version 1 of ${plan.id} after the update`, () => expect(earlyBalance).toMatchObject({ granted: 10 }));

      const rule = 'ENT-PLAN-FILTER-VERSION';
      // Each customer's listing, joined: listing across the organisation is ENT-LIST-ACROSS-ORG's.
      const matching = async (versions?: number[]) => {
        const ids: string[] = [];
        for (const customerId of [early.id, late.id]) ids.push(...(await listIds(t, { customer_id: customerId, plans: [{ id: plan.id, ...(versions && { versions }) }] }, rule)));
        return ids.sort();
      };
      const any = await matching();
      t.precondition('without versions, the plan filter matches the entities whose customer holds the plan', () => expect(any).toEqual([onFirst.id, onSecond.id].sort()));
      const [v1, v2, both, none] = [await matching([1]), await matching([2]), await matching([1, 2]), await matching([3])];
      t.check(rule, () => {
        expect(v1, 'versions [1] matches the entity whose customer is on version 1').toEqual([onFirst.id]);
        expect(v2, 'versions [2] matches the entity whose customer is on version 2').toEqual([onSecond.id]);
        expect(both, 'versions [1, 2] matches both').toEqual([onFirst.id, onSecond.id].sort());
        expect(none, 'a version nobody holds matches nothing').toEqual([]);
      });
    },
  ),

  scenario(
    {
      id: 'entities.list-statuses',
      title:
        'statuses choose the plans entities.list hydrates and matches (never which entities it lists); by default active and scheduled ones, never an expired one; a past-due plan reads active with past_due true',
      rules: ['ENT-STATUSES-DEFAULT', 'ENT-STATUSES-FILTER', 'STATE-PAST-DUE-READS-ACTIVE'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const active = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const scheduled = await createPlan(t, { add_on: true });
      const ended = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      await attach(t, customer.id, active.id);
      await attach(t, customer.id, scheduled.id);
      await attach(t, customer.id, ended.id);
      const recordOf = async (planId: string) => {
        const records = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, plan_id: planId }), ['list']);
        const record = records.list.find((r) => r.plan_id === planId);
        t.precondition(`subscriptions.list shows the record of ${planId}`, () => expect(record).toBeDefined());
        return record!.id;
      };
      const force = async (planId: string, state: 'scheduled' | 'expired' | 'past_due') => {
        const forced = await t.control.call('records.force_state', { record_id: await recordOf(planId), state });
        t.precondition(`the record of ${planId} is ${state}`, () => expect(state === 'past_due' ? forced.past_due : forced.status).toBe(state === 'past_due' ? true : state));
      };
      await force(scheduled.id, 'scheduled');
      await force(ended.id, 'expired');
      const entity = await createEntity(t, customer.id, seat.id);
      // A customer holding no scheduled plan: statuses choose its entity's plans, not whether it is listed.
      const bare = await createCustomer(t);
      await attach(t, bare.id, active.id);
      const bareEntity = await createEntity(t, bare.id, seat.id);

      const tracked = [active.id, scheduled.id, ended.id];
      const hydrated = async (rule: 'ENT-STATUSES-DEFAULT' | 'ENT-STATUSES-FILTER', statuses?: ('active' | 'scheduled')[], of = { customerId: customer.id, entityId: entity.id }) => {
        const [listed] = (await listPage(t, { customer_id: of.customerId, ...(statuses && { statuses }) }, rule)).list;
        t.check(rule, () => expect(listed?.id, `statuses ${statuses?.join(',') ?? '(default)'} still lists the entity`).toBe(of.entityId));
        return Object.fromEntries(listed!.subscriptions.filter((s) => tracked.includes(s.plan_id)).map((s) => [s.plan_id, s.status]));
      };
      const byDefault = await hydrated('ENT-STATUSES-DEFAULT');
      t.check('ENT-STATUSES-DEFAULT', () =>
        expect(byDefault, 'by default, active and scheduled plans are hydrated, and an expired one is not').toEqual({ [active.id]: 'active', [scheduled.id]: 'scheduled' }),
      );
      for (const [statuses, expected] of [
        [['active', 'scheduled'], { [active.id]: 'active', [scheduled.id]: 'scheduled' }],
        [['active'], { [active.id]: 'active' }],
        [['scheduled'], { [scheduled.id]: 'scheduled' }],
      ] as const) {
        const got = await hydrated('ENT-STATUSES-FILTER', [...statuses]);
        t.check('ENT-STATUSES-FILTER', () => expect(got, `statuses [${statuses.join(', ')}] hydrates only those plans`).toEqual(expected));
      }
      const bareScheduled = await hydrated('ENT-STATUSES-FILTER', ['scheduled'], { customerId: bare.id, entityId: bareEntity.id });
      t.check('ENT-STATUSES-FILTER', () => expect(bareScheduled, 'statuses [scheduled] lists an entity without scheduled plans, hydrating none').toEqual({}));

      const matched = (rule: Rule, planId: string, statuses?: ('active' | 'scheduled')[]) => listIds(t, { customer_id: customer.id, plans: [{ id: planId }], ...(statuses && { statuses }) }, rule);
      // Matching a plan the entity inherits is ENT-PLAN-FILTER-INHERITED's: a premise here.
      const activeMatch = await matched('ENT-STATUSES-DEFAULT', active.id);
      t.precondition('the plans filter matches an active plan the entity inherits', () => expect(activeMatch).toEqual([entity.id]));
      const [defaultMatch, endedMatch] = [await matched('ENT-STATUSES-DEFAULT', scheduled.id), await matched('ENT-STATUSES-DEFAULT', ended.id)];
      t.check('ENT-STATUSES-DEFAULT', () => {
        expect(defaultMatch, 'by default, a scheduled plan matches the plans filter').toEqual([entity.id]);
        expect(endedMatch, 'by default, an expired plan does not match the plans filter').toEqual([]);
      });
      const [scheduledAsScheduled, scheduledAsActive, activeAsScheduled] = [
        await matched('ENT-STATUSES-FILTER', scheduled.id, ['scheduled']),
        await matched('ENT-STATUSES-FILTER', scheduled.id, ['active']),
        await matched('ENT-STATUSES-FILTER', active.id, ['scheduled']),
      ];
      t.check('ENT-STATUSES-FILTER', () => {
        expect(scheduledAsScheduled, 'with statuses [scheduled], a scheduled plan matches').toEqual([entity.id]);
        expect(scheduledAsActive, 'with statuses [active], a scheduled plan does not match').toEqual([]);
        expect(activeAsScheduled, 'with statuses [scheduled], an active plan does not match').toEqual([]);
      });

      // Past due is no status of its own: the overdue plan is still hydrated as active, marked past_due.
      await force(active.id, 'past_due');
      const overdue = (await listPage(t, { customer_id: customer.id })).list.find((e) => e.id === entity.id)?.subscriptions.find((s) => s.plan_id === active.id);
      t.check('STATE-PAST-DUE-READS-ACTIVE', () => expect(overdue, 'entities.list embeds a past-due plan as active with past_due true').toMatchObject({ status: 'active', past_due: true }));
    },
  ),

  scenario(
    {
      id: 'entities.list-replaced-plan',
      title: "After an entity's plan is replaced (by another plan of its group, or by a new version of the plan), the default entities.list neither embeds nor matches the expired record",
      rules: ['ENT-STATUSES-DEFAULT'],
    },
    async (t) => {
      const { seat, messages } = await entityCatalogue(t);
      const group = t.ns.id('grp');
      const basic = await createPlan(t, { group, items: [{ feature_id: messages.id, included: 10, reset: { interval: 'month' } }] });
      const premium = await createPlan(t, { group, items: [{ feature_id: messages.id, included: 50, reset: { interval: 'month' } }] });
      const versioned = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 5, reset: { interval: 'month' } }] });
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);

      // The entity's own plan replaced by another plan of its group; its customer's plan by the plan's next version.
      await attach(t, customer.id, basic.id, { entity_id: entity.id });
      await attach(t, customer.id, premium.id, { entity_id: entity.id });
      await attach(t, customer.id, versioned.id);
      const updated = t.setup(await t.client.call('plans.update', { plan_id: versioned.id, items: [{ feature_id: messages.id, included: 7, reset: { interval: 'month' } }] }), ['version']);
      t.precondition('changing the items of a held plan makes version 2', () => expect(updated.version).toBe(2));
      await attach(t, customer.id, versioned.id);
      const expired = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, statuses: ['expired'] }), ['list']);
      t.precondition(`the replaced records of ${basic.id} and of version 1 of ${versioned.id} have expired`, () =>
        expect(expired.list.filter((record) => record.status === 'expired').map((record) => record.plan_id).sort()).toEqual(expect.arrayContaining([basic.id, versioned.id])),
      );

      const [listed] = (await listPage(t, { customer_id: customer.id }, 'ENT-STATUSES-DEFAULT')).list;
      const embedded = (listed?.subscriptions ?? []).map((subscription) => subscription.plan_id);
      const matchingBasic = await listIds(t, { customer_id: customer.id, plans: [{ id: basic.id }] }, 'ENT-STATUSES-DEFAULT');
      t.check('ENT-STATUSES-DEFAULT', () => {
        expect(listed?.id, 'the entity is listed').toBe(entity.id);
        expect(embedded, 'the plan that replaced the entity\'s plan is embedded').toContain(premium.id);
        expect(embedded, 'the replaced plan is not').not.toContain(basic.id);
        expect(embedded.filter((planId) => planId === versioned.id), 'of a plan upgraded to its next version, only the current record is embedded').toHaveLength(1);
        expect((listed?.subscriptions ?? []).map((subscription) => subscription.status), 'no embedded record is expired').not.toContain('expired');
        expect(matchingBasic, 'the replaced plan no longer matches the plans filter').toEqual([]);
      });
    },
  ),

  scenario(
    {
      id: 'entities.list-statuses-enum',
      title: 'statuses of entities.list accepts active and scheduled only',
      rules: ['ENT-STATUSES-ENUM'],
    },
    async (t) => {
      // The accepted values are the controls (setup: a refused one blocks); they list the customer's entity.
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);
      for (const statuses of [['active'], ['scheduled'], ['active', 'scheduled']] as const) {
        const accepted = t.setup(await t.client.call('entities.list', { customer_id: customer.id, statuses: [...statuses] }), ['list']);
        t.precondition(`statuses [${statuses.join(', ')}] lists the customer's entity`, () => expect(accepted.list.map((e) => e.id)).toContain(entity.id));
      }
      for (const statuses of [['expired'], ['past_due'], ['active', 'cancelled']]) {
        const refused = await t.client.call('entities.list', { customer_id: customer.id, statuses: statuses as never });
        t.check('ENT-STATUSES-ENUM', () => expect(refused.ok, `statuses [${statuses.join(', ')}] is outside active, scheduled: expected an error, got ${refused.status}`).toBe(false));
        t.expectError(refused, { rule: 'ENT-STATUSES-ENUM' });
      }
    },
  ),

  scenario(
    {
      id: 'entities.list-processors',
      title: "The processors filter of entities.list lists the entities whose customer has one of the processors (OR-ed); a customer gets Stripe on its first attach",
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

      const stripeIdOf = async (customerId: string) => t.setup(await t.client.call('customers.get', { customer_id: customerId })).stripe_id;
      const [billedStripe, unbilledStripe] = [await stripeIdOf(billed.id), await stripeIdOf(unbilled.id)];
      t.precondition('a customer has a Stripe customer after its first attach', () => expect(billedStripe ?? null).not.toBeNull());
      // Auto-enabled plans of a shared organisation may give the other customer Stripe too; expect what it has.
      const withStripe = [billedEntity.id, ...((unbilledStripe ?? null) === null ? [] : [unbilledEntity.id])].sort();

      // Each customer's listing, joined: listing across the organisation is ENT-LIST-ACROSS-ORG's.
      const matching = async (rule: Rule, processors: ('stripe' | 'revenuecat' | 'vercel')[]) => {
        const ids: string[] = [];
        for (const customerId of [billed.id, unbilled.id]) ids.push(...(await listIds(t, { customer_id: customerId, processors }, rule)));
        return ids.sort();
      };
      const [stripe, revenuecat, vercel] = [await matching('ENT-PROCESSOR-FILTER', ['stripe']), await matching('ENT-PROCESSOR-FILTER', ['revenuecat']), await matching('ENT-PROCESSOR-FILTER', ['vercel'])];
      t.check('ENT-PROCESSOR-FILTER', () => {
        expect(stripe, 'processors [stripe] lists the entities whose customer has Stripe').toEqual(withStripe);
        expect(revenuecat, 'processors [revenuecat] lists none of these entities').toEqual([]);
        expect(vercel, 'processors [vercel] lists none of these entities').toEqual([]);
      });
      const ored = await matching('ENT-PROCESSORS-WIRE', ['revenuecat', 'stripe']);
      t.check('ENT-PROCESSORS-WIRE', () => expect(ored, 'several processors are OR-ed').toEqual(withStripe));
      t.expectError(await t.client.call('entities.list', { customer_id: billed.id, processors: ['paypal' as never] }), { rule: 'ENT-PROCESSORS-WIRE' });
    },
  ),
];
