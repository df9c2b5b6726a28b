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

      // The answer's shape (customer_id, payment_url, …) is BILL-ATTACH-SHAPE's, checked by the client.
      const result = t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: plan.id }), 'BILL-ATTACH-FREE');
      t.check('BILL-ATTACH-FREE', () => expect(result.payment_url ?? null, 'a free plan needs no payment').toBeNull());

      const after = t.setup(await t.client.call('customers.get', { customer_id: customer.id }), ['subscriptions']);
      t.check('BILL-ATTACH-FREE', () =>
        expect(
          after.subscriptions.filter((subscription) => subscription.plan_id === plan.id).map(({ status }) => status),
          'the customer holds the plan, active',
        ).toEqual(['active']),
      );
      const balance = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: messages.id, required_balance: 0 }), ['balance']);
      t.check('BILL-ATTACH-FREE', () => expect(balance.balance, "and the plan's balance").toMatchObject({ granted: 100, usage: 0, remaining: 100 }));
      const flagged = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: flag.id }), ['allowed']);
      // Allowed, or at least its flag object shown: each alone is a CHECK-* rule's.
      t.check('BILL-ATTACH-FREE', () => expect(flagged.allowed || flagged.flag != null, "and the plan's flag").toBe(true));
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

      t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, entity_id: target.id, plan_id: addOn.id }), 'BILL-ATTACH-ENTITY');

      const entity = t.setup(await t.client.call('entities.get', { customer_id: customer.id, entity_id: target.id }), ['subscriptions']);
      t.check('BILL-ATTACH-ENTITY', () => expect(entity.subscriptions.map((subscription) => subscription.plan_id), 'the entity holds the plan').toContain(addOn.id));

      const other = t.setup(await t.client.call('entities.get', { customer_id: customer.id, entity_id: sibling.id }), ['subscriptions']);
      t.check('BILL-ATTACH-ENTITY', () =>
        expect(other.subscriptions.map((subscription) => subscription.plan_id), 'a sibling entity does not get (or inherit) the plan').not.toContain(addOn.id),
      );

      const owner = t.setup(await t.client.call('customers.get', { customer_id: customer.id }), ['subscriptions']);
      t.check('BILL-ATTACH-ENTITY', () =>
        expect(
          owner.subscriptions.filter((subscription) => subscription.plan_id === addOn.id && subscription.scope === 'customer'),
          'the customer itself does not hold the plan',
        ).toEqual([]),
      );
    },
  ),
];
