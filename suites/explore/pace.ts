/**
 * Pacing of an exploration beside other work of the same process (a run's scenarios): before each of
 * its calls the event loop turns once; when that took long (the loop is busy with the other work, or
 * the process waits for a CPU), the exploration waits a few times as long, so that it takes the time
 * the other work leaves instead of a share of it. Once `until` settles (the other work is done), no
 * more waiting. And how long a conformance run's exploration goes on: its budget, read from the
 * environment (exploration.test.ts).
 */
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';

/** A turn of the loop slower than this (ms) means it is busy. */
const BUSY_MS = 2;
/** How many times the turn's length the exploration then waits, at most `MAX_WAIT_MS`. */
const BACK_OFF = 4;
const MAX_WAIT_MS = 250;

export function leftoverPacer(until: Promise<unknown>): () => Promise<void> {
  let done = false;
  void until.then(
    () => (done = true),
    () => (done = true),
  );
  return async () => {
    if (done) return;
    const before = performance.now();
    await turn();
    const lag = performance.now() - before;
    if (lag > BUSY_MS) await sleep(Math.min(MAX_WAIT_MS, BACK_OFF * lag));
  };
}

/**
 * When exploration beside other work should stop: `alone.leastMs` after that work is done (settled
 * either way), or later, when the exploration has gone on `alone.fillMs` in all since `startedAt`
 * (performance.now()). Beside the work it yields and runs few programs; alone it runs at full speed,
 * so a quick target gets the time a slow one spends on the work.
 */
export async function aloneAfter(until: Promise<unknown>, alone: { readonly leastMs: number; readonly fillMs?: number }, startedAt = performance.now()): Promise<void> {
  await until.then(
    () => undefined,
    () => undefined,
  );
  const filling = alone.fillMs === undefined ? 0 : alone.fillMs - (performance.now() - startedAt);
  await sleep(Math.max(alone.leastMs, filling), undefined, { ref: false });
}

export interface ExplorationBudget {
  /** Programs at most; 0: no exploration. */
  readonly runs: number;
  /** How long it goes on alone (seconds) once the scenarios are done, at least. */
  readonly seconds: number;
  /** How long it goes on in all (seconds, since the scenarios started) when the scenarios leave room; absent when the time alone was set. */
  readonly fillSeconds?: number;
}

/** The defaults: the least time alone, and the time the exploration fills when the scenarios end sooner. */
const LEAST_ALONE_SECONDS = 10;
const FILL_SECONDS = 90;

export function explorationBudget(env: NodeJS.ProcessEnv): ExplorationBudget {
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, not ${JSON.stringify(raw)}`);
    return Number(raw);
  };
  const seconds = read('CONFORMANCE_EXPLORE_SECONDS', LEAST_ALONE_SECONDS);
  const set = env['CONFORMANCE_EXPLORE_SECONDS'] !== undefined && env['CONFORMANCE_EXPLORE_SECONDS'] !== '';
  return { runs: read('CONFORMANCE_EXPLORE_RUNS', 1000), seconds, ...(set ? {} : { fillSeconds: FILL_SECONDS }) };
}
