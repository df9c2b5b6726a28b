/** Runs scenarios in-process against a fresh fake (optionally with faults), for the meta-tests. */
import { createFakeServer } from '../../fake-server/index.ts';
import { runScenario, type ScenarioOutcome } from '../framework/index.ts';
import type { SCENARIOS } from '../scenarios/index.ts';
import { inProcessTarget } from '../support.ts';

export type AnyScenario = (typeof SCENARIOS)[number];
export type Outcome = ScenarioOutcome & { readonly scenario: string };

export async function runAgainstFake(faults: readonly string[], scenarios: readonly AnyScenario[]): Promise<Outcome[]> {
  const fake = await createFakeServer({ faults: [...faults] });
  const target = await inProcessTarget(fake);
  try {
    const outcomes: Outcome[] = [];
    for (const scenario of scenarios) outcomes.push({ scenario: scenario.id, ...(await runScenario(scenario, target, { timeoutMs: 30_000 })) });
    return outcomes;
  } finally {
    await target.close();
    await fake.close();
  }
}
