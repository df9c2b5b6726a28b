/** Conformance scenarios of the billing.attach setup endpoint. */
import { expect } from 'vitest';
import { createCustomer, createEntity, createFeature, createPlan, scenario } from '../support.ts';

export const billingScenarios = [
  scenario(
    {
      id: 'billing.attach-free',
      title: 'billing.attach of a free plan takes effect at once: payment_url null, and the customer holds the plan and its balances',
      rules: ['BILL-ATTACH-FREE', 'BILL-ATTACH-SHAPE'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        items: [{ feature_id: messages.id, included: 100, reset: { interval: 'month' } }, { feature_id: flag.id }],
      });
      const customer = await createCustomer(t);

      const result = t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: plan.id }));
      expect(result.customer_id, 'billing.attach names the customer').toBe(customer.id);
      expect(result.payment_url, 'a free plan needs no payment').toBeNull();
      expect(result.entity_id, 'no entity was named').toBeUndefined();

      const after = t.expectOk(await t.client.call('customers.get', { customer_id: customer.id }));
      expect(after.subscriptions.filter((subscription) => subscription.plan_id === plan.id), 'the customer holds the plan, active').toMatchObject([
        { status: 'active', scope: 'customer' },
      ]);
      expect(after.balances[messages.id], 'and its balance').toMatchObject({ granted: 100, usage: 0, remaining: 100 });
      expect(Object.keys(after.flags), 'and its flag').toContain(flag.id);
    },
  ),

  scenario(
    {
      id: 'billing.attach-entity',
      title: 'billing.attach with entity_id gives the plan to that entity only, not to its customer or a sibling entity',
      rules: ['BILL-ATTACH-ENTITY', 'BILL-ATTACH-SHAPE'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const messages = await createFeature(t, 'consumable');
      const addOn = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 30, reset: { interval: 'month' } }] });
      const customer = await createCustomer(t);
      const target = await createEntity(t, customer.id, seats.id);
      const sibling = await createEntity(t, customer.id, seats.id);

      const result = t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, entity_id: target.id, plan_id: addOn.id }));
      expect(result, 'billing.attach names the customer and the entity').toMatchObject({ customer_id: customer.id, entity_id: target.id, payment_url: null });

      const entity = t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: target.id }));
      expect(entity.subscriptions.map((subscription) => subscription.plan_id), 'the entity holds the plan').toContain(addOn.id);
      expect(entity.balances[messages.id], "and the plan's balance").toMatchObject({ granted: 30, remaining: 30 });

      const other = t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: sibling.id }));
      expect(other.subscriptions.map((subscription) => subscription.plan_id), 'a sibling entity does not get (or inherit) the plan').not.toContain(addOn.id);
      expect(other.balances[messages.id], "nor the plan's balance").toBeUndefined();

      const owner = t.expectOk(await t.client.call('customers.get', { customer_id: customer.id }));
      expect(
        owner.subscriptions.filter((subscription) => subscription.plan_id === addOn.id && subscription.scope === 'customer'),
        'the customer itself does not hold the plan',
      ).toEqual([]);
    },
  ),
];
