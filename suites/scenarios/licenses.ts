/** Conformance scenarios of license pools and assignments. */
import fc from 'fast-check';
import { expect } from 'vitest';
import {
  attach,
  checkProperty,
  createCustomer,
  createEntity,
  createLicensePool,
  createPlan,
  licenseEntities,
  requireLicenseLinks,
  scenario,
  type LicenseSetup,
  type T,
} from '../support.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';

type AttachItem = { entity_id: string; name: string; feature_id?: string };
type Pool = { granted: number; usage: number; remaining: number; paid_quantity: number };

/** The pool of the setup's license plan as licenses.list shows it (a read that is setup here), or undefined when it is not listed. */
async function pool(t: T, setup: LicenseSetup): Promise<Pool | undefined> {
  const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
  return list.find((p) => p.license_plan_id === setup.licensePlan.id && p.parent_plan_id === setup.parentPlan.id);
}

const COUNTER_RULES = { granted: 'LIC-POOL-GRANTED', usage: 'LIC-POOL-USAGE', remaining: 'LIC-POOL-REMAINING', paid_quantity: 'LIC-POOL-PAID-QUANTITY' } as const satisfies Record<keyof Pool, RuleId>;

/**
 * The pool after a step that proves `rule`. `rule` FAILs when the pool is not listed or the step's
 * effect shows in neither `usage` nor `remaining` (so a fault of one counter alone is not charged to
 * the step). Then each given counter whose rule the scenario declares is checked exactly, charged to
 * that counter's rule (LIC-POOL-*); a counter whose rule it does not declare is not checked exactly.
 */
async function expectPool(t: T, setup: LicenseSetup, rule: RuleId, expected: Partial<Pool> & Pick<Pool, 'usage' | 'remaining'>, why: string): Promise<void> {
  const seen = await pool(t, setup);
  t.check(rule, () => {
    expect(seen, `${why}: licenses.list shows the pool of ${setup.licensePlan.id} offered by ${setup.parentPlan.id}`).toBeDefined();
    expect(seen!.usage === expected.usage || seen!.remaining === expected.remaining, `${why}: usage ${seen!.usage} and remaining ${seen!.remaining}, expected ${expected.usage} and ${expected.remaining}`).toBe(true);
  });
  for (const [counter, value] of Object.entries(expected) as [keyof Pool, number][]) {
    const counterRule = COUNTER_RULES[counter];
    if (counterRule !== rule && !t.scenario.rules.includes(counterRule)) continue;
    t.check(counterRule, () => expect(seen![counter], `${why}: ${counter}`).toBe(value));
  }
}

function attachLicenses(t: T, setup: LicenseSetup, entities: readonly AttachItem[]) {
  return t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [...entities] });
}

function releaseLicenses(t: T, setup: LicenseSetup, entityIds: readonly string[]) {
  return t.client.call('licenses.release', { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [...entityIds] });
}

/** The item without feature_id: how the reference's own calls name an entity that already exists. */
function withoutFeature(item: AttachItem): AttachItem {
  return { entity_id: item.entity_id, name: item.name };
}

/** The customer's entities as entities.list shows them (a documented read, setup here), with their active and scheduled records. */
async function entitiesOf(t: T, setup: LicenseSetup) {
  return t.setup(await t.client.call('entities.list', { customer_id: setup.customerId, limit: 200 }), ['list']).list;
}

/** The active records of the setup's license plan that an entity holds, as entities.list shows them. */
async function licenseRecordsOf(t: T, setup: LicenseSetup, entityId: string) {
  const entity = (await entitiesOf(t, setup)).find((e) => e.id === entityId);
  return (entity?.subscriptions ?? []).filter((subscription) => subscription.plan_id === setup.licensePlan.id && subscription.status === 'active');
}

/**
 * The entities holding an active record of the setup's license plan, sorted, as entities.list shows
 * them: documented, so MUST rules can rest on it (licenses.list_assignments is the reference's).
 */
async function holders(t: T, setup: LicenseSetup): Promise<string[]> {
  return licenseHolders(t, setup.customerId, setup.licensePlan.id);
}

/** The entities of `customerId` holding an active record of `licensePlanId`, sorted, as entities.list (documented) shows them. */
export async function licenseHolders(t: T, customerId: string, licensePlanId: string): Promise<string[]> {
  const { list } = t.setup(await t.client.call('entities.list', { customer_id: customerId, limit: 200 }), ['list']);
  return list
    .filter((entity) => (entity.subscriptions ?? []).some((subscription) => subscription.plan_id === licensePlanId && subscription.status === 'active'))
    .map((entity) => entity.id)
    .sort();
}

/**
 * Setup: assigns `items` (licenses.attach only builds state here) and requires, as a precondition,
 * that they hold the license afterwards, so a batch the target mishandles blocks rather than fails
 * the scenario's own rules.
 */
async function assignSeats(t: T, setup: LicenseSetup, items: readonly AttachItem[]): Promise<void> {
  t.setup(await attachLicenses(t, setup, items));
  const held = await holders(t, setup);
  t.precondition(`${items.length} attached entities hold the license`, () => expect(held).toEqual(expect.arrayContaining(items.map((item) => item.entity_id))));
}

/** Setup: releases `entityIds` and requires, as a precondition, that their seats are back in the pool and they no longer hold the license. */
async function releaseSeats(t: T, setup: LicenseSetup, entityIds: readonly string[]): Promise<void> {
  const before = await pool(t, setup);
  t.setup(await releaseLicenses(t, setup, entityIds));
  const after = await pool(t, setup);
  const held = await holders(t, setup);
  t.precondition(`${entityIds.length} released entities gave their seats back and no longer hold the license`, () => {
    expect(after?.remaining).toBe((before?.remaining ?? Number.NaN) + entityIds.length);
    expect(held.filter((id) => entityIds.includes(id))).toEqual([]);
  });
}

/**
 * Entities created through entities.create (setup), as attach items without feature_id: for
 * scenarios whose subject is not licenses.attach creating entities (LIC-ATTACH-CREATES-ENTITY).
 */
async function existingSeats(t: T, setup: LicenseSetup, count: number): Promise<AttachItem[]> {
  const items: AttachItem[] = [];
  for (let i = 0; i < count; i++) {
    const entity = await createEntity(t, setup.customerId, setup.seatFeature.id);
    items.push({ entity_id: entity.id, name: entity.name ?? entity.id });
  }
  return items;
}

/** `entityId` does not exist: entities.list of the customer does not show it. Charged to `rule`. */
async function expectNoEntity(t: T, setup: LicenseSetup, entityId: string, rule: RuleId) {
  const ids = (await entitiesOf(t, setup)).map((entity) => entity.id);
  t.check(rule, () => expect(ids, `entity ${entityId} must not exist`).not.toContain(entityId));
}

function sorted(ids: readonly string[]): string[] {
  return [...ids].sort();
}

/** A body with one field left out, sent as is (the client does not validate requests). */
function without<B extends object>(body: B, field: keyof B): B {
  const { [field]: _, ...rest } = body;
  return rest as B;
}

type CommandRule =
  | 'LIC-RELEASE-DUPLICATE-IDS'
  | 'LIC-RELEASE-UNASSIGNED'
  | 'LIC-RELEASE-FREES-SEAT'
  | 'LIC-ATTACH-DUPLICATE-IDS'
  | 'LIC-ATTACH-CAPACITY'
  | 'LIC-ATTACH-ALL-ASSIGNED-OK'
  | 'LIC-ATTACH-MIXED-BATCH'
  | 'LIC-ATTACH-BATCH';

/**
 * A license pool as the document describes it, independent of any implementation: `licenses.attach`
 * rules (1)–(4) and `licenses.release` (with the reference's refusals of duplicates and of entities
 * holding no license). Each method answers whether the call succeeds, and applies it if so.
 */
class LicensePoolModel {
  readonly #assigned = new Set<string>();
  constructor(readonly granted: number) {}

  get usage(): number {
    return this.#assigned.size;
  }

  get remaining(): number {
    return this.granted - this.usage;
  }

  /** The entities holding a seat, sorted. */
  get assigned(): string[] {
    return [...this.#assigned].sort();
  }

  attach(ids: readonly string[]): boolean {
    if (new Set(ids).size !== ids.length) return false;
    const fresh = ids.filter((id) => !this.#assigned.has(id));
    if (fresh.length > this.remaining) return false;
    for (const id of fresh) this.#assigned.add(id);
    return true;
  }

  release(ids: readonly string[]): boolean {
    if (new Set(ids).size !== ids.length || ids.some((id) => !this.#assigned.has(id))) return false;
    for (const id of ids) this.#assigned.delete(id);
    return true;
  }

  /** How many of `ids` hold no seat yet. */
  fresh(ids: readonly string[]): number {
    return new Set(ids.filter((id) => !this.#assigned.has(id))).size;
  }

  /** The rule a command proves, decided before it is applied: the statement of the document that fixes its outcome. */
  ruleOf(op: 'attach' | 'release', ids: readonly string[]): CommandRule {
    const duplicated = new Set(ids).size !== ids.length;
    if (op === 'release') {
      if (duplicated) return 'LIC-RELEASE-DUPLICATE-IDS';
      return ids.some((id) => !this.#assigned.has(id)) ? 'LIC-RELEASE-UNASSIGNED' : 'LIC-RELEASE-FREES-SEAT';
    }
    if (duplicated) return 'LIC-ATTACH-DUPLICATE-IDS';
    const fresh = this.fresh(ids);
    if (fresh > this.remaining) return 'LIC-ATTACH-CAPACITY';
    if (fresh === 0) return 'LIC-ATTACH-ALL-ASSIGNED-OK';
    return fresh < ids.length ? 'LIC-ATTACH-MIXED-BATCH' : 'LIC-ATTACH-BATCH';
  }
}

/**
 * The entity IDs a command's picks name: entities by index, or, for a command meant for the assigned
 * entities (`held`, when there are some), the assigned ones by index modulo their count. Picks meant
 * to repeat an entity keep the repetition; picks that only collide by the modulo do not.
 */
function entityIdsOf(picks: readonly number[], held: readonly string[], all: readonly string[]): string[] {
  if (held.length === 0) return picks.map((pick) => all[pick]!);
  const ids = picks.map((pick) => held[pick % held.length]!);
  return new Set(picks).size === picks.length ? [...new Set(ids)] : ids;
}

const MODEL_ENTITIES = 4;
// Entities 0 and 1 come up more often, so that batches meet entities already assigned.
const entityIndex = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 1 }), weight: 2 }, { arbitrary: fc.integer({ min: 0, max: MODEL_ENTITIES - 1 }), weight: 1 });
const entityPicks = fc.oneof(
  { arbitrary: fc.uniqueArray(entityIndex, { minLength: 1, maxLength: 2 }), weight: 6 },
  { arbitrary: fc.uniqueArray(entityIndex, { minLength: 3, maxLength: MODEL_ENTITIES }), weight: 2 },
  // The same entity twice in one batch.
  { arbitrary: fc.array(entityIndex, { minLength: 2, maxLength: 3 }).filter((picks) => new Set(picks).size < picks.length), weight: 1 },
);
const licenseCommand = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('attach' as const), picks: entityPicks, ofAssigned: fc.constant(false) }), weight: 3 },
  // Most releases pick among the entities the model holds assigned (so they can succeed); the rest pick blindly.
  {
    arbitrary: fc.record({
      op: fc.constant('release' as const),
      picks: entityPicks,
      ofAssigned: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    }),
    weight: 2,
  },
);
const licenseRun = fc.record({ granted: fc.integer({ min: 1, max: 4 }), commands: fc.array(licenseCommand, { minLength: 3, maxLength: 8 }) });

export const licenseScenarios = [
  scenario(
    {
      id: 'licenses.skip-on-reassign',
      title: 'licenses.attach skips entities that already hold the license, in mixed and all-assigned batches, and a released seat is consumed again on re-attach',
      rules: [
        'LIC-ATTACH-SKIP-ASSIGNED',
        'LIC-ATTACH-MIXED-BATCH',
        'LIC-ATTACH-ALL-ASSIGNED-OK',
        'STATE-SKIP-NO-EXTRA-LICENSE',
        'LIC-POOL-USAGE',
        'LIC-POOL-REMAINING',
        'LIC-RELEASE-FREES-SEAT',
        'STATE-LICENSE-ATTACH-RELEASE',
      ],
    },
    async (t) => {
      const setup = await createLicensePool(t, 5);
      const [a, b, c, d, e] = licenseEntities(t, setup, 5) as [AttachItem, AttachItem, AttachItem, AttachItem, AttachItem];
      const assign = (entities: AttachItem[]) => attachLicenses(t, setup, entities);
      const expectOneSeat = async (item: AttachItem, when: string) => {
        const seats = await licenseRecordsOf(t, setup, item.entity_id);
        t.check('STATE-SKIP-NO-EXTRA-LICENSE', () => expect(seats, `${when}: entity ${item.entity_id} holds exactly one record of the license plan`).toHaveLength(1));
      };
      const expectAssigned = async (rule: Parameters<typeof t.check>[0], items: AttachItem[], why: string) => {
        const held = await holders(t, setup);
        t.check(rule, () => expect(held, why).toEqual(sorted(items.map((x) => x.entity_id))));
      };

      // Two new entities take two seats (LIC-ATTACH-BATCH's, proven elsewhere: here it is setup).
      await assignSeats(t, setup, [a, b]);
      await t.precondition('two new entities take two of five seats', async () => expect(await pool(t, setup)).toMatchObject({ granted: 5, usage: 2, remaining: 3 }));

      // A batch of only assigned entities, with room: accepted, and the skipped entity consumes nothing.
      t.expectOk(await assign([withoutFeature(a)]), 'LIC-ATTACH-ALL-ASSIGNED-OK');
      await expectPool(t, setup, 'LIC-ATTACH-SKIP-ASSIGNED', { usage: 2, remaining: 3 }, 'a skipped entity consumes no seat');
      await expectOneSeat(a, 'after a batch that skipped it');

      // A mixed batch: a and b are skipped, only c and d are assigned.
      t.expectOk(await assign([withoutFeature(a), c, withoutFeature(b), d]), 'LIC-ATTACH-MIXED-BATCH');
      await expectPool(t, setup, 'LIC-ATTACH-MIXED-BATCH', { usage: 4, remaining: 1 }, 'a mixed batch moves usage by exactly its new entities');
      await expectAssigned('LIC-ATTACH-MIXED-BATCH', [a, b, c, d], 'one active assignment per entity after a mixed batch');

      // More assigned entities than seats left: nothing to consume, so no capacity error.
      t.expectOk(await assign([a, b, c].map(withoutFeature)), 'LIC-ATTACH-ALL-ASSIGNED-OK');
      await expectPool(t, setup, 'LIC-ATTACH-SKIP-ASSIGNED', { usage: 4, remaining: 1 }, 'an all-assigned batch consumes nothing');
      await expectOneSeat(a, 'after two batches that skipped it');
      await expectAssigned('LIC-ATTACH-SKIP-ASSIGNED', [a, b, c, d], 'skipped entities get no second assignment');

      // Releasing frees the seat and takes the license from the entity.
      t.expectOk(await releaseLicenses(t, setup, [b.entity_id]), 'LIC-RELEASE-FREES-SEAT');
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage: 3, remaining: 2 }, 'a release frees exactly one seat');
      const released = await licenseRecordsOf(t, setup, b.entity_id);
      t.check('STATE-LICENSE-ATTACH-RELEASE', () => expect(released, 'a released entity no longer holds the license plan').toEqual([]));
      await expectAssigned('STATE-LICENSE-ATTACH-RELEASE', [a, c, d], 'the other entities keep the license');

      // Attaching the released entity again consumes a seat again…
      t.expectOk(await assign([withoutFeature(b)]), 'STATE-LICENSE-ATTACH-RELEASE');
      await expectPool(t, setup, 'STATE-LICENSE-ATTACH-RELEASE', { usage: 4, remaining: 1 }, 're-attaching a released entity consumes a seat again');
      const reattached = await licenseRecordsOf(t, setup, b.entity_id);
      t.check('STATE-LICENSE-ATTACH-RELEASE', () => expect(reattached, 'after release and re-attach: one active record').toHaveLength(1));
      // …and it is then skipped again.
      t.expectOk(await assign([withoutFeature(b)]), 'LIC-ATTACH-ALL-ASSIGNED-OK');
      await expectPool(t, setup, 'LIC-ATTACH-SKIP-ASSIGNED', { usage: 4, remaining: 1 }, 'a re-attached entity is skipped again');

      // Capacity counts only the new entities: one seat left takes a mixed batch with one new entity…
      t.expectOk(await assign([withoutFeature(a), e, withoutFeature(c)]), 'LIC-ATTACH-MIXED-BATCH');
      await expectPool(t, setup, 'LIC-ATTACH-MIXED-BATCH', { usage: 5, remaining: 0 }, 'the last seat goes to the one new entity');
      // …and a full pool still takes a batch of only assigned entities.
      t.expectOk(await assign([a, b, c, d, e].map(withoutFeature)), 'LIC-ATTACH-ALL-ASSIGNED-OK');
      await expectPool(t, setup, 'LIC-ATTACH-SKIP-ASSIGNED', { usage: 5, remaining: 0 }, 'a full pool is unchanged by an all-assigned batch');
      await expectOneSeat(e, 'after an all-assigned batch on a full pool');
    },
  ),

  scenario(
    {
      id: 'licenses.attach-release-model',
      title: 'random sequences of licenses.attach and licenses.release agree with a model pool: success or error, then usage and remaining',
      rules: [
        'LIC-ATTACH-BATCH',
        'LIC-ATTACH-SKIP-ASSIGNED',
        'LIC-ATTACH-MIXED-BATCH',
        'LIC-ATTACH-ALL-ASSIGNED-OK',
        'LIC-ATTACH-DUPLICATE-IDS',
        'LIC-ATTACH-CAPACITY',
        'LIC-ATTACH-ALL-OR-NOTHING',
        'LIC-RELEASE-FREES-SEAT',
        'LIC-RELEASE-UNASSIGNED',
        'LIC-RELEASE-DUPLICATE-IDS',
        'LIC-POOL-USAGE',
        'LIC-POOL-REMAINING',
      ],
    },
    async (t) => {
      const property = fc.asyncProperty(licenseRun, async ({ granted, commands }) => {
        const setup = await createLicensePool(t, granted);
        const entities = await existingSeats(t, setup, MODEL_ENTITIES);
        const model = new LicensePoolModel(granted);
        let before = { usage: 0, remaining: granted };
        for (const [step, { op, picks, ofAssigned }] of commands.entries()) {
          const ids = entityIdsOf(picks, ofAssigned ? model.assigned : [], entities.map((entity) => entity.entity_id));
          const label = `step ${step + 1}, ${op} of entities [${ids.map((id) => entities.findIndex((e) => e.entity_id === id)).join(', ')}] on a pool of ${granted}`;
          const rule = model.ruleOf(op, ids);
          const fresh = model.fresh(ids);
          // A mixed batch refused only because its skipped entities were counted against capacity: that is LIC-ATTACH-SKIP-ASSIGNED's.
          const mixed = op === 'attach' && fresh > 0 && fresh < ids.length;
          const skipRule: CommandRule | 'LIC-ATTACH-SKIP-ASSIGNED' = mixed && ids.length > before.remaining ? 'LIC-ATTACH-SKIP-ASSIGNED' : rule;
          const succeeds = op === 'attach' ? model.attach(ids) : model.release(ids);
          const result =
            op === 'attach' ? await attachLicenses(t, setup, ids.map((id) => entities.find((e) => e.entity_id === id)!)) : await releaseLicenses(t, setup, ids);
          if (succeeds) t.expectOk(result, skipRule);
          else t.expectError(result, { rule });
          const seen = await pool(t, setup);
          const counts = { usage: seen?.usage, remaining: seen?.remaining };
          const expected = { usage: model.usage, remaining: model.remaining };
          // The step's effect must show in usage or in remaining (by how much each moved); a seat taken by a skipped entity is SKIP-ASSIGNED's.
          const moved = (n: number | undefined, from: number) => (n === undefined ? undefined : n - from);
          const usageMoved = moved(counts.usage, before.usage);
          const remainingMoved = moved(counts.remaining, before.remaining);
          const wanted = expected.usage - before.usage;
          const effectShows = usageMoved === wanted || remainingMoved === -wanted;
          const tookMore = (usageMoved ?? 0) > wanted || -(remainingMoved ?? 0) > wanted;
          // What a refused batch leaves behind is LIC-ATTACH-ALL-OR-NOTHING's.
          const effectRule = op === 'attach' && succeeds && fresh < ids.length && tookMore ? 'LIC-ATTACH-SKIP-ASSIGNED' : rule === 'LIC-ATTACH-CAPACITY' ? 'LIC-ATTACH-ALL-OR-NOTHING' : rule;
          t.check(effectRule, () =>
            expect(effectShows, `${label}: licenses.list afterwards shows ${JSON.stringify(counts)}, expected ${JSON.stringify(expected)}`).toBe(true),
          );
          t.check('LIC-POOL-USAGE', () => expect(counts.usage, `${label}: usage`).toBe(expected.usage));
          t.check('LIC-POOL-REMAINING', () => expect(counts.remaining, `${label}: remaining`).toBe(expected.remaining));
          before = expected;
        }
      });
      await checkProperty(t, property, 15);
    },
  ),

  scenario(
    {
      id: 'licenses.list-customer-pools',
      title: "licenses.list shows exactly the customer's own pools, every field set, ordered by parent plan then license plan",
      rules: ['LIC-LIST-CUSTOMER-POOLS', 'LIC-LIST-ORDER', 'LIC-LIST-SHAPE'],
    },
    async (t) => {
      // Created in the reverse of the expected order, so an answer in creation order shows.
      const zSeat = await createPlan(t, { plan_id: t.ns.id('zseat'), name: 'Z seat' });
      const aSeat = await createPlan(t, { plan_id: t.ns.id('aseat'), name: 'A seat' });
      const mSeat = await createPlan(t, { plan_id: t.ns.id('mseat'), name: 'M seat' });
      const zParent = await createPlan(t, {
        plan_id: t.ns.id('zparent'),
        group: t.ns.id('grp'),
        licenses: [
          { license_plan_id: zSeat.id, included: 2 },
          { license_plan_id: aSeat.id, included: 1 },
        ],
      });
      const aParent = await createPlan(t, { plan_id: t.ns.id('aparent'), add_on: true, licenses: [{ license_plan_id: mSeat.id, included: 3 }] });
      requireLicenseLinks(t, zParent, [zSeat.id, aSeat.id]);
      requireLicenseLinks(t, aParent, [mSeat.id]);
      const both = await createCustomer(t);
      await attach(t, both.id, zParent.id);
      await attach(t, both.id, aParent.id);
      const mainOnly = await createCustomer(t);
      await attach(t, mainOnly.id, zParent.id);
      const none = await createCustomer(t);

      const names = new Map([zSeat, aSeat, mSeat].map((plan) => [plan.id, plan.name]));
      const key = (p: { parent_plan_id: string; license_plan_id: string }) => `${p.parent_plan_id} / ${p.license_plan_id}`;
      const expectPools = async (customerId: string, expected: { id: string }[][], why: string) => {
        const list = t.expectOk(await t.client.call('licenses.list', { customer_id: customerId }), 'LIC-LIST-CUSTOMER-POOLS').list;
        const wanted = expected.map(([parent, license]) => `${parent!.id} / ${license!.id}`);
        t.check('LIC-LIST-CUSTOMER-POOLS', () => expect(list.map(key).sort(), why).toEqual([...wanted].sort()));
        t.check('LIC-LIST-ORDER', () => expect(list.map(key), `${why}, by parent plan then license plan`).toEqual(wanted));
        t.check('LIC-LIST-SHAPE', () =>
          expect(
            list.map((p) => p.license_plan_name),
            `${why}: each pool names its license plan`,
          ).toEqual(list.map((p) => names.get(p.license_plan_id))),
        );
      };

      await expectPools(both.id, [[aParent, mSeat], [zParent, aSeat], [zParent, zSeat]], 'a customer with two parent plans: their three pools');
      await expectPools(mainOnly.id, [[zParent, aSeat], [zParent, zSeat]], "another customer sees only its own parent plan's pools");
      await expectPools(none.id, [], 'a customer without a parent plan has no pools');
    },
  ),

  scenario(
    {
      id: 'licenses.list-with-entity',
      title: 'licenses.list with the entity_id of an assigned or an unassigned entity lists the same customer pools as without it',
      rules: ['LIC-LIST-ENTITY-SAME-POOLS', 'LIC-LIST-SHAPE'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const [member] = licenseEntities(t, setup, 1) as [AttachItem];
      await assignSeats(t, setup, [member]);
      const outsider = await createEntity(t, setup.customerId, setup.seatFeature.id);

      const withoutEntity = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']).list;
      t.precondition('the customer has its one pool, one seat used', () =>
        expect(withoutEntity).toMatchObject([{ license_plan_id: setup.licensePlan.id, usage: 1, remaining: 2 }]),
      );
      for (const [entityId, which] of [
        [member.entity_id, 'an assigned entity'],
        [outsider.id, 'an entity holding no license'],
      ] as const) {
        const withEntity = t.expectOk(await t.client.call('licenses.list', { customer_id: setup.customerId, entity_id: entityId }), 'LIC-LIST-ENTITY-SAME-POOLS').list;
        t.check('LIC-LIST-ENTITY-SAME-POOLS', () => expect(withEntity, `licenses.list with the entity_id of ${which} lists the customer's pools unchanged`).toEqual(withoutEntity));
      }
    },
  ),

  scenario(
    {
      id: 'licenses.paid-seats',
      title: 'seats bought with license_quantities show as paid_quantity, add to granted, and can be assigned',
      rules: ['LIC-POOL-PAID-QUANTITY', 'LIC-POOL-GRANTED', 'LIC-POOL-REMAINING'],
    },
    async (t) => {
      const mixed = await createLicensePool(t, 2, { totalSeats: 5 });
      await expectPool(t, mixed, 'LIC-POOL-GRANTED', { granted: 5, paid_quantity: 3, usage: 0, remaining: 5 }, '2 included + 3 paid seats');
      // One entity per call, so this does not rest on batches (LIC-ATTACH-BATCH).
      for (const item of licenseEntities(t, mixed, 5)) t.setup(await attachLicenses(t, mixed, [item]));
      await expectPool(t, mixed, 'LIC-POOL-GRANTED', { granted: 5, paid_quantity: 3, usage: 5, remaining: 0 }, 'paid seats are assignable like included ones');

      const paidOnly = await createLicensePool(t, 0, { totalSeats: 3 });
      await expectPool(t, paidOnly, 'LIC-POOL-GRANTED', { granted: 3, paid_quantity: 3, usage: 0, remaining: 3 }, 'no included seat, 3 paid');

      const includedOnly = await createLicensePool(t, 2, { totalSeats: 2 });
      await expectPool(t, includedOnly, 'LIC-POOL-PAID-QUANTITY', { granted: 2, paid_quantity: 0, usage: 0, remaining: 2 }, 'a quantity equal to the included seats buys none');
    },
  ),

  scenario(
    {
      id: 'licenses.attach-batch',
      title: 'licenses.attach assigns every entity of a batch, existing or created on the way, and list_assignments shows one active assignment each',
      rules: ['LIC-ATTACH-BATCH', 'LIC-ATTACH-CREATES-ENTITY', 'LIC-ATTACH-SHAPE', 'LIC-ASSIGNMENTS-LIST', 'LIC-ASSIGNMENTS-SHAPE', 'LIC-POOL-USAGE'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 5);
      const member = await createEntity(t, setup.customerId, setup.seatFeature.id, 'Existing member');
      const [first, fresh1, fresh2] = licenseEntities(t, setup, 3) as [AttachItem, AttachItem, AttachItem];

      // One new entity alone first, so creating entities is proven apart from batching.
      t.expectOk(await attachLicenses(t, setup, [first]), 'LIC-ATTACH-CREATES-ENTITY');
      const expectCreated = async (created: AttachItem) => {
        const entity = t.expectOk(await t.client.call('entities.get', { customer_id: setup.customerId, entity_id: created.entity_id }), 'LIC-ATTACH-CREATES-ENTITY');
        t.check('LIC-ATTACH-CREATES-ENTITY', () =>
          expect(entity, `licenses.attach created ${created.entity_id} under the customer, with its name and feature`).toMatchObject({
            id: created.entity_id,
            customer_id: setup.customerId,
            name: created.name,
            feature_id: setup.seatFeature.id,
          }),
        );
      };
      await expectCreated(first);

      t.expectOk(await attachLicenses(t, setup, [{ entity_id: member.id, name: 'Existing member' }, fresh1, fresh2]), 'LIC-ATTACH-BATCH');
      await expectPool(t, setup, 'LIC-ATTACH-BATCH', { usage: 4, remaining: 1 }, 'one seat per entity of the batch');
      for (const created of [fresh1, fresh2]) await expectCreated(created);

      const { list } = t.expectOk(await t.client.call('licenses.list_assignments', { customer_id: setup.customerId }), 'LIC-ASSIGNMENTS-LIST');
      t.check('LIC-ASSIGNMENTS-LIST', () =>
        expect(list.map((assignment) => assignment.entity_id).sort(), 'one active assignment per assigned entity').toEqual(
          sorted([first.entity_id, member.id, fresh1.entity_id, fresh2.entity_id]),
        ),
      );
      t.check('LIC-ASSIGNMENTS-SHAPE', () => {
        for (const assignment of list) {
          expect(assignment, `assignment of ${assignment.entity_id}`).toMatchObject({ license_plan_id: setup.licensePlan.id, ended_at: null });
          expect(typeof assignment.started_at, 'started_at is a timestamp').toBe('number');
        }
        expect(new Set(list.map((assignment) => assignment.id)).size, 'each assignment has its own id').toBe(list.length);
      });
    },
  ),

  scenario(
    {
      id: 'licenses.release-ends-license',
      title: 'licenses.release takes the license from the entity and returns its seat to the pool; the entity itself stays',
      rules: ['STATE-LICENSE-ATTACH-RELEASE', 'LIC-RELEASE-FREES-SEAT', 'LIC-RELEASE-SHAPE', 'LIC-ASSIGNMENTS-LIST', 'LIC-POOL-USAGE', 'LIC-POOL-REMAINING'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const [a, b, c] = licenseEntities(t, setup, 3) as [AttachItem, AttachItem, AttachItem];
      await assignSeats(t, setup, [a, b, c]);
      const listed = async () =>
        t
          .expectOk(await t.client.call('licenses.list_assignments', { customer_id: setup.customerId, plan_id: setup.licensePlan.id }), 'LIC-ASSIGNMENTS-LIST')
          .list.map((assignment) => assignment.entity_id)
          .sort();

      const before = await licenseRecordsOf(t, setup, a.entity_id);
      t.precondition('an assigned entity holds the license plan', () => expect(before).toHaveLength(1));

      t.expectOk(await releaseLicenses(t, setup, [a.entity_id]), 'LIC-RELEASE-FREES-SEAT');
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage: 2, remaining: 1 }, 'the released seat is back in the pool');
      const after = await licenseRecordsOf(t, setup, a.entity_id);
      t.check('STATE-LICENSE-ATTACH-RELEASE', () => expect(after, 'a released entity no longer holds the license plan').toEqual([]));
      const remaining = await listed();
      t.check('LIC-ASSIGNMENTS-LIST', () => expect(remaining, 'list_assignments no longer shows the released entity').toEqual(sorted([b.entity_id, c.entity_id])));
      const other = await licenseRecordsOf(t, setup, b.entity_id);
      t.check('STATE-LICENSE-ATTACH-RELEASE', () => expect(other, 'the other entities keep their license').toHaveLength(1));

      // A batch release frees every seat of the batch.
      t.expectOk(await releaseLicenses(t, setup, [b.entity_id, c.entity_id]), 'LIC-RELEASE-FREES-SEAT');
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage: 0, remaining: 3 }, 'a batch release frees every seat');
      const none = await listed();
      t.check('LIC-ASSIGNMENTS-LIST', () => expect(none).toEqual([]));
    },
  ),

  scenario(
    {
      id: 'licenses.attach-duplicate-ids',
      title: 'licenses.attach refuses a batch naming an entity twice, assigned or not, and changes nothing',
      rules: ['LIC-ATTACH-DUPLICATE-IDS'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 5);
      const [held, x, y, z] = licenseEntities(t, setup, 4) as [AttachItem, AttachItem, AttachItem, AttachItem];
      await assignSeats(t, setup, [held]);

      for (const [batch, what] of [
        [[x, x], 'a new entity twice'],
        [[y, z, y], 'a new entity twice among others'],
        [[withoutFeature(held), withoutFeature(held)], 'an assigned entity twice'],
      ] as const) {
        t.expectError(await attachLicenses(t, setup, batch), { rule: 'LIC-ATTACH-DUPLICATE-IDS' });
        await expectPool(t, setup, 'LIC-ATTACH-DUPLICATE-IDS', { usage: 1, remaining: 4 }, `a refused batch with ${what} consumes nothing`);
      }
      for (const item of [x, y, z]) await expectNoEntity(t, setup, item.entity_id, 'LIC-ATTACH-DUPLICATE-IDS');
      const assigned = await holders(t, setup);
      t.check('LIC-ATTACH-DUPLICATE-IDS', () => expect(assigned).toEqual([held.entity_id]));
      // The nearest valid batch, each entity once, is accepted.
      t.setup(await attachLicenses(t, setup, [x, y, z]));
    },
  ),

  scenario(
    {
      id: 'licenses.attach-duplicate-ids-code',
      title: 'licenses.attach answers a duplicate entity ID with 400 invalid_request, as the reference does',
      rules: ['ERR-DUPLICATE-ENTITY-CODE'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const [x] = (await existingSeats(t, setup, 1)) as [AttachItem];
      const result = await attachLicenses(t, setup, [x, x]);
      // That the batch is refused at all is LIC-ATTACH-DUPLICATE-IDS's; this rule is about how.
      t.precondition('a batch naming an entity twice is refused', () => expect(result.ok).toBe(false));
      t.expectError(result, { status: 400, code: 'invalid_request', rule: 'ERR-DUPLICATE-ENTITY-CODE' });
    },
  ),

  scenario(
    {
      id: 'licenses.attach-over-capacity',
      title: 'licenses.attach refuses a batch with more new assignments than seats left, existing entities included, and consumes nothing',
      rules: ['LIC-ATTACH-CAPACITY', 'LIC-ATTACH-ALL-OR-NOTHING', 'LIC-POOL-REMAINING'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      const [a, b, c] = licenseEntities(t, setup, 3) as [AttachItem, AttachItem, AttachItem];
      const member = await createEntity(t, setup.customerId, setup.seatFeature.id);
      await assignSeats(t, setup, [a]);

      // What a refused batch leaves behind is LIC-ATTACH-ALL-OR-NOTHING's.
      t.expectError(await attachLicenses(t, setup, [b, c]), { rule: 'LIC-ATTACH-CAPACITY' });
      await expectPool(t, setup, 'LIC-ATTACH-ALL-OR-NOTHING', { usage: 1, remaining: 1 }, 'two new entities for one seat: refused, nothing consumed');
      t.expectError(await attachLicenses(t, setup, [withoutFeature(a), b, c]), { rule: 'LIC-ATTACH-CAPACITY' });
      await expectPool(t, setup, 'LIC-ATTACH-ALL-OR-NOTHING', { usage: 1, remaining: 1 }, 'the assigned entity does not make room: still refused');

      // The nearest valid batch, one new entity for the one seat, is accepted.
      await assignSeats(t, setup, [b]);
      await t.precondition('the last seat is taken', async () => expect(await pool(t, setup)).toMatchObject({ usage: 2, remaining: 0 }));
      t.expectError(await attachLicenses(t, setup, [c]), { rule: 'LIC-ATTACH-CAPACITY' });
      t.expectError(await attachLicenses(t, setup, [{ entity_id: member.id, name: 'Member' }]), { rule: 'LIC-ATTACH-CAPACITY' });
      await expectPool(t, setup, 'LIC-ATTACH-ALL-OR-NOTHING', { usage: 2, remaining: 0 }, 'a full pool takes no new entity, new or existing');
    },
  ),

  scenario(
    {
      id: 'licenses.attach-all-or-nothing',
      title: 'a licenses.attach batch refused for capacity assigns none of its entities and creates none of the new ones',
      rules: ['LIC-ATTACH-ALL-OR-NOTHING'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      const member = await createEntity(t, setup.customerId, setup.seatFeature.id);
      const [fresh1, fresh2] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];

      const result = await attachLicenses(t, setup, [{ entity_id: member.id, name: 'Member' }, fresh1, fresh2]);
      // That a batch too big for the pool is refused is LIC-ATTACH-CAPACITY's; this rule is about what the refusal leaves.
      t.precondition('a batch of three for two seats is refused', () => expect(result.ok).toBe(false));
      t.expectError(result, { rule: 'LIC-ATTACH-ALL-OR-NOTHING' });
      await expectPool(t, setup, 'LIC-ATTACH-ALL-OR-NOTHING', { usage: 0, remaining: 2 }, 'nothing was assigned');
      const assigned = await holders(t, setup);
      t.check('LIC-ATTACH-ALL-OR-NOTHING', () => expect(assigned).toEqual([]));
      for (const item of [fresh1, fresh2]) await expectNoEntity(t, setup, item.entity_id, 'LIC-ATTACH-ALL-OR-NOTHING');
    },
  ),

  scenario(
    {
      id: 'licenses.capacity-code',
      title: 'licenses.attach answers insufficient capacity with 400 invalid_request, as the reference does',
      rules: ['ERR-CAPACITY-CODE'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 1);
      const result = await attachLicenses(t, setup, await existingSeats(t, setup, 2));
      t.precondition('two new entities for one seat are refused', () => expect(result.ok).toBe(false));
      t.expectError(result, { status: 400, code: 'invalid_request', rule: 'ERR-CAPACITY-CODE' });
    },
  ),

  scenario(
    {
      id: 'licenses.attach-unknown-entity-needs-feature',
      title: 'licenses.attach refuses an entity that does not exist and carries no feature_id with 400 invalid_request, even on a full pool',
      rules: ['LIC-ATTACH-UNKNOWN-ENTITY-NEEDS-FEATURE'],
    },
    async (t) => {
      const rule = 'LIC-ATTACH-UNKNOWN-ENTITY-NEEDS-FEATURE';
      const setup = await createLicensePool(t, 3);
      const [control, withFeature, bare1, bare2, filler] = licenseEntities(t, setup, 5) as [AttachItem, AttachItem, AttachItem, AttachItem, AttachItem];
      // The positive control: an unknown entity with feature_id is accepted (and created).
      await assignSeats(t, setup, [control]);

      t.expectError(await attachLicenses(t, setup, [withoutFeature(bare1)]), { status: 400, code: 'invalid_request', rule });
      t.expectError(await attachLicenses(t, setup, [withFeature, withoutFeature(bare2)]), { status: 400, code: 'invalid_request', rule });
      await expectPool(t, setup, rule, { usage: 1, remaining: 2 }, 'nothing was assigned');
      for (const item of [bare1, bare2, withFeature]) await expectNoEntity(t, setup, item.entity_id, rule);

      // On a full pool the answer is the same.
      await assignSeats(t, setup, [withFeature, filler]);
      t.expectError(await attachLicenses(t, setup, [withoutFeature(bare1)]), { status: 400, code: 'invalid_request', rule });
      await expectNoEntity(t, setup, bare1.entity_id, rule);
    },
  ),

  scenario(
    {
      id: 'licenses.release-unassigned',
      title: 'licenses.release refuses an entity holding no license of the plan (never assigned, or released already) with 400 invalid_request, and releases nothing',
      rules: ['LIC-RELEASE-UNASSIGNED'],
    },
    async (t) => {
      const rule = 'LIC-RELEASE-UNASSIGNED';
      const setup = await createLicensePool(t, 3);
      const never = await createEntity(t, setup.customerId, setup.seatFeature.id);
      const [a, b] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];
      await assignSeats(t, setup, [a, b]);

      t.expectError(await releaseLicenses(t, setup, [never.id]), { status: 400, code: 'invalid_request', rule });
      t.expectError(await releaseLicenses(t, setup, [b.entity_id, never.id]), { status: 400, code: 'invalid_request', rule });
      await expectPool(t, setup, rule, { usage: 2, remaining: 1 }, 'a refused release frees nothing, not even its assigned entities');

      // The nearest valid release is accepted; releasing the same entity again is refused.
      await releaseSeats(t, setup, [a.entity_id]);
      t.expectError(await releaseLicenses(t, setup, [a.entity_id]), { status: 400, code: 'invalid_request', rule });
      await expectPool(t, setup, rule, { usage: 1, remaining: 2 }, 'a second release of the same entity changes nothing');
      const assigned = await holders(t, setup);
      t.check(rule, () => expect(assigned).toEqual([b.entity_id]));
    },
  ),

  scenario(
    {
      id: 'licenses.release-duplicate-ids',
      title: 'licenses.release refuses the same entity twice with 400 invalid_request and releases nothing',
      rules: ['LIC-RELEASE-DUPLICATE-IDS'],
    },
    async (t) => {
      const rule = 'LIC-RELEASE-DUPLICATE-IDS';
      const setup = await createLicensePool(t, 3);
      const [a, b] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];
      await assignSeats(t, setup, [a, b]);

      t.expectError(await releaseLicenses(t, setup, [a.entity_id, a.entity_id]), { status: 400, code: 'invalid_request', rule });
      t.expectError(await releaseLicenses(t, setup, [a.entity_id, b.entity_id, a.entity_id]), { status: 400, code: 'invalid_request', rule });
      await expectPool(t, setup, rule, { usage: 2, remaining: 1 }, 'nothing was released');
      const assigned = await holders(t, setup);
      t.check(rule, () => expect(assigned).toEqual(sorted([a.entity_id, b.entity_id])));
      // The nearest valid release, each entity once, is accepted.
      t.setup(await releaseLicenses(t, setup, [a.entity_id, b.entity_id]));
    },
  ),

  scenario(
    {
      id: 'licenses.list-required-fields',
      title: 'licenses.list without customer_id is refused with an error, also when entity_id is given, while the same call with it is accepted',
      rules: ['LIC-LIST-REQUIRED-FIELDS'],
    },
    async (t) => {
      const rule = 'LIC-LIST-REQUIRED-FIELDS';
      const customer = await createCustomer(t);
      const body = { customer_id: customer.id };
      // The positive control: without it, a target refusing every call would pass.
      t.setup(await t.client.call('licenses.list', body));
      t.expectError(await t.client.call('licenses.list', without(body, 'customer_id')), { rule });
      t.expectError(await t.client.call('licenses.list', without({ ...body, entity_id: t.ns.id('ent') }, 'customer_id')), { rule });
    },
  ),

  scenario(
    {
      id: 'licenses.attach-required-fields',
      title: 'licenses.attach without customer_id, plan_id or entities, or with entities given as plain strings instead of {entity_id, name}, is refused with an error and assigns nothing',
      rules: ['LIC-ATTACH-REQUIRED-FIELDS'],
    },
    async (t) => {
      const rule = 'LIC-ATTACH-REQUIRED-FIELDS';
      const setup = await createLicensePool(t, 2);
      const [item] = licenseEntities(t, setup, 1) as [AttachItem];
      const body = { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [item] };
      for (const field of ['customer_id', 'plan_id', 'entities'] as const) {
        t.expectError(await t.client.call('licenses.attach', without(body, field)), { rule });
        await expectPool(t, setup, rule, { usage: 0, remaining: 2 }, `a body without ${field} assigns nothing`);
      }
      // Plain strings carry no entity_id field: the entities the document requires are not there.
      t.expectError(await t.client.call('licenses.attach', { ...body, entities: [item.entity_id] } as unknown as typeof body), { rule });
      await expectPool(t, setup, rule, { usage: 0, remaining: 2 }, 'entities given as plain strings assign nothing');
      await expectNoEntity(t, setup, item.entity_id, rule);
      // The positive control: the whole body is accepted.
      t.setup(await t.client.call('licenses.attach', body));
    },
  ),

  scenario(
    {
      id: 'licenses.release-required-fields',
      title: 'licenses.release without customer_id, license_plan_id or entity_ids is refused with an error and releases nothing',
      rules: ['LIC-RELEASE-REQUIRED-FIELDS'],
    },
    async (t) => {
      const rule = 'LIC-RELEASE-REQUIRED-FIELDS';
      const setup = await createLicensePool(t, 2);
      const [item] = licenseEntities(t, setup, 1) as [AttachItem];
      await assignSeats(t, setup, [item]);
      const body = { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [item.entity_id] };
      for (const field of ['customer_id', 'license_plan_id', 'entity_ids'] as const) {
        t.expectError(await t.client.call('licenses.release', without(body, field)), { rule });
        await expectPool(t, setup, rule, { usage: 1, remaining: 1 }, `a body without ${field} releases nothing`);
      }
      const assigned = await holders(t, setup);
      t.check(rule, () => expect(assigned).toEqual([item.entity_id]));
      // The positive control: the whole body is accepted.
      t.setup(await t.client.call('licenses.release', body));
    },
  ),
];
