/**
 * Customer scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): what `customers.get` shows could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createPlan, createSeatHolder, scenario } from '../support.ts';

export const customersMutantScenarios = [
  scenario(
    {
      id: 'customers.get-replaced-plan-gone',
      title: 'customers.get shows the plan that replaced another of its group, not the replaced one',
      rules: ['CUS-GET'],
    },
    async (t) => {
      const group = t.ns.id('grp');
      const [basic, pro] = [await createPlan(t, { group }), await createPlan(t, { group })];
      const customer = await createCustomer(t);
      await attach(t, customer.id, basic.id);
      await attach(t, customer.id, pro.id);
      const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id }), ['list']);
      // That pro replaced basic is PLAN-GROUP-EXCLUSIVE's.
      t.precondition('the customer holds pro, not basic', () =>
        expect(list.filter((record) => record.status === 'active' && [basic.id, pro.id].includes(record.plan_id)).map((record) => record.plan_id)).toEqual([pro.id]),
      );
      const got = t.expectOk(await t.client.call('customers.get', { customer_id: customer.id }), 'CUS-GET');
      t.check('CUS-GET', () =>
        expect(
          (got.subscriptions ?? []).filter((subscription) => [basic.id, pro.id].includes(subscription.plan_id)).map((subscription) => subscription.plan_id),
          'the plans the customer has: pro only, the replaced basic is gone',
        ).toEqual([pro.id]),
      );
    },
  ),

  scenario(
    {
      id: 'customers.get-hides-seats',
      title: "customers.get does not show the license plan an entity of the customer holds through a seat",
      rules: ['CUS-GET-HIDES-SEATS'],
    },
    async (t) => {
      const setup = await createSeatHolder(t, 1);
      const got = t.setup(await t.client.call('customers.get', { customer_id: setup.customerId }), ['subscriptions']);
      t.check('CUS-GET-HIDES-SEATS', () =>
        expect(got.subscriptions.map((subscription) => subscription.plan_id), 'the seat is not among the customer\'s subscriptions').not.toContain(setup.licensePlan.id),
      );
    },
  ),
];
