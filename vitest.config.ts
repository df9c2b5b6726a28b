import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './scripts/longest-first.ts';
import { ProgressReporter } from './scripts/progress-reporter.ts';
import { conformanceProject, EXPLORATION_TEST, moduleCache } from './suites/conformance-project.ts';

/**
 * `TEST_QUICK=1` (`npm run test:quick`, the edit loop): every unit file but those that pack, install
 * or spawn the CLI again and again, which `npm test` keeps; the meta-tests and fuzzers read their own
 * variables for the rest (package.json).
 */
const QUICK_EXCLUDED = [
  // Packs and installs the package into a project of its own.
  'fake-server/packaged.test.ts',
  // Runs the docs' runnable blocks, conformance runs among them, each in a shell of its own.
  'scripts/docs-runnable.test.ts',
  // Start the conformance CLI, the fake's or the exploration's in a child process for every case,
  // or a second fake process (parity), or wait out request timeouts (preflight against hostile targets).
  'suites/hostile/preflight-hostile.test.ts',
  'suites/report/cli.test.ts',
  'fake-server/cli.test.ts',
  'suites/explore/cli.test.ts',
  'suites/explore/parity.test.ts',
  // Two whole conformance runs by URL against one fake, to count what they leave behind.
  'suites/meta/cleanup.test.ts',
  // Nights of the docs' CI command line, stopped by signals; printed re-run and replay lines run as printed.
  'suites/meta/nightly.test.ts',
  'suites/meta/printed-commands.test.ts',
  // Scenarios against a fake that holds every answer 600 ms: it waits by design.
  'suites/meta/slow-probes.test.ts',
  // Hundreds of exploration programs: against the healthy model, against every fault, and (the
  // oracle) against the reference-like target with each of its findings localised (23 s alone).
  'suites/explore/self-check.test.ts',
  'suites/explore/unfound-faults.test.ts',
  // Explores a fault's program of 357 calls, then minimises it (5 s); explores 60 programs of batches of 150 (7 CPU-s).
  'suites/explore/minimize.test.ts',
  'suites/explore/scale.test.ts',
  'suites/explore/oracle.test.ts',
  // Run every scenario against many fakes; can-fail keeps every fault's own scenarios (PRECISION_RULES=none).
  'suites/meta/shape-faults.test.ts',
  'suites/meta/concurrency.test.ts',
];
const quick = process.env['TEST_QUICK'] === '1';

/**
 * Files named `*.full.test.ts` are the long sweeps a nightly job or a release runs
 * (`npm run test:full`, `TEST_FULL=1`); `npm test` and `test:quick` leave them out. One file alone:
 * `TEST_FULL=1 npx vitest run <file>`. A conformance run (suites/cli.ts) does not read this file.
 */
const full = process.env['TEST_FULL'] === '1';
const FULL_ONLY = full ? [] : ['**/*.full.test.ts'];

// Reports (report.json, report.html, summary.md, junit.xml) come from conformance runs only
// (`npm run conformance`, suites/cli.ts); `npm test` writes none of them.
export default defineConfig({
  test: {
    // The modules vitest transformed, kept in .cache/ between runs (as the conformance CLI keeps them): a second run transforms only what changed.
    ...moduleCache(),
    // A log (CI, a pipe) otherwise shows a file only when it ends: a line whenever it goes 20 s silent.
    reporters: ['default', new ProgressReporter()],
    // Room for a machine shared with other work: vitest's 5 s default failed tests that take 1 s
    // alone. A test that needs more says so; these catch a hang, they are no speed target.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The files known to be long first, also on a fresh clone with no durations of a last run.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['spec/**/*.test.ts', 'fake-server/**/*.test.ts', 'fixtures/**/*.test.ts', 'suites/framework/**/*.test.ts', 'suites/meta/**/*.test.ts', 'suites/report/**/*.test.ts', 'suites/hostile/**/*.test.ts', 'suites/explore/**/*.test.ts', 'scripts/**/*.test.ts'],
          // The exploration inside the conformance run is a conformance test, not a unit test.
          exclude: [...configDefaults.exclude, EXPLORATION_TEST, ...FULL_ONLY, ...(quick ? QUICK_EXCLUDED : [])],
          // A worker per core and one more: vitest's default keeps one core for its main process, which
          // mostly waits, so a 2-core machine ran one test file at a time; and many meta-test files wait
          // on child processes and timeouts, holding a worker while the cores idle. On 2 cores, 3 workers
          // ran npm test in 300 s against 319 s for 2, with the same CPU time (two fresh clones each, 2026-12-06).
          maxWorkers: availableParallelism() + 1,
          // Each worker loads a module once for all the files it runs: a fresh module environment
          // per file (the default) was 40% of the CPU time of the files test:quick runs, mostly
          // loading zod, the spec and the fake again. A file that changes what others share (the
          // environment, a module's state) puts it back before it ends.
          isolate: false,
          // The conformance runs the tests start explore 3 s alone once their scenarios are done, not
          // a vendor's 10 s or more (suites/explore/exploration.test.ts): tens of runs would each pay
          // the difference. suites/meta/child-env.ts passes it to the runs' processes.
          // BESI_TEST_RUN names this `vitest run`: its workers share one healthy run of the scenarios (suites/meta/against-fake.ts).
          env: { CONFORMANCE_EXPLORE_SECONDS: process.env['CONFORMANCE_EXPLORE_SECONDS'] ?? '3', BESI_TEST_RUN: `${Date.now()}-${process.pid}` },
          // After the conformance project (test:full): projects of one group must share a worker
          // count, and the run's deadline (CONFORMANCE_RUN_TIMEOUT_MS) starts at its global setup, so
          // the scenarios go first rather than after however long the unit files take.
          sequence: { groupOrder: 1 },
        },
      },
      // The whole suite against the embedded fake, as `npm run conformance` runs it, on one worker
      // (conformance-project.ts) before the unit files: in test:full only. npm test proves the same
      // twice over, for less: can-fail's "the healthy fake fails no rule" runs every scenario
      // in-process, and cleanup.test.ts runs the whole suite by URL through the CLI, which uses this
      // project, exploration included (22 CPU-s, and a core mostly idle while it ran alone).
      ...(full ? [{ extends: true as const, test: { ...conformanceProject } }] : []),
    ],
  },
});
