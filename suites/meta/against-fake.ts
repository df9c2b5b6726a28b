/** Runs scenarios in-process against a fresh fake (optionally with faults), for the meta-tests. */
import { createFakeApp } from '../../fake-server/app.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { faultsFor } from '../../fake-server/faults/index.ts';
import { serve } from '../../fake-server/http/node-adapter.ts';
import { otherTenantKey } from '../../fake-server/tenants.ts';
import { runScenario, type ScenarioOutcome } from '../framework/index.ts';
import type { SCENARIOS } from '../scenarios/index.ts';
import { inProcessTarget } from '../support.ts';

export type AnyScenario = (typeof SCENARIOS)[number];
export type Outcome = ScenarioOutcome & { readonly scenario: string };

/** `faults`: rule IDs of the fault catalogue, or faults built by the meta-test itself (shape faults). */
export async function runAgainstFake(faults: readonly (string | Fault)[], scenarios: readonly AnyScenario[]): Promise<Outcome[]> {
  const app = createFakeApp({ faults: faults.flatMap((f) => (typeof f === 'string' ? faultsFor([f]) : [f])) });
  const served = await serve(app);
  const apiKey = app.keys[0]!.key;
  const target = await inProcessTarget({ url: served.url, apiKey, otherTenantApiKey: otherTenantKey(app.keys, apiKey) });
  try {
    const outcomes: Outcome[] = [];
    for (const scenario of scenarios) outcomes.push({ scenario: scenario.id, ...(await runScenario(scenario, target, { timeoutMs: 30_000 })) });
    return outcomes;
  } finally {
    await target.close();
    await served.close();
  }
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
