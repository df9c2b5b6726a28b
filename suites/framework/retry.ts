/**
 * Retry policy of the client: 429 and 503 answers and connection resets are retried with
 * exponential backoff and full jitter (delay = random() × min(maxDelay, base × 2^(attempt-1))),
 * honouring `Retry-After`, within a bounded number of attempts and a bounded total wait.
 *
 * The RNG, the sleep and the clock are injectable so tests are deterministic and never wait.
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface RetryPolicy {
  /** Attempts in all, the first included. 1 disables retries. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  /** Cap of one backoff delay (not of a `Retry-After`). */
  readonly maxDelayMs: number;
  /** The client gives up rather than wait past this much time since the first attempt began. */
  readonly maxTotalMs: number;
  /** Uniform in [0, 1). */
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
}

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Error codes of a connection the peer dropped (undici's `UND_ERR_SOCKET` is "other side closed"). */
const RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  // Outlasts a reference deployment's retry-after: 54 (its attach rate limit); CONFORMANCE_RETRY_BUDGET_MS changes it for a run.
  maxTotalMs: 90_000,
  random: Math.random,
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}),
  now: () => Date.now(),
};

export function resolveRetryPolicy(retry: Partial<RetryPolicy> | false | undefined): RetryPolicy {
  if (retry === false) return { ...defaultRetryPolicy, maxAttempts: 1 };
  return { ...defaultRetryPolicy, ...retry };
}

/** Full-jitter backoff before attempt `attempt + 1`. */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(policy.random() * ceiling);
}

/**
 * Milliseconds a `Retry-After` value asks for: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Undefined when absent or unparseable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // HTTP-date forms all start with a day name ("Sun, 06 Nov 1994 …", "Sunday, 06-Nov-94 …", "Sun Nov  6 …").
  const at = /^[A-Za-z]{3,9},? /.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function isConnectionReset(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RESET_CODES.has(code);
}
