/**
 * Scenarios of one entry per processor subscription: plans billed together share one, plans on other
 * cycles do not, and a replacing main plan joins the subscription the add-on still bills.
 */
import { expect } from 'vitest';
import { inBatches, isRouteNotServed } from '../../framework/index.ts';
import { attach, createCustomer, createPlan, SETUP_WIDTH, scenario, type T } from '../../support.ts';
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

/**
 * The billing cycles of billing.many-updates-one-entry-each: each a processor subscription of its own,
 * billed for several plans. Only `month` occurs in interface.md; the counts and `year` are the
 * reference's, so a target refusing them is not asked about that cycle.
 */
const MANY_CYCLES = [
  { interval: 'month', interval_count: 1 },
  { interval: 'month', interval_count: 2 },
  { interval: 'month', interval_count: 3 },
  { interval: 'month', interval_count: 6 },
  { interval: 'year', interval_count: 1 },
] as const;

/** How many paid plans each cycle bills: so that one preview carries many updates. */
const PLANS_PER_CYCLE = 3;

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
      id: 'billing.many-updates-one-entry-each',
      title: `cancelling ${MANY_CYCLES.length * PLANS_PER_CYCLE} paid plans on ${MANY_CYCLES.length} billing cycles and a free plan in one preview, in an order that mixes the cycles: one entry per cycle carrying exactly its plans, none for the free plan, and a total that is the sum of every entry`,
      rules: ['PREV-ONE-ENTRY-PER-SUBSCRIPTION', 'PREV-TOTAL-SUM'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const cycles: string[][] = [];
      for (const cycle of MANY_CYCLES) {
        const what = `a plan billed every ${cycle.interval_count} ${cycle.interval}`;
        // The first cycle holds the main plan of a group; every other plan is an add-on beside it.
        const bodies = Array.from({ length: PLANS_PER_CYCLE }, (_, index) => ({
          plan_id: t.ns.id('plan'),
          name: what,
          ...(cycles.length === 0 && index === 0 ? { group: t.ns.id('grp') } : { add_on: true }),
          price: { amount: 10 + 5 * index, interval: cycle.interval, ...(cycle.interval_count > 1 && { interval_count: cycle.interval_count }) },
        }));
        const created = await inBatches(bodies, SETUP_WIDTH, (body) => t.client.call('plans.create', body));
        const refused = created.find((result) => !result.ok && result.status < 500 && !isRouteNotServed(result.status, result.body));
        const plans = refused === undefined ? created.map((result) => t.setup(result)) : [];
        // A target that refuses the cycle, or bills it otherwise than sent, is not asked about it.
        if (cycles.length > 0 && (refused !== undefined || plans.some((plan) => plan.price?.interval !== cycle.interval || (plan.price?.interval_count ?? 1) !== cycle.interval_count))) {
          for (const rule of ['PREV-ONE-ENTRY-PER-SUBSCRIPTION', 'PREV-TOTAL-SUM'] as const) t.notVerified(rule, `${what}: the target refused it or answered another cycle`);
          continue;
        }
        cycles.push(plans.map((plan) => plan.id));
      }
      const free = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      for (const planId of [...cycles.flat(), free.id]) await attach(t, customer.id, planId);
      // The updates go round the cycles, so the plans of one subscription are never next to each other in the request.
      const order = [...Array.from({ length: PLANS_PER_CYCLE }, (_, index) => cycles.map((plans) => plans[index]!)).flat(), free.id];
      const result = await preview(t, { customer_id: customer.id, updates: cancelNow(order) });
      const sorted = (groups: string[][]) => groups.map((group) => [...group].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () =>
        expect(sorted(result.subscriptions.map((entry) => entry.plan_ids)), `one entry for each of the ${cycles.length} cycles, carrying exactly the plans it bills`).toEqual(sorted(cycles)),
      );
      const sum = result.subscriptions.reduce((total, entry) => total + entry.total, 0);
      t.check('PREV-TOTAL-SUM', () => expect(Math.abs(result.total - sum), `total ${result.total} is the sum of the ${result.subscriptions.length} entries' totals (${sum})`).toBeLessThan(0.005));
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
      // Through the setup read customers.get (the listings are not this rule's); that pro replaced basic is PLAN-GROUP-EXCLUSIVE's.
      const { subscriptions } = t.setup(await t.client.call('customers.get', { customer_id: customer.id }), ['subscriptions']);
      t.precondition('the customer holds pro and the add-on, not basic', () =>
        expect(subscriptions.filter((record) => record.status === 'active').map((record) => record.plan_id).sort()).toEqual([pro.id, addOn.id].sort()),
      );
      const result = await previewCancel(t, customer.id, [pro.id, addOn.id]);
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () => expect(entriesOf(result), 'one processor subscription, one entry carrying both plans').toEqual([[pro.id, addOn.id].sort()]));
    },
  ),
];
