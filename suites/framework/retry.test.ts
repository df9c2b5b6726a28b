import { describe, expect, it } from 'vitest';
import { backoffDelay, defaultRetryPolicy, isConnectionReset, parseRetryAfter, resolveRetryPolicy } from './retry.ts';

describe('backoffDelay (full jitter)', () => {
  const policy = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('scales a uniform draw by the exponential ceiling of the attempt', () => {
    const at = (random: number, attempt: number) => backoffDelay({ ...policy, random: () => random }, attempt);
    expect([1, 2, 3, 4].map((n) => at(0.5, n))).toEqual([50, 100, 200, 400]);
    expect(at(0, 3)).toBe(0);
    expect(at(0.999, 1)).toBe(99);
  });

  it('never exceeds maxDelayMs', () => {
    expect(backoffDelay({ ...policy, random: () => 0.999 }, 20)).toBe(999);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date relative to now, and a past date as 0', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('ignores an absent or unparseable value', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});

describe('retry policy', () => {
  it('false means a single attempt', () => {
    expect(resolveRetryPolicy(false).maxAttempts).toBe(1);
    expect(resolveRetryPolicy({ maxAttempts: 7 }).maxAttempts).toBe(7);
  });

  it('counts resets and closed sockets as retryable, nothing else', () => {
    expect(isConnectionReset(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isConnectionReset(Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }))).toBe(true);
    expect(isConnectionReset(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isConnectionReset(new Error('x'))).toBe(false);
    expect(isConnectionReset(undefined)).toBe(false);
  });
});
