/** Runs scenarios in-process against a fresh fake (optionally with faults), for the meta-tests. */
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { createFakeServer } from '../../fake-server/index.ts';
import { testSeed } from '../../fixtures/random.ts';
import { createTarget, loadConfig, runScenario, type ScenarioOutcome } from '../framework/index.ts';
import type { SCENARIOS } from '../scenarios/index.ts';
import { LEDGER, PROBES } from '../support.ts';

export type AnyScenario = (typeof SCENARIOS)[number];
export type Outcome = ScenarioOutcome & { readonly scenario: string };

export async function runAgainstFake(faults: readonly string[], scenarios: readonly AnyScenario[]): Promise<Outcome[]> {
  const fake = await createFakeServer({ faults: [...faults] });
  const target = await createTarget({
    operations,
    errorBody: ErrorBody,
    config: loadConfig({ env: {} }),
    run: { baseUrl: fake.url, apiKey: fake.apiKey, ...(fake.otherTenantApiKey && { otherTenantApiKey: fake.otherTenantApiKey }), seed: testSeed(), salt: '', kind: 'fake' },
    retry: false,
    ...LEDGER,
    probes: PROBES,
  });
  try {
    const outcomes: Outcome[] = [];
    for (const scenario of scenarios) outcomes.push({ scenario: scenario.id, ...(await runScenario(scenario, target, { timeoutMs: 30_000 })) });
    return outcomes;
  } finally {
    await target.close();
    await fake.close();
  }
}
