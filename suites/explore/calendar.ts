/**
 * Where a program starts on the calendar, where the target's clock can be set: the next occurrence
 * (after the target's now) of a date whose month arithmetic is awkward. Each kind names one date in
 * one kind of year, so a replay months later starts at the same position of the calendar and month
 * additions come out the same.
 */
import fc from 'fast-check';

export const CALENDAR_STARTS = {
  /** The 15th of June, noon: nothing clamps. */
  'mid-june': { month: 5, day: 15, hour: 12, leap: undefined },
  /** 31 January of a common year: a month later is 28 February. */
  'jan-31': { month: 0, day: 31, hour: 12, leap: false },
  /** 29 February of a leap year. */
  'feb-29': { month: 1, day: 29, hour: 12, leap: true },
  /** 31 March: a month later is 30 April. */
  'mar-31': { month: 2, day: 31, hour: 12, leap: undefined },
  /** 30 April: the day after is a month end of 31 days. */
  'apr-30': { month: 3, day: 30, hour: 12, leap: undefined },
  /** 31 December, late evening: the year turns within the hour. */
  'dec-31': { month: 11, day: 31, hour: 23, leap: undefined },
} as const;

export type CalendarStart = keyof typeof CALENDAR_STARTS;

export const calendarStartArb: fc.Arbitrary<CalendarStart> = fc.oneof(
  { arbitrary: fc.constant<CalendarStart>('mid-june'), weight: 4 },
  { arbitrary: fc.constantFrom<CalendarStart>('jan-31', 'feb-29', 'mar-31', 'apr-30', 'dec-31'), weight: 3 },
);

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** The largest time a Date holds (ECMA-262 §21.4.1.22), less a few years for the calendar to look ahead in. */
const MAX_TIME = 8.64e15 - 10 * 366 * 86_400_000;

/** The first instant of this kind strictly after `after` (ms). */
export function startAfter(kind: CalendarStart, after: number): number {
  // A clock that is no time (a tenant's clock read with a key its target refused) would never be passed.
  if (!Number.isFinite(after) || Math.abs(after) > MAX_TIME) throw new RangeError(`no program can start after ${String(after)}: not a time`);
  const { month, day, hour, leap } = CALENDAR_STARTS[kind];
  for (let year = new Date(after).getUTCFullYear(); ; year++) {
    if (leap !== undefined && isLeap(year) !== leap) continue;
    const at = Date.UTC(year, month, day, hour, 30);
    if (at > after && new Date(at).getUTCDate() === day) return at;
  }
}
