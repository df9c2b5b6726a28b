// Mutation testing of the fake's domain and store, with the conformance scenarios as the tests
// (suites/meta/mutation/scenarios.mutation.ts). `npm run mutation`; docs/mutation-testing.md.
// MUTATE=<globs, comma-separated> narrows the run, e.g. MUTATE=fake-server/domain/licenses.ts.
const ALL = ['fake-server/domain/**/*.ts', 'fake-server/store/**/*.ts', '!**/*.test.ts', '!fake-server/domain/testing.ts'];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'suites/meta/mutation/vitest.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: process.env['MUTATE'] ? process.env['MUTATE'].split(',') : ALL,
  plugins: ['@stryker-mutator/*', './suites/meta/mutation/error-message-ignorer.mjs', './suites/meta/mutation/survivor-reporter.mjs'],
  ignorers: ['error-message'],
  checkers: ['typescript'],
  tsconfigFile: 'suites/meta/mutation/tsconfig.json',
  // The machine is shared; one test runner and one checker.
  concurrency: 1,
  reporters: ['html', 'json', 'clear-text', 'progress', 'survivors'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
};
