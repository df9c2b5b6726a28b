/**
 * Time limits that follow the target. A scenario's calls depend on one another, so against a
 * deployment its length is mostly its calls times the target's latency, plus the waits for a place
 * among the requests the run lets be in flight (the run's concurrency, rate-limit.ts). A fixed limit
 * would make a correct but slow target ERROR for the suite's own length (issue 26: a scenario of 300
 * calls at 470 ms each, 8 scenarios at once). So a scenario's limit counts its **own time** only: the
 * time it spent with no request of its own pending (neither waiting for a place, nor in flight, nor
 * waiting to retry). Its wall-clock limit is therefore the own-time limit plus whatever it waited for
 * the target: it grows with the measured latency and the run's concurrency, call by call.
 *
 * Each request is still bounded on its own (CONFORMANCE_TIMEOUT_MS per attempt, the retry budget),
 * and the whole run by its deadline (CONFORMANCE_RUN_TIMEOUT_MS), so a target that stops answering
 * still ends the run.
 */

/** Time spent waiting for the target: the union of the intervals during which at least one request is pending. */
export class TargetWait {
  readonly #now: () => number;
  #pending = 0;
  #since = 0;
  #totalMs = 0;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A request is pending from now; call the function returned when it ends (more calls do nothing). */
  begin(): () => void {
    if (this.#pending++ === 0) this.#since = this.#now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.#pending === 0) this.#totalMs += this.#now() - this.#since;
    };
  }

  /** Milliseconds waited so far, the wait in progress included. */
  waitedMs(): number {
    return this.#totalMs + (this.#pending > 0 ? this.#now() - this.#since : 0);
  }
}

export interface OwnTime {
  /** Milliseconds the scenario spent not waiting for the target. */
  readonly ownMs: number;
  /** Milliseconds it waited for the target. */
  readonly waitedMs: number;
}

export interface PaceClock {
  readonly now: () => number;
  readonly setTimeout: (run: () => void, ms: number) => unknown;
  readonly clearTimeout: (timer: unknown) => void;
}

const realClock: PaceClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * Calls `exceeded` once the time since now, less what `wait` counted meanwhile, reaches `limitMs`.
 * Returns the function that stops the watch. The timer re-arms for the own time still left, so it
 * fires at most once per stretch the target kept the scenario waiting.
 */
export function watchOwnTime(limitMs: number, wait: TargetWait, exceeded: (spent: OwnTime) => void, clock: PaceClock = realClock): () => void {
  const started = clock.now();
  const waitedBefore = wait.waitedMs();
  let timer: unknown;
  const check = () => {
    const waitedMs = wait.waitedMs() - waitedBefore;
    const ownMs = clock.now() - started - waitedMs;
    if (ownMs >= limitMs) exceeded({ ownMs, waitedMs });
    else timer = clock.setTimeout(check, Math.max(1, limitMs - ownMs));
  };
  timer = clock.setTimeout(check, limitMs);
  return () => clock.clearTimeout(timer);
}
