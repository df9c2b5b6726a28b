/**
 * One plan across scenario files (discovery.ts): two fixture files run by vitest in one worker, as
 * the conformance project runs them. The second file's scenarios start while the first file's run
 * (the files are run one after another by vitest), the one that needs the tenant alone runs first
 * and alone, and every test passes with its own scenario's outcome.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BaseSequencer, createVitest, type TestSpecification } from 'vitest/node';

/** plan-a before plan-b, whatever vitest's own sequencer would choose. */
class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Span {
  readonly start: number;
  readonly end: number;
}

describe('a run of two scenario files in one worker', () => {
  const spans = new Map<string, Span>();
  let passed: string[] = [];
  let files: string[] = [];

  beforeAll(async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'plan-')), 'log');
    process.env['PLAN_LOG'] = log;
    const exitCode = process.exitCode;
    const vitest = await createVitest('test', {
      root: ROOT,
      config: false,
      include: ['suites/framework/fixture-run/plan-*.fixture.ts'],
      isolate: false,
      fileParallelism: false,
      sequence: { sequencer: ByName },
      watch: false,
      reporters: [{}],
    });
    try {
      await vitest.start();
      files = vitest.state.getFiles().map((file) => file.name);
      passed = vitest.state.getFiles().flatMap((file) => file.tasks.filter((task) => task.result?.state === 'pass').map((task) => task.name));
    } finally {
      await vitest.close();
      process.exitCode = exitCode;
      delete process.env['PLAN_LOG'];
    }
    const times = readFileSync(log, 'utf8').trim().split('\n').map((line) => line.split(' '));
    for (const [, id] of times) {
      const at = (event: string) => Number(times.find(([e, i]) => e === event && i === id)![2]);
      spans.set(id!, { start: at('start'), end: at('end') });
    }
  }, 120_000);

  it('runs every scenario once, and each test passes with its outcome', () => {
    expect(files).toHaveLength(2);
    expect([...spans.keys()].sort()).toEqual(['a1', 'a2', 'a3', 'b-alone', 'b1', 'b2', 'b3']);
    expect(passed.sort()).toEqual(['a1 reads things', 'a2 reads things', 'a3 reads things', 'b-alone reads things', 'b1 reads things', 'b2 reads things', 'b3 reads things'].map((name) => `[DOC-A] ${name}`).sort());
  });

  it("starts the second file's scenarios while the first file's run", () => {
    const first = ['a1', 'a2', 'a3'].map((id) => spans.get(id)!);
    const lastOfFirst = Math.max(...first.map((s) => s.end));
    for (const id of ['b1', 'b2', 'b3']) expect(spans.get(id)!.start, id).toBeLessThan(lastOfFirst);
  });

  it('runs the scenario that needs the tenant alone first, with nothing beside it', () => {
    const alone = spans.get('b-alone')!;
    for (const [id, span] of spans) {
      if (id !== 'b-alone') expect(span.start, id).toBeGreaterThanOrEqual(alone.end);
    }
  });
});
