/**
 * Plan scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's plans that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../support.ts';

/** The plan ids among `planIds` that a customer holds as active customer-level subscriptions, sorted (subscriptions.list, a read). */
async function heldAmong(t: T, customerId: string, planIds: readonly string[]): Promise<string[]> {
  const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customerId, limit: 200 }), ['list']);
  return list
    .filter((sub) => sub.customer_id === customerId && sub.status === 'active' && sub.entity_id == null && planIds.includes(sub.plan_id))
    .map((sub) => sub.plan_id)
    .sort();
}

/** Turns auto_enable off again on every plan that had it, so the tenant's later customers get none of them. */
async function turnOffAutoEnable(t: T, planIds: readonly string[]): Promise<void> {
  for (const planId of planIds) await t.client.call('plans.update', { plan_id: planId, auto_enable: false });
}

/** Creates an auto-enable plan, as the subject of PLAN-AUTO-ENABLE (a refusal FAILs it); its id joins `defaults` once created. */
async function createDefault(t: T<'PLAN-AUTO-ENABLE'>, defaults: string[], featureId: string, body: { group: string; add_on?: boolean }) {
  const planId = t.ns.id('plan');
  const result = await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, auto_enable: true, items: [{ feature_id: featureId }], ...body });
  if (result.ok) defaults.push(planId);
  return t.expectOk(result, 'PLAN-AUTO-ENABLE');
}

export const plansMutantScenarios = [
  scenario(
    {
      id: 'plans.auto-enable-one-per-group',
      title: 'two auto-enable main plans of one group never both reach a new customer: the second is refused, or the customer holds one',
      rules: ['PLAN-GROUP-EXCLUSIVE'],
      // For a moment every new customer of the tenant gets the auto-enable plans.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const group = t.ns.id('grp');
      const first = await createPlan(t, { group, auto_enable: true, items: [{ feature_id: flag.id }] });
      const defaults = [first.id];
      try {
        const secondId = t.ns.id('plan');
        const second = await t.client.call('plans.create', { plan_id: secondId, name: `Plan ${secondId}`, group, auto_enable: true, items: [{ feature_id: flag.id }] });
        // Refusing a second default of the group (as the reference does) keeps the group exclusive.
        if (!second.ok) return;
        defaults.push(secondId);
        const customer = await createCustomer(t);
        const held = await heldAmong(t, customer.id, defaults);
        t.check('PLAN-GROUP-EXCLUSIVE', () => expect(held.length, `a new customer holds ${held.join(', ')}: two main plans of one group`).toBeLessThanOrEqual(1));
      } finally {
        await turnOffAutoEnable(t, defaults);
      }
    },
  ),

  scenario(
    {
      id: 'plans.auto-enable-beside-group-plans',
      title: 'an auto-enable plan is accepted and attached to new customers beside a plain plan and an auto-enable add-on of its group, and beside the default of another group',
      rules: ['PLAN-AUTO-ENABLE'],
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const [group, otherGroup] = [t.ns.id('grp'), t.ns.id('grp')];
      const defaults: string[] = [];
      try {
        // A free main plan and an auto-enable add-on already in the group.
        await createPlan(t, { group, items: [{ feature_id: flag.id }] });
        const addOn = await createDefault(t, defaults, flag.id, { group, add_on: true });
        const main = await createDefault(t, defaults, flag.id, { group });
        // An add-on default after the main one, and the default of another group.
        const laterAddOn = await createDefault(t, defaults, flag.id, { group, add_on: true });
        const elsewhere = await createDefault(t, defaults, flag.id, { group: otherGroup });
        const customer = await createCustomer(t);
        const expected = [addOn.id, main.id, laterAddOn.id, elsewhere.id].sort();
        const held = await heldAmong(t, customer.id, expected);
        t.check('PLAN-AUTO-ENABLE', () => expect(held, 'a new customer holds every auto-enable plan').toEqual(expected));
      } finally {
        await turnOffAutoEnable(t, defaults);
      }
    },
  ),

  scenario(
    {
      id: 'plans.auto-enable-after-archived-default',
      title: 'an auto-enable plan is accepted in a group whose former default is archived, and a new customer gets the new default, not the archived one',
      rules: ['PLAN-AUTO-ENABLE', 'PLAN-ARCHIVED-NOT-ATTACHABLE'],
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const group = t.ns.id('grp');
      const archived = await createPlan(t, { group, auto_enable: true, items: [{ feature_id: flag.id }] });
      const defaults = [archived.id];
      try {
        t.setup(await t.client.call('plans.update', { plan_id: archived.id, archived: true }));
        const current = await createDefault(t, defaults, flag.id, { group });
        const customer = await createCustomer(t);
        const held = await heldAmong(t, customer.id, [current.id, archived.id]);
        t.check('PLAN-AUTO-ENABLE', () => expect(held, 'a new customer holds the new default').toContain(current.id));
        t.check('PLAN-ARCHIVED-NOT-ATTACHABLE', () => expect(held, 'a new customer does not get the archived default').not.toContain(archived.id));
      } finally {
        await turnOffAutoEnable(t, defaults);
      }
    },
  ),

  scenario(
    {
      id: 'plans.one-off-item-price-purchase',
      title: 'a plan without a base price whose only price is a one-off item price is a one-off plan: purchases.list lists it',
      rules: ['LIST-PURCHASES-ONE-OFF'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const pack = await createPlan(t, { add_on: true, items: [{ feature_id: seats.id, included: 0, price: { amount: 3, interval: 'one_off', billing_method: 'prepaid' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, pack.id, { feature_quantities: [{ feature_id: seats.id, quantity: 2 }] });
      const { list } = t.setup(await t.client.call('purchases.list', { customer_id: customer.id, limit: 200 }), ['list']);
      t.check('LIST-PURCHASES-ONE-OFF', () => expect(list.map((row) => row.plan_id), 'the pack bought once is a purchase').toContain(pack.id));
    },
  ),
];
