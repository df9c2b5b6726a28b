/**
 * A tenant's clock, behind every timestamp of its data. It follows real time until frozen; it can
 * jump forward but never backwards, so periods, resets and expiries only ever move ahead. Only
 * `restart` (a reset of the tenant, whose data goes too) takes it back to where it started.
 */
export interface ClockState {
  readonly now: number;
  readonly frozen: boolean;
}

export interface ClockStart {
  /** Start time (ms); the source's time when absent. */
  readonly now?: number;
  readonly frozen?: boolean;
}

export class Clock {
  #frozenAt: number | null = null;
  #offset = 0;
  readonly #source: () => number;
  readonly #start: ClockStart;

  constructor(options: ClockStart & { source?: () => number } = {}) {
    this.#source = options.source ?? Date.now;
    this.#start = { ...(options.now !== undefined && { now: options.now }), frozen: options.frozen ?? false };
    this.restart();
  }

  /** Back to where the clock started: its start time (or the source's time), frozen or running as it started. */
  restart(): void {
    this.restore({ ...this.#start, now: this.#start.now ?? this.#source() });
  }

  /** Puts the clock at a state taken earlier (a state file), backwards included. */
  restore(state: { readonly now?: number; readonly frozen?: boolean }): void {
    // One reading of the source: a second one may fall in the next millisecond and start the clock off by one.
    const reading = this.#source();
    const start = state.now ?? reading;
    this.#offset = start - reading;
    this.#frozenAt = state.frozen ? start : null;
  }

  now(): number {
    return this.#frozenAt ?? this.#source() + this.#offset;
  }

  state(): ClockState {
    return { now: this.now(), frozen: this.#frozenAt !== null };
  }

  /** Freezes or unfreezes, and optionally jumps to `now`. Throws a RangeError on a jump backwards. */
  set(change: { now?: number; frozen?: boolean }): ClockState {
    if (change.now !== undefined) {
      const current = this.now();
      if (change.now < current) throw new RangeError(`the clock cannot move backwards (now ${current}, asked ${change.now})`);
      this.#move(change.now - current);
    }
    // Freezing at a requested time stops exactly there, not wherever a running source has got to since.
    if (change.frozen === true && this.#frozenAt === null) this.#frozenAt = change.now ?? this.now();
    if (change.frozen === false && this.#frozenAt !== null) {
      this.#offset = this.#frozenAt - this.#source();
      this.#frozenAt = null;
    }
    return this.state();
  }

  advance(ms: number): ClockState {
    if (!(ms >= 0)) throw new RangeError(`advance takes a non-negative number of milliseconds, not ${ms}`);
    this.#move(ms);
    return this.state();
  }

  #move(ms: number): void {
    if (this.#frozenAt !== null) this.#frozenAt += ms;
    else this.#offset += ms;
  }
}

const DAY = 86_400_000;

/** The latest instant a JavaScript Date can hold (year 275760); later times cannot be computed on. */
export const LATEST_TIME = 8_640_000_000_000_000;

/**
 * Calendar arithmetic in UTC. Month steps clamp to the last day of the month (31 Jan + 1 month =
 * 28/29 Feb). Throws a RangeError when the result lies beyond LATEST_TIME (an absurd interval count
 * or trial length), so callers can refuse the input instead of storing NaN.
 */
export function addInterval(at: number, interval: string, count = 1): number {
  const result = stepInterval(at, interval, count);
  if (!Number.isSafeInteger(result) || result > LATEST_TIME) {
    throw new RangeError(`${count} × ${interval} after ${at} lies beyond the representable time range`);
  }
  return result;
}

function stepInterval(at: number, interval: string, count: number): number {
  switch (interval) {
    case 'minute':
      return at + count * 60_000;
    case 'hour':
      return at + count * 3_600_000;
    case 'day':
      return at + count * DAY;
    case 'week':
      return at + count * 7 * DAY;
    case 'month':
      return addMonths(at, count);
    case 'quarter':
      return addMonths(at, 3 * count);
    case 'semi_annual':
      return addMonths(at, 6 * count);
    case 'year':
      return addMonths(at, 12 * count);
    default:
      throw new RangeError(`not a recurring interval: ${interval}`);
  }
}

function addMonths(at: number, months: number): number {
  const date = new Date(at);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date.getTime();
}

/**
 * The first `anchor` + k·(count × interval), k ≥ 1, strictly after `after`. Stepping from the anchor
 * rather than from the previous occurrence keeps the day of the month: a cycle anchored on 31 January
 * falls on 28 February and then on 31 March, not on 28 March.
 */
export function nextOccurrence(anchor: number, interval: string, count: number, after: number): number {
  const at = (steps: number) => addInterval(anchor, interval, count * steps);
  // An estimate from the first step's length, then exact steps either way.
  let steps = Math.max(1, Math.floor((after - anchor) / (at(1) - anchor)));
  while (steps > 1 && at(steps - 1) > after) steps--;
  while (at(steps) <= after) steps++;
  return at(steps);
}
