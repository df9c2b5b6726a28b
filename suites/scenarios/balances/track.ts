/**
 * Scenarios of balances.track: value units recorded, and what overage_behavior does past the
 * balance.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, readBalance, scenario, type T } from '../../support.ts';
import { operations } from '../../../spec/operations.ts';
import { balanceNow, customerHolding, expectBalance, expectGranted, consumable, spend, SPEND_RULES } from './support.ts';

/**
 * A body whose number is written as `numberText` (1.25e0, 125e-2, …), which JSON.stringify would
 * write plainly: the placeholder string is replaced in the JSON text.
 */
function withNumberText(body: Record<string, unknown>, field: string, numberText: string): string {
  return JSON.stringify({ ...body, [field]: '@number@' }).replace('"@number@"', numberText);
}

/** A call whose body is the JSON text `text`, past the typed client: its status and parsed body. */
function postText(t: T, operation: 'balances.track' | 'balances.check', text: string) {
  return t.client.raw({ path: operations[operation].path, body: text });
}

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
        // That a track within the balance uses its value is BAL-TRACK-DEDUCTS': a premise, read through the setup read customers.get.
        const held = t.setup(await t.client.call('customers.get', { customer_id: customer.id }), ['balances']);
        t.precondition('a track of 2 of the 5 units used 2', () => expect(held.balances[feature.id]).toMatchObject({ granted: 5, usage: 2, remaining: 3 }));
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
  scenario(
    {
      id: 'balances.fractional-amounts',
      title:
        'fractional amounts are used exactly: a plan item of 2.5 included units grants 2.5, tracks of 0.5 and 0.25 (written 2.5e-1) use 0.75, a send_event check of 0.5 uses 0.5, and a check of the 1.25 left written 125e-2 is allowed while one of 1.5 is denied',
      rules: ['BAL-TRACK-DEDUCTS', 'CHECK-BALANCE-ARITHMETIC', ...SPEND_RULES, 'CHECK-ALLOWED-BELOW-REQUIRED'],
    },
    async (t) => {
      // Sums of halves and quarters are exact in binary floating point: each expected value is exact, not rounded.
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 2.5, reset: MONTHLY }] });
      const customerId = await customerHolding(t, [plan]);
      await expectGranted(t, customerId, feature.id, 2.5);

      // interface.md shows no track values: a target refusing fractional ones leaves this part unasked.
      const body = { customer_id: customerId, feature_id: feature.id };
      const half = await t.client.call('balances.track', { ...body, value: 0.5 });
      if (!half.ok) {
        t.notVerified('BAL-TRACK-DEDUCTS', `balances.track of a fractional value was refused (${half.status}): fractional tracks not asked`);
      } else {
        const quarter = await postText(t, 'balances.track', withNumberText(body, 'value', '2.5e-1'));
        if (quarter.status === 200) {
          expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 2.5, usage: 0.75 }, 'after tracking 0.5 and 2.5e-1');
        } else {
          t.notVerified('BAL-TRACK-DEDUCTS', `balances.track of a value written 2.5e-1 was refused (${quarter.status})`);
          expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 2.5, usage: 0.5 }, 'after tracking 0.5');
        }
      }
      // required_balance is a number (interface.md): a fractional one is recorded as sent.
      await spend(t, customerId, feature.id, 0.5, true);
      // What is left, as the target shows it (a deviation above is already reported): the checks below are judged against it.
      const left = (await balanceNow(t, customerId, feature.id))?.remaining;
      if (typeof left !== 'number' || left <= 0) {
        for (const rule of ['CHECK-ALLOWED-SUFFICIENT', 'CHECK-ALLOWED-BELOW-REQUIRED'] as const) t.notVerified(rule, `checks against what is left: the balance shows ${String(left)} left`);
        return;
      }
      // The same number written with an exponent: its decimal digits as an integer, scaled back (1.25 as 125e-2).
      const [whole, fraction = ''] = String(left).split('.');
      const exponentForm = String(left).includes('e') ? String(left) : `${whole}${fraction}e-${fraction.length}`;
      const exact = await postText(t, 'balances.check', withNumberText(body, 'required_balance', exponentForm));
      if (exact.status === 200) {
        t.check('CHECK-ALLOWED-SUFFICIENT', () => expect((exact.body as { allowed?: unknown } | null)?.allowed, `a check of exactly the ${left} left, written ${exponentForm}`).toBe(true));
      } else {
        t.notVerified('CHECK-ALLOWED-SUFFICIENT', `a required_balance written with an exponent (${exponentForm}) was refused (${exact.status})`);
      }
      const above = t.expectOk(await t.client.call('balances.check', { ...body, required_balance: left + 0.25 }), 'CHECK-ALLOWED-BELOW-REQUIRED');
      t.check('CHECK-ALLOWED-BELOW-REQUIRED', () => expect(above.allowed, `a check of ${left + 0.25} with ${left} left`).toBe(false));
    },
  ),
];
