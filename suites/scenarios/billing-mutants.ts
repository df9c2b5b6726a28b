/**
 * Billing scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's `billing.attach` (processor subscriptions, license pools,
 * resets) that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import {
  activeLicensePlansOf,
  attach,
  createCustomer,
  createFeature,
  createLicensePool,
  createPlan,
  createSeatHolder,
  type Ops,
  requireLicenseLinks,
  scenario,
  type T,
} from '../support.ts';

type PreviewResult = z.output<Ops['billing.preview_multi_update']['response']>;

/** Previews cancelling the plans now; the answer itself is the scenario's premise (PREV-RESULT-SHAPE proves it elsewhere). */
async function previewCancel(t: T, customerId: string, planIds: readonly string[]): Promise<PreviewResult> {
  const updates = planIds.map((plan_id) => ({ plan_id, cancel_action: 'cancel_immediately' as const }));
  return t.setup(await t.client.call('billing.preview_multi_update', { customer_id: customerId, updates }), ['subscriptions']);
}

/** The plan IDs of each preview entry, each sorted. */
function entriesOf(result: PreviewResult): string[][] {
  return result.subscriptions.map((entry) => [...entry.plan_ids].sort());
}

export const billingMutantScenarios = [
  scenario(
    {
      id: 'billing.paid-seats-as-many-as-included',
      title: 'seats bought on top of as many included ones (2 included, 4 in all) make a pool of 4 seats, 2 of them paid',
      rules: ['LIC-POOL-GRANTED', 'LIC-POOL-PAID-QUANTITY'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2, { totalSeats: 4 });
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      const pool = list.find((candidate) => candidate.license_plan_id === setup.licensePlan.id && candidate.parent_plan_id === setup.parentPlan.id);
      t.check('LIC-POOL-GRANTED', () => {
        expect(pool, `licenses.list shows the pool of ${setup.licensePlan.id}`).toBeDefined();
        expect(pool!.granted, '2 included + 2 paid seats').toBe(4);
      });
      t.check('LIC-POOL-PAID-QUANTITY', () => expect(pool!.paid_quantity, 'the 2 seats beyond the included ones are paid').toBe(2));
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

  scenario(
    {
      id: 'billing.replaced-parent-revokes-seats',
      title: 'replacing the parent plan that offers a pool revokes the seats assigned from it: the entity no longer holds the license plan',
      rules: ['LIC-PARENT-END-REVOKES-SEATS'],
    },
    async (t) => {
      const setup = await createSeatHolder(t, 2);
      const successor = await createPlan(t, { group: setup.parentPlan.group ?? undefined });
      await attach(t, setup.customerId, successor.id);
      const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: setup.customerId }), ['list']);
      // That the successor replaced the parent is PLAN-GROUP-EXCLUSIVE's.
      t.precondition('the parent plan was replaced', () => 
        expect(list.filter((record) => record.status === 'active' && [setup.parentPlan.id, successor.id].includes(record.plan_id)).map((record) => record.plan_id)).toEqual([successor.id]),
      );
      const after = await activeLicensePlansOf(t, setup, setup.member.id);
      t.check('LIC-PARENT-END-REVOKES-SEATS', () => expect(after, 'the seat went with the parent plan').toEqual([]));
    },
  ),

  scenario(
    {
      id: 'billing.no-seats-no-pool',
      title: 'a license link with no included seats, attached without license_quantities, makes no pool; its sibling link with a seat does',
      rules: ['LIC-POOL-NEEDS-SEATS'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const [seatless, seated] = [await createPlan(t, { items: [{ feature_id: flag.id }] }), await createPlan(t, { items: [{ feature_id: flag.id }] })];
      const parent = await createPlan(t, {
        group: t.ns.id('grp'),
        licenses: [
          { license_plan_id: seatless.id, included: 0 },
          { license_plan_id: seated.id, included: 1 },
        ],
      });
      requireLicenseLinks(t, parent, [seatless.id, seated.id]);
      const customer = await createCustomer(t);
      await attach(t, customer.id, parent.id);
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customer.id }), ['list']);
      const pooled = list.filter((pool) => pool.parent_plan_id === parent.id).map((pool) => pool.license_plan_id);
      // The link with a seat is the positive control: its pool is listed (LIC-LIST-CUSTOMER-POOLS').
      t.precondition('the link with an included seat makes a pool', () => expect(pooled).toContain(seated.id));
      t.check('LIC-POOL-NEEDS-SEATS', () => expect(pooled, 'the link with no seat makes none').not.toContain(seatless.id));
    },
  ),
];
