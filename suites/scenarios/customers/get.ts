/**
 * Scenarios of customers.get: the customer's subscriptions, purchases and the balances and flags they
 * grant (not a replaced plan, not an entity's seat), and an unknown customer.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, createSeatHolder, scenario } from '../../support.ts';

export const getScenarios = [
  scenario(
    {
      id: 'customers.get-plans-and-balances',
      title: "customers.get returns the customer's subscriptions (main plan and add-on) and the balances and flags they grant",
      rules: ['CUS-GET', 'CUS-SHAPE'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const flag = await createFeature(t, 'boolean');
      const main = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 100, reset: { interval: 'month' } }] });
      const addOn = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 20, reset: { interval: 'month' } }, { feature_id: flag.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, addOn.id);

      const got = t.expectOk(await t.client.call('customers.get', { customer_id: customer.id }), 'CUS-GET');
      t.check('CUS-GET', () => {
        expect(got.id).toBe(customer.id);
        const held = (got.subscriptions ?? []).filter((subscription) => subscription.plan_id === main.id || subscription.plan_id === addOn.id);
        const byPlan = (a: { plan_id: string }, b: { plan_id: string }) => a.plan_id.localeCompare(b.plan_id);
        expect(held.map(({ plan_id, status, add_on, scope }) => ({ plan_id, status, add_on, scope })).sort(byPlan), 'both plans, active, at customer level').toEqual(
          [
            { plan_id: main.id, status: 'active', add_on: false, scope: 'customer' },
            { plan_id: addOn.id, status: 'active', add_on: true, scope: 'customer' },
          ].sort(byPlan),
        );
        expect(got.purchases, 'recurring plans are not purchases').toEqual([]);
        expect(got.balances?.[messages.id], 'the balance stacks both plans: 100 + 20').toMatchObject({ feature_id: messages.id, granted: 120, usage: 0, remaining: 120 });
        expect(got.flags?.[flag.id], "the add-on's flag").toMatchObject({ feature_id: flag.id, plan_id: addOn.id });
      });
    },
  ),
  scenario(
    {
      id: 'customers.get-purchases',
      title: "customers.get returns a one-off plan among the customer's purchases, with its balance",
      rules: ['CUS-GET', 'CUS-SHAPE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const credits = await createFeature(t, 'allocated');
      const pack = await createPlan(t, { add_on: true, price: { amount: 10, interval: 'one_off' }, items: [{ feature_id: credits.id, included: 50 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, pack.id);

      const got = t.expectOk(await t.client.call('customers.get', { customer_id: customer.id }), 'CUS-GET');
      t.check('CUS-GET', () => {
        expect(got.purchases?.filter((purchase) => purchase.plan_id === pack.id), 'the one-off plan is a purchase').toHaveLength(1);
        expect((got.subscriptions ?? []).filter((subscription) => subscription.plan_id === pack.id), '…not a subscription').toEqual([]);
        expect(got.balances?.[credits.id], 'the purchase grants its balance').toMatchObject({ granted: 50, remaining: 50 });
      });
    },
  ),
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
  scenario(
    {
      id: 'customers.get-unknown',
      title: 'customers.get of an unknown customer is answered with 404 customer_not_found and creates nothing',
      rules: ['CUS-GET-UNKNOWN'],
      mutates: false,
    },
    async (t) => {
      const unknownId = t.ns.id('cus');
      t.expectError(await t.client.call('customers.get', { customer_id: unknownId }), { status: 404, code: 'customer_not_found', rule: 'CUS-GET-UNKNOWN' });
      // A second call: the first created nothing.
      t.expectError(await t.client.call('customers.get', { customer_id: unknownId }), { status: 404, code: 'customer_not_found', rule: 'CUS-GET-UNKNOWN' });
    },
  ),
];
