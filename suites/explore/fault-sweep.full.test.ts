/**
 * Every fault of the fake explored with the budget of unfound-faults.json (exploration alone, each
 * in a fake of its own, in this process): the list must say exactly which are not found and which
 * are found under another rule than their own (`explore --can-fail` is the same sweep from the
 * command line). About 20 minutes on one core: `npm run test:full` runs it, `npm test` the sampled
 * unfound-faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { unfoundDrift } from './cli.ts';
import { readUnfound, sweepFaults } from './sweep.ts';

describe('exploration alone, every fault of the fake', () => {
  it('finds and names them as unfound-faults.json says', { timeout: 4 * 3_600_000 }, async () => {
    const listed = readUnfound();
    const outcomes = await sweepFaults({ runs: listed.runs, maxSteps: listed.maxSteps, seed: listed.seed });
    const found = outcomes.filter((o) => o.found);
    const own = found.filter((o) => o.rule === o.fault);
    console.log(`exploration alone finds ${found.length} of ${outcomes.length} faults, ${own.length} of them under their own rule (${((100 * own.length) / found.length).toFixed(1)}%)`);
    expect(unfoundDrift(listed, outcomes)).toEqual([]);
    expect(own.length / found.length).toBeGreaterThanOrEqual(0.95);
  });
});
