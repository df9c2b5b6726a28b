/**
 * Plan scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's plans that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { PlansCreateRequest } from '../../spec/plans.ts';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../support.ts';

/** A plans.create body without its id and name. */
type PlanBody = Omit<z.input<typeof PlansCreateRequest>, 'plan_id' | 'name'>;

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
      id: 'plans.free-trial-on-one-off-refused',
      title: 'a free trial is refused on a one-off plan (a one-off base price, or only a one-off item price) and accepted on the same plan billed monthly',
      rules: ['PLAN-FREE-TRIAL-RECURRING'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const free_trial = { duration_length: 7, duration_type: 'day', card_required: true } as const;
      // The nearest valid request: the same trial on a monthly plan.
      const monthly = await createPlan(t, { price: { amount: 10, interval: 'month' }, free_trial });
      // The free trial is read at all (PLAN-FREE-TRIAL-WIRE's): else a refusal could not show.
      t.precondition('the monthly plan has the free trial', () => expect(monthly.free_trial).toBeDefined());
      const refused = async (body: PlanBody) => {
        const planId = t.ns.id('plan');
        t.expectError(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, free_trial, ...body }), { rule: 'PLAN-FREE-TRIAL-RECURRING', status: 400 });
      };
      await refused({ price: { amount: 10, interval: 'one_off' } });
      await refused({ items: [{ feature_id: seats.id, included: 0, price: { amount: 3, interval: 'one_off', billing_method: 'prepaid' } }] });
    },
  ),

  scenario(
    {
      id: 'plans.license-links-refused',
      title: 'license links naming the plan itself, one license plan twice, or an archived plan are refused; a link to a live plan is accepted',
      rules: ['PLAN-LICENSE-LINKS-VALID'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const licensePlan = await createPlan(t, { items: [{ feature_id: seat.id, included: 1 }] });
      const archived = await createPlan(t, { items: [{ feature_id: seat.id, included: 1 }] });
      t.setup(await t.client.call('plans.update', { plan_id: archived.id, archived: true }));
      // The nearest valid request: one link to a live plan.
      const parent = await createPlan(t, { licenses: [{ license_plan_id: licensePlan.id, included: 2 }] });
      // Links are read at all (PLAN-LICENSE-LINKS-OFFER's, under the PLAN-LICENSES-WIRE name): else a refusal could not show.
      t.precondition('the parent plan offers the license plan', () => expect((parent.licenses ?? []).map((link) => link.license_plan_id)).toEqual([licensePlan.id]));
      const create = async (licenses: { license_plan_id: string; included: number }[]) => {
        const planId = t.ns.id('plan');
        return t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, licenses });
      };
      t.expectError(await create([{ license_plan_id: licensePlan.id, included: 2 }, { license_plan_id: licensePlan.id, included: 1 }]), { rule: 'PLAN-LICENSE-LINKS-VALID', status: 400 });
      t.expectError(await create([{ license_plan_id: archived.id, included: 2 }]), { rule: 'PLAN-LICENSE-LINKS-VALID', status: 400 });
      // The plan itself: through plans.update, where the plan already exists.
      t.expectError(await t.client.call('plans.update', { plan_id: parent.id, licenses: [{ license_plan_id: parent.id, included: 2 }] }), { rule: 'PLAN-LICENSE-LINKS-VALID', status: 400 });
    },
  ),

  scenario(
    {
      id: 'plans.update-description-in-place',
      title: "plans.update of a plan's description changes it in place: same version, the new description reads back, and the plan's free trial is kept",
      rules: ['PLAN-UPDATE-IN-PLACE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const created = await createPlan(t, {
        description: 'First description',
        price: { amount: 10, interval: 'month' },
        items: [{ feature_id: feature.id, included: 5, reset: { interval: 'month' } }],
        free_trial: { duration_length: 7, duration_type: 'day', card_required: false },
      });
      // That both read back from plans.create is PLAN-FREE-TRIAL-WIRE's and the plan shape's.
      t.precondition('the plan was created with its description and free trial', () => {
        expect(created.description).toBe('First description');
        expect(created.free_trial).toMatchObject({ duration_length: 7, duration_type: 'day' });
      });
      const updated = t.expectOk(await t.client.call('plans.update', { plan_id: created.id, description: 'Second description' }), 'PLAN-UPDATE-IN-PLACE');
      const got = t.expectOk(await t.client.call('plans.get', { plan_id: created.id }), 'PLAN-UPDATE-IN-PLACE');
      t.check('PLAN-UPDATE-IN-PLACE', () => {
        for (const [label, plan] of [['the update', updated], ['plans.get after it', got]] as const) {
          expect(plan.version, `${label}: the same version`).toBe(created.version);
          expect(plan.description, `${label}: the new description`).toBe('Second description');
          expect(plan.free_trial, `${label}: the free trial kept`).toMatchObject({ duration_length: 7, duration_type: 'day' });
        }
      });
    },
  ),
];
