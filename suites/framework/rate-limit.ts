/**
 * The run's shared rate limiter. With scenarios running side by side (schedule.ts), a 429 or 503
 * says the run as a whole goes too fast, not that one scenario does: so every request of the run
 * to that target asks the limiter before each attempt, and when one is answered 429/503 with a wait
 * the client will honour (its Retry-After, else the backoff; retry.ts), every other request waits
 * that long too, and the requests allowed in flight are halved. Each round of answered requests
 * (as many as are allowed) lets one more in, back up to the limit the run started with (additive
 * increase, multiplicative decrease, as TCP does). A scenario is never failed for it: only a request
 * still refused when its own retry budget runs out ends in ERROR.
 *
 * Latency says the same before any 429 does: when the answers' smoothed latency climbs well above
 * the lowest the run has seen (LATENCY_CLIMB: three times it, and 250 ms more), the target is
 * loaded, and the requests allowed in flight are halved again each round it stays so; once it falls
 * back, they grow one a round as after a 429. A target that is slow from the start (far away, or a
 * proxy adding latency) is not loaded by the run: its floor is high, and nothing backs off. The
 * scenarios never pay for the wait: their time limit leaves it out (pace.ts).
 *
 * One limiter per target origin and process (`limiterFor`), shared by every test file's target of
 * the run. The clock is injectable so tests never wait.
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface LimiterClock {
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const realClock: LimiterClock = { now: () => Date.now(), sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}) };

/** Latency climbed when the smoothed latency is above both (factor × the floor) and (the floor + margin). */
export const LATENCY_CLIMB = { factor: 3, marginMs: 250 } as const;
/** Weight of a new answer in the smoothed latency, and answers seen before a climb counts. */
const SMOOTHING = 0.2;
const WARM_UP_ANSWERS = 8;

export class RateLimiter {
  readonly maxInFlight: number;
  readonly #clock: LimiterClock;
  #allowed: number;
  #inFlight = 0;
  /** Nothing is sent before this (epoch ms). */
  #resumeAt = 0;
  /** Requests answered since the last change of `#allowed`. */
  #answered = 0;
  /** Smoothed answer latency, its lowest value so far, and answers measured. */
  #latencyMs: number | undefined;
  #floorMs = Number.POSITIVE_INFINITY;
  #measured = 0;
  readonly #queue: (() => void)[] = [];

  constructor(maxInFlight: number, clock: LimiterClock = realClock) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new Error(`a rate limiter needs a positive whole number of requests in flight, not ${maxInFlight}`);
    this.maxInFlight = maxInFlight;
    this.#allowed = maxInFlight;
    this.#clock = clock;
  }

  /** How many requests may be in flight now. */
  get allowed(): number {
    return this.#allowed;
  }

  /** Milliseconds every request still waits (0 when none). */
  pausedFor(): number {
    return Math.max(0, this.#resumeAt - this.#clock.now());
  }

  /**
   * Waits until a request may be sent: after any pause, with a place among those in flight. Returns
   * the function that gives the place back (call it once the answer is in). `maxWaitMs` bounds the
   * pause (the run's deadline: past it the run guard refuses the request anyway). Rejects when
   * `signal` aborts first.
   */
  async acquire(signal?: AbortSignal, maxWaitMs = Number.POSITIVE_INFINITY): Promise<() => void> {
    const started = this.#clock.now();
    for (;;) {
      signal?.throwIfAborted();
      const pause = Math.min(this.pausedFor(), Math.max(0, maxWaitMs - (this.#clock.now() - started)));
      if (pause > 0) {
        await this.#clock.sleep(pause, signal);
        continue;
      }
      if (this.#inFlight < this.#allowed) break;
      await this.#turn(signal);
    }
    this.#inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight--;
      this.#queue.shift()?.();
    };
  }

  /** The target answered 429/503 and the client will wait `waitMs` before trying again: everyone waits, and fewer go at once. */
  throttled(waitMs: number): void {
    this.#resumeAt = Math.max(this.#resumeAt, this.#clock.now() + waitMs);
    this.#allowed = Math.max(1, Math.floor(this.#allowed / 2));
    this.#answered = 0;
  }

  /** The smoothed latency of the answers so far (undefined before the first measured one). */
  get latencyMs(): number | undefined {
    return this.#latencyMs;
  }

  /**
   * The target answered a request (not 429/503), in `latencyMs` when measured: while the latency has
   * climbed, one round of answers halves the requests allowed in flight; else one round lets one more in.
   */
  served(latencyMs?: number): void {
    if (latencyMs !== undefined && this.#climbed(latencyMs)) {
      if (++this.#answered < this.#allowed) return;
      this.#allowed = Math.max(1, Math.floor(this.#allowed / 2));
      this.#answered = 0;
      return;
    }
    if (this.#allowed >= this.maxInFlight) return;
    if (++this.#answered < this.#allowed) return;
    this.#allowed++;
    this.#answered = 0;
    this.#queue.shift()?.();
  }

  /** Takes one measured latency in; whether the smoothed latency now stands well above the lowest seen. */
  #climbed(latencyMs: number): boolean {
    this.#latencyMs = this.#latencyMs === undefined ? latencyMs : this.#latencyMs + (latencyMs - this.#latencyMs) * SMOOTHING;
    this.#floorMs = Math.min(this.#floorMs, this.#latencyMs);
    this.#measured++;
    return this.#measured > WARM_UP_ANSWERS && this.#latencyMs > Math.max(LATENCY_CLIMB.factor * this.#floorMs, this.#floorMs + LATENCY_CLIMB.marginMs);
  }

  /** Resolves when a place may have come free (or rejects on abort). */
  #turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = this.#queue.indexOf(wake);
        if (at !== -1) this.#queue.splice(at, 1);
        reject(signal!.reason);
      };
      this.#queue.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

const limiters = new Map<string, RateLimiter>();

/** The limiter every transport of this process to `baseUrl`'s origin shares (created with `maxInFlight` by the first to ask). */
export function limiterFor(baseUrl: string, maxInFlight: number): RateLimiter {
  const origin = new URL(baseUrl).origin;
  let limiter = limiters.get(origin);
  if (limiter === undefined) limiters.set(origin, (limiter = new RateLimiter(maxInFlight)));
  return limiter;
}
