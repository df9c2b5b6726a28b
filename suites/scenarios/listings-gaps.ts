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

  scenario(
    {
      id: 'listings.cursor-near-miss',
      title: 'a next_cursor of the service with a character outside base64url before or after it is refused with 400 invalid_cursor; the cursor itself is accepted',
      rules: ['ERR-INVALID-CURSOR'],
    },
    async (t) => {
      const feature = await createFeature(t, 'boolean');
      const customer = await createCustomer(t);
      for (let i = 0; i < 2; i++) await attach(t, customer.id, (await createPlan(t, { add_on: true, items: [{ feature_id: feature.id }] })).id);
      const first = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, limit: 1 }), ['next_cursor']);
      const cursor = first.next_cursor;
      t.precondition('a first page of one of two records has a next_cursor', () => expect(typeof cursor).toBe('string'));
      // The nearest valid request: the cursor as the service gave it.
      t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, limit: 1, start_cursor: cursor! }));
      for (const start_cursor of [`!${cursor}`, `${cursor}!`]) {
        t.expectError(await t.client.call('subscriptions.list', { customer_id: customer.id, limit: 1, start_cursor }), { status: 400, code: 'invalid_cursor', rule: 'ERR-INVALID-CURSOR' });
      }
    },
  ),
];
