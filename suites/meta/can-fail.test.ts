/**
 * The suite must be able to fail. For every fault of the fake (one rule broken on purpose), start a
 * fake with only that fault and run the scenarios that carry the rule: at least one must fail, so a
 * target that breaks the rule cannot pass. The same scenarios pass against the healthy fake in the
 * conformance project.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { FAULTS } from '../../fake-server/faults/index.ts';
import { createFakeServer } from '../../fake-server/index.ts';
import { testSeed } from '../../fixtures/random.ts';
import { createTarget, loadConfig, runScenario, type ScenarioOutcome } from '../framework/index.ts';
import { SCENARIOS } from '../scenarios/index.ts';

const results: { rule: string; outcomes: { scenario: string; status: ScenarioOutcome['status'] }[] }[] = [];

async function runAgainstBrokenFake(rule: string) {
  const fake = await createFakeServer({ faults: [rule] });
  const target = await createTarget({
    operations,
    errorBody: ErrorBody,
    config: loadConfig({ env: {} }),
    run: { baseUrl: fake.url, apiKey: fake.apiKey, ...(fake.otherTenantApiKey && { otherTenantApiKey: fake.otherTenantApiKey }), seed: testSeed(), salt: '', kind: 'fake' },
    retry: false,
  });
  try {
    const scenarios = SCENARIOS.filter((s) => s.rules.includes(rule));
    const outcomes = [];
    for (const scenario of scenarios) outcomes.push({ scenario: scenario.id, ...(await runScenario(scenario, target, { timeoutMs: 30_000 })) });
    return outcomes;
  } finally {
    await target.close();
    await fake.close();
  }
}

describe('every rule the fake can break is caught by a scenario carrying it', () => {
  it.each([...FAULTS.keys()])('%s', { timeout: 120_000 }, async (rule) => {
    const outcomes = await runAgainstBrokenFake(rule);
    results.push({ rule, outcomes: outcomes.map(({ scenario, status }) => ({ scenario, status })) });
    expect(outcomes.length, `no scenario carries ${rule}`).toBeGreaterThan(0);
    const errors = outcomes.filter((o) => o.status === 'error').map((o) => `${o.scenario}: ${String(o.error)}`);
    expect(errors, 'scenarios must fail by assertion, not crash').toEqual([]);
    const failed = outcomes.filter((o) => o.status === 'fail').map((o) => o.scenario);
    expect(failed, `with ${rule} broken (${FAULTS.get(rule)!.breaks}), every scenario carrying it still passed`).not.toEqual([]);
  });

  afterAll(() => {
    const proven = results.filter((r) => r.outcomes.some((o) => o.status === 'fail')).length;
    console.log(`can-fail: ${proven} of ${FAULTS.size} broken rules caught by a scenario carrying their ID`);
  });
});
