/**
 * Runs scenarios against a fresh fake (optionally with faults), for the meta-tests: in-process, the
 * client's requests handed to the fake's handler with no socket (in-process-fake.ts), scheduled as a
 * conformance run schedules them (schedule.ts: those that need the target alone first, the others
 * side by side), so every meta-test also holds the verdicts to being independent of the schedule.
 */
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
 * Every scenario against a healthy fake at the default concurrency, run once per test worker and
 * shared by the meta-tests that read it (a worker's files share their modules: vitest.config.ts).
 * The outcomes are read, never changed.
 */
export function healthyRun(): Promise<Outcome[]> {
  healthy ??= runAgainstFake([], SCENARIOS);
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
