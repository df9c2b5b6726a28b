/**
 * Scenarios of license pools as licenses.list shows them: a customer's own pools in order, seats
 * bought on top of the included ones, links without seats, and pools kept apart between customers,
 * license plans and entities.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, licenseEntities, requireLicenseLinks, scenario, type T } from '../../support.ts';
import { assignSeats, type AttachItem, attachLicenses, expectPool, licenseHolders, pool, poolOf, without } from './support.ts';

/** The entity IDs holding an active assignment of `licensePlanId` under `customerId` (setup read). */
async function assignedUnder(t: T, customerId: string, licensePlanId: string): Promise<string[]> {
  const { list } = t.setup(await t.client.call('licenses.list_assignments', { customer_id: customerId, plan_id: licensePlanId }), ['list']);
  return list
    .filter((assignment) => assignment.ended_at == null)
    .map((assignment) => assignment.entity_id)
    .sort();
}

/** Active assignments as `[entity_id, license_plan_id]` pairs, sorted, for a licenses.list_assignments filter (setup read). */
async function assignmentPairs(t: T, filter: { customer_id: string; entity_id?: string; plan_id?: string }): Promise<string[][]> {
  const { list } = t.setup(await t.client.call('licenses.list_assignments', filter), ['list']);
  return list
    .filter((assignment) => assignment.ended_at == null)
    .map((assignment) => [assignment.entity_id, assignment.license_plan_id])
    .sort((a, b) => a.join().localeCompare(b.join()));
}

export const poolsScenarios = [
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
      id: 'billing.paid-seats-as-many-as-included',
      title: 'seats bought on top of as many included ones (2 included, 4 in all) make a pool of 4 seats, 2 of them paid',
      rules: ['LIC-POOL-GRANTED', 'LIC-POOL-PAID-QUANTITY'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2, { totalSeats: 4 });
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      const pool = list.find((candidate) => candidate.license_plan_id === setup.licensePlan.id && candidate.parent_plan_id === setup.parentPlan.id);
      t.check('LIC-POOL-GRANTED', () => {
        expect(pool, `licenses.list shows the pool of ${setup.licensePlan.id}`).toBeDefined();
        expect(pool!.granted, '2 included + 2 paid seats').toBe(4);
      });
      t.check('LIC-POOL-PAID-QUANTITY', () => expect(pool!.paid_quantity, 'the 2 seats beyond the included ones are paid').toBe(2));
    },
  ),
  scenario(
    {
      id: 'billing.no-seats-no-pool',
      title: 'a license link with no included seats, attached without license_quantities, makes no pool; its sibling link with a seat does',
      rules: ['LIC-POOL-NEEDS-SEATS'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const [seatless, seated] = [await createPlan(t, { items: [{ feature_id: flag.id }] }), await createPlan(t, { items: [{ feature_id: flag.id }] })];
      const parent = await createPlan(t, {
        group: t.ns.id('grp'),
        licenses: [
          { license_plan_id: seatless.id, included: 0 },
          { license_plan_id: seated.id, included: 1 },
        ],
      });
      requireLicenseLinks(t, parent, [seatless.id, seated.id]);
      const customer = await createCustomer(t);
      await attach(t, customer.id, parent.id);
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customer.id }), ['list']);
      const pooled = list.filter((pool) => pool.parent_plan_id === parent.id).map((pool) => pool.license_plan_id);
      // The link with a seat is the positive control: its pool is listed (LIC-LIST-CUSTOMER-POOLS').
      t.precondition('the link with an included seat makes a pool', () => expect(pooled).toContain(seated.id));
      t.check('LIC-POOL-NEEDS-SEATS', () => expect(pooled, 'the link with no seat makes none').not.toContain(seatless.id));
    },
  ),
  scenario(
    {
      id: 'licenses.two-customers-one-parent-plan',
      title: "two customers on the same parent plan: seats assigned under one never move the other's usage or remaining, neither can assign the other's entity, and releasing the other's entity fails and changes nothing",
      rules: ['LIC-POOL-USAGE', 'LIC-POOL-REMAINING', 'ENT-OWN-PLANS-BALANCES', 'LIC-RELEASE-UNASSIGNED'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const other = await createCustomer(t);
      await attach(t, other.id, setup.parentPlan.id);
      const mine = await createEntity(t, setup.customerId, setup.seatFeature.id);
      const theirs = await createEntity(t, other.id, setup.seatFeature.id);
      const plan = setup.licensePlan.id;
      const attachAs = (customerId: string, entityId: string) =>
        t.client.call('licenses.attach', { customer_id: customerId, plan_id: plan, entities: [{ entity_id: entityId, name: entityId }] });
      /** Both customers' seat holders and pools, through documented reads (entities.list, licenses.list). */
      const state = async () => ({
        holders: [await licenseHolders(t, setup.customerId, plan), await licenseHolders(t, other.id, plan)],
        pools: [await poolOf(t, setup.customerId, plan), await poolOf(t, other.id, plan)],
      });

      t.setup(await attachAs(setup.customerId, mine.id));
      const afterMine = await state();
      t.precondition('the setup attach took effect', () => expect(afterMine.holders).toEqual([[mine.id], []]));
      t.check('LIC-POOL-USAGE', () => {
        expect(afterMine.pools[0], 'the assigning customer uses one seat').toMatchObject({ usage: 1 });
        expect(afterMine.pools[1], "a seat assigned under one customer is not in the other's usage").toMatchObject({ usage: 0 });
      });
      t.check('LIC-POOL-REMAINING', () => expect(afterMine.pools[1], "the other customer's pool keeps all its seats").toMatchObject({ granted: 3, remaining: 3 }));

      // Another customer's entity can be neither assigned nor released through this customer.
      t.expectError(await attachAs(setup.customerId, theirs.id), { rule: 'ENT-OWN-PLANS-BALANCES' });
      t.setup(await attachAs(other.id, theirs.id)); // the nearest valid request: the same entity through its own customer
      const before = await state();
      t.precondition("the other customer's own attach took effect", () => expect(before.holders).toEqual([[mine.id], [theirs.id]]));
      // Through the first customer, the other's entity holds no license of the plan: the reference refuses that (LIC-RELEASE-UNASSIGNED).
      const release = await t.client.call('licenses.release', { customer_id: setup.customerId, license_plan_id: plan, entity_ids: [theirs.id] });
      t.check('LIC-RELEASE-UNASSIGNED', () => expect(release.ok, "releasing the other customer's entity fails").toBe(false));
      const after = await state();
      t.check('ENT-OWN-PLANS-BALANCES', () => expect(after, "the refused release changed neither customer's seats nor pools").toEqual(before));
    },
  ),
  scenario(
    {
      id: 'licenses.entity-holding-two-license-plans',
      title: "an entity holding two license plans of one customer: each attach consumes a seat of its own pool only, a release leaves the other pool alone, list_assignments filters by plan and by entity, and a license plan no pool offers is refused",
      rules: ['LIC-POOL-USAGE', 'LIC-ATTACH-CAPACITY', 'LIC-ASSIGNMENTS-LIST'],
    },
    async (t) => {
      const seatFeature = await createFeature(t, 'allocated');
      const flag = await createFeature(t, 'boolean');
      const first = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const second = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const unoffered = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const parent = await createPlan(t, {
        group: t.ns.id('grp'),
        licenses: [
          { license_plan_id: first.id, included: 2 },
          { license_plan_id: second.id, included: 2 },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, parent.id);
      const both = await createEntity(t, customer.id, seatFeature.id);
      const onlyFirst = await createEntity(t, customer.id, seatFeature.id);
      const attachTo = (planId: string, entityIds: readonly string[]) =>
        t.client.call('licenses.attach', { customer_id: customer.id, plan_id: planId, entities: entityIds.map((id) => ({ entity_id: id, name: id })) });
      const usage = async (licensePlanId: string) => (await poolOf(t, customer.id, licensePlanId))?.usage;

      t.setup(await attachTo(first.id, [both.id, onlyFirst.id]));
      t.setup(await attachTo(second.id, [both.id]));
      const [heldFirst, heldSecond] = [await assignedUnder(t, customer.id, first.id), await assignedUnder(t, customer.id, second.id)];
      t.precondition('the setup attaches took effect', () => expect([heldFirst, heldSecond]).toEqual([[both.id, onlyFirst.id].sort(), [both.id]]));
      await t.check('LIC-POOL-USAGE', async () => {
        expect(await usage(second.id), 'an entity holding the first license plan takes a seat of the second when attached to it').toBe(1);
        expect(await usage(first.id), "attaching to the second pool leaves the first pool's usage alone").toBe(2);
      });
      await t.check('LIC-ASSIGNMENTS-LIST', async () => {
        const byKey = (pairs: string[][]) => pairs.sort((a, b) => a.join().localeCompare(b.join()));
        expect(await assignmentPairs(t, { customer_id: customer.id, plan_id: second.id }), 'plan_id filters by license plan').toEqual([[both.id, second.id]]);
        expect(await assignmentPairs(t, { customer_id: customer.id, entity_id: both.id }), 'entity_id filters by entity').toEqual(byKey([[both.id, first.id], [both.id, second.id]]));
        expect(await assignmentPairs(t, { customer_id: customer.id }), 'without filters: every active assignment').toEqual(
          byKey([[both.id, first.id], [both.id, second.id], [onlyFirst.id, first.id]]),
        );
      });

      t.setup(
        await t.client.call('licenses.release', { customer_id: customer.id, license_plan_id: first.id, entity_ids: [both.id] }),
      );
      await t.check('LIC-POOL-USAGE', async () => {
        expect(await usage(second.id), "releasing one license plan leaves the entity's other seat in use").toBe(1);
      });

      // No pool of the customer offers this license plan: there is no capacity for it at all.
      t.expectError(await attachTo(unoffered.id, [onlyFirst.id]), { rule: 'LIC-ATTACH-CAPACITY' });
    },
  ),
  scenario(
    {
      id: 'entities.delete-frees-only-its-seat',
      title: "deleting one of two licensed entities frees its seat only: the pool's usage drops by one, and the other entity stays assigned",
      rules: ['LIC-POOL-USAGE', 'LIC-ATTACH-SKIP-ASSIGNED'],
    },
    async (t) => {
      const pool = await createLicensePool(t, 3);
      const [gone, kept] = [await createEntity(t, pool.customerId, pool.seatFeature.id), await createEntity(t, pool.customerId, pool.seatFeature.id)];
      const assign = async (entities: readonly { id: string; name?: string | null }[]) =>
        t.setup(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: entities.map((e) => ({ entity_id: e.id, name: e.name ?? e.id })) }));
      const usage = async () => {
        const { list } = t.setup(await t.client.call('licenses.list', { customer_id: pool.customerId }), ['list']);
        return list.find((p) => p.license_plan_id === pool.licensePlan.id)?.usage;
      };
      await assign([gone, kept]);
      const before = await usage();
      t.precondition('both entities hold a seat', () => expect(before).toBe(2));
      t.setup(await t.client.call('entities.delete', { customer_id: pool.customerId, entity_id: gone.id }));
      const { list: left } = t.setup(await t.client.call('entities.list', { customer_id: pool.customerId }), ['list']);
      // That the deleted entity is gone is ENT-DELETE's.
      t.precondition('entities.list no longer lists the deleted entity', () => expect(left.map((e) => e.id)).not.toContain(gone.id));
      const after = await usage();
      t.check('LIC-POOL-USAGE', () => expect(after, 'one entity is left holding a seat').toBe(1));
      await assign([kept]);
      const again = await usage();
      t.check('LIC-ATTACH-SKIP-ASSIGNED', () => expect(again, 'the entity left still holds its seat, so attaching it again is skipped').toBe(1));
    },
  ),
];
