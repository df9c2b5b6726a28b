/**
 * Scenarios of free trials: a new customer starts on the trial of a paid plan, and a trial is
 * refused on a one-off plan.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario } from '../../support.ts';
import { activeSubscriptions, DAY_MS, expectMilliseconds, type PlanBody, targetNow } from './support.ts';

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
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        price: { amount: 10, interval: 'month' },
        free_trial: { duration_length: 7, duration_type: 'day', card_required: false },
      });
      // The plan carries its trial (PLAN-FREE-TRIAL-WIRE and -ROUND-TRIP are proven apart).
      t.precondition('the plan was created with its free trial', () => expect(plan.free_trial?.duration_length).toBe(7));
      const customer = await createCustomer(t);
      const now = await targetNow(t);
      await attach(t, customer.id, plan.id);
      const sub = (await activeSubscriptions(t, customer.id)).find((s) => s.plan_id === plan.id);
      t.check('PLAN-FREE-TRIAL-APPLIES', () => {
        expect(sub, 'the customer holds the plan, active').toBeDefined();
        expect(sub!.trial_ends_at, 'the subscription is trialing').toEqual(expect.any(Number));
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
];
