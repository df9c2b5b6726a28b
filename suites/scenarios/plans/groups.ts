/**
 * Scenarios of plans once attached: a main plan replaces the main plan of its group, add-ons attach
 * alongside, auto-enable plans reach new customers (only free ones, one per group), and archived plans
 * reach no new customer.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../../support.ts';
import { activePlanIds, activeSubscriptions, type PlanBody, readPlan, updatePlan } from './support.ts';

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

export const groupsScenarios = [
  scenario(
    {
      id: 'plans.group-exclusive',
      title: 'attaching a main plan replaces the main plan of the same group and leaves other groups alone',
      rules: ['PLAN-GROUP-EXCLUSIVE'],
    },
    async (t) => {
      const [group, other] = [t.ns.id('grp'), t.ns.id('grp')];
      const basic = await createPlan(t, { group });
      const premium = await createPlan(t, { group });
      const elsewhere = await createPlan(t, { group: other });
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect([basic.group, premium.group, elsewhere.group], 'each plan reads back its group').toEqual([group, group, other]));
      const customer = await createCustomer(t);
      await attach(t, customer.id, basic.id);
      await attach(t, customer.id, elsewhere.id);
      const together = await activePlanIds(t, customer.id);
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect(together, 'plans of different groups are held together').toEqual([basic.id, elsewhere.id].sort()));
      await attach(t, customer.id, premium.id);
      const replaced = await activePlanIds(t, customer.id);
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect(replaced, `${premium.id} replaced ${basic.id} in their group`).toEqual([premium.id, elsewhere.id].sort()));
    },
  ),
  scenario(
    {
      id: 'plans.add-on-alongside',
      title: 'an add-on attaches alongside the main plan, in its group or without one, and replaces nothing',
      rules: ['PLAN-ADD-ON-ALONGSIDE'],
    },
    async (t) => {
      const group = t.ns.id('grp');
      const main = await createPlan(t, { group });
      const groupAddOn = await createPlan(t, { group, add_on: true });
      const looseAddOn = await createPlan(t, { add_on: true });
      // That plans.create takes add_on as sent is the round trip's (and the snake_case request convention's).
      t.precondition('the add-ons were created as add-ons', () => expect([groupAddOn.add_on, looseAddOn.add_on]).toEqual([true, true]));
      // The listing read below shows add-ons (LIST-SUBSCRIPTIONS-RECURRING): seen first on an add-on held alone.
      const alone = await createCustomer(t);
      await attach(t, alone.id, looseAddOn.id);
      const aloneHeld = await activePlanIds(t, alone.id);
      t.precondition('subscriptions.list shows an add-on held alone', () => expect(aloneHeld).toEqual([looseAddOn.id]));
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, groupAddOn.id);
      await attach(t, customer.id, looseAddOn.id);
      const held = await activePlanIds(t, customer.id);
      t.check('PLAN-ADD-ON-ALONGSIDE', () => expect(held, 'the main plan and both add-ons are held together').toEqual([main.id, groupAddOn.id, looseAddOn.id].sort()));
    },
  ),
  scenario(
    {
      id: 'plans.auto-enable',
      title: 'an auto_enable plan is attached to a customer when the customer is created',
      rules: ['PLAN-AUTO-ENABLE'],
      // For a moment every new customer of the tenant gets the auto-enable plan.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      // A free plan in a group of its own, turned off right after it has served.
      const plan = await createPlan(t, { group: t.ns.id('grp'), auto_enable: true, items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t).finally(() => updatePlan(t, { plan_id: plan.id, auto_enable: false }));
      const subscriptions = (await activeSubscriptions(t, customer.id)).filter((sub) => sub.plan_id === plan.id);
      // Holding the plan is the rule; what a held plan grants is the balance rules'.
      t.check('PLAN-AUTO-ENABLE', () => {
        expect(plan.auto_enable, 'auto_enable reads back true').toBe(true);
        expect(subscriptions, 'the new customer holds the auto-enable plan').toHaveLength(1);
      });
    },
  ),
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
        t.precondition('the add-ons were created as auto-enable add-ons', () => expect([addOn, laterAddOn].map((plan) => [plan.add_on, plan.auto_enable])).toEqual([[true, true], [true, true]]));
        // The main plans only: that subscriptions.list lists add-ons is LIST-SUBSCRIPTIONS-RECURRING's.
        const expected = [main.id, elsewhere.id].sort();
        const held = await heldAmong(t, customer.id, expected);
        t.check('PLAN-AUTO-ENABLE', () => expect(held, 'a new customer holds the auto-enable main plans of both groups').toEqual(expected));
      } finally {
        await turnOffAutoEnable(t, defaults);
      }
    },
  ),
  scenario(
    {
      id: 'plans.auto-enable-after-archived-default',
      title: 'an auto-enable plan is accepted in a group whose former default is archived, and a new customer gets it',
      rules: ['PLAN-AUTO-ENABLE'],
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
        const held = await heldAmong(t, customer.id, [current.id]);
        t.check('PLAN-AUTO-ENABLE', () => expect(held, 'a new customer holds the new default').toEqual([current.id]));
      } finally {
        await turnOffAutoEnable(t, defaults);
      }
    },
  ),
  scenario(
    {
      id: 'plans.auto-enable-needs-free',
      title: 'auto_enable is refused on a plan with a base price or an item price (even one among free items), and accepted on a priced plan whose free trial needs no card',
      rules: ['PLAN-AUTO-ENABLE-FREE'],
      // The accepted plan reaches every new customer of the tenant until it is turned off.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const [flag, units] = [await createFeature(t, 'boolean'), await createFeature(t, 'consumable')];
      const basePriced: PlanBody = { price: { amount: 10, interval: 'month' }, items: [{ feature_id: flag.id }] };
      const itemPriced: PlanBody = { items: [{ feature_id: units.id, included: 5, reset: { interval: 'month' }, price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }] };
      // One priced item among free ones prices the plan too.
      const oneItemPriced: PlanBody = { items: [{ feature_id: flag.id }, ...itemPriced.items!] };
      const trial = { duration_length: 7, duration_type: 'day' } as const;
      // The nearest valid requests: the same plans without auto_enable; the free trial is read at all (PLAN-FREE-TRIAL-WIRE's).
      await createPlan(t, basePriced);
      await createPlan(t, itemPriced);
      await createPlan(t, oneItemPriced);
      const withTrial = await createPlan(t, { ...basePriced, free_trial: { ...trial, card_required: false } });
      t.precondition('a plan created with a free trial has one', () => expect(withTrial.free_trial).toBeDefined());
      const defaults: string[] = [];
      const createAutoEnabled = async (body: PlanBody) => {
        const planId = t.ns.id('plan');
        const result = await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, group: t.ns.id('grp'), auto_enable: true, ...body });
        if (result.ok) defaults.push(planId);
        return result;
      };
      try {
        t.expectError(await createAutoEnabled(basePriced), { rule: 'PLAN-AUTO-ENABLE-FREE', status: 400 });
        t.expectError(await createAutoEnabled(itemPriced), { rule: 'PLAN-AUTO-ENABLE-FREE', status: 400 });
        t.expectError(await createAutoEnabled(oneItemPriced), { rule: 'PLAN-AUTO-ENABLE-FREE', status: 400 });
        t.expectError(await createAutoEnabled({ ...basePriced, free_trial: { ...trial, card_required: true } }), { rule: 'PLAN-AUTO-ENABLE-FREE', status: 400 });
        t.expectOk(await createAutoEnabled({ ...basePriced, free_trial: { ...trial, card_required: false } }), 'PLAN-AUTO-ENABLE-FREE');
      } finally {
        await turnOffAutoEnable(t, defaults);
      }
    },
  ),
  scenario(
    {
      id: 'plans.archived-not-attachable',
      title: 'an archived plan cannot be attached to a new customer; a customer who had it keeps it',
      rules: ['PLAN-ARCHIVED-NOT-ATTACHABLE'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp') });
      // The nearest valid request: attaching the plan before it is archived.
      const existing = await createCustomer(t);
      await attach(t, existing.id, plan.id);
      const archived = await updatePlan(t, { plan_id: plan.id, archived: true });
      const read = await readPlan(t, plan.id);
      t.precondition('the update archived the plan', () => expect([archived.archived, read.archived]).toEqual([true, true]));
      const newcomer = await createCustomer(t);
      // billing.attach is the reference's call: what counts is what the documented listing shows after it, refused or not.
      await t.client.call('billing.attach', { customer_id: newcomer.id, plan_id: plan.id });
      const [newcomerPlans, existingPlans] = [await activePlanIds(t, newcomer.id), await activePlanIds(t, existing.id)];
      t.check('PLAN-ARCHIVED-NOT-ATTACHABLE', () => {
        expect(newcomerPlans, 'the new customer did not get the archived plan').toEqual([]);
        expect(existingPlans, 'the customer who had it keeps it').toEqual([plan.id]);
      });
    },
  ),
];
