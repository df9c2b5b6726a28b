import { describe, expect, it } from 'vitest';
import { DEADLINE_ROUND_TRIP_MS, longestRunMs, MAX_DEADLINE_STRETCH, RunGuard, transportLimits } from './guard.ts';

const config = { runTimeoutMs: 60_000, runTimeoutSource: 'env', maxNetworkFailures: 2, maxBodyBytes: 4096, retryBudgetMs: 90_000 } as const;

describe('RunGuard', () => {
  it('refuses after the deadline, and after maxNetworkFailures unserved requests until one is served', () => {
    let now = 1_000;
    const guard = new RunGuard({ deadline: 2_000, maxNetworkFailures: 2, now: () => now });
    expect(guard.remainingMs()).toBe(1_000);
    guard.recordFailure('a');
    expect(guard.refusal()).toBeUndefined();
    guard.recordFailure('b');
    expect(guard.refusal()).toEqual({ kind: 'circuit-open', message: expect.stringMatching(/left 2 requests in a row unserved \(last: b\)/) });
    guard.recordServed();
    expect(guard.refusal()).toBeUndefined();
    now = 2_000;
    expect(guard.remainingMs()).toBe(0);
    expect(guard.refusal()).toMatchObject({ kind: 'deadline', message: expect.stringMatching(/^not sent: the run's deadline has passed/) });
  });
});

describe("the default deadline follows the target's latency (issue 26)", () => {
  it('stretches by the smoothed latency over the round trip it was sized for, never shrinks, and stops at its cap', () => {
    let latency: number | undefined;
    const guard = new RunGuard({ deadline: 1_000_000 + 60_000, maxNetworkFailures: 3, now: () => 1_000_000 + 61_000, stretch: { runTimeoutMs: 60_000, latencyMs: () => latency } });
    expect(guard.deadline).toBe(1_060_000);
    expect(guard.refusal()?.kind).toBe('deadline');
    latency = DEADLINE_ROUND_TRIP_MS * 8; // 400 ms
    expect(guard.deadline).toBe(1_000_000 + 8 * 60_000);
    expect(guard.refusal()).toBeUndefined();
    latency = 10;
    expect(guard.deadline).toBe(1_000_000 + 8 * 60_000);
    latency = 1_000_000;
    expect(guard.deadline).toBe(1_000_000 + MAX_DEADLINE_STRETCH * 60_000);
  });

  it('keeps a deadline the user set, and tells vitest how long a run may last', () => {
    const set = transportLimits(config, { deadline: 123 }, undefined, () => 10_000);
    expect(set.guard.deadline).toBe(123);
    const byDefault = transportLimits({ ...config, runTimeoutSource: 'default' }, { deadline: 123 }, undefined, () => DEADLINE_ROUND_TRIP_MS * 2);
    expect(byDefault.guard.deadline).toBe(123 + 60_000);
    expect([longestRunMs(config), longestRunMs({ ...config, runTimeoutSource: 'default' })]).toEqual([60_000, MAX_DEADLINE_STRETCH * 60_000]);
  });
});

describe('transportLimits', () => {
  it("takes the run's deadline and guard file when the global setup provided them, else starts a deadline now", () => {
    expect(transportLimits(config, { deadline: 123, guardFile: '/nonexistent/state.json' }).guard.deadline).toBe(123);
    const before = Date.now();
    const own = transportLimits(config, undefined).guard.deadline;
    expect(own).toBeGreaterThanOrEqual(before + 60_000);
    expect(own).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('gives the body cap and the retry budget, letting a caller override the retry settings or disable retries', () => {
    expect(transportLimits(config, undefined)).toMatchObject({ maxBodyBytes: 4096, retry: { maxTotalMs: 90_000 } });
    expect(transportLimits(config, undefined, { maxAttempts: 1 }).retry).toEqual({ maxTotalMs: 90_000, maxAttempts: 1 });
    expect(transportLimits(config, undefined, { maxTotalMs: 5 }).retry).toEqual({ maxTotalMs: 5 });
    expect(transportLimits(config, undefined, false).retry).toBe(false);
  });
});
