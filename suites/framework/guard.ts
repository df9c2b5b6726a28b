/**
 * The run guard: what keeps a run against a dead, stalled or throttling target from going on for
 * ever. Every request of the run asks it first; it refuses (without touching the network) once
 *
 * - the run's deadline has passed (CONFORMANCE_RUN_TIMEOUT_MS after the run began), or
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

export interface RunGuardOptions {
  /** Epoch milliseconds after which nothing more is sent. */
  readonly deadline: number;
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

  constructor(options: RunGuardOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get deadline(): number {
    return this.#options.deadline;
  }

  /** Milliseconds left before the deadline (0 when it has passed). */
  remainingMs(): number {
    return Math.max(0, this.#options.deadline - this.#now());
  }

  /** Undefined when a request may be sent; else why not. */
  refusal(): GuardRefusal | undefined {
    if (this.remainingMs() === 0) {
      return { kind: 'deadline', message: `not sent: the run's deadline has passed (CONFORMANCE_RUN_TIMEOUT_MS; it ended at ${new Date(this.#options.deadline).toISOString()})` };
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
 * target built outside a run, one of its own whose deadline starts now.
 */
export function runGuardFor(config: Pick<ConformanceConfig, 'runTimeoutMs' | 'maxNetworkFailures'>, run: GuardedRun | undefined): RunGuard {
  return new RunGuard({
    deadline: run?.deadline ?? Date.now() + config.runTimeoutMs,
    maxNetworkFailures: config.maxNetworkFailures,
    stateFile: run?.guardFile,
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
  config: Pick<ConformanceConfig, 'runTimeoutMs' | 'maxNetworkFailures' | 'maxBodyBytes' | 'retryBudgetMs'>,
  run: GuardedRun | undefined,
  retry?: Partial<RetryPolicy> | false,
): TransportLimits {
  return {
    maxBodyBytes: config.maxBodyBytes,
    guard: runGuardFor(config, run),
    retry: retry === false ? false : { maxTotalMs: config.retryBudgetMs, ...retry },
  };
}
