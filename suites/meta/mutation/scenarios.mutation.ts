/**
 * The conformance scenarios as the tests of a mutation run (`npm run mutation`, see
 * stryker.config.mjs): one vitest test per scenario, each against a fresh in-process fake, so that
 * Stryker's per-test coverage runs only the scenarios that reach a mutant, each in milliseconds,
 * in any order and any subset. Not part of `npm test`: only suites/meta/mutation/vitest.config.ts
 * includes this file.
 */
import { expect, it } from 'vitest';
import { createFakeServer } from '../../../fake-server/index.ts';
import { runScenario } from '../../framework/index.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { inProcessTarget } from '../../support.ts';

const SCENARIO_TIMEOUT_MS = 30_000;

it.each(SCENARIOS.map((s) => [s.id, s] as const))('%s', { timeout: SCENARIO_TIMEOUT_MS + 10_000 }, async (_id, scenario) => {
  const fake = await createFakeServer();
  try {
    const target = await inProcessTarget(fake);
    try {
      const outcome = await runScenario(scenario, target, { timeoutMs: SCENARIO_TIMEOUT_MS });
      // The healthy fake passes every rule a scenario decides; a mutant is noticed by any other verdict.
      const notPassed = Object.entries(outcome.verdicts).filter(([, verdict]) => verdict.status !== 'PASS');
      expect(notPassed, String(outcome.error ?? outcome.reason ?? '')).toEqual([]);
      expect(outcome.status, outcome.reason).toBe('pass');
    } finally {
      await target.close();
    }
  } finally {
    await fake.close();
  }
});
