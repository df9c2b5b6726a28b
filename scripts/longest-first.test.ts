import { describe, expect, it } from 'vitest';
import { BaseSequencer, type TestSpecification, type Vitest } from 'vitest/node';
import { LONGEST, LongestFirst } from './longest-first.ts';

const unit = { name: 'unit', config: { isolate: false, sequence: { groupOrder: 1 } } };
const conformance = { name: 'conformance', config: { isolate: false, sequence: { groupOrder: 0 } } };
const spec = (path: string, project = unit) => ({ moduleId: `/repo/${path}`, project }) as unknown as TestSpecification;

/** A vitest with durations of a last run for `timed` files only. */
function vitestTiming(timed: readonly string[] = []): Vitest {
  const ctx = {
    config: { root: '/repo' },
    cache: {
      getFileTestResults: (key: string) => (timed.includes(key.slice(key.indexOf(':') + 1)) ? { duration: 1, failed: false } : undefined),
      getFileStats: () => undefined,
    },
  };
  return ctx as unknown as Vitest;
}

describe('the test sequencer', () => {
  const files = [spec('spec/a.test.ts'), spec(LONGEST[3]!), spec('suites/scenarios/x.test.ts', conformance), spec('spec/b.test.ts'), spec(LONGEST[0]!)];

  it('with no durations (a fresh clone) starts the files known to be long first, in their order, the conformance project still before the unit one', async () => {
    const sorted = await new LongestFirst(vitestTiming()).sort(files);
    expect(sorted.map((file) => file.moduleId.replace('/repo/', ''))).toEqual(['suites/scenarios/x.test.ts', LONGEST[0], LONGEST[3], 'spec/a.test.ts', 'spec/b.test.ts']);
  });

  it("keeps vitest's order once it has durations of its own", async () => {
    const ctx = vitestTiming(['spec/a.test.ts']);
    expect(await new LongestFirst(ctx).sort(files)).toEqual(await new BaseSequencer(ctx).sort(files));
  });
});
