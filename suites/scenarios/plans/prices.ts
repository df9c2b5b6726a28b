/**
 * Scenarios of what a plan's prices do once attached: a usage price lets use run past the included
 * amount (also beside an unpriced source, within a purchase cap, through send_event), and a prepaid
 * price grants and charges upfront.
 */
import { expect } from 'vitest';
import { attach, cappedUsagePrice, createCustomer, createFeature, createPlan, MONTHLY, readBalance, scenario, type T } from '../../support.ts';
import { monthly, track } from './support.ts';

/** Whether balances.check allows `required` units (a read here; the caller's check inspects it). */
async function allowed(t: T, customerId: string, featureId: string, required: number): Promise<boolean> {
  return t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: required })).allowed;
}

export const pricesScenarios = [
  scenario(
    {
      id: 'plans.usage-price-overage',
      title: 'a usage price lets use run past the included amount and bills it: the units beyond included are recorded on the priced grant',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const priced = await createPlan(t, {
        group: t.ns.id('grp'),
        items: [{ ...monthly(feature.id, 5), price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }],
      });
      const unpriced = await createPlan(t, { group: t.ns.id('grp'), items: [monthly(feature.id, 5)] });
      const [payer, free] = [await createCustomer(t), await createCustomer(t)];
      await attach(t, payer.id, priced.id);
      await attach(t, free.id, unpriced.id);

      // The reference point: without a price, use stops at the included amount (the balance rules' statement).
      const unpricedAllows = await allowed(t, free.id, feature.id, 8);
      t.precondition('without a price, 8 units exceed the 5 included', () => expect(unpricedAllows).toBe(false));
      const pricedAllows = await allowed(t, payer.id, feature.id, 8);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(pricedAllows, 'with a usage price, 8 units are allowed beyond the 5 included').toBe(true));
      await track(t, payer.id, feature.id, 8);
      const balance = await readBalance(t, payer.id, feature.id);
      t.precondition('the 8 units tracked, and they alone, are recorded', () => expect(balance?.usage).toBe(8));
      const more = await allowed(t, payer.id, feature.id, 1);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => {
        expect(balance?.overage_allowed, 'the balance allows overage').toBe(true);
        // Billed: the 3 units beyond the 5 included are recorded as usage of the grant that carries the usage price.
        const pricedGrants = (balance?.breakdown ?? []).filter((entry) => entry.plan_id === priced.id);
        expect(pricedGrants, 'one grant of the priced plan').toHaveLength(1);
        expect(pricedGrants[0], 'the priced grant: 5 included, 8 used, its usage price').toMatchObject({ included_grant: 5, usage: 8, price: { billing_method: 'usage_based' } });
        expect(pricedGrants[0]!.usage - pricedGrants[0]!.included_grant - pricedGrants[0]!.prepaid_grant, 'units billed as overage').toBe(3);
        expect(more, 'use may go on past the included amount').toBe(true);
      });
    },
  ),
  scenario(
    {
      id: 'balances.overage-with-unpriced-source',
      title: 'a balance fed by a usage-priced grant and an unpriced one allows overage: the usage price applies beyond the included amount',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const priced = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY, price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }] });
      const unpriced = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, priced.id);
      await attach(t, customer.id, unpriced.id);
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id }), ['balance']);
      t.precondition('the customer has a balance of the feature', () => expect(balance).not.toBeNull());
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(balance!.overage_allowed, 'one of its grants carries a usage price').toBe(true));
    },
  ),
  scenario(
    {
      id: 'balances.overage-within-purchase-cap',
      title: 'a usage price with a purchase cap still lets use run past the included amount, within the cap',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const { feature, customer } = await cappedUsagePrice(t);
      const result = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 12 }), ['allowed']);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(result.allowed, '12 units: 5 included and 7 beyond, within the cap of 10').toBe(true));
    },
  ),
  scenario(
    {
      id: 'balances.send-event-into-overage',
      title: 'send_event beyond the included amount of a usage-priced item is allowed',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY, price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const used = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 8, send_event: true }), ['allowed']);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(used.allowed, 'send_event of 8 units, 3 beyond the 5 included').toBe(true));
    },
  ),
  scenario(
    {
      id: 'plans.prepaid-upfront',
      title: 'a prepaid price grants the quantity bought at attach and charges quantity ÷ billing units × amount upfront',
      rules: ['PLAN-PREPAID-UPFRONT'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      // Packs of 5 seats at $2: 10 seats bought are 2 packs, $4 upfront.
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        items: [{ feature_id: seats.id, included: 0, price: { amount: 2, interval: 'month', billing_units: 5, billing_method: 'prepaid' } }],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id, { feature_quantities: [{ feature_id: seats.id, quantity: 10 }] });
      const balance = await readBalance(t, customer.id, seats.id);
      t.check('PLAN-PREPAID-UPFRONT', () => {
        expect(balance, 'the 10 units bought are granted upfront').toMatchObject({ granted: 10, remaining: 10 });
        expect((balance?.breakdown ?? []).reduce((sum, entry) => sum + entry.prepaid_grant, 0), 'as a prepaid grant').toBe(10);
      });
      // The charge, through the documented preview: cancelling at once refunds the unused part of
      // what was paid upfront, which right after the attach is all of it.
      const preview = t.setup(
        await t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        ['total'],
      );
      // Whatever the packs, 10 seats at $2 cost at most $20: a larger refund is in another unit (CONV-MONEY-MAJOR-UNITS).
      t.precondition('amounts are in the major unit: the refund is at most 20', () => expect(Math.abs(preview.total)).toBeLessThanOrEqual(20));
      t.check('PLAN-PREPAID-UPFRONT', () => expect(Math.abs(preview.total + 4), `10 seats in packs of 5 at $2 were charged $4 upfront (refund ${preview.total})`).toBeLessThanOrEqual(0.01));
    },
  ),
];
