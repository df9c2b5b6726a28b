/**
 * License scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createLicensePool, scenario, type T } from '../support.ts';

/** One customer's pool of `licensePlanId` as licenses.list shows it (a read that is setup here). */
async function poolOf(t: T, customerId: string, licensePlanId: string) {
  const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customerId }), ['list']);
  return list.find((p) => p.license_plan_id === licensePlanId);
}

/** The entity IDs holding an active assignment of `licensePlanId` under `customerId` (setup read). */
async function assignedUnder(t: T, customerId: string, licensePlanId: string): Promise<string[]> {
  const { list } = t.setup(await t.client.call('licenses.list_assignments', { customer_id: customerId, plan_id: licensePlanId }), ['list']);
  return list
    .filter((assignment) => assignment.ended_at == null)
    .map((assignment) => assignment.entity_id)
    .sort();
}

export const licensesGapScenarios = [
  scenario(
    {
      id: 'licenses.two-customers-one-parent-plan',
      title: "two customers on the same parent plan: seats assigned under one never move the other's pool, and neither can assign or release the other's entity",
      rules: ['LIC-POOL-USAGE', 'LIC-POOL-REMAINING', 'ENT-OWN-PLANS-BALANCES'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const other = await createCustomer(t);
      await attach(t, other.id, setup.parentPlan.id);
      const mine = await createEntity(t, setup.customerId, setup.seatFeature.id);
      const theirs = await createEntity(t, other.id, setup.seatFeature.id);
      const attachAs = (customerId: string, entityId: string) =>
        t.client.call('licenses.attach', { customer_id: customerId, plan_id: setup.licensePlan.id, entities: [{ entity_id: entityId, name: entityId }] });

      t.setup(await attachAs(setup.customerId, mine.id));
      await t.check('LIC-POOL-USAGE', async () => {
        expect(await poolOf(t, setup.customerId, setup.licensePlan.id), 'the assigning customer uses one seat').toMatchObject({ usage: 1 });
        expect(await poolOf(t, other.id, setup.licensePlan.id), "a seat assigned under one customer is not in the other's usage").toMatchObject({ usage: 0 });
      });
      await t.check('LIC-POOL-REMAINING', async () => {
        expect(await poolOf(t, other.id, setup.licensePlan.id), "the other customer's pool keeps all its seats").toMatchObject({ granted: 3, remaining: 3 });
      });

      // Another customer's entity can be neither assigned nor released through this customer.
      t.expectError(await attachAs(setup.customerId, theirs.id), { rule: 'ENT-OWN-PLANS-BALANCES' });
      t.setup(await attachAs(other.id, theirs.id)); // the nearest valid request: the same entity through its own customer
      t.expectError(
        await t.client.call('licenses.release', { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [theirs.id] }),
        { rule: 'ENT-OWN-PLANS-BALANCES' },
      );
      await t.check('ENT-OWN-PLANS-BALANCES', async () => {
        expect(await assignedUnder(t, setup.customerId, setup.licensePlan.id), 'only its own entity holds a seat of the first customer').toEqual([mine.id]);
        expect(await assignedUnder(t, other.id, setup.licensePlan.id), "the refused release left the other customer's seat in place").toEqual([theirs.id]);
      });
    },
  ),
];
