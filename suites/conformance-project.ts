/**
 * The conformance vitest project, defined once: vitest.config.ts lists it next to the unit tests
 * (for `npm test`), and the conformance CLI (suites/cli.ts) starts vitest with it alone.
 */
import { fileURLToPath } from 'node:url';

export const CONFORMANCE_PROJECT = 'conformance';

/** The directory the project's paths are relative to (the repository, or the installed package). */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `ts` in the repository, `js` when this module runs compiled (the package's dist/). */
const EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export const conformanceProject = {
  name: CONFORMANCE_PROJECT,
  include: [`suites/scenarios/**/*.test.${EXT}`],
  globalSetup: [`suites/global-setup.${EXT}`],
  // One target, one clock: scenarios that move the fake's clock or change tenant-wide settings
  // must not interleave with others, so scenario files run one after another.
  fileParallelism: false,
};
