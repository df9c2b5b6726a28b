/**
 * Scenarios of resets over the clock: a consumable balance returns to its included amount at each
 * reset (exactly at next_reset_at, several intervals in one clock move, in time order), the earliest
 * source decides the next reset, and allocated usage carries over.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, readBalance, scenario, type T, withFrozenClock } from '../../support.ts';
import { advancePast, DAY_MS, expectMilliseconds, monthly, targetNow, track } from './support.ts';

/** The remaining and usage of a customer's balance, read through a check of 0 units. */
async function balanceOf(t: T, customerId: string, featureId: string) {
  const balance = await readBalance(t, customerId, featureId);
  return { remaining: balance?.remaining, usage: balance?.usage };
}

export const resetsScenarios = [
  scenario(
    {
      id: 'plans.consumable-resets-allocated-persists',
      title: 'at each reset a consumable balance returns to its included amount, while allocated usage carries over',
      rules: ['BAL-TRACK-DEDUCTS', 'PLAN-CONSUMABLE-RESET', 'PLAN-ALLOCATED-PERSISTS', 'CONV-TIMESTAMPS-MS'],
      needs: ['control-plane'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const seats = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { group: t.ns.id('grp'), items: [monthly(messages.id, 10), { feature_id: seats.id, included: 5 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      await track(t, customer.id, messages.id, 7);
      await track(t, customer.id, seats.id, 3);
      const [used, seated] = [await readBalance(t, customer.id, messages.id), await readBalance(t, customer.id, seats.id)];
      // What the resets start from, a check of the rule that makes it (a SHOULD: the scenario goes on, and what fails after it is its knock-on).
      t.check('BAL-TRACK-DEDUCTS', () => {
        expect(used, 'the 7 units tracked show in the consumable balance').toMatchObject({ granted: 10, usage: 7, remaining: 3 });
        expect(seated, 'the 3 units tracked show in the allocated balance').toMatchObject({ granted: 5, usage: 3, remaining: 2 });
      });

      for (const cycle of [1, 2]) {
        const before = await readBalance(t, customer.id, messages.id);
        t.check('PLAN-CONSUMABLE-RESET', () => expect(typeof before?.next_reset_at, `a consumable balance has a next reset, seen ${JSON.stringify(before?.next_reset_at)}`).toBe('number'));
        const now = await targetNow(t);
        // A monthly reset lies at most 31 days ahead.
        expectMilliseconds(t, [now, now + 32 * DAY_MS], {
          'next_reset_at': before!.next_reset_at,
          ...Object.fromEntries((before!.breakdown ?? []).map((entry, i) => [`breakdown[${i}].reset.resets_at`, entry.reset?.resets_at])),
        });
        await advancePast(t, before!.next_reset_at!);
        const after = await readBalance(t, customer.id, messages.id);
        t.check('PLAN-CONSUMABLE-RESET', () => {
          expect(after, `after reset ${cycle} the consumable balance is back to its included amount`).toMatchObject({ granted: 10, usage: 0, remaining: 10 });
          expect(after!.next_reset_at, 'the next reset moved ahead').toBeGreaterThan(before!.next_reset_at!);
        });
        const persisted = await readBalance(t, customer.id, seats.id);
        t.check('PLAN-ALLOCATED-PERSISTS', () => expect(persisted, `after reset ${cycle} the allocated usage is still there`).toMatchObject({ granted: 5, usage: 3, remaining: 2 }));
        await track(t, customer.id, messages.id, 4);
      }
    },
  ),
  scenario(
    {
      id: 'balances.next-reset-is-earliest',
      title: 'a balance fed by a daily and a monthly source next resets when the daily one does',
      rules: ['PLAN-CONSUMABLE-RESET'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const daily = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: { interval: 'day' } }] });
      const monthly = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      const nextReset = async () => t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), ['balance']).balance?.next_reset_at;
      await attach(t, customer.id, daily.id);
      // The daily source alone gives the time to expect (not the breakdown's resets_at: that is CHECK-BREAKDOWN-RESET's).
      const daysReset = await nextReset();
      t.check('PLAN-CONSUMABLE-RESET', () => expect(typeof daysReset, `a balance fed by a daily source has a next reset, seen ${JSON.stringify(daysReset)}`).toBe('number'));
      await attach(t, customer.id, monthly.id);
      const withMonthly = await nextReset();
      t.check('PLAN-CONSUMABLE-RESET', () => expect(withMonthly, 'the balance still next resets with its daily source, not the monthly one').toBe(daysReset));
    },
  ),
  scenario(
    {
      id: 'store.reset-due-before-later-one',
      title: 'a daily reset scheduled between two monthly ones still happens first: a day later the daily balance is back to its included amount, the monthly one untouched',
      rules: ['CHECK-SEND-EVENT-RECORDS', 'PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      const [monthlyUnits, dailyUnits, laterUnits] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const monthly = await createPlan(t, { add_on: true, items: [{ feature_id: monthlyUnits.id, included: 10, reset: { interval: 'month' } }] });
      const daily = await createPlan(t, { add_on: true, items: [{ feature_id: dailyUnits.id, included: 5, reset: { interval: 'day' } }] });
      const laterMonthly = await createPlan(t, { add_on: true, items: [{ feature_id: laterUnits.id, included: 10, reset: { interval: 'month' } }] });
      const customer = await createCustomer(t);
      // The daily reset (due first) is scheduled between two monthly ones: neither the oldest nor the newest entry.
      for (const plan of [monthly, daily, laterMonthly]) await attach(t, customer.id, plan.id);
      for (const feature of [monthlyUnits, dailyUnits]) {
        t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 3, send_event: true }));
      }
      const used = [await balanceOf(t, customer.id, monthlyUnits.id), await balanceOf(t, customer.id, dailyUnits.id)];
      // What the resets start from: a check of the rule that makes it, which the reset then rests on.
      t.check('CHECK-SEND-EVENT-RECORDS', () => expect(used, 'send_event of 3 units used 3 of the monthly 10 and 3 of the daily 5').toEqual([{ remaining: 7, usage: 3 }, { remaining: 2, usage: 3 }]));
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
      rules: ['CHECK-SEND-EVENT-RECORDS', 'PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: { interval: 'day' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: units.id, required_balance: 3, send_event: true }));
      // A frozen clock, so that "now" stays put between the reads and the advances.
      await withFrozenClock(t, async () => {
        const balance = await readBalance(t, customer.id, units.id);
        const { now } = await t.control.call('clock.get', {});
        const nextReset = balance?.next_reset_at;
        t.check('CHECK-SEND-EVENT-RECORDS', () => expect({ remaining: balance?.remaining, usage: balance?.usage }, 'send_event of 3 units used 3 of the 5').toEqual({ remaining: 2, usage: 3 }));
        t.check('PLAN-CONSUMABLE-RESET', () => {
          expect(typeof nextReset, `a daily balance has a next reset, seen ${JSON.stringify(nextReset)}`).toBe('number');
          expect(nextReset, 'the daily reset lies ahead').toBeGreaterThan(now);
          expect(nextReset, 'the daily reset is due within a day').toBeLessThanOrEqual(now + 86_400_000);
        });
        /**
         * The balance read with the clock at `at` exactly (another run moving the shared clock meanwhile
         * blocks, it does not fail). The read is a check (the held balance is there), so the clock's
         * precondition after it rests on the control plane alone.
         */
        const balanceAt = async (at: number) => {
          const read = await t.check('PLAN-CONSUMABLE-RESET', async () => {
            const seen = await balanceOf(t, customer.id, units.id);
            expect(seen.remaining, 'the held daily balance is there').toBeDefined();
            return seen;
          });
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
      });
    },
  ),
  scenario(
    {
      id: 'store.resets-of-three-intervals-over-eight-days',
      title: 'daily, weekly and monthly resets of one customer over one advance of eight days: the daily and weekly balances are back, the monthly one is not',
      rules: ['CHECK-SEND-EVENT-RECORDS', 'PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      const intervals = ['day', 'week', 'month'] as const;
      const features = await Promise.all(intervals.map(() => createFeature(t, 'consumable')));
      const customer = await createCustomer(t);
      // One add-on per interval, attached in that order, so several resets are pending at once and fall due one after another.
      for (const [i, interval] of intervals.entries()) {
        const plan = await createPlan(t, { add_on: true, items: [{ feature_id: features[i]!.id, included: 5, reset: { interval } }] });
        await attach(t, customer.id, plan.id);
      }
      for (const feature of features) t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 3, send_event: true }));
      const used: Awaited<ReturnType<typeof balanceOf>>[] = [];
      for (const feature of features) used.push(await balanceOf(t, customer.id, feature.id));
      t.check('CHECK-SEND-EVENT-RECORDS', () => expect(used, 'send_event of 3 units used 3 of each 5').toEqual(features.map(() => ({ remaining: 2, usage: 3 }))));
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
      rules: ['CHECK-SEND-EVENT-RECORDS', 'PLAN-CONSUMABLE-RESET'],
      needs: ['control-plane'],
    },
    async (t) => {
      // Intervals out of time order in one attach: each minute reset, once done, is due again before the day and the week ones.
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
      t.check('CHECK-SEND-EVENT-RECORDS', () => expect(start, 'send_event of 3 units used 3 of each balance').toEqual([3, 3, 3, 3]));
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
