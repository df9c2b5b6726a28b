/**
 * Conformance scenarios of the billing.attach setup endpoint. What the attach did is read through
 * documented operations (subscriptions.list, balances.check, entities.list), so that a fault of a
 * reference read (customers.get, entities.get) is never charged to billing.attach.
 */
import { expect } from 'vitest';
import { createCustomer, createEntity, createFeature, createPlan, scenario } from '../../support.ts';

export const attachScenarios = [
  scenario(
    {
      id: 'billing.attach-free',
      title: 'billing.attach of a free plan takes effect at once: payment_url null, and the customer holds the plan and its balances',
      rules: ['BILL-ATTACH-FREE', 'BILL-ATTACH-SHAPE'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 100, reset: { interval: 'month' } }] });
      const customer = await createCustomer(t);

      // The answer's shape (customer_id, payment_url, …) is BILL-ATTACH-SHAPE's, checked by the client.
      const result = t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: plan.id }), 'BILL-ATTACH-FREE');
      t.check('BILL-ATTACH-FREE', () => expect(result.payment_url ?? null, 'a free plan needs no payment').toBeNull());

      const records = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, plan_id: plan.id }), ['list']);
      t.check('BILL-ATTACH-FREE', () =>
        expect(
          records.list.filter((record) => record.plan_id === plan.id && record.customer_id === customer.id).map(({ status }) => status),
          'the customer holds the plan, active',
        ).toEqual(['active']),
      );
      const balance = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: messages.id, required_balance: 0 }), ['balance']);
      t.check('BILL-ATTACH-FREE', () => expect(balance.balance, "and the plan's balance").toMatchObject({ granted: 100, usage: 0, remaining: 100 }));
    },
  ),
  scenario(
    {
      id: 'billing.attach-entity',
      title: 'billing.attach with entity_id gives the plan to that entity only, not to its customer (whose plans every entity inherits) or a sibling entity',
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

      const listed = t.setup(await t.client.call('entities.list', { customer_id: customer.id }), ['list']);
      t.precondition('entities.list of the customer lists its two entities', () => expect(listed.list.map((entity) => entity.id).sort()).toEqual([target.id, sibling.id].sort()));
      const plansOf = (entityId: string) => (listed.list.find((entity) => entity.id === entityId)?.subscriptions ?? []).map((subscription) => subscription.plan_id);
      t.check('BILL-ATTACH-ENTITY', () => {
        expect(plansOf(target.id), 'the entity holds the plan').toContain(addOn.id);
        // Every entity inherits its customer's plans: a sibling without the plan means the customer does not hold it either.
        expect(plansOf(sibling.id), 'a sibling entity does not get (or inherit) the plan').not.toContain(addOn.id);
      });
    },
  ),
  scenario(
    {
      id: 'billing.attach-one-off-reset',
      title: 'a free plan whose item resets one_off (never) attaches at once, with its included units',
      rules: ['BILL-ATTACH-FREE'],
    },
    async (t) => {
      const credits = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: credits.id, included: 5, reset: { interval: 'one_off' } }] });
      const customer = await createCustomer(t);
      const result = t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: plan.id }), 'BILL-ATTACH-FREE');
      t.check('BILL-ATTACH-FREE', () => expect(result.payment_url ?? null, 'a free plan needs no payment').toBeNull());
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: credits.id, required_balance: 0 }), ['balance']);
      t.check('BILL-ATTACH-FREE', () => expect(balance, "the customer holds the plan's 5 units").toMatchObject({ granted: 5, remaining: 5 }));
    },
  ),
];
