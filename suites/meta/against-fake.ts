/**
 * Runs scenarios against a fresh fake (optionally with faults), for the meta-tests: in-process, the
 * client's requests handed to the fake's handler with no socket (in-process-fake.ts), scheduled as a
 * conformance run schedules them (schedule.ts: those that need the target alone first, the others
 * side by side), so every meta-test also holds the verdicts to being independent of the schedule.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createFakeApp } from '../../fake-server/app.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { faultsFor } from '../../fake-server/faults/index.ts';
import { otherTenantKey } from '../../fake-server/tenants.ts';
import { runScenarios, type ScenarioOutcome } from '../framework/index.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { inProcessTarget } from '../support.ts';
import { InProcessDispatcher } from './in-process-fake.ts';

export type AnyScenario = (typeof SCENARIOS)[number];
export type Outcome = ScenarioOutcome & { readonly scenario: string };

/** The base URL the in-process fake answers on (no socket; it names the target in the evidence). */
const IN_PROCESS_URL = 'http://fake.invalid';

export interface AgainstFakeOptions {
  /** Scenarios at once (default: the configuration's); 1 runs them one after another. */
  readonly concurrency?: number;
}

/**
 * `faults`: rule IDs of the fault catalogue, or faults built by the meta-test itself (shape faults).
 * The target is not cleaned up: the fake is thrown away with it.
 */
export async function runAgainstFake(faults: readonly (string | Fault)[], scenarios: readonly AnyScenario[], options: AgainstFakeOptions = {}): Promise<Outcome[]> {
  const app = createFakeApp({ faults: faults.flatMap((f) => (typeof f === 'string' ? faultsFor([f]) : [f])) });
  const apiKey = app.keys[0]!.key;
  const target = await inProcessTarget({ url: IN_PROCESS_URL, apiKey, otherTenantApiKey: otherTenantKey(app.keys, apiKey) }, new InProcessDispatcher(app));
  const outcomes = await runScenarios(scenarios, target, { timeoutMs: 30_000, ...(options.concurrency !== undefined && { concurrency: options.concurrency }) });
  return outcomes.map((outcome, i) => ({ scenario: scenarios[i]!.id, ...outcome }));
}

let healthy: Promise<Outcome[]> | undefined;

/**
 * Every scenario against a healthy fake at the default concurrency, run once per `vitest run` and
 * shared by the meta-tests that read it: within a worker by its modules (vitest.config.ts), across
 * workers by a file (`sharedRun`). The outcomes are read, never changed.
 */
export function healthyRun(): Promise<Outcome[]> {
  healthy ??= sharedRun('healthy', () => runAgainstFake([], SCENARIOS));
  return healthy;
}

/** The rules that FAILed in any of the outcomes, sorted. */
export function failSet(outcomes: readonly Outcome[]): string[] {
  return [...new Set(outcomes.flatMap((o) => Object.entries(o.verdicts).filter(([, v]) => v.status === 'FAIL').map(([rule]) => rule)))].sort();
}

/** Every FAIL other than of `rules`, one line each: scenario, rule, first line of the message. */
export function otherFailures(outcomes: readonly Outcome[], rules: readonly string[]): string[] {
  return outcomes.flatMap((o) =>
    Object.entries(o.verdicts)
      .filter(([r, v]) => v.status === 'FAIL' && !rules.includes(r))
      .map(([r, v]) => `${o.scenario}: ${r}: ${(v.message ?? '').split('\n')[0]}`),
  );
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHARED_DIR = join(ROOT, '.cache', 'meta-runs');
/** How long a worker waits for the one running it before running it itself (that one may have died). */
const WAIT_FOR_OTHER_MS = 5 * 60_000;

/**
 * What `compute` resolves with, computed by one worker of this `vitest run` (vitest.config.ts sets
 * BESI_TEST_RUN once per invocation) and read from a file by the others, which wait for it rather
 * than repeat it. The file is keyed by the run and by the sources it may depend on, so a watch-mode
 * re-run after an edit computes it anew. Outside vitest's run, it is computed in place.
 */
async function sharedRun<T>(name: string, compute: () => Promise<T>): Promise<T> {
  const run = process.env['BESI_TEST_RUN'];
  if (run === undefined) return compute();
  const file = join(SHARED_DIR, `${name}-${run}-${sourcesHash()}.json`);
  mkdirSync(SHARED_DIR, { recursive: true });
  let mine: number | undefined;
  try {
    mine = openSync(`${file}.lock`, 'wx');
  } catch {
    // Until the file is there, or the worker running it says it failed (then this one runs it, and meets the failure itself).
    for (const started = Date.now(); Date.now() - started < WAIT_FOR_OTHER_MS && !existsSync(`${file}.failed`); await sleep(200)) {
      if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T;
    }
    return compute();
  }
  closeSync(mine);
  let value: T;
  try {
    value = await compute();
  } catch (error) {
    writeFileSync(`${file}.failed`, String(error));
    throw error;
  }
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(value));
  renameSync(`${file}.${process.pid}`, file);
  // Earlier runs' files: an hour is longer than any run.
  for (const entry of readdirSync(SHARED_DIR)) {
    const path = join(SHARED_DIR, entry);
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { force: true });
  }
  return value;
}

/** A hash of the sources a run of the scenarios may depend on (tests aside): what this module imports, and the data they read. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const dir of ['spec', 'fake-server', 'fixtures', 'suites/framework', 'suites/scenarios', 'suites/meta']) {
    for (const entry of (readdirSync(join(ROOT, dir), { recursive: true }) as string[]).sort()) {
      if (!/\.(ts|json)$/.test(entry) || entry.endsWith('.test.ts') || entry.includes('node_modules') || (dir === 'suites/meta' && entry.includes('/'))) continue;
      hash.update(entry).update(readFileSync(join(ROOT, dir, entry)));
    }
  }
  return hash.update(readFileSync(join(ROOT, 'suites/support.ts'))).digest('hex').slice(0, 16);
}
