/**
 * Scenarios of free trials: a new customer starts on the trial of a paid plan, and a trial is
 * refused on a one-off plan.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../../support.ts';
import { DAY_MS, expectMilliseconds, type PlanBody, requirePlanField, targetNow } from './support.ts';

const TRIAL_PRICE = { amount: 10, interval: 'month' } as const;

/** The free trial is sent under a wire name the document does not show: the target must read it. */
async function requireFreeTrialRead(t: T): Promise<void> {
  await requirePlanField(t, 'plans.create.free_trial', { price: TRIAL_PRICE }, { free_trial: { duration_length: 7, duration_type: 'day', card_required: false } }, (plan) => plan.free_trial ?? null);
}

export const trialsScenarios = [
  scenario(
    {
      id: 'plans.free-trial-applies',
      title: 'a new customer attaching a paid plan with a free trial starts on the trial, ending after its duration',
      rules: ['PLAN-FREE-TRIAL-APPLIES', 'CONV-TIMESTAMPS-MS'],
      needs: ['paid-attach'],
      uses: ['control-plane'],
    },
    async (t) => {
      await requireFreeTrialRead(t);
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        price: TRIAL_PRICE,
        free_trial: { duration_length: 7, duration_type: 'day', card_required: false },
      });
      const customer = await createCustomer(t);
      const now = await targetNow(t);
      await attach(t, customer.id, plan.id);
      // subscriptions.list is where the document shows trial_ends_at (the rule's own read: PLAN-FREE-TRIAL-APPLIES owns it).
      const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, limit: 200 }), ['list']);
      const sub = list.find((record) => record.customer_id === customer.id && record.plan_id === plan.id && record.status === 'active' && record.entity_id == null);
      t.check('PLAN-FREE-TRIAL-APPLIES', () => {
        expect(sub, 'the customer holds the plan, active').toBeDefined();
        // Plain values, so the report shows what was seen (an asymmetric matcher prints only itself).
        expect(typeof sub!.trial_ends_at, `the subscription is trialing: trial_ends_at is a time, seen ${JSON.stringify(sub!.trial_ends_at)}`).toBe('number');
        expect(sub!.trial_ends_at! - sub!.started_at, 'the trial lasts 7 days').toBe(7 * DAY_MS);
      });
      expectMilliseconds(t, [now - DAY_MS, now + 8 * DAY_MS], { started_at: sub!.started_at, trial_ends_at: sub!.trial_ends_at });
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
      // The free trial is read at all: else a refusal could not show.
      await requireFreeTrialRead(t);
      // The nearest valid request: the same trial on a monthly plan.
      await createPlan(t, { price: TRIAL_PRICE, free_trial });
      const refused = async (body: PlanBody) => {
        const planId = t.ns.id('plan');
        t.expectError(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, free_trial, ...body }), { rule: 'PLAN-FREE-TRIAL-RECURRING', status: 400 });
      };
      await refused({ price: { amount: 10, interval: 'one_off' } });
      await refused({ items: [{ feature_id: seats.id, included: 0, price: { amount: 3, interval: 'one_off', billing_method: 'prepaid' } }] });
    },
  ),
];
