/**
 * The conformance vitest project, defined once: vitest.config.ts lists it next to the unit tests
 * (for `npm test`), and the conformance CLI (suites/cli.ts) starts vitest with it alone.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONFORMANCE_PROJECT = 'conformance';

/** The directory the project's paths are relative to (the repository, or the installed package). */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `ts` in the repository, `js` when this module runs compiled (the package's dist/). */
export const SOURCE_EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

/** The node arguments that run the conformance CLI: in the repository its launcher (suites/cli.mjs: vitest loaded before tsx), compiled in the package. */
export const CLI_COMMAND: readonly string[] = [fileURLToPath(new URL(SOURCE_EXT === 'ts' ? './cli.mjs' : './cli.js', import.meta.url))];

/** The short exploration every conformance run ends with (suites/explore/), reported like a scenario. */
export const EXPLORATION_TEST = `suites/explore/exploration.test.${SOURCE_EXT}`;

export const conformanceProject = {
  name: CONFORMANCE_PROJECT,
  include: [`suites/scenarios/**/*.test.${SOURCE_EXT}`, EXPLORATION_TEST],
  globalSetup: [`suites/global-setup.${SOURCE_EXT}`],
  // One worker and one module environment for every scenario file: vitest then collects them all
  // before running any, and the run's plan (suites/framework/schedule.ts) sees every file's scenarios
  // and runs them side by side (`concurrency`), those that move the clock or change tenant-wide
  // settings alone. Files in several workers would each schedule their own, and overlap.
  fileParallelism: false,
  // The scenario files share nothing at module level but the (stateless) spec and framework and the
  // run's plan; a fresh module environment per file was also most of the suite's time (issue 10).
  isolate: false,
};

/**
 * Where vitest keeps the modules it transformed (its `experimental.fsModuleCache`): a run after the
 * first loads the suite's modules without transforming them again (a short run: 7.8 CPU-s, not 9.5).
 * Inside the project (a scratch clone's cache goes with it; the repository ignores `.cache/`);
 * vitest keys each module by its path and content, so an edited file is transformed anew. Where the
 * directory cannot be written (a read-only install), vitest transforms every module as before.
 */
export function moduleCache(): { experimental?: { fsModuleCache: boolean; fsModuleCachePath: string } } {
  const path = join(PROJECT_ROOT, '.cache', 'vitest-modules');
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.W_OK);
  } catch {
    return {};
  }
  return { experimental: { fsModuleCache: true, fsModuleCachePath: path } };
}
