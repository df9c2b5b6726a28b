import { describe, expect, it } from 'vitest';
import { addInterval, Clock, LATEST_TIME, occurrencesUpTo } from './clock.ts';

describe('Clock', () => {
  it('follows its source until frozen, then stands still until advanced', () => {
    let real = 1_000;
    const clock = new Clock({ source: () => real });
    real += 5;
    expect(clock.now()).toBe(1_005);
    clock.set({ frozen: true });
    real += 100;
    expect(clock.now()).toBe(1_005);
    expect(clock.advance(50)).toEqual({ now: 1_055, frozen: true });
  });

  it('resumes from the frozen time when unfrozen', () => {
    let real = 0;
    const clock = new Clock({ now: 10_000, frozen: true, source: () => real });
    real = 7;
    clock.set({ frozen: false });
    expect(clock.now()).toBe(10_000);
    real = 10;
    expect(clock.now()).toBe(10_003);
  });

  it('starts and freezes exactly at the time asked for, even when its source ticks between readings', () => {
    let real = 0;
    const ticking = () => (real += 1);
    expect(new Clock({ now: 5_000, frozen: true, source: ticking }).now()).toBe(5_000);
    const running = new Clock({ now: 5_000, source: ticking });
    expect(running.set({ now: 9_000, frozen: true })).toEqual({ now: 9_000, frozen: true });
  });

  it('jumps forward but refuses to move backwards', () => {
    const clock = new Clock({ now: 5_000, frozen: true });
    expect(clock.set({ now: 9_000 }).now).toBe(9_000);
    expect(() => clock.set({ now: 8_999 })).toThrow(RangeError);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(clock.now()).toBe(9_000);
  });
});

describe('addInterval', () => {
  const at = (iso: string) => Date.parse(iso);
  it('adds calendar months, clamping to the end of shorter months', () => {
    expect(addInterval(at('2026-01-31T10:00:00Z'), 'month')).toBe(at('2026-02-28T10:00:00Z'));
    expect(addInterval(at('2028-01-31T10:00:00Z'), 'month')).toBe(at('2028-02-29T10:00:00Z'));
    expect(addInterval(at('2026-11-22T00:00:00Z'), 'month', 2)).toBe(at('2027-01-22T00:00:00Z'));
  });
  it('adds quarters, half years, years, weeks and days', () => {
    expect(addInterval(at('2026-05-31T00:00:00Z'), 'quarter')).toBe(at('2026-08-31T00:00:00Z'));
    expect(addInterval(at('2026-08-31T00:00:00Z'), 'semi_annual')).toBe(at('2027-02-28T00:00:00Z'));
    expect(addInterval(at('2028-02-29T00:00:00Z'), 'year')).toBe(at('2029-02-28T00:00:00Z'));
    expect(addInterval(at('2026-01-01T00:00:00Z'), 'week', 2)).toBe(at('2026-01-15T00:00:00Z'));
    expect(addInterval(at('2026-01-01T00:00:00Z'), 'day')).toBe(at('2026-01-02T00:00:00Z'));
  });
  it('refuses results beyond the representable time range instead of returning NaN', () => {
    expect(() => addInterval(0, 'month', Number.MAX_SAFE_INTEGER)).toThrow(RangeError);
    expect(() => addInterval(0, 'day', 1e15)).toThrow(RangeError);
    expect(addInterval(0, 'day', 1)).toBe(86_400_000);
  });

  it('refuses intervals that do not recur', () => {
    expect(() => addInterval(0, 'one_off')).toThrow(RangeError);
  });
});

describe('occurrencesUpTo', () => {
  const at = (iso: string) => Date.parse(iso);
  const anchor = at('2026-01-31T10:00:00Z');
  /** The first occurrence strictly after `after`. */
  const nextOccurrence = (from: number, interval: string, count: number, after: number) => addInterval(from, interval, count * (occurrencesUpTo(from, interval, count, after) + 1));
  it('steps from the anchor, so a month-end cycle keeps its day after a short month', () => {
    expect(nextOccurrence(anchor, 'month', 1, anchor)).toBe(at('2026-02-28T10:00:00Z'));
    expect(nextOccurrence(anchor, 'month', 1, at('2026-02-28T10:00:00Z'))).toBe(at('2026-03-31T10:00:00Z'));
    expect(nextOccurrence(anchor, 'month', 1, at('2026-03-31T09:59:59Z'))).toBe(at('2026-03-31T10:00:00Z'));
    expect(nextOccurrence(anchor, 'month', 2, at('2026-06-01T00:00:00Z'))).toBe(at('2026-07-31T10:00:00Z'));
  });
  it('is the first occurrence strictly after the given time, however far ahead', () => {
    expect(nextOccurrence(anchor, 'day', 1, anchor + 86_400_000 * 1000)).toBe(anchor + 86_400_000 * 1001);
    expect(nextOccurrence(anchor, 'year', 1, at('2040-01-31T10:00:00Z'))).toBe(at('2041-01-31T10:00:00Z'));
    expect(nextOccurrence(anchor, 'hour', 3, anchor - 1)).toBe(anchor + 3 * 3_600_000);
  });
  it('counts the occurrences up to a time, computed for a year of minutes and exact for months', () => {
    expect(occurrencesUpTo(anchor, 'minute', 1, anchor + 525_600 * 60_000)).toBe(525_600);
    expect(occurrencesUpTo(anchor, 'month', 1, at('2027-01-31T09:59:59Z'))).toBe(11);
    expect(occurrencesUpTo(anchor, 'month', 1, at('2027-01-31T10:00:00Z'))).toBe(12);
    expect(occurrencesUpTo(anchor, 'day', 1, anchor - 1)).toBe(0);
    expect(occurrencesUpTo(anchor, 'year', 100_000, LATEST_TIME)).toBe(2);
  });
});
