/**
 * Scenarios of one entry per processor subscription: plans billed together share one, plans on other
 * cycles do not, and a replacing main plan joins the subscription the add-on still bills.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createPlan, scenario, type T } from '../../support.ts';
import { cancelNow, monthly, preview, type PreviewResult } from './support.ts';

/** Previews cancelling the plans now; the answer itself is the scenario's premise (PREV-RESULT-SHAPE proves it elsewhere). */
async function previewCancel(t: T, customerId: string, planIds: readonly string[]): Promise<PreviewResult> {
  const updates = planIds.map((plan_id) => ({ plan_id, cancel_action: 'cancel_immediately' as const }));
  return t.setup(await t.client.call('billing.preview_multi_update', { customer_id: customerId, updates }), ['subscriptions']);
}

/** The plan IDs of each preview entry, each sorted. */
function entriesOf(result: PreviewResult): string[][] {
  return result.subscriptions.map((entry) => [...entry.plan_ids].sort());
}

export const subscriptionsScenarios = [
  scenario(
    {
      id: 'preview.shared-subscription',
      title: 'a main plan and an add-on billed on the same monthly cycle share one processor subscription: one entry carrying both plan IDs',
      rules: ['PREV-ONE-ENTRY-PER-SUBSCRIPTION'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const main = await createPlan(t, monthly(20, { group: t.ns.id('grp') }));
      const addOn = await createPlan(t, monthly(5, { add_on: true }));
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, addOn.id);
      const result = await preview(t, { customer_id: customer.id, updates: cancelNow([main.id, addOn.id]) });
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () => {
        expect(result.subscriptions.length, 'one processor subscription, one entry').toBe(1);
        expect([...result.subscriptions[0]!.plan_ids].sort(), 'the entry carries both plans').toEqual([main.id, addOn.id].sort());
      });
    },
  ),
  scenario(
    {
      id: 'billing.quarterly-and-monthly-apart',
      title: 'a plan billed every 3 months and one billed monthly cannot share a processor subscription: cancelling both previews two entries',
      rules: ['PREV-ONE-ENTRY-PER-SUBSCRIPTION'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const monthly = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 20, interval: 'month' } });
      const quarterly = await createPlan(t, { add_on: true, price: { amount: 50, interval: 'month', interval_count: 3 } });
      // interval_count is the reference's: a target that ignores it bills both monthly, and cannot be asked this.
      t.precondition('the second plan is billed every 3 months', () => expect(quarterly.price?.interval_count).toBe(3));
      const customer = await createCustomer(t);
      await attach(t, customer.id, monthly.id);
      await attach(t, customer.id, quarterly.id);
      const result = await previewCancel(t, customer.id, [monthly.id, quarterly.id]);
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () =>
        expect(entriesOf(result).sort(), 'one entry per billing cycle, each carrying its own plan').toEqual([[monthly.id], [quarterly.id]].sort()),
      );
    },
  ),
  scenario(
    {
      id: 'billing.replacement-joins-live-subscription',
      title: "a main plan that replaces another on the same monthly cycle stays on the processor subscription the add-on still bills: one entry for both",
      rules: ['PREV-ONE-ENTRY-PER-SUBSCRIPTION'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const group = t.ns.id('grp');
      const basic = await createPlan(t, { group, price: { amount: 20, interval: 'month' } });
      const pro = await createPlan(t, { group, price: { amount: 40, interval: 'month' } });
      const addOn = await createPlan(t, { add_on: true, price: { amount: 5, interval: 'month' } });
      const customer = await createCustomer(t);
      for (const plan of [basic, addOn, pro]) await attach(t, customer.id, plan.id);
      const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id }), ['list']);
      // That pro replaced basic is PLAN-GROUP-EXCLUSIVE's.
      t.precondition('the customer holds pro and the add-on, not basic', () =>
        expect(list.filter((record) => record.status === 'active').map((record) => record.plan_id).sort()).toEqual([pro.id, addOn.id].sort()),
      );
      const result = await previewCancel(t, customer.id, [pro.id, addOn.id]);
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () => expect(entriesOf(result), 'one processor subscription, one entry carrying both plans').toEqual([[pro.id, addOn.id].sort()]));
    },
  ),
];
