/**
 * Scenarios of what falls due when, found missing by mutation testing (`npm run mutation`, README
 * "Mutation testing"): behaviour of the fake's due queue that could be changed without any other
 * scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../support.ts';

/** The remaining and usage of a customer's balance, read through a check of 0 units. */
async function balanceOf(t: T, customerId: string, featureId: string) {
  const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0 }), ['balance']);
  return { remaining: balance?.remaining, usage: balance?.usage };
}

export const storeQueueMutantScenarios = [
  scenario(
    {
      id: 'store.reset-due-before-later-one',
      title: 'a daily reset scheduled between two monthly ones still happens first: a day later the daily balance is back to its included amount, the monthly one untouched',
      rules: ['PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      const [monthlyUnits, dailyUnits] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const monthly = await createPlan(t, { add_on: true, items: [{ feature_id: monthlyUnits.id, included: 10, reset: { interval: 'month' } }] });
      const daily = await createPlan(t, { add_on: true, items: [{ feature_id: dailyUnits.id, included: 5, reset: { interval: 'day' } }] });
      const laterMonthly = await createPlan(t, { add_on: true, items: [{ feature_id: (await createFeature(t, 'consumable')).id, included: 10, reset: { interval: 'month' } }] });
      const customer = await createCustomer(t);
      // The daily reset (due first) is scheduled between two monthly ones: neither the oldest nor the newest entry.
      for (const plan of [monthly, daily, laterMonthly]) await attach(t, customer.id, plan.id);
      for (const feature of [monthlyUnits, dailyUnits]) {
        t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 3, send_event: true }));
      }
      await t.precondition('3 units of each are used', async () => {
        expect(await balanceOf(t, customer.id, monthlyUnits.id)).toEqual({ remaining: 7, usage: 3 });
        expect(await balanceOf(t, customer.id, dailyUnits.id)).toEqual({ remaining: 2, usage: 3 });
      });
      await t.control.call('clock.advance', { ms: 86_400_000 + 60_000 });
      const [afterDaily, afterMonthly] = [await balanceOf(t, customer.id, dailyUnits.id), await balanceOf(t, customer.id, monthlyUnits.id)];
      t.check('PLAN-CONSUMABLE-RESET', () => {
        expect(afterDaily, 'a day later the daily balance is back to its 5 included units').toEqual({ remaining: 5, usage: 0 });
        expect(afterMonthly, 'the monthly balance has not reset yet').toEqual({ remaining: 7, usage: 3 });
      });
    },
  ),
];
