/**
 * Minimising a finding removes what the difference does not need in few re-runs: a command that made
 * hundreds of calls (a clock move over 300 customers) goes in one, not one re-run per call, which
 * over a network made a finding's minimising take longer than its exploration. fast-check's
 * shrinking, before it, re-runs at most its budget's worth of calls, not its budget of whole programs.
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { faultsFor } from '../../fake-server/faults/index.ts';
import { hashSeed } from '../../fixtures/random.ts';
import { createNamespace } from '../framework/namespace.ts';
import { explore, minimize, SHRINK_CALLS_PER_RUN } from './explorer.ts';
import { inProcessTarget } from './targets.ts';

// A fault whose finding, at this seed, comes from a program holding a scale command: its hundreds of calls are not needed.
const FAULT = 'LIST-TRIAL-ENDS-NULL';
const seed = hashSeed(424242, FAULT);
const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([FAULT]) }), createNamespace({ prefix: 'conf', seed }));

describe('minimising a finding', () => {
  it('removes a command of hundreds of calls in one re-run, and the calls left one by one', { timeout: 120_000 }, async () => {
    const target = broken();
    const { findings } = await explore(target, { seed, runs: 100, maxSteps: 30, maxFindings: 1, shrinkRuns: 0, minimize: false, localise: false });
    const found = findings[0]!;
    const calls = (steps: typeof found.steps) => steps.filter((step) => !step.resolve && step.index <= found.at).length;
    // The program as explored (not shrunk by fast-check) holds a command of more than 100 calls (else this test proves nothing).
    expect(calls(found.steps)).toBeGreaterThan(100);
    const minimal = await minimize(found, target, 1_000, () => false);
    expect(minimal.differences[0]?.key).toBe(found.differences[0]?.key);
    expect(minimal.steps.filter((step) => !step.resolve).length).toBeLessThanOrEqual(6);
    // One re-run per command, per run of 16 calls and per call left: tens (56 when written), not one per call of the program (357).
    expect(minimal.shrinkRuns - found.shrinkRuns).toBeLessThan(80);
  });

  it('shrinks a program of hundreds of calls in fewer re-runs than its budget: the calls re-run are bounded', { timeout: 120_000 }, async () => {
    const budget = 30;
    const target = broken();
    let opened = 0;
    const open = target.open.bind(target);
    const counting = { ...target, open: (...args: Parameters<typeof open>) => (opened++, open(...args)) };
    const { findings, programs } = await explore(counting, { seed, runs: 100, maxSteps: 30, maxFindings: 1, shrinkRuns: budget, minimize: false, localise: false });
    const calls = findings[0]!.steps.filter((step) => !step.resolve).length;
    expect(calls).toBeGreaterThan(100);
    // Each re-run repeats about the program's calls: the budget's calls (30 programs' worth) run out after a few, not after 30.
    expect(opened - programs).toBeLessThanOrEqual(Math.ceil((budget * SHRINK_CALLS_PER_RUN) / calls) + 1);
  });
});
