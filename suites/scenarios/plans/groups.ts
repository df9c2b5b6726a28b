/**
 * Scenarios of plans once attached: a main plan replaces the main plan of its group, add-ons attach
 * alongside, auto-enable plans reach new customers (only free ones, one per group), and archived plans
 * reach no new customer.
 */
import { expect } from 'vitest';
import { inBatches } from '../../framework/index.ts';
import { attach, createCustomer, createFeature, createPlan, newCustomerBody, requireNotRead, scenario, SETUP_WIDTH, type T } from '../../support.ts';
import { checkFlagsShowPlans, createFlaggedPlan, FLAG_RULES, type FlaggedPlan, holdsPlans, type PlanBody, readPlan, requirePlanField, updatePlan } from './support.ts';

/** How many plans exist before the auto-enable one of plans.auto-enable-after-many-plans: past a first page of 100. */
const MANY_PLANS = 105;

/** The ids of `plans`, sorted. */
const idsOf = (plans: readonly FlaggedPlan[]): string[] => plans.map(({ plan }) => plan.id).sort();

/** Turns auto_enable off again on every plan that had it, so the tenant's later customers get none of them. */
async function turnOffAutoEnable(t: T, planIds: readonly string[]): Promise<void> {
  for (const planId of planIds) await t.client.call('plans.update', { plan_id: planId, auto_enable: false });
}

/**
 * Creates an auto-enable plan with a boolean feature of its own (holdsPlans), as the subject of
 * PLAN-AUTO-ENABLE (a refusal FAILs it); its id joins `defaults` once created.
 */
async function createDefault(t: T<'PLAN-AUTO-ENABLE'>, defaults: string[], body: { group: string; add_on?: boolean }): Promise<FlaggedPlan> {
  const flag = await createFeature(t, 'boolean');
  const planId = t.ns.id('plan');
  const result = await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, auto_enable: true, items: [{ feature_id: flag.id }], ...body });
  if (result.ok) defaults.push(planId);
  return { plan: t.expectOk(result, 'PLAN-AUTO-ENABLE'), flagId: flag.id };
}

export const groupsScenarios = [
  scenario(
    {
      id: 'plans.group-exclusive',
      title: 'attaching a main plan replaces the main plan of the same group and leaves other groups alone',
      rules: ['PLAN-GROUP-EXCLUSIVE', ...FLAG_RULES],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const [group, other] = [t.ns.id('grp'), t.ns.id('grp')];
      const basic = await createFlaggedPlan(t, { group });
      const premium = await createFlaggedPlan(t, { group });
      const elsewhere = await createFlaggedPlan(t, { group: other });
      const plans = [basic, premium, elsewhere];
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect(plans.map(({ plan }) => plan.group), 'each plan reads back its group').toEqual([group, group, other]));
      const customer = await createCustomer(t);
      await attach(t, customer.id, basic.plan.id);
      await attach(t, customer.id, elsewhere.plan.id);
      const together = await holdsPlans(t, customer.id, plans);
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect(together, 'plans of different groups are held together').toEqual(idsOf([basic, elsewhere])));
      await attach(t, customer.id, premium.plan.id);
      const replaced = await holdsPlans(t, customer.id, plans);
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect(replaced, `${premium.plan.id} replaced ${basic.plan.id} in their group`).toEqual(idsOf([premium, elsewhere])));
    },
  ),
  scenario(
    {
      id: 'plans.add-on-alongside',
      title: 'an add-on attaches alongside the main plan, in its group or without one, and replaces nothing',
      rules: ['PLAN-ADD-ON-ALONGSIDE', ...FLAG_RULES],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const group = t.ns.id('grp');
      const main = await createFlaggedPlan(t, { group });
      const groupAddOn = await createFlaggedPlan(t, { group, add_on: true });
      const looseAddOn = await createFlaggedPlan(t, { add_on: true });
      const plans = [main, groupAddOn, looseAddOn];
      t.check('PLAN-ADD-ON-ALONGSIDE', () => expect([groupAddOn.plan.add_on, looseAddOn.plan.add_on], 'plans created with add_on true read back as add-ons').toEqual([true, true]));
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.plan.id);
      await attach(t, customer.id, groupAddOn.plan.id);
      const beside = await holdsPlans(t, customer.id, plans);
      t.check('PLAN-ADD-ON-ALONGSIDE', () => expect(beside, 'the add-on of the group is held beside its main plan').toEqual(idsOf([main, groupAddOn])));
      await attach(t, customer.id, looseAddOn.plan.id);
      const held = await holdsPlans(t, customer.id, plans);
      t.check('PLAN-ADD-ON-ALONGSIDE', () => expect(held, 'the main plan and both add-ons are held together').toEqual(idsOf(plans)));
    },
  ),
  scenario(
    {
      id: 'plans.auto-enable',
      title: 'an auto_enable plan is attached to a customer when the customer is created',
      rules: ['PLAN-AUTO-ENABLE', ...FLAG_RULES],
      // For a moment every new customer of the tenant gets the auto-enable plan.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      // A free plan in a group of its own, turned off right after it has served.
      const flagged = await createFlaggedPlan(t, { group: t.ns.id('grp'), auto_enable: true });
      const { plan } = flagged;
      const customer = await createCustomer(t).finally(() => updatePlan(t, { plan_id: plan.id, auto_enable: false }));
      const held = await holdsPlans(t, customer.id, [flagged]);
      t.check('PLAN-AUTO-ENABLE', () => {
        expect(plan.auto_enable, 'auto_enable reads back true').toBe(true);
        expect(held, 'the new customer holds the auto-enable plan (its boolean feature is allowed)').toEqual([plan.id]);
      });
    },
  ),
  scenario(
    {
      id: 'plans.auto-enable-after-many-plans',
      title: `an auto-enable plan made after ${MANY_PLANS} other plans reaches a new customer, alone of them, and reaches it again, once, when the customer is created anew under the same ID after a delete`,
      rules: ['PLAN-AUTO-ENABLE', 'CUS-GET-OR-CREATE-NEW', 'CUS-DELETE-CASCADES', ...FLAG_RULES],
      // For a moment every new customer of the tenant gets the auto-enable plan.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      await inBatches(Array.from({ length: MANY_PLANS }), SETUP_WIDTH, () => createPlan(t, { group: t.ns.id('grp') }));
      const flagged = await createFlaggedPlan(t, { group: t.ns.id('grp'), auto_enable: true });
      const body = newCustomerBody(t);
      const create = async () => t.expectOk(await t.client.call('customers.get_or_create', body), 'CUS-GET-OR-CREATE-NEW');
      const planIdsOf = (customer: { subscriptions?: readonly { plan_id: string }[] }) => (customer.subscriptions ?? []).map((subscription) => subscription.plan_id);
      try {
        const first = await create();
        const held = await holdsPlans(t, first.id, [flagged]);
        t.check('PLAN-AUTO-ENABLE', () => expect(held, 'the new customer holds the auto-enable plan (its boolean feature is allowed)').toEqual([flagged.plan.id]));
        t.check('CUS-GET-OR-CREATE-NEW', () => expect(planIdsOf(first), `of ${MANY_PLANS + 1} plans, the new customer gets the auto-enable one only`).toEqual([flagged.plan.id]));

        t.setup(await t.client.call('customers.delete', { customer_id: first.id }));
        requireNotRead(t, `customer ${first.id}`, await t.client.call('customers.get', { customer_id: first.id }));
        const again = await create();
        const heldAgain = await holdsPlans(t, again.id, [flagged]);
        t.check('PLAN-AUTO-ENABLE', () => expect(heldAgain, 'the customer created anew holds the auto-enable plan').toEqual([flagged.plan.id]));
        t.check('CUS-DELETE-CASCADES', () => expect(planIdsOf(again), 'once: the deleted customer left no record of it behind').toEqual([flagged.plan.id]));
      } finally {
        await updatePlan(t, { plan_id: flagged.plan.id, auto_enable: false });
      }
    },
  ),
  scenario(
    {
      id: 'plans.auto-enable-one-per-group',
      title: 'two auto-enable main plans of one group never both reach a new customer: the second is refused, or the customer holds one',
      rules: ['PLAN-GROUP-EXCLUSIVE', ...FLAG_RULES],
      // For a moment every new customer of the tenant gets the auto-enable plans.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const group = t.ns.id('grp');
      const first = await createFlaggedPlan(t, { group, auto_enable: true });
      const defaults = [first.plan.id];
      try {
        const [secondFlag, secondId] = [await createFeature(t, 'boolean'), t.ns.id('plan')];
        const second = await t.client.call('plans.create', { plan_id: secondId, name: `Plan ${secondId}`, group, auto_enable: true, items: [{ feature_id: secondFlag.id }] });
        // Refusing a second default of the group (as the reference does) keeps the group exclusive.
        if (!second.ok) return;
        defaults.push(secondId);
        const customer = await createCustomer(t);
        const held = await holdsPlans(t, customer.id, [first, { plan: second.body, flagId: secondFlag.id }]);
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
      rules: ['PLAN-AUTO-ENABLE', ...FLAG_RULES],
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const [group, otherGroup] = [t.ns.id('grp'), t.ns.id('grp')];
      const defaults: string[] = [];
      try {
        // A free main plan and an auto-enable add-on already in the group.
        const plain = await createFlaggedPlan(t, { group });
        const addOn = await createDefault(t, defaults, { group, add_on: true });
        const main = await createDefault(t, defaults, { group });
        // An add-on default after the main one, and the default of another group.
        const laterAddOn = await createDefault(t, defaults, { group, add_on: true });
        const elsewhere = await createDefault(t, defaults, { group: otherGroup });
        const customer = await createCustomer(t);
        t.precondition('the add-ons were created as auto-enable add-ons', () => expect([addOn, laterAddOn].map(({ plan }) => [plan.add_on, plan.auto_enable])).toEqual([[true, true], [true, true]]));
        // The main plans, and the plain plan of the group that is no default: whether add-ons are
        // attached at creation is not what this scenario decides.
        const held = await holdsPlans(t, customer.id, [plain, main, elsewhere]);
        t.check('PLAN-AUTO-ENABLE', () => expect(held, 'a new customer holds the auto-enable main plans of both groups, not the plain plan').toEqual(idsOf([main, elsewhere])));
      } finally {
        await turnOffAutoEnable(t, defaults);
      }
    },
  ),
  scenario(
    {
      id: 'plans.auto-enable-after-archived-default',
      title: 'an auto-enable plan is accepted in a group whose former default is archived, and a new customer gets it',
      rules: ['PLAN-AUTO-ENABLE', ...FLAG_RULES],
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const group = t.ns.id('grp');
      const archived = await createFlaggedPlan(t, { group, auto_enable: true });
      const defaults = [archived.plan.id];
      try {
        t.setup(await t.client.call('plans.update', { plan_id: archived.plan.id, archived: true }));
        const current = await createDefault(t, defaults, { group });
        const customer = await createCustomer(t);
        // Whether the archived default still reaches new customers is PLAN-ARCHIVED-NOT-ATTACHABLE's, not read here.
        const held = await holdsPlans(t, customer.id, [current]);
        t.check('PLAN-AUTO-ENABLE', () => expect(held, 'a new customer holds the new default').toEqual([current.plan.id]));
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
      await createPlan(t, { ...basePriced, free_trial: { ...trial, card_required: false } });
      // The free trial is read at all (under the profile's wire name), else the trial's exception could not show.
      await requirePlanField(t, 'plans.create.free_trial', basePriced, { free_trial: { ...trial, card_required: false } }, (plan) => plan.free_trial ?? null);
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
      rules: ['PLAN-ARCHIVED-NOT-ATTACHABLE', ...FLAG_RULES],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const flagged = await createFlaggedPlan(t, { group: t.ns.id('grp') });
      const { plan } = flagged;
      // The nearest valid request: attaching the plan before it is archived.
      const existing = await createCustomer(t);
      await attach(t, existing.id, plan.id);
      const archived = await updatePlan(t, { plan_id: plan.id, archived: true });
      const read = await readPlan(t, plan.id);
      t.precondition('the update archived the plan', () => expect([archived.archived, read.archived]).toEqual([true, true]));
      const newcomer = await createCustomer(t);
      // billing.attach is the reference's call: what counts is what the documented balances.check shows after it, refused or not.
      await t.client.call('billing.attach', { customer_id: newcomer.id, plan_id: plan.id });
      const [newcomerPlans, existingPlans] = [await holdsPlans(t, newcomer.id, [flagged]), await holdsPlans(t, existing.id, [flagged])];
      t.check('PLAN-ARCHIVED-NOT-ATTACHABLE', () => {
        expect(newcomerPlans, 'the new customer did not get the archived plan').toEqual([]);
        expect(existingPlans, 'the customer who had it keeps it').toEqual([plan.id]);
      });
    },
  ),
  scenario(
    {
      id: 'plans.archived-every-version',
      title: 'a plan archived after a second version: neither version can be attached to a new customer',
      rules: ['PLAN-ARCHIVED-NOT-ATTACHABLE', ...FLAG_RULES],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const flagged = await createFlaggedPlan(t, { group: t.ns.id('grp') });
      const { plan } = flagged;
      const holder = await createCustomer(t);
      await attach(t, holder.id, plan.id);
      // A change of configuration while a customer holds the plan: a second version (PLAN-UPDATE-NEW-VERSION's), then the archive.
      const extra = await createFeature(t, 'boolean');
      const second = await updatePlan(t, { plan_id: plan.id, items: [{ feature_id: flagged.flagId }, { feature_id: extra.id }] });
      t.precondition('the change made a second version', () => expect(second.version).toBe(2));
      const archived = await updatePlan(t, { plan_id: plan.id, archived: true });
      const [latest, first] = [await readPlan(t, plan.id), await readPlan(t, plan.id, 1)];
      t.precondition('the update archived the plan', () => expect([archived.archived, latest.archived]).toEqual([true, true]));
      // The nearest valid requests are the plain scenario's (plans.archived-not-attachable): the same attach before the archive.
      const [onLatest, onFirst] = [await createCustomer(t), await createCustomer(t)];
      await t.client.call('billing.attach', { customer_id: onLatest.id, plan_id: plan.id });
      await t.client.call('billing.attach', { customer_id: onFirst.id, plan_id: plan.id, version: 1 });
      const held = [await holdsPlans(t, onLatest.id, [flagged]), await holdsPlans(t, onFirst.id, [flagged])];
      t.check('PLAN-ARCHIVED-NOT-ATTACHABLE', () => {
        expect(held[0], 'a new customer did not get the archived plan').toEqual([]);
        expect(held[1], `a new customer did not get its first version (read back archived: ${String(first.archived)})`).toEqual([]);
      });
    },
  ),
];
