/**
 * Scenarios of entities.list across the organisation and by customer: walks (also across deletes
 * between two page calls), order (newest first, ties by id, also among hundreds of one instant
 * created in shuffled order), limits and cursors (past 200 entities), and search.
 */
import { expect } from 'vitest';
import { seededFaker } from '../../../fixtures/factories.ts';
import { inBatches } from '../../framework/index.ts';
import { createCustomer, createEntity, createFeature, createLicensePool, type LicenseSetup, licenseEntities, requireNotRead, scenario, SETUP_WIDTH, type T, withFrozenClock } from '../../support.ts';
import { checkAs, type ListBody, type ListedEntity, listIds, listPage, namedEntity, requirePlanFilter, requireSearch } from './support.ts';

interface WalkOptions {
  readonly limit: number;
  /** Stops the walk early once this holds. */
  readonly until?: (seen: readonly ListedEntity[]) => boolean;
  /** The most pages the walk may take before next_cursor is null (default 1000). */
  readonly maxPages?: number;
  /** Where the walk starts: the next_cursor of a page read before (default: the first page). */
  readonly startCursor?: string;
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
  let cursor = options.startCursor;
  for (let pages = 1; ; pages++) {
    checkAs(t, 'ENT-CURSOR-WALK', 'a walk of entities.list ends', () => expect(pages, `a walk of entities.list ends on next_cursor null within ${maxPages} pages`).toBeLessThanOrEqual(maxPages));
    const page = await listPage(t, { ...body, limit, ...(cursor !== undefined && { start_cursor: cursor }) }, undefined, { followsCursor: true });
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

/** Entities of entities.list-walks-many: well past a first page of 100 and of 200. */
const WALKED = 260;
/** Entities it makes one by one with entities.create: past a first page of 100. */
const ONE_BY_ONE = 120;

/** Limits outside 1..5000 or not integers. */
const LIMITS_REFUSED: readonly number[] = [0, -1, 5001, 1.5, 4999.5];

export const listScenarios = [
  scenario(
    {
      id: 'entities.list-customer-filter',
      title: "entities.list with customer_id lists exactly that customer's entities (none for an unknown customer); without it, the entities of every customer; an empty customer_id is refused",
      rules: ['ENT-CUSTOMER-FILTER', 'ENT-CUSTOMER-ID-MIN-LENGTH', 'ENT-LIST-ACROSS-ORG', 'ENT-CURSOR-WALK'],
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
      rules: ['ENT-LIST-ACROSS-ORG', 'ENT-CURSOR-WALK', 'ENT-LIST-ORDER', 'ENT-LIST-SHAPE', 'ENT-CUSTOMER-FILTER'],
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
      rules: ['ENT-LIST-ORDER', 'ENT-CURSOR-WALK', 'ENT-CUSTOMER-FILTER'],
      needs: ['control-plane'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const created: { id: string; created_at: number }[] = [];
      await withFrozenClock(t, async () => {
        for (let n = 0; n < 4; n++) created.push(await createEntity(t, customer.id, seat.id));
      });
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
      id: 'entities.list-order-by-time-first',
      title: 'entities.list lists a later entity first even when its id sorts lower: created_at decides before id',
      rules: ['ENT-LIST-ORDER', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const base = t.ns.id('ent');
      const create = async (entityId: string) =>
        t.setup(await t.client.call('entities.create', { customer_id: customer.id, entity_id: entityId, feature_id: seat.id, name: `Entity ${entityId}` }), ['id', 'created_at']);
      const earlier = await create(`${base}b`);
      // 5 ms of wall time between the two creations. Not a timer: against an in-process target, scenarios run side by
      // side as one unbroken chain of promises, and a timer fires only once that chain pauses (it starved past the
      // scenario's 30 s timeout in the meta-tests under load). A blocking wait of 5 ms holds up nothing that matters.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      const later = await create(`${base}a`);
      t.precondition('the second entity was created later', () => expect(later.created_at).toBeGreaterThan(earlier.created_at));
      const { list } = await listPage(t, { customer_id: customer.id }, 'ENT-LIST-ORDER');
      t.check('ENT-CUSTOMER-FILTER', () => expect(list.map((entity) => entity.id).sort(), `entities.list of ${customer.id} lists its two entities`).toEqual([later.id, earlier.id].sort()));
      t.check('ENT-LIST-ORDER', () => expect(list.map((entity) => entity.id), 'the newer entity first, though its id sorts lower').toEqual([later.id, earlier.id]));
    },
  ),
  scenario(
    {
      id: 'entities.list-limits',
      title: 'entities.list pages hold 50 entities by default, the first page when start_cursor is omitted or ""; limit accepts 1 and 5000 and refuses 0, 5001 and non-integers',
      rules: ['ENT-LIMIT-DEFAULT', 'ENT-START-CURSOR-DEFAULT', 'ENT-LIMIT-BOUNDS', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const created = [];
      for (let n = 0; n < 51; n++) created.push(await createEntity(t, customer.id, seat.id, `Desk ${n}`));
      const all51 = created.map((e) => e.id).sort();

      const first = await listPage(t, { customer_id: customer.id }, 'ENT-LIMIT-DEFAULT', { followsCursor: true });
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
      rules: ['ENT-SEARCH', 'ENT-SEARCH-WIRE', 'ENT-LIST-ACROSS-ORG', 'ENT-CUSTOMER-FILTER'],
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

      // The name of the search field is not shown: the target must read it before ENT-SEARCH (MUST) rests on it.
      await requireSearch(t, customer.id, `${northTag}${southTag}`);
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

      // Characters that are wildcards elsewhere (SQL LIKE's `_` and `%`) are text: a name with one matches, a name with another character there does not.
      const [underscoreTag, percentTag] = [t.ns.id('tag'), t.ns.id('tag')].map((tag) => tag.replace(/_/g, '').toUpperCase());
      const [underscore, percent] = [`Wing_${underscoreTag}`, `Wing%${percentTag}`];
      const wild = [await namedEntity(t, customer.id, seat.id, underscore), await namedEntity(t, customer.id, seat.id, percent)];
      await namedEntity(t, customer.id, seat.id, `WingX${underscoreTag}`);
      await namedEntity(t, customer.id, seat.id, `WingXY${percentTag}`);
      await search(underscore, 'ENT-SEARCH', 'search for a name with an underscore matches that name, not one with another character there', [wild[0]!.id]);
      await search(percent, 'ENT-SEARCH', 'search for a name with a percent sign matches that name, not one with other characters there', [wild[1]!.id]);
    },
  ),
  scenario(
    {
      id: 'entities.list-walk-across-delete',
      title:
        'a walk of entities.list with entities deleted between two page calls (the last of the page before, and one not listed yet) lists each remaining entity once and never the deleted one',
      rules: ['ENT-CURSOR-WALK', 'ENT-DELETE', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const created = await inBatches(Array.from({ length: 7 }), SETUP_WIDTH, () => createEntity(t, customer.id, seat.id));
      const first = await listPage(t, { customer_id: customer.id, limit: 3 }, 'ENT-CURSOR-WALK', { followsCursor: true });
      t.check('ENT-CURSOR-WALK', () => {
        expect(first.list, 'a first page of limit 3 of 7 entities holds 3').toHaveLength(3);
        expect(first.next_cursor, 'and a next_cursor').not.toBeNull();
      });
      const listed = new Set(first.list.map((entity) => entity.id));
      const [atCursor, ahead] = [first.list.at(-1)!.id, created.map((entity) => entity.id).find((id) => !listed.has(id))!];
      for (const entityId of [atCursor, ahead]) {
        t.setup(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: entityId }));
        requireNotRead(t, `entity ${entityId}`, await t.client.call('entities.get', { customer_id: customer.id, entity_id: entityId }));
      }
      const rest = await walk(t, { customer_id: customer.id }, { limit: 3, startCursor: first.next_cursor!, maxPages: 4 });
      t.check('ENT-DELETE', () => expect(rest.map((entity) => entity.id), 'an entity deleted before the walk reached it is not listed').not.toContain(ahead));
      const walked = [...first.list, ...rest].map((entity) => entity.id);
      t.check('ENT-CURSOR-WALK', () => {
        expect(new Set(walked).size, `the walk lists each entity once: ${walked.join(', ')}`).toBe(walked.length);
        expect(walked.sort(), 'the walk goes on from the cursor of a deleted entity and lists every remaining one').toEqual(created.map((entity) => entity.id).filter((id) => id !== ahead).sort());
      });
    },
  ),
  scenario(
    {
      id: 'entities.list-past-200',
      title: 'entities.list of a customer with 210 entities: limit 5000 lists them all on one page, the default page holds 50, and a walk with limit 200 lists each once',
      rules: ['ENT-LIMIT-BOUNDS', 'ENT-LIMIT-DEFAULT', 'ENT-CURSOR-WALK', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const count = 210;
      // One batch makes them all: licenses.attach creates the entities it names with a feature_id (LIC-ATTACH-CREATES-ENTITY).
      const setup = await createLicensePool(t, count);
      const items = licenseEntities(t, setup, count);
      t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: items }));
      const { list: pools } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      t.precondition(`licenses.attach created and assigned the ${count} entities`, () => expect(pools.find((p) => p.license_plan_id === setup.licensePlan.id)?.usage).toBe(count));
      const all = items.map((item) => item.entity_id).sort();

      const everything = await listPage(t, { customer_id: setup.customerId, limit: 5000 }, 'ENT-LIMIT-BOUNDS');
      t.check('ENT-LIMIT-BOUNDS', () => {
        expect(everything.list.map((entity) => entity.id).sort(), `limit 5000 lists all ${count} entities`).toEqual(all);
        expect(everything.next_cursor, 'nothing is left after a page that holds everything').toBeNull();
      });
      const first = await listPage(t, { customer_id: setup.customerId }, 'ENT-LIMIT-DEFAULT', { followsCursor: true });
      t.check('ENT-LIMIT-DEFAULT', () => {
        expect(first.list, `without limit, a page holds 50 entities (${count} exist)`).toHaveLength(50);
        expect(first.next_cursor, 'and more are left').not.toBeNull();
      });
      const walked = await walk(t, { customer_id: setup.customerId }, { limit: 200, maxPages: 3 });
      t.check('ENT-CURSOR-WALK', () => expect(walked.map((entity) => entity.id).sort(), `a walk with limit 200 lists the ${count} entities`).toEqual(all));
    },
  ),
  scenario(
    {
      id: 'entities.list-shuffled-ids',
      title: 'entities.list of 300 entities one licenses.attach made at one instant, their IDs in shuffled order: a walk with limit 50 lists each once, by id descending',
      rules: ['ENT-CURSOR-WALK', 'ENT-LIST-ORDER', 'ENT-CUSTOMER-FILTER'],
      // The fake's clock, frozen, gives the entities one created_at: their order is then the ids' alone.
      uses: ['control-plane'],
    },
    async (t) => {
      const count = 300;
      const limit = 50;
      const setup = await createLicensePool(t, count);
      // One prefix and fixed-width digits, so every collation orders the IDs alike; sent in a seeded shuffle, so
      // an index ordered by id takes most of them far from its end.
      const base = t.ns.id('ent');
      const ids = Array.from({ length: count }, (_, n) => `${base}_${String(n).padStart(3, '0')}`);
      const items = seededFaker(t.seed, t.scenario.id)
        .helpers.shuffle(ids)
        .map((entityId) => ({ entity_id: entityId, name: `Entity ${entityId}`, feature_id: setup.seatFeature.id }));
      // One batch makes them all: licenses.attach creates the entities it names with a feature_id (LIC-ATTACH-CREATES-ENTITY).
      const create = async () => t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: items }));
      await (t.has('control-plane') ? withFrozenClock(t, create) : create());
      const { list: pools } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      t.precondition(`licenses.attach created and assigned the ${count} entities`, () => expect(pools.find((p) => p.license_plan_id === setup.licensePlan.id)?.usage).toBe(count));

      const walked = await walk(t, { customer_id: setup.customerId }, { limit, maxPages: count / limit + 1 });
      t.check('ENT-CURSOR-WALK', () => expect(walked.map((entity) => entity.id).sort(), `a walk with limit ${limit} lists each of the ${count} entities`).toEqual([...ids].sort()));
      t.check('ENT-LIST-ORDER', () => expect(walked.map((entity) => entity.id), 'the walk lists them newest first, those of one instant by id descending').toEqual(newestFirstIds(walked)));
    },
  ),
  scenario(
    {
      id: 'entities.list-walks-many',
      title: `a customer's ${WALKED} entities made by three licenses.attach batches: walks at limits on both sides of 100 and of the count, one drawn by the seed, and a walk of small pages each list every entity once, newest first; walks with the plan filter and with search list what one page of limit 5000 with the same filter lists; so do walks of another customer's ${ONE_BY_ONE} entities made one by one`,
      rules: ['ENT-CURSOR-WALK', 'ENT-LIST-ORDER', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const setup = await createLicensePool(t, WALKED);
      const customer = { customer_id: setup.customerId };
      // One series of IDs (any collation orders them alike), sent in a seeded shuffle, in batches made at three instants.
      const base = t.ns.id('ent');
      const ids = Array.from({ length: WALKED }, (_, n) => `${base}_${String(n).padStart(3, '0')}`);
      const faker = seededFaker(t.seed, t.scenario.id);
      const items = faker.helpers.shuffle(ids).map((entityId) => {
        t.ledger.record({ kind: 'entity', id: entityId, customer_id: setup.customerId });
        return { entity_id: entityId, name: `Entity ${entityId}`, feature_id: setup.seatFeature.id };
      });
      for (const batch of [items.slice(0, 120), items.slice(120, 220), items.slice(220)]) {
        t.setup(await t.client.call('licenses.attach', { ...customer, plan_id: setup.licensePlan.id, entities: batch }));
      }
      const all = [...ids].sort();
      const walkOnce = async (body: ListBody, limit: number, expected: readonly string[], what: string) => {
        const walked = await walk(t, body, { limit, maxPages: Math.ceil(Math.max(expected.length, 1) / limit) + 1 });
        t.check('ENT-CURSOR-WALK', () => expect(walked.map((entity) => entity.id).sort(), `${what}, walked with limit ${limit}, lists each of its ${expected.length} entities`).toEqual(expected));
        t.check('ENT-LIST-ORDER', () => expectNewestFirst(walked, t.ns.owns));
      };
      for (const limit of [7, 99, 100, 101, WALKED - 1, WALKED, WALKED + 1, faker.number.int({ min: 2, max: WALKED + 20 })]) await walkOnce(customer, limit, all, `the customer's ${WALKED} entities`);

      // Filtered: what one page of limit 5000 lists (what a filter matches is the filter's rule, not the walk's).
      const unheld = t.ns.id('plan');
      await requirePlanFilter(t, setup.customerId, unheld);
      await requireSearch(t, setup.customerId, t.ns.id('nobody').replace(/_/g, ''));
      const filters: [ListBody, string][] = [
        [{ plans: [{ id: setup.licensePlan.id }] }, 'the entities holding the license plan'],
        [{ search: base }, `the entities search finds for ${base}`],
      ];
      for (const [filter, what] of filters) {
        const body = { ...customer, ...filter };
        // At most the customer's entities match: one page of limit 5000 holds them all, and ends the walk.
        const expected = (await walk(t, body, { limit: 5000, maxPages: 1 })).map((entity) => entity.id).sort();
        for (const limit of [100, 101]) await walkOnce(body, limit, expected, what);
      }

      // Made one by one (entities.create, a few at a time): past 100, at as many instants.
      const single = await createCustomer(t);
      const oneByOne = (await inBatches(Array.from({ length: ONE_BY_ONE }), SETUP_WIDTH, () => createEntity(t, single.id, setup.seatFeature.id))).map((entity) => entity.id).sort();
      for (const limit of [7, 100, 101, ONE_BY_ONE - 1, ONE_BY_ONE, ONE_BY_ONE + 1]) await walkOnce({ customer_id: single.id }, limit, oneByOne, `the ${ONE_BY_ONE} entities entities.create made one by one`);
    },
  ),
  scenario(
    {
      id: 'entities.list-walks-many-organisation',
      title: `entities.list without customer_id over ${WALKED} entities of two customers, made by batches at three instants: walks at limits on both sides of 100 and of the count, one drawn by the seed, and a walk of small pages each list every entity once, newest first`,
      rules: ['ENT-CURSOR-WALK', 'ENT-LIST-ORDER', 'ENT-LIST-ACROSS-ORG'],
      // Walked across the organisation: with the tenant to itself (its own organisation where the target makes them), no other scenario inserts meanwhile.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const [first, second] = [await createLicensePool(t, 200), await createLicensePool(t, WALKED - 200)];
      const faker = seededFaker(t.seed, t.scenario.id);
      const base = t.ns.id('ent');
      const seriesOf = (count: number, from: number) => Array.from({ length: count }, (_, n) => `${base}_${String(from + n).padStart(3, '0')}`);
      const batch = async (setup: LicenseSetup, entityIds: readonly string[]) => {
        const items = faker.helpers.shuffle([...entityIds]).map((entityId) => {
          t.ledger.record({ kind: 'entity', id: entityId, customer_id: setup.customerId });
          return { entity_id: entityId, name: `Entity ${entityId}`, feature_id: setup.seatFeature.id };
        });
        t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: items }));
        return entityIds;
      };
      // A's first hundred, then B's, then A's second hundred: one customer's entities on both sides of the other's.
      const mine = new Set([...(await batch(first, seriesOf(100, 0))), ...(await batch(second, seriesOf(WALKED - 200, 100))), ...(await batch(first, seriesOf(100, WALKED - 100)))]);
      // What the organisation's listing holds of them is ENT-LIST-ACROSS-ORG's (one page, where it holds the whole organisation); a walk must list that.
      const whole = await listPage(t, { limit: 5000 }, 'ENT-LIST-ACROSS-ORG');
      const listed = whole.next_cursor === null ? whole.list.map((entity) => entity.id).filter((id) => mine.has(id)).sort() : [...mine].sort();
      if (whole.next_cursor === null) t.check('ENT-LIST-ACROSS-ORG', () => expect(listed, "one page of the organisation's entities holds both customers' entities").toEqual([...mine].sort()));
      for (const limit of [7, 99, 100, 101, WALKED - 1, WALKED, WALKED + 1, faker.number.int({ min: 2, max: WALKED + 20 })]) {
        const walked = await walk(t, {}, { limit, until: foundAll(new Set(listed)) });
        const found = walked.filter((entity) => mine.has(entity.id));
        t.check('ENT-CURSOR-WALK', () => expect(found.map((entity) => entity.id).sort(), `a walk of the organisation with limit ${limit} lists each of the ${listed.length} entities a single page lists`).toEqual(listed));
        t.check('ENT-LIST-ORDER', () => expectNewestFirst(walked, t.ns.owns));
      }
    },
  ),
];
