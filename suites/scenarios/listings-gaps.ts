/**
 * Listing scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario } from '../support.ts';

export const listingsGapScenarios = [
  scenario(
    {
      id: 'listings.record-flags-of-its-plan-version',
      title: 'a subscription record on a later version of a plan carries the flags of that version, not of the first',
      rules: ['LIST-SUB-PLAN-FLAGS'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const other = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const early = await createCustomer(t);
      await attach(t, early.id, plan.id);
      // A change of items while a customer is on the plan makes version 2; the flag changes with it.
      const updated = t.setup(await t.client.call('plans.update', { plan_id: plan.id, items: [{ feature_id: other.id }], add_on: true }), ['add_on']);
      t.precondition('plans.update made the plan an add-on', () => expect([plan.add_on, updated.add_on]).toEqual([false, true]));
      const late = await createCustomer(t);
      await attach(t, late.id, plan.id);
      const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: late.id, plan_id: plan.id }), ['list']);
      t.precondition('subscriptions.list shows the one record of the plan', () => expect(list).toHaveLength(1));
      t.check('LIST-SUB-PLAN-FLAGS', () => expect(list[0]!.add_on, 'the record of the customer attached after the change is an add-on').toBe(true));
    },
  ),
];
