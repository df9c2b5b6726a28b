/**
 * Scenarios of who holds plans and balances (a customer or one of its entities), found missing by
 * mutation testing (`npm run mutation`, README "Mutation testing"): behaviour of the fake's subjects
 * that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createPlan, scenario, type T } from '../support.ts';

/** The usage of a balance, read through a check of 0 units (a read); undefined when no balance is shown. */
async function usageOf(t: T, customerId: string, featureId: string, entityId?: string): Promise<number | undefined> {
  const { balance } = t.setup(
    await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0, ...(entityId !== undefined && { entity_id: entityId }) }),
    ['balance'],
  );
  return balance?.usage;
}

export const subjectsMutantScenarios = [
  scenario(
    {
      id: 'subjects.entity-of-another-customer-beside-own-balance',
      title: "a check of customer A naming an entity of customer B is not served from A's own balance either: not allowed (or refused), and a send_event through it uses nothing of A's or of B's",
      rules: ['CHECK-ENTITY-OWN-CUSTOMER'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: { interval: 'month' } }] });
      const [a, b] = [await createCustomer(t), await createCustomer(t)];
      await attach(t, a.id, plan.id);
      const entity = await createEntity(t, b.id, seats.id);
      await attach(t, b.id, plan.id, { entity_id: entity.id });
      await t.precondition('A and the entity of B each have the 5 units unused', async () => {
        expect(await usageOf(t, a.id, units.id)).toBe(0);
        expect(await usageOf(t, b.id, units.id, entity.id)).toBe(0);
      });
      const result = await t.client.call('balances.check', { customer_id: a.id, entity_id: entity.id, feature_id: units.id, required_balance: 2, send_event: true });
      t.check('CHECK-ENTITY-OWN-CUSTOMER', () => {
        if (!result.ok) return expect(result.status, "refusing A's check of B's entity is fine: a 4xx").toBeLessThan(500);
        expect(result.body.allowed, "A's check of B's entity is not allowed, though A has units of its own").toBe(false);
      });
      const [ofA, ofEntity] = [await usageOf(t, a.id, units.id), await usageOf(t, b.id, units.id, entity.id)];
      t.check('CHECK-ENTITY-OWN-CUSTOMER', () => expect({ ofA, ofEntity }, "the send_event through B's entity used nothing of A's or of the entity's").toEqual({ ofA: 0, ofEntity: 0 }));
    },
  ),
];
