/**
 * Preview scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's billing.preview_multi_update that could be changed without any
 * other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario } from '../support.ts';

const MONTHLY = { interval: 'month' } as const;

export const previewMutantScenarios = [
  scenario(
    {
      id: 'preview.every-price-kind',
      title:
        'cancelling at once a plan that carries every kind of item (included, usage-priced, prepaid, tiered prepaid) previews a result of the documented shape, whose total is the sum of its entries and refunds at least the base price and the flat-priced seats',
      rules: ['PREV-RESULT-SHAPE', 'PREV-TOTAL-SUM', 'PREV-REFUND-MODE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const [included, usage] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const [seats, tiered] = [await createFeature(t, 'allocated'), await createFeature(t, 'allocated')];
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        price: { amount: 20, interval: 'month' },
        items: [
          { feature_id: included.id, included: 100, reset: MONTHLY },
          { feature_id: usage.id, included: 10, reset: MONTHLY, price: { amount: 0.5, interval: 'month', billing_method: 'usage_based' } },
          { feature_id: seats.id, included: 0, price: { amount: 4, interval: 'month', billing_method: 'prepaid' } },
          { feature_id: tiered.id, included: 0, price: { tiers: [{ to: 10, amount: 3 }, { to: 'inf', amount: 2 }], interval: 'month', billing_method: 'prepaid' } },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id, { feature_quantities: [{ feature_id: seats.id, quantity: 2 }, { feature_id: tiered.id, quantity: 12 }] });
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: seats.id, required_balance: 0 }), ['balance']);
      t.precondition('the 2 prepaid seats were bought at attach', () => expect(balance?.granted).toBe(2));
      const result = t.expectOk(
        await t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        'PREV-RESULT-SHAPE',
      );
      t.check('PREV-RESULT-SHAPE', () => expect(result.customer_id, 'the result names the customer').toBe(customer.id));
      const sum = (result.subscriptions ?? []).reduce((total, entry) => total + entry.total, 0);
      t.check('PREV-TOTAL-SUM', () => expect(Math.abs(result.total - sum), `total ${result.total} is the sum of the entries' totals (${sum})`).toBeLessThan(0.005));
      // Right after the attach almost all of the period is unused; the tiered seats cost something too, how much is not stated.
      t.check('PREV-REFUND-MODE', () => expect(-result.total, 'cancelling at once refunds at least the $20 base price and 2 seats at $4').toBeGreaterThanOrEqual(28 - 0.01));
    },
  ),

  scenario(
    {
      id: 'preview.update-refusals',
      title:
        'the preview refuses an update of a plan the customer does not hold or no longer holds, cancel_end_of_cycle of a free or a one-off plan, and two updates of one plan; the nearest valid updates are accepted',
      rules: ['PREV-TARGET-HELD', 'PREV-END-OF-CYCLE-NEEDS-CYCLE', 'PREV-ONE-UPDATE-PER-PLAN'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const free = await createPlan(t, { add_on: true });
      const pack = await createPlan(t, { add_on: true, price: { amount: 5, interval: 'one_off' } });
      const monthly = await createPlan(t, { add_on: true, price: { amount: 20, interval: 'month' } });
      const group = t.ns.id('grp');
      const [replaced, replacing] = [await createPlan(t, { group, price: { amount: 10, interval: 'month' } }), await createPlan(t, { group, price: { amount: 15, interval: 'month' } })];
      const never = await createPlan(t, { add_on: true, price: { amount: 20, interval: 'month' } });
      const customer = await createCustomer(t);
      for (const plan of [free, pack, monthly, replaced, replacing]) await attach(t, customer.id, plan.id);
      const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, limit: 200 }), ['list']);
      t.precondition(`${replacing.id} replaced ${replaced.id} of its group`, () => expect(list.filter((sub) => sub.status === 'active').map((sub) => sub.plan_id)).not.toContain(replaced.id));
      type Update = { plan_id: string; cancel_action: 'cancel_immediately' | 'cancel_end_of_cycle' };
      const previewOf = async (...updates: Update[]) => t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: updates as [Update, ...Update[]] });
      const now = (plan: { id: string }): Update => ({ plan_id: plan.id, cancel_action: 'cancel_immediately' });
      const atCycleEnd = (plan: { id: string }): Update => ({ plan_id: plan.id, cancel_action: 'cancel_end_of_cycle' });
      // The nearest valid requests.
      for (const plan of [free, pack, monthly, replacing]) t.setup(await previewOf(now(plan)));
      t.setup(await previewOf(atCycleEnd(monthly)));
      t.setup(await previewOf(now(monthly), now(replacing)));

      for (const plan of [never, replaced]) t.expectError(await previewOf(now(plan)), { rule: 'PREV-TARGET-HELD', status: 404, code: 'cus_product_not_found' });
      for (const plan of [free, pack]) t.expectError(await previewOf(atCycleEnd(plan)), { rule: 'PREV-END-OF-CYCLE-NEEDS-CYCLE', status: 400 });
      t.expectError(await previewOf(now(monthly), atCycleEnd(monthly)), { rule: 'PREV-ONE-UPDATE-PER-PLAN', status: 400, code: 'invalid_request' });
    },
  ),
];
