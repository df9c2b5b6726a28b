/**
 * Scenarios of a pool's parent plan being replaced: its pool goes, the seats assigned from it are
 * revoked, and an entity assigned again from the successor's pool is skipped and released like any
 * other.
 */
import { expect } from 'vitest';
import { activeLicensePlansOf, attach, createLicensePool, createPlan, createSeatHolder, requireLicenseLinks, scenario, type T } from '../../support.ts';
import { pool, poolOf } from './support.ts';

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

export const parentPlansScenarios = [
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
      id: 'billing.replaced-parent-revokes-seats',
      title: 'replacing the parent plan that offers a pool revokes the seats assigned from it: the entity no longer holds the license plan',
      rules: ['LIC-PARENT-END-REVOKES-SEATS'],
    },
    async (t) => {
      const setup = await createSeatHolder(t, 2);
      const successor = await createPlan(t, { group: setup.parentPlan.group ?? undefined });
      await attach(t, setup.customerId, successor.id);
      const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: setup.customerId }), ['list']);
      // That the successor replaced the parent is PLAN-GROUP-EXCLUSIVE's.
      t.precondition('the parent plan was replaced', () => 
        expect(list.filter((record) => record.status === 'active' && [setup.parentPlan.id, successor.id].includes(record.plan_id)).map((record) => record.plan_id)).toEqual([successor.id]),
      );
      const after = await activeLicensePlansOf(t, setup, setup.member.id);
      t.check('LIC-PARENT-END-REVOKES-SEATS', () => expect(after, 'the seat went with the parent plan').toEqual([]));
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
