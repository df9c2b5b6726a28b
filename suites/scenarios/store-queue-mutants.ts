/**
 * Scenarios of what falls due when, found missing by mutation testing (`npm run mutation`, README
 * "Mutation testing"): behaviour of the fake's due queue that could be changed without any other
 * scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, readBalance, scenario, type T } from '../support.ts';

/** The remaining and usage of a customer's balance, read through a check of 0 units. */
async function balanceOf(t: T, customerId: string, featureId: string) {
  const balance = await readBalance(t, customerId, featureId);
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

  scenario(
    {
      id: 'store.reset-exactly-at-next-reset',
      title: 'a reset happens exactly at next_reset_at: one millisecond before it the units are still used, at it they are back',
      rules: ['PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: { interval: 'day' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: units.id, required_balance: 3, send_event: true }));
      // A frozen clock, so that "now" stays put between the reads and the advances; given back as it was found.
      const before = await t.control.call('clock.get', {});
      await t.control.call('clock.set', { frozen: true });
      try {
        const balance = await readBalance(t, customer.id, units.id);
        const { now } = await t.control.call('clock.get', {});
        const nextReset = balance?.next_reset_at;
        t.precondition('3 of the 5 units are used and the daily reset is due within a day', () => {
          expect({ remaining: balance?.remaining, usage: balance?.usage }).toEqual({ remaining: 2, usage: 3 });
          expect(nextReset).toBeGreaterThan(now);
          expect(nextReset).toBeLessThanOrEqual(now + 86_400_000);
        });
        /** The balance read with the clock at `at` exactly (another run moving the shared clock meanwhile blocks, it does not fail). */
        const balanceAt = async (at: number) => {
          const read = await balanceOf(t, customer.id, units.id);
          const clock = await t.control.call('clock.get', {});
          t.precondition(`the clock stood at ${at} while the balance was read`, () => expect(clock.now).toBe(at));
          return read;
        };
        await t.control.call('clock.advance', { ms: nextReset! - now - 1 });
        const justBefore = await balanceAt(nextReset! - 1);
        await t.control.call('clock.advance', { ms: 1 });
        const atIt = await balanceAt(nextReset!);
        t.check('PLAN-CONSUMABLE-RESET', () => {
          expect(justBefore, 'one millisecond before next_reset_at the 3 units are still used').toEqual({ remaining: 2, usage: 3 });
          expect(atIt, 'at next_reset_at exactly the balance is back to its 5 included units').toEqual({ remaining: 5, usage: 0 });
        });
      } finally {
        if (!before.frozen) await t.control.call('clock.set', { frozen: false });
      }
    },
  ),

  scenario(
    {
      id: 'store.resets-of-three-intervals-over-eight-days',
      title: 'daily, weekly and monthly resets of one customer over one advance of eight days: the daily and weekly balances are back, the monthly one is not',
      rules: ['PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      const intervals = ['day', 'week', 'month'] as const;
      const features = await Promise.all(intervals.map(() => createFeature(t, 'consumable')));
      const customer = await createCustomer(t);
      // One add-on per interval, attached in that order, so the heap of resets holds several entries that fall due one after another.
      for (const [i, interval] of intervals.entries()) {
        const plan = await createPlan(t, { add_on: true, items: [{ feature_id: features[i]!.id, included: 5, reset: { interval } }] });
        await attach(t, customer.id, plan.id);
      }
      for (const feature of features) t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 3, send_event: true }));
      await t.precondition('3 units of each are used', async () => {
        for (const feature of features) expect(await balanceOf(t, customer.id, feature.id)).toEqual({ remaining: 2, usage: 3 });
      });
      await t.control.call('clock.advance', { ms: 8 * 86_400_000 });
      const after: Awaited<ReturnType<typeof balanceOf>>[] = [];
      for (const feature of features) after.push(await balanceOf(t, customer.id, feature.id));
      t.check('PLAN-CONSUMABLE-RESET', () => {
        expect(after[0], 'eight days later the daily balance is back to 5').toEqual({ remaining: 5, usage: 0 });
        expect(after[1], 'and the weekly one too').toEqual({ remaining: 5, usage: 0 });
        expect(after[2], 'the monthly one has not reset yet').toEqual({ remaining: 2, usage: 3 });
      });
    },
  ),

  scenario(
    {
      id: 'store.resets-of-four-grants-over-two-hours',
      title: 'four balances resetting every minute, week, minute and day, used between two clock moves of an hour: after each move exactly the minute ones are back',
      rules: ['PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      // This order of intervals, in one attach, is one the due queue has to keep in heap order across pops and reschedules.
      const intervals = ['minute', 'week', 'minute', 'day'] as const;
      const features = await Promise.all(intervals.map(() => createFeature(t, 'consumable')));
      const plan = await createPlan(t, { add_on: true, items: intervals.map((interval, i) => ({ feature_id: features[i]!.id, included: 10, reset: { interval } })) });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const useThreeOfEach = async () => {
        for (const feature of features) t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 3, send_event: true }));
      };
      const usages = async () => {
        const read: (number | undefined)[] = [];
        for (const feature of features) read.push((await balanceOf(t, customer.id, feature.id)).usage);
        return read;
      };
      await useThreeOfEach();
      const start = await usages();
      t.precondition('3 units of each are used', () => expect(start).toEqual([3, 3, 3, 3]));
      await t.control.call('clock.advance', { ms: 61 * 60_000 });
      const afterAnHour = await usages();
      await useThreeOfEach();
      await t.control.call('clock.advance', { ms: 60 * 60_000 });
      const afterTwoHours = await usages();
      t.check('PLAN-CONSUMABLE-RESET', () => {
        expect(afterAnHour, 'an hour later the minute balances are back, the weekly and daily ones are not').toEqual([0, 3, 0, 3]);
        expect(afterTwoHours, 'after 3 more units each and another hour, the minute balances are back again').toEqual([0, 6, 0, 6]);
      });
    },
  ),
];
