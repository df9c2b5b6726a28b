/**
 * The conformance vitest project, defined once: vitest.config.ts lists it next to the unit tests
 * (for `npm test`), and the conformance CLI (suites/cli.ts) starts vitest with it alone.
 */
import { fileURLToPath } from 'node:url';

export const CONFORMANCE_PROJECT = 'conformance';

/** The directory the project's paths are relative to (the repository, or the installed package). */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

export const conformanceProject = {
  name: CONFORMANCE_PROJECT,
  include: ['suites/scenarios/**/*.test.ts'],
  globalSetup: ['suites/global-setup.ts'],
  // One target, one clock: scenarios that move the fake's clock or change tenant-wide settings
  // must not interleave with others, so scenario files run one after another.
  fileParallelism: false,
};
