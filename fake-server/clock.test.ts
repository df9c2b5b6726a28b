import { describe, expect, it } from 'vitest';
import { addInterval, Clock } from './clock.ts';

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
  it('refuses intervals that do not recur', () => {
    expect(() => addInterval(0, 'one_off')).toThrow(RangeError);
  });
});
