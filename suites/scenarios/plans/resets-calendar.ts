/**
 * Scenarios of resets at the edges of the calendar: a month, a quarter, half a year and a year
 * counted from a start whose day the reset's month lacks (the 29th, 30th or 31st, 29 February), or
 * whose year spans 29 February. Where the reset's month has the start's day, the reset falls on it;
 * where it has not, interface.md does not say whether the reset falls on that month's last day or
 * runs on into the next month by the days missing, so either is taken. Calendar days are compared
 * in UTC, from starts at noon, so a target placing its resets at another hour of the day is not
 * judged on it.
 */
import { expect } from 'vitest';
import type { Plan } from '../../../spec/plans.ts';
import { attach, createCustomer, createFeature, readBalance, scenario, withFrozenClock } from '../../support.ts';
import { DAY_MS, track } from './support.ts';

type CalendarInterval = 'month' | 'quarter' | 'semi_annual' | 'year';

/** Each interval's length in months, and in words. */
const INTERVALS: Readonly<Record<CalendarInterval, { readonly months: number; readonly words: string }>> = {
  month: { months: 1, words: 'a month' },
  quarter: { months: 3, words: 'a quarter' },
  semi_annual: { months: 6, words: 'half a year' },
  year: { months: 12, words: 'a year' },
};

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

interface CalendarCase {
  readonly interval: CalendarInterval;
  /** What the start is, in words. */
  readonly from: string;
  /** The first instant at or after `at` that starts this case: noon UTC of a day it names. */
  readonly start: (at: number) => number;
}

/** Noon UTC of `day` of `month` (0-based) in the first year from `at`'s on for which `year` holds and the day exists, at or after `at`. */
function nextNoon(at: number, month: number, day: number, year: (y: number) => boolean = () => true): number {
  for (let y = new Date(at).getUTCFullYear(); ; y++) {
    const noon = Date.UTC(y, month, day, 12);
    if (new Date(noon).getUTCMonth() === month && year(y) && noon >= at) return noon;
  }
}

const CASES: readonly CalendarCase[] = [
  { interval: 'month', from: '31 January', start: (at) => nextNoon(at, 0, 31) },
  { interval: 'month', from: '30 January of a common year', start: (at) => nextNoon(at, 0, 30, (y) => !isLeap(y)) },
  { interval: 'month', from: '29 January of a common year', start: (at) => nextNoon(at, 0, 29, (y) => !isLeap(y)) },
  { interval: 'month', from: '31 December', start: (at) => nextNoon(at, 11, 31) },
  { interval: 'quarter', from: '30 November', start: (at) => nextNoon(at, 10, 30) },
  { interval: 'semi_annual', from: '31 August', start: (at) => nextNoon(at, 7, 31) },
  { interval: 'year', from: '1 June of a year before a leap year', start: (at) => nextNoon(at, 5, 1, (y) => isLeap(y + 1)) },
  { interval: 'year', from: '29 February', start: (at) => nextNoon(at, 1, 29, isLeap) },
];

/**
 * The calendar days (UTC midnights) one interval after `start` may reset on: the same day of the
 * month `months` on, or, when that month is too short for it, from its last day to the day the
 * missing days run on to.
 */
function resetDays(start: number, months: number): readonly [number, number] {
  const date = new Date(start);
  const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + months, date.getUTCDate()];
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return [Date.UTC(year, month, Math.min(day, daysInMonth)), Date.UTC(year, month, day)];
}

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

function expectOnDays(stamp: number | null | undefined, [first, last]: readonly [number, number], what: string): void {
  const days = first === last ? `on ${dayOf(first)}` : `on ${dayOf(first)} or a day up to ${dayOf(last)}`;
  expect(typeof stamp, `${what} is a time, seen ${JSON.stringify(stamp)}`).toBe('number');
  expect([...dayRange(first, last)], `${what}: ${days}, seen ${dayOf(stamp!)}`).toContain(dayOf(stamp!));
}

function* dayRange(first: number, last: number): Generator<string> {
  for (let day = first; day <= last; day += DAY_MS) yield dayOf(day);
}

export const resetsCalendarScenarios = [
  scenario(
    {
      id: 'plans.resets-at-calendar-edges',
      title:
        'a month from the 29th, 30th or 31st, a quarter from 30 November, half a year from 31 August, a year from 1 June before a leap day and from 29 February: each balance resets on the calendar day one interval on, stated so in next_reset_at and its breakdown, and not a millisecond before',
      rules: ['PLAN-CONSUMABLE-RESET', 'CHECK-BREAKDOWN-RESET', 'BAL-TRACK-DEDUCTS'],
      needs: ['control-plane'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      // interface.md shows the interval `month` only: a target refusing a plan of another interval is not judged on that interval.
      const plans = new Map<CalendarInterval, Plan>();
      for (const interval of new Set(CASES.map((c) => c.interval))) {
        const created = await t.client.call('plans.create', { plan_id: t.ns.id('plan'), name: `Every ${interval}`, add_on: true, items: [{ feature_id: feature.id, included: 10, reset: { interval } }] });
        if (created.ok || interval === 'month' || created.status >= 500) {
          plans.set(interval, t.setup(created));
          continue;
        }
        for (const rule of ['PLAN-CONSUMABLE-RESET', 'CHECK-BREAKDOWN-RESET'] as const) t.notVerified(rule, `a reset every ${interval}: the target refused a plan with it (${created.status})`);
      }
      await withFrozenClock(t, async () => {
        // One timeline, since the clock only moves on: each case's start, the millisecond before its stated reset, and the reset itself, in time order.
        const steps: { at: number; run: () => Promise<void> }[] = [];
        const usageOf = async (customerId: string) => (await readBalance(t, customerId, feature.id))?.usage;
        const begin = async (c: CalendarCase, plan: Plan, start: number) => {
          const what = `${INTERVALS[c.interval].words} from ${c.from} (${dayOf(start)})`;
          const days = resetDays(start, INTERVALS[c.interval].months);
          const customer = await createCustomer(t);
          await attach(t, customer.id, plan.id);
          await track(t, customer.id, feature.id, 4);
          const used = await readBalance(t, customer.id, feature.id);
          // Usage only: what remaining shows beside it is CHECK-BALANCE-ARITHMETIC's, proven elsewhere.
          t.check('BAL-TRACK-DEDUCTS', () => expect(used?.usage, `${what}: the 4 units tracked are used`).toBe(4));
          const nextReset = used?.next_reset_at;
          t.check('PLAN-CONSUMABLE-RESET', () => expectOnDays(nextReset, days, `${what}: next_reset_at`));
          steps.push({
            at: nextReset! - 1,
            run: async () => {
              const justBefore = await usageOf(customer.id);
              t.check('PLAN-CONSUMABLE-RESET', () => expect(justBefore, `${what}: a millisecond before its reset the 4 units are still used`).toBe(4));
            },
          });
          steps.push({
            at: nextReset!,
            run: async () => {
              const atIt = await usageOf(customer.id);
              t.check('PLAN-CONSUMABLE-RESET', () => expect(atIt, `${what}: at its reset the balance is back at its included units, none used`).toBe(0));
              // What the breakdown stated at the start, judged once the reset it names has taken effect (a reset that never happens is the rule above's).
              t.check('CHECK-BREAKDOWN-RESET', () => {
                const entries = used?.breakdown;
                expect(entries?.length, `${what}: one grant source`).toBe(1);
                expectOnDays(entries![0]!.reset?.resets_at, days, `${what}: the breakdown's reset.resets_at`);
                expect(entries![0]!.reset?.resets_at, `${what}: the only source resets when the balance does`).toBe(nextReset);
              });
            },
          });
        };
        let { now } = await t.control.call('clock.get', {});
        for (const c of CASES) {
          const plan = plans.get(c.interval);
          if (plan === undefined) continue;
          const start = c.start(now);
          steps.push({ at: start, run: () => begin(c, plan, start) });
        }
        while (steps.length > 0) {
          steps.sort((a, b) => a.at - b.at);
          const step = steps.shift()!;
          if (step.at > now) now = (await t.control.call('clock.set', { now: step.at })).now;
          await step.run();
        }
      });
    },
  ),
];
