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
  scenario,
  type LicenseSetup,
  type T,
} from '../support.ts';

type AttachItem = { entity_id: string; name: string; feature_id?: string };

/** The pool of the setup's license plan, as licenses.list shows it. */
async function pool(t: T, setup: LicenseSetup) {
  const { list } = t.expectOk(await t.client.call('licenses.list', { customer_id: setup.customerId }));
  const found = list.find((p) => p.license_plan_id === setup.licensePlan.id && p.parent_plan_id === setup.parentPlan.id);
  expect(found, `licenses.list shows the pool of ${setup.licensePlan.id} offered by ${setup.parentPlan.id}`).toBeDefined();
  return found!;
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

/** The entity IDs holding an active assignment of the setup's license plan, sorted. */
async function assignedEntities(t: T, setup: LicenseSetup): Promise<string[]> {
  const { list } = t.expectOk(await t.client.call('licenses.list_assignments', { customer_id: setup.customerId, plan_id: setup.licensePlan.id }));
  return list.map((assignment) => assignment.entity_id).sort();
}

/** The subscriptions of the setup's license plan that an entity holds. */
async function licenseRecordsOf(t: T, setup: LicenseSetup, entityId: string) {
  const entity = t.expectOk(await t.client.call('entities.get', { customer_id: setup.customerId, entity_id: entityId }));
  return { entity, seats: entity.subscriptions.filter((subscription) => subscription.plan_id === setup.licensePlan.id) };
}

async function expectNoEntity(t: T, setup: LicenseSetup, entityId: string, why: string) {
  const result = await t.client.call('entities.get', { customer_id: setup.customerId, entity_id: entityId });
  expect(result.ok, `${why}: entity ${entityId} must not exist`).toBe(false);
  t.expectError(result);
}

function sorted(ids: readonly string[]): string[] {
  return [...ids].sort();
}

/** A body with one field left out, sent as is (the client does not validate requests). */
function without<B extends object>(body: B, field: keyof B): B {
  const { [field]: _, ...rest } = body;
  return rest as B;
}

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
      expect(await pool(t, setup)).toMatchObject({ granted: 5, usage: 0, remaining: 5 });

      const [a, b, c, d, e] = licenseEntities(t, setup, 5) as [AttachItem, AttachItem, AttachItem, AttachItem, AttachItem];
      const assign = (entities: AttachItem[]) => attachLicenses(t, setup, entities);
      const expectOneSeat = async (item: AttachItem, when: string) => {
        const { seats } = await licenseRecordsOf(t, setup, item.entity_id);
        expect(seats, `${when}: entity ${item.entity_id} holds exactly one record of the license plan`).toHaveLength(1);
      };

      // Two new entities consume two seats.
      expect(t.expectOk(await assign([a, b]))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ granted: 5, usage: 2, remaining: 3 });

      // A mixed batch: a and b are skipped, only c and d are assigned.
      expect(t.expectOk(await assign([withoutFeature(a), c, withoutFeature(b), d]))).toEqual({ success: true });
      expect(await pool(t, setup), 'a mixed batch moves usage by exactly its new entities').toMatchObject({ granted: 5, usage: 4, remaining: 1 });
      expect(await assignedEntities(t, setup), 'one active assignment per entity after a mixed batch').toEqual(sorted([a, b, c, d].map((x) => x.entity_id)));

      // A batch of only assigned entities succeeds and changes nothing, even with one seat left.
      const allAssigned = [a, b, c, d].map(withoutFeature);
      expect(t.expectOk(await assign(allAssigned))).toEqual({ success: true });
      expect(await pool(t, setup), 'an all-assigned batch consumes nothing').toMatchObject({ usage: 4, remaining: 1 });
      // More assigned entities than seats left: still nothing to consume, so no capacity error.
      expect(t.expectOk(await assign(allAssigned.slice(0, 3)))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ usage: 4, remaining: 1 });
      await expectOneSeat(a, 'after two batches that skipped it');
      expect(await assignedEntities(t, setup), 'skipped entities get no second assignment').toEqual(sorted([a, b, c, d].map((x) => x.entity_id)));

      // Releasing frees the seat; attaching the released entity again consumes one again.
      expect(t.expectOk(await releaseLicenses(t, setup, [b.entity_id]))).toEqual({ success: true });
      expect(await pool(t, setup), 'a release frees exactly one seat').toMatchObject({ usage: 3, remaining: 2 });
      expect(await assignedEntities(t, setup)).toEqual(sorted([a, c, d].map((x) => x.entity_id)));
      expect(t.expectOk(await assign([withoutFeature(b)]))).toEqual({ success: true });
      expect(await pool(t, setup), 're-attaching a released entity consumes a seat again').toMatchObject({ usage: 4, remaining: 1 });
      await expectOneSeat(b, 'after release and re-attach');
      // …and it is then skipped again.
      expect(t.expectOk(await assign([withoutFeature(b)]))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ granted: 5, usage: 4, remaining: 1 });

      // Capacity counts only the new entities: one seat left takes a mixed batch with one new entity…
      expect(t.expectOk(await assign([withoutFeature(a), e, withoutFeature(c)]))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ granted: 5, usage: 5, remaining: 0 });
      // …and a full pool still takes a batch of only assigned entities.
      expect(t.expectOk(await assign([a, b, c, d, e].map(withoutFeature)))).toEqual({ success: true });
      expect(await pool(t, setup), 'a full pool is unchanged by an all-assigned batch').toMatchObject({ granted: 5, usage: 5, remaining: 0 });
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
        const entities = licenseEntities(t, setup, MODEL_ENTITIES);
        const model = new LicensePoolModel(granted);
        for (const [step, { op, picks, ofAssigned }] of commands.entries()) {
          const ids = entityIdsOf(picks, ofAssigned ? model.assigned : [], entities.map((entity) => entity.entity_id));
          const label = `step ${step + 1}, ${op} of entities [${ids.map((id) => entities.findIndex((e) => e.entity_id === id)).join(', ')}] on a pool of ${granted}`;
          const succeeds = op === 'attach' ? model.attach(ids) : model.release(ids);
          // Every item carries feature_id, so whether an entity exists yet never decides the outcome.
          const result =
            op === 'attach' ? await attachLicenses(t, setup, ids.map((id) => entities.find((e) => e.entity_id === id)!)) : await releaseLicenses(t, setup, ids);
          if (succeeds) expect(t.expectOk(result), label).toEqual({ success: true });
          else t.expectError(result);
          const seen = await pool(t, setup);
          expect({ usage: seen.usage, remaining: seen.remaining }, `${label}: licenses.list afterwards`).toEqual({ usage: model.usage, remaining: model.remaining });
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
      const both = await createCustomer(t);
      await attach(t, both.id, zParent.id);
      await attach(t, both.id, aParent.id);
      const mainOnly = await createCustomer(t);
      await attach(t, mainOnly.id, zParent.id);
      const none = await createCustomer(t);

      const poolOf = (parent: { id: string }, license: { id: string; name: string }, granted: number) => ({
        license_plan_id: license.id,
        parent_plan_id: parent.id,
        license_plan_name: license.name,
        granted,
        usage: 0,
        remaining: granted,
        paid_quantity: 0,
      });
      const list = async (customerId: string) => t.expectOk(await t.client.call('licenses.list', { customer_id: customerId })).list;

      expect(await list(both.id), 'a customer with two parent plans: their three pools, by parent plan then license plan').toEqual([
        poolOf(aParent, mSeat, 3),
        poolOf(zParent, aSeat, 1),
        poolOf(zParent, zSeat, 2),
      ]);
      expect(await list(mainOnly.id), "another customer sees only its own parent plan's pools").toEqual([poolOf(zParent, aSeat, 1), poolOf(zParent, zSeat, 2)]);
      expect(await list(none.id), 'a customer without a parent plan has no pools').toEqual([]);
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
      t.expectOk(await attachLicenses(t, setup, [member]));
      const outsider = await createEntity(t, setup.customerId, setup.seatFeature.id);

      const withoutEntity = t.expectOk(await t.client.call('licenses.list', { customer_id: setup.customerId })).list;
      expect(withoutEntity, 'the customer has its one pool, one seat used').toMatchObject([{ license_plan_id: setup.licensePlan.id, usage: 1, remaining: 2 }]);
      for (const [entityId, which] of [
        [member.entity_id, 'an assigned entity'],
        [outsider.id, 'an entity holding no license'],
      ] as const) {
        const withEntity = t.expectOk(await t.client.call('licenses.list', { customer_id: setup.customerId, entity_id: entityId })).list;
        expect(withEntity, `licenses.list with the entity_id of ${which} lists the customer's pools unchanged`).toEqual(withoutEntity);
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
      expect(await pool(t, mixed), '2 included + 3 paid seats').toMatchObject({ granted: 5, paid_quantity: 3, usage: 0, remaining: 5 });
      t.expectOk(await attachLicenses(t, mixed, licenseEntities(t, mixed, 5)));
      expect(await pool(t, mixed), 'paid seats are assignable like included ones').toMatchObject({ granted: 5, paid_quantity: 3, usage: 5, remaining: 0 });

      const paidOnly = await createLicensePool(t, 0, { totalSeats: 3 });
      expect(await pool(t, paidOnly), 'no included seat, 3 paid').toMatchObject({ granted: 3, paid_quantity: 3, usage: 0, remaining: 3 });

      const includedOnly = await createLicensePool(t, 2, { totalSeats: 2 });
      expect(await pool(t, includedOnly), 'a quantity equal to the included seats buys none').toMatchObject({ granted: 2, paid_quantity: 0, usage: 0, remaining: 2 });
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
      const [fresh1, fresh2] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];

      expect(t.expectOk(await attachLicenses(t, setup, [{ entity_id: member.id, name: 'Existing member' }, fresh1, fresh2]))).toEqual({ success: true });
      expect(await pool(t, setup), 'one seat per entity of the batch').toMatchObject({ granted: 5, usage: 3, remaining: 2 });

      for (const created of [fresh1, fresh2]) {
        const entity = t.expectOk(await t.client.call('entities.get', { customer_id: setup.customerId, entity_id: created.entity_id }));
        expect(entity, `licenses.attach created ${created.entity_id} under the customer, with its name and feature`).toMatchObject({
          id: created.entity_id,
          customer_id: setup.customerId,
          name: created.name,
          feature_id: setup.seatFeature.id,
        });
      }

      const { list } = t.expectOk(await t.client.call('licenses.list_assignments', { customer_id: setup.customerId }));
      expect(list.map((assignment) => assignment.entity_id).sort(), 'one active assignment per assigned entity').toEqual(
        sorted([member.id, fresh1.entity_id, fresh2.entity_id]),
      );
      for (const assignment of list) {
        expect(assignment, `assignment of ${assignment.entity_id}`).toMatchObject({ license_plan_id: setup.licensePlan.id, ended_at: null });
        expect(typeof assignment.started_at, 'started_at is a timestamp').toBe('number');
      }
      expect(new Set(list.map((assignment) => assignment.id)).size, 'each assignment has its own id').toBe(list.length);
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
      t.expectOk(await attachLicenses(t, setup, [a, b, c]));

      const before = await licenseRecordsOf(t, setup, a.entity_id);
      expect(before.seats, 'an assigned entity holds the license plan').toMatchObject([{ status: 'active' }]);
      expect(Object.keys(before.entity.flags), "…and the license plan's feature").toContain(setup.flag.id);

      expect(t.expectOk(await releaseLicenses(t, setup, [a.entity_id]))).toEqual({ success: true });
      expect(await pool(t, setup), 'the released seat is back in the pool').toMatchObject({ granted: 3, usage: 2, remaining: 1 });
      const after = await licenseRecordsOf(t, setup, a.entity_id);
      expect(after.seats.filter((seat) => seat.status === 'active'), 'a released entity no longer holds the license plan').toEqual([]);
      expect(Object.keys(after.entity.flags), "…nor the license plan's feature").not.toContain(setup.flag.id);
      expect(await assignedEntities(t, setup), 'list_assignments no longer shows the released entity').toEqual(sorted([b.entity_id, c.entity_id]));
      expect((await licenseRecordsOf(t, setup, b.entity_id)).seats, 'the other entities keep their license').toMatchObject([{ status: 'active' }]);

      // A batch release frees every seat of the batch.
      expect(t.expectOk(await releaseLicenses(t, setup, [b.entity_id, c.entity_id]))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ granted: 3, usage: 0, remaining: 3 });
      expect(await assignedEntities(t, setup)).toEqual([]);
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
      t.expectOk(await attachLicenses(t, setup, [held]));

      for (const [batch, what] of [
        [[x, x], 'a new entity twice'],
        [[y, z, y], 'a new entity twice among others'],
        [[withoutFeature(held), withoutFeature(held)], 'an assigned entity twice'],
      ] as const) {
        t.expectError(await attachLicenses(t, setup, batch));
        expect(await pool(t, setup), `a refused batch with ${what} consumes nothing`).toMatchObject({ usage: 1, remaining: 4 });
      }
      for (const item of [x, y, z]) await expectNoEntity(t, setup, item.entity_id, 'a refused batch creates no entity');
      expect(await assignedEntities(t, setup)).toEqual([held.entity_id]);
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
      const [x] = licenseEntities(t, setup, 1) as [AttachItem];
      t.expectError(await attachLicenses(t, setup, [x, x]), { status: 400, code: 'invalid_request' });
    },
  ),

  scenario(
    {
      id: 'licenses.attach-over-capacity',
      title: 'licenses.attach refuses a batch with more new assignments than seats left, existing entities included, and consumes nothing',
      rules: ['LIC-ATTACH-CAPACITY', 'LIC-POOL-REMAINING'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      const [a, b, c] = licenseEntities(t, setup, 3) as [AttachItem, AttachItem, AttachItem];
      const member = await createEntity(t, setup.customerId, setup.seatFeature.id);
      t.expectOk(await attachLicenses(t, setup, [a]));

      t.expectError(await attachLicenses(t, setup, [b, c]));
      expect(await pool(t, setup), 'two new entities for one seat: refused, nothing consumed').toMatchObject({ granted: 2, usage: 1, remaining: 1 });
      t.expectError(await attachLicenses(t, setup, [withoutFeature(a), b, c]));
      expect(await pool(t, setup), 'the assigned entity does not make room: still refused').toMatchObject({ usage: 1, remaining: 1 });

      t.expectOk(await attachLicenses(t, setup, [b]));
      expect(await pool(t, setup)).toMatchObject({ usage: 2, remaining: 0 });
      t.expectError(await attachLicenses(t, setup, [c]));
      t.expectError(await attachLicenses(t, setup, [{ entity_id: member.id, name: 'Member' }]));
      expect(await pool(t, setup), 'a full pool takes no new entity, new or existing').toMatchObject({ granted: 2, usage: 2, remaining: 0 });
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

      t.expectError(await attachLicenses(t, setup, [{ entity_id: member.id, name: 'Member' }, fresh1, fresh2]));
      expect(await pool(t, setup), 'nothing was assigned').toMatchObject({ usage: 0, remaining: 2 });
      expect(await assignedEntities(t, setup)).toEqual([]);
      for (const item of [fresh1, fresh2]) await expectNoEntity(t, setup, item.entity_id, 'a batch refused for capacity');
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
      t.expectError(await attachLicenses(t, setup, licenseEntities(t, setup, 2)), { status: 400, code: 'invalid_request' });
    },
  ),

  scenario(
    {
      id: 'licenses.attach-unknown-entity-needs-feature',
      title: 'licenses.attach refuses an entity that does not exist and carries no feature_id with 400 invalid_request, even on a full pool',
      rules: ['LIC-ATTACH-UNKNOWN-ENTITY-NEEDS-FEATURE'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      const [withFeature, bare1, bare2, filler] = licenseEntities(t, setup, 4) as [AttachItem, AttachItem, AttachItem, AttachItem];

      t.expectError(await attachLicenses(t, setup, [withoutFeature(bare1)]), { status: 400, code: 'invalid_request' });
      t.expectError(await attachLicenses(t, setup, [withFeature, withoutFeature(bare2)]), { status: 400, code: 'invalid_request' });
      expect(await pool(t, setup), 'nothing was assigned').toMatchObject({ usage: 0, remaining: 2 });
      for (const item of [bare1, bare2, withFeature]) await expectNoEntity(t, setup, item.entity_id, 'a refused batch');

      // Checked before capacity: on a full pool the answer is the same.
      t.expectOk(await attachLicenses(t, setup, [withFeature, filler]));
      t.expectError(await attachLicenses(t, setup, [withoutFeature(bare1)]), { status: 400, code: 'invalid_request' });
      await expectNoEntity(t, setup, bare1.entity_id, 'a refused batch on a full pool');
    },
  ),

  scenario(
    {
      id: 'licenses.release-unassigned',
      title: 'licenses.release refuses an entity holding no license of the plan (never assigned, or released already) with 400 invalid_request, and releases nothing',
      rules: ['LIC-RELEASE-UNASSIGNED'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const never = await createEntity(t, setup.customerId, setup.seatFeature.id);
      const [a, b] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];
      t.expectOk(await attachLicenses(t, setup, [a, b]));

      t.expectError(await releaseLicenses(t, setup, [never.id]), { status: 400, code: 'invalid_request' });
      t.expectError(await releaseLicenses(t, setup, [b.entity_id, never.id]), { status: 400, code: 'invalid_request' });
      expect(await pool(t, setup), 'a refused release frees nothing, not even its assigned entities').toMatchObject({ usage: 2, remaining: 1 });

      t.expectOk(await releaseLicenses(t, setup, [a.entity_id]));
      t.expectError(await releaseLicenses(t, setup, [a.entity_id]), { status: 400, code: 'invalid_request' });
      expect(await pool(t, setup), 'a second release of the same entity changes nothing').toMatchObject({ usage: 1, remaining: 2 });
      expect(await assignedEntities(t, setup)).toEqual([b.entity_id]);
    },
  ),

  scenario(
    {
      id: 'licenses.release-duplicate-ids',
      title: 'licenses.release refuses the same entity twice with 400 invalid_request and releases nothing',
      rules: ['LIC-RELEASE-DUPLICATE-IDS'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const [a, b] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];
      t.expectOk(await attachLicenses(t, setup, [a, b]));

      t.expectError(await releaseLicenses(t, setup, [a.entity_id, a.entity_id]), { status: 400, code: 'invalid_request' });
      t.expectError(await releaseLicenses(t, setup, [a.entity_id, b.entity_id, a.entity_id]), { status: 400, code: 'invalid_request' });
      expect(await pool(t, setup), 'nothing was released').toMatchObject({ usage: 2, remaining: 1 });
      expect(await assignedEntities(t, setup)).toEqual(sorted([a.entity_id, b.entity_id]));
    },
  ),

  scenario(
    {
      id: 'licenses.list-required-fields',
      title: 'licenses.list without customer_id is refused with an error, also when entity_id is given',
      rules: ['LIC-LIST-REQUIRED-FIELDS'],
      mutates: false,
    },
    async (t) => {
      const noCustomer = { customer_id: t.ns.id('cus') };
      t.expectError(await t.client.call('licenses.list', without(noCustomer, 'customer_id')));
      t.expectError(await t.client.call('licenses.list', without({ ...noCustomer, entity_id: t.ns.id('ent') }, 'customer_id')));
    },
  ),

  scenario(
    {
      id: 'licenses.attach-required-fields',
      title: 'licenses.attach without customer_id, plan_id or entities is refused with an error and assigns nothing',
      rules: ['LIC-ATTACH-REQUIRED-FIELDS'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      const [item] = licenseEntities(t, setup, 1) as [AttachItem];
      const body = { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [item] };
      for (const field of ['customer_id', 'plan_id', 'entities'] as const) {
        t.expectError(await t.client.call('licenses.attach', without(body, field)));
        expect(await pool(t, setup), `a body without ${field} assigns nothing`).toMatchObject({ usage: 0, remaining: 2 });
      }
      await expectNoEntity(t, setup, item.entity_id, 'refused bodies');
    },
  ),

  scenario(
    {
      id: 'licenses.release-required-fields',
      title: 'licenses.release without customer_id, license_plan_id or entity_ids is refused with an error and releases nothing',
      rules: ['LIC-RELEASE-REQUIRED-FIELDS'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      const [item] = licenseEntities(t, setup, 1) as [AttachItem];
      t.expectOk(await attachLicenses(t, setup, [item]));
      const body = { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [item.entity_id] };
      for (const field of ['customer_id', 'license_plan_id', 'entity_ids'] as const) {
        t.expectError(await t.client.call('licenses.release', without(body, field)));
        expect(await pool(t, setup), `a body without ${field} releases nothing`).toMatchObject({ usage: 1, remaining: 1 });
      }
      expect(await assignedEntities(t, setup)).toEqual([item.entity_id]);
    },
  ),
];
