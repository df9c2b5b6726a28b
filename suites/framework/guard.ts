/**
 * The run guard: what keeps a run against a dead, stalled or throttling target from going on for
 * ever. Every request of the run asks it first; it refuses (without touching the network) once
 *
 * - the run's deadline has passed (CONFORMANCE_RUN_TIMEOUT_MS after the run began; left at its
 *   default, it stretches with the target's latency: DEADLINE_ROUND_TRIP_MS), or
 * - the target has left `maxNetworkFailures` requests in a row unserved: no answer, a timeout, or a
 *   429/503 still there when the retry budget ran out. Any served request resets the count.
 *
 * Test files run in separate module graphs (and may run in separate processes), so the count lives
 * in a small state file the run's global setup creates (`RunInfo.guardFile`, suites/framework/run.ts); without one (a target
 * built outside a run) it lives in memory.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ConformanceConfig } from './config.ts';
import type { RetryPolicy } from './retry.ts';

export interface GuardState {
  readonly consecutiveFailures: number;
  /** The last unserved request, for the message. */
  readonly lastFailure?: string;
}

/**
 * The round trip the default run deadline (20 min) is sized for: the suite at a 50 ms round trip,
 * concurrency 8, took 111.6 s on an idle machine and 14 min under a load of 24 at 400 ms (issue 26).
 * A target answering slower stretches the default deadline by as much (its smoothed latency over
 * this), never shrinks it, and at most MAX_DEADLINE_STRETCH times: a correct but slow target is not
 * cut short for the suite's own length. A deadline the user set (CONFORMANCE_RUN_TIMEOUT_MS,
 * `runTimeoutMs`) is kept as it is.
 */
export const DEADLINE_ROUND_TRIP_MS = 50;
export const MAX_DEADLINE_STRETCH = 12;

/** How long a run may last at most, its deadline stretched as far as it may be. */
export function longestRunMs(config: Pick<ConformanceConfig, 'runTimeoutMs' | 'runTimeoutSource'>): number {
  return config.runTimeoutSource === 'default' ? config.runTimeoutMs * MAX_DEADLINE_STRETCH : config.runTimeoutMs;
}

export interface RunGuardOptions {
  /** Epoch milliseconds after which nothing more is sent (before any stretch). */
  readonly deadline: number;
  /** The default deadline stretches with the target's latency: how long the run was given, and the latency measured so far. */
  readonly stretch?: { readonly runTimeoutMs: number; readonly latencyMs: () => number | undefined };
  readonly maxNetworkFailures: number;
  /** Where the count is shared across test files; in memory when absent. */
  readonly stateFile?: string | undefined;
  readonly now?: () => number;
}

/** Why a request was not sent. */
export interface GuardRefusal {
  readonly kind: 'deadline' | 'circuit-open';
  readonly message: string;
}

export class RunGuard {
  readonly #options: RunGuardOptions;
  readonly #now: () => number;
  #memory: GuardState = { consecutiveFailures: 0 };
  /** How many times the deadline's time is stretched (1: not at all); it only grows. */
  #stretch = 1;

  constructor(options: RunGuardOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The deadline, stretched for the target's latency as measured so far. */
  get deadline(): number {
    const stretch = this.#options.stretch;
    if (stretch === undefined) return this.#options.deadline;
    const latency = stretch.latencyMs();
    if (latency !== undefined) this.#stretch = Math.min(MAX_DEADLINE_STRETCH, Math.max(this.#stretch, latency / DEADLINE_ROUND_TRIP_MS));
    return this.#options.deadline + Math.round(stretch.runTimeoutMs * (this.#stretch - 1));
  }

  /** Milliseconds left before the deadline (0 when it has passed). */
  remainingMs(): number {
    return Math.max(0, this.deadline - this.#now());
  }

  /** Undefined when a request may be sent; else why not. */
  refusal(): GuardRefusal | undefined {
    if (this.remainingMs() === 0) {
      const stretched = this.#stretch > 1 ? `, stretched ${this.#stretch.toFixed(1)} times for the target's latency` : '';
      return { kind: 'deadline', message: `not sent: the run's deadline has passed (CONFORMANCE_RUN_TIMEOUT_MS${stretched}; it ended at ${new Date(this.deadline).toISOString()})` };
    }
    const state = this.state();
    if (state.consecutiveFailures >= this.#options.maxNetworkFailures) {
      return {
        kind: 'circuit-open',
        message:
          `not sent: the target left ${state.consecutiveFailures} requests in a row unserved (last: ${state.lastFailure ?? 'unknown'}), ` +
          'so the run stops talking to it (CONFORMANCE_MAX_NETWORK_FAILURES)',
      };
    }
    return undefined;
  }

  /** A request ended unserved: no answer, a timeout, or a 429/503 beyond the retry budget. */
  recordFailure(description: string): void {
    this.#write({ consecutiveFailures: this.state().consecutiveFailures + 1, lastFailure: description });
  }

  /** The target served a request. */
  recordServed(): void {
    if (this.state().consecutiveFailures > 0) this.#write({ consecutiveFailures: 0 });
  }

  state(): GuardState {
    const file = this.#options.stateFile;
    if (file === undefined) return this.#memory;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<GuardState>;
      return typeof parsed.consecutiveFailures === 'number' ? (parsed as GuardState) : { consecutiveFailures: 0 };
    } catch {
      return { consecutiveFailures: 0 };
    }
  }

  #write(state: GuardState): void {
    this.#memory = state;
    if (this.#options.stateFile !== undefined) writeFileSync(this.#options.stateFile, JSON.stringify(state));
  }
}

/** What the guard needs of the run (suites/framework/run.ts `RunInfo`): its deadline and state file. */
export interface GuardedRun {
  readonly deadline?: number;
  readonly guardFile?: string;
}

/**
 * The guard of a target: the run's (from the global setup, shared by every test file), or, for a
 * target built outside a run, one of its own whose deadline starts now. With `latencyMs` (the run's
 * measured latency, rate-limit.ts) a default deadline stretches with it.
 */
export function runGuardFor(config: Pick<ConformanceConfig, 'runTimeoutMs' | 'runTimeoutSource' | 'maxNetworkFailures'>, run: GuardedRun | undefined, latencyMs?: () => number | undefined): RunGuard {
  return new RunGuard({
    deadline: run?.deadline ?? Date.now() + config.runTimeoutMs,
    maxNetworkFailures: config.maxNetworkFailures,
    stateFile: run?.guardFile,
    ...(latencyMs !== undefined && config.runTimeoutSource === 'default' && { stretch: { runTimeoutMs: config.runTimeoutMs, latencyMs } }),
  });
}

/** What bounds a transport (http.ts): the options of TransportOptions that the configuration sets. */
export interface TransportLimits {
  /** A response body longer than this is not read past it: the request fails with kind `oversize`. Default 1 MiB. */
  readonly maxBodyBytes: number;
  /** The run's deadline and fail-fast count; none: neither applies. */
  readonly guard: RunGuard;
  readonly retry: Partial<RetryPolicy> | false;
}

/**
 * What the configuration bounds in a target's transport: the body cap, the run guard, and the retry
 * budget (a caller's own retry settings win; `false` disables retries).
 */
export function transportLimits(
  config: Pick<ConformanceConfig, 'runTimeoutMs' | 'runTimeoutSource' | 'maxNetworkFailures' | 'maxBodyBytes' | 'retryBudgetMs'>,
  run: GuardedRun | undefined,
  retry?: Partial<RetryPolicy> | false,
  latencyMs?: () => number | undefined,
): TransportLimits {
  return {
    maxBodyBytes: config.maxBodyBytes,
    guard: runGuardFor(config, run, latencyMs),
    retry: retry === false ? false : { maxTotalMs: config.retryBudgetMs, ...retry },
  };
}
