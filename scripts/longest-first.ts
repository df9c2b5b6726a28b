/**
 * The test sequencer of vitest.config.ts. vitest orders files by the durations of its last run
 * (node_modules/.vite/vitest/): longest first, so no core idles at the end while one long file
 * finishes. A fresh clone (CI, a newcomer) has no durations, and vitest then keeps the glob's order;
 * the files known to be long (LONGEST, in this order) start first instead.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const LONGEST = [
  'fake-server/packaged.test.ts',
  'suites/report/cli.test.ts',
  'suites/meta/cleanup.test.ts',
  'suites/meta/nightly.test.ts',
  'scripts/docs-runnable.test.ts',
  'suites/meta/printed-commands.test.ts',
  'suites/meta/can-fail-1.test.ts',
  'suites/explore/self-check.test.ts',
  'suites/meta/shape-faults.test.ts',
  'suites/explore/oracle.test.ts',
  'suites/meta/can-fail-2.test.ts',
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (file: TestSpecification) => relative(root, file.moduleId);
    if (sorted.some((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${path(file)}`) !== undefined)) return sorted;
    const rank = (file: TestSpecification) => {
      const at = LONGEST.indexOf(path(file));
      return at === -1 ? LONGEST.length : at;
    };
    // Stable: the projects' order (groupOrder, then name) stays as vitest put it.
    const place = new Map(sorted.map((file, i) => [file, i]));
    return [...sorted].sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || (a.project.name === b.project.name ? rank(a) - rank(b) : 0) || place.get(a)! - place.get(b)!);
  }
}
