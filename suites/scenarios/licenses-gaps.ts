/**
 * License scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { activeLicensePlansOf, attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, createSeatHolder, requireLicenseLinks, scenario, type T } from '../support.ts';
import { licenseHolders } from './licenses.ts';

/**
 * One customer's pool of `licensePlanId` as licenses.list shows it (a read that is setup here); that
 * the customer has exactly one such pool is a precondition (LIC-LIST-CUSTOMER-POOLS proves it).
 */
async function poolOf(t: T, customerId: string, licensePlanId: string) {
  const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customerId }), ['list']);
  const pools = list.filter((p) => p.license_plan_id === licensePlanId);
  t.precondition(`licenses.list of ${customerId} shows one pool of ${licensePlanId}`, () => expect(pools).toHaveLength(1));
  return pools[0];
}

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

/**
 * An entity whose seat came from a parent plan that was then replaced by another plan offering the
 * same license, and that was assigned again from the successor's pool: the customer's first pool is
 * gone, its second one holds the seat (setup; each step taking effect is a premise).
 */
async function seatFromSuccessor(t: T) {
  const setup = await createSeatHolder(t, 2);
  const successor = await createPlan(t, { group: setup.parentPlan.group ?? undefined, licenses: [{ license_plan_id: setup.licensePlan.id, included: 2 }] });
  requireLicenseLinks(t, successor, [setup.licensePlan.id]);
  await attach(t, setup.customerId, successor.id);
  const revoked = await activeLicensePlansOf(t, setup, setup.member.id);
  // That the seat went with the replaced parent is LIC-PARENT-END-REVOKES-SEATS'.
  t.precondition('the replaced parent took its seat with it', () => expect(revoked).toEqual([]));
  const attachMember = () => t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [{ entity_id: setup.member.id, name: setup.member.id }] });
  t.setup(await attachMember());
  const pool = await poolOf(t, setup.customerId, setup.licensePlan.id);
  t.precondition("the entity holds a seat of the successor's pool", () => {
    expect(pool?.parent_plan_id).toBe(successor.id);
    expect(seatsUsed(pool, 1)).toBe(true);
  });
  return { ...setup, successor, attachMember };
}

/**
 * Whether a pool of 2 seats has `used` of them taken, by its usage or by its remaining: either counter
 * right is enough, so a pool whose counter is broken (LIC-POOL-USAGE, LIC-POOL-REMAINING) fails that
 * counter's rule only.
 */
function seatsUsed(pool: { usage: number; remaining: number } | undefined, used: number): boolean {
  return pool !== undefined && (pool.usage === used || pool.remaining === 2 - used);
}

export const licensesGapScenarios = [
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
      id: 'licenses.replaced-parent-plan-pool-gone',
      title: "once the parent plan is replaced by another main plan of its group, licenses.list no longer shows the pool it offered",
      rules: ['LIC-LIST-CUSTOMER-POOLS'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      t.precondition('the parent plan has a group', () => expect(setup.parentPlan.group).toBeTruthy());
      const successor = await createPlan(t, { group: setup.parentPlan.group! });
      const before = await poolOf(t, setup.customerId, setup.licensePlan.id);
      t.precondition('the parent plan offers its pool before it is replaced', () => expect(before).toBeDefined());
      await attach(t, setup.customerId, successor.id);
      // That the successor replaced the parent plan is PLAN-GROUP-EXCLUSIVE's; here it is the premise.
      const held = t.setup(await t.client.call('subscriptions.list', { customer_id: setup.customerId, plan_id: setup.parentPlan.id }), ['list']);
      t.precondition(`${successor.id} replaced ${setup.parentPlan.id} (one main plan per group)`, () => expect(held.list.filter((record) => record.status === 'active')).toEqual([]));
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      t.check('LIC-LIST-CUSTOMER-POOLS', () =>
        expect(list.map((p) => p.parent_plan_id), `the pool of ${setup.parentPlan.id}, replaced by ${successor.id}, is no longer the customer's`).not.toContain(setup.parentPlan.id),
      );
    },
  ),

  scenario(
    {
      id: 'licenses.assigned-again-after-parent-replaced',
      title: "an entity assigned from a replacing parent plan's pool, after the replaced parent's pool took its first seat, is skipped when attached once more",
      rules: ['LIC-ATTACH-SKIP-ASSIGNED', 'LIC-ATTACH-ALL-ASSIGNED-OK'],
    },
    async (t) => {
      const { customerId, licensePlan, attachMember } = await seatFromSuccessor(t);
      // That a batch of only assigned entities is answered 200 is LIC-ATTACH-ALL-ASSIGNED-OK's.
      t.expectOk(await attachMember(), 'LIC-ATTACH-ALL-ASSIGNED-OK');
      const pool = await poolOf(t, customerId, licensePlan.id);
      t.check('LIC-ATTACH-SKIP-ASSIGNED', () =>
        expect(seatsUsed(pool, 1), `the entity already holding a seat was skipped: still one seat used (usage ${pool?.usage}, remaining ${pool?.remaining})`).toBe(true),
      );
    },
  ),

  scenario(
    {
      id: 'licenses.released-after-parent-replaced',
      title: "an entity assigned from a replacing parent plan's pool, after the replaced parent's pool took its first seat, can be released",
      rules: ['LIC-RELEASE-FREES-SEAT'],
    },
    async (t) => {
      const { customerId, licensePlan, member } = await seatFromSuccessor(t);
      t.expectOk(await t.client.call('licenses.release', { customer_id: customerId, license_plan_id: licensePlan.id, entity_ids: [member.id] }), 'LIC-RELEASE-FREES-SEAT');
      const pool = await poolOf(t, customerId, licensePlan.id);
      t.check('LIC-RELEASE-FREES-SEAT', () => expect(seatsUsed(pool, 0), `the seat is back in the pool (usage ${pool?.usage}, remaining ${pool?.remaining})`).toBe(true));
    },
  ),
];
