/**
 * Scenarios of balances.track: value units recorded, and what overage_behavior does past the
 * balance.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, readBalance, scenario } from '../../support.ts';
import { balanceNow, consumable, expectBalance } from './support.ts';

export const trackScenarios = [
  scenario(
    {
      id: 'balances.track',
      title: 'balances.track records value units: later checks show usage up and remaining down by value',
      rules: ['BAL-TRACK-DEDUCTS', 'BAL-TRACK-SHAPE', 'CHECK-BALANCE-ARITHMETIC'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10, 5);
      // The answer's shape is BAL-TRACK-SHAPE's (checked by the client).
      t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: 5 }), 'BAL-TRACK-DEDUCTS');
      expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 15, usage: 5 }, 'after tracking 5');
      t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: 7 }), 'BAL-TRACK-DEDUCTS');
      expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 15, usage: 12 }, 'after tracking 7 more, across both sources');
    },
  ),
  scenario(
    {
      id: 'balances.track-overflow-past-balance',
      title: 'balances.track with overage_behavior "overflow" uses the full amount past the balance; the default "cap" stops at it',
      rules: ['BAL-TRACK-OVERAGE-BEHAVIOR'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const [overflowing, capped] = [await createCustomer(t), await createCustomer(t)];
      const balanceOf = async (customerId: string) => {
        const balance = await readBalance(t, customerId, feature.id);
        return { granted: balance?.granted, usage: balance?.usage, remaining: balance?.remaining };
      };
      for (const customer of [overflowing, capped]) {
        await attach(t, customer.id, plan.id);
        t.setup(await t.client.call('balances.track', { customer_id: customer.id, feature_id: feature.id, value: 2 }));
        const start = await balanceOf(customer.id);
        // That a track within the balance uses its value is BAL-TRACK-DEDUCTS'.
        t.precondition('a track of 2 of the 5 units used 2', () => expect(start).toEqual({ granted: 5, usage: 2, remaining: 3 }));
      }
      t.expectOk(await t.client.call('balances.track', { customer_id: overflowing.id, feature_id: feature.id, value: 5, overage_behavior: 'overflow' }), 'BAL-TRACK-OVERAGE-BEHAVIOR');
      t.expectOk(await t.client.call('balances.track', { customer_id: capped.id, feature_id: feature.id, value: 5 }), 'BAL-TRACK-OVERAGE-BEHAVIOR');
      const [overflowed, stopped] = [await balanceOf(overflowing.id), await balanceOf(capped.id)];
      t.check('BAL-TRACK-OVERAGE-BEHAVIOR', () => {
        expect(overflowed, 'overflow: all 5 more are used, 2 past the balance').toEqual({ granted: 5, usage: 7, remaining: 0 });
        expect(stopped, 'cap: only the 3 that fit are used').toEqual({ granted: 5, usage: 5, remaining: 0 });
      });
    },
  ),
];
