/**
 * Exploration against the fake itself finds nothing: the fake as target and as model must agree on
 * every call of a few hundred programs at a fixed seed (TEST_SEED varies it), which reach every
 * dimension in at least 5% of them. A finding here is a
 * bug of the exploration (a generator sending what the strictest implementation may refuse, a
 * comparison of what the document leaves open), or non-determinism in the fake.
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { testSeed } from '../../fixtures/random.ts';
import { progressCounter } from '../../scripts/progress-reporter.ts';
import { createNamespace } from '../framework/namespace.ts';
import { explore } from './explorer.ts';
import { belowShare } from './steering.ts';
import { summaryLines } from './findings.ts';
import { inProcessTarget } from './targets.ts';

describe('exploration against the fake itself', () => {
  it('finds no difference in 200 programs', { timeout: 600_000 }, async () => {
    const seed = testSeed();
    const fake = inProcessTarget(createFakeApp(), createNamespace({ prefix: 'conf', seed }));
    // Every program opens the target once: the count a log shows while the test runs.
    const started = progressCounter('exploration against the fake itself', 200, 'programs started');
    const target = { ...fake, open: (...args: Parameters<typeof fake.open>) => (started(), fake.open(...args)) };
    const result = await explore(target, { seed, runs: 200, maxSteps: 25, maxFindings: 1, shrinkRuns: 50 });
    for (const line of summaryLines(result)) console.log(line);
    const first = result.findings[0];
    expect(first && `${first.rule} at ${first.differences[0]?.path}: model ${JSON.stringify(first.differences[0]?.model)}, target ${JSON.stringify(first.differences[0]?.target)} (seed ${seed})`).toBeUndefined();
    expect(result.error).toBeUndefined();
    expect(result.programs).toBe(200);
    // `explore --runs 200`: every dimension reached by at least 5% of the programs (issue 25).
    expect(belowShare(result.coverage, result.programs)).toEqual([]);
  });
});

describe('exploration against the fake in each client-compatibility mode', () => {
  // autumn-js: every call answered as the published client expects (fields it requires, bodies it
  // may send that the document refuses): known differences, never a finding. none: the document only.
  it.each(['autumn-js', 'none'] as const)('--client-compat %s: no finding in 40 programs', { timeout: 300_000 }, async (mode) => {
    const seed = testSeed();
    const target = inProcessTarget(createFakeApp({ clientCompat: mode }), createNamespace({ prefix: 'conf', seed }));
    const result = await explore(target, { seed, runs: 40, maxSteps: 25, maxFindings: 1, shrinkRuns: 20 });
    const first = result.findings[0];
    expect(first && `${first.rule} at ${first.differences[0]?.path} (seed ${seed})`).toBeUndefined();
    expect(result.programs).toBe(40);
  });
});
