import { describe, expect, it } from 'vitest';
import { type PaceClock, TargetWait, watchOwnTime } from './pace.ts';

/** A clock the test moves by hand; timers fire as it passes them. */
function manualClock(): PaceClock & { advance(ms: number): void } {
  let now = 0;
  let timers: { at: number; run: () => void }[] = [];
  return {
    now: () => now,
    setTimeout: (run, ms) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (timer) => {
      timers = timers.filter((t) => t !== timer);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const next = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (next === undefined) break;
        timers = timers.filter((t) => t !== next);
        now = next.at;
        next.run();
      }
      now = until;
    },
  };
}

describe('TargetWait', () => {
  it('counts the time at least one request is pending, overlapping requests once', () => {
    const clock = manualClock();
    const wait = new TargetWait(clock.now);
    const first = wait.begin();
    clock.advance(100);
    const second = wait.begin();
    clock.advance(50);
    first();
    clock.advance(50);
    second();
    second();
    clock.advance(1_000);
    expect(wait.waitedMs()).toBe(200);
    const third = wait.begin();
    clock.advance(30);
    expect(wait.waitedMs()).toBe(230);
    third();
  });
});

describe('watchOwnTime', () => {
  it('fires when the own time reaches the limit, whatever the wall time spent waiting for the target', () => {
    const clock = manualClock();
    const wait = new TargetWait(clock.now);
    const spent: { ownMs: number; waitedMs: number }[] = [];
    watchOwnTime(1_000, wait, (s) => spent.push(s), clock);
    clock.advance(600); // own work
    const done = wait.begin();
    clock.advance(10_000); // one slow call
    done();
    expect(spent).toEqual([]);
    clock.advance(399);
    expect(spent).toEqual([]);
    clock.advance(1);
    expect(spent).toEqual([{ ownMs: 1_000, waitedMs: 10_000 }]);
  });

  it('on a fixed wall clock (no waits counted) fires at the limit, as the old 120 s limit did', () => {
    const clock = manualClock();
    const spent: unknown[] = [];
    watchOwnTime(1_000, new TargetWait(clock.now), (s) => spent.push(s), clock);
    clock.advance(999);
    expect(spent).toEqual([]);
    clock.advance(1);
    expect(spent).toHaveLength(1);
  });

  it('stops when told', () => {
    const clock = manualClock();
    const spent: unknown[] = [];
    const stop = watchOwnTime(100, new TargetWait(clock.now), (s) => spent.push(s), clock);
    stop();
    clock.advance(1_000);
    expect(spent).toEqual([]);
  });
});
