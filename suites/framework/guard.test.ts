import { describe, expect, it } from 'vitest';
import { RunGuard, transportLimits } from './guard.ts';

const config = { runTimeoutMs: 60_000, maxNetworkFailures: 2, maxBodyBytes: 4096, retryBudgetMs: 90_000 };

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
