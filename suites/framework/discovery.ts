/**
 * Which scenarios the rest of the run holds, before vitest gets to them. vitest 4 collects and runs
 * a worker's test files one at a time, so a plan fed only by each file's registerScenarios would run
 * the files' scenarios side by side within a file but never across files, and every file's tail
 * (its longest scenario, its cleanup) would hold up the next. So when the first scenario file of a
 * worker registers, the files the worker will run after it are imported once more, each under its
 * own module URL (`?conformance-discovery`) and inside this module's async context: their
 * `registerScenarios(list, await target())` then hands its list and target to the run's plan instead
 * of registering tests (scenario.ts), and the plan starts them with the others. When vitest collects
 * such a file, its tests wait for the scenarios already running.
 *
 * An entry file must do nothing at top level but build its target and register its scenarios (what
 * suites/scenarios/** entries do): anything else would run twice. Discovery applies only where the
 * worker runs its files in one module graph (`isolate: false`) and selects tests by name alone
 * (`-t`, the CLI's `--only`); otherwise each file's scenarios run when vitest collects it. The
 * worker's file list is vitest's own worker state, read defensively: without it, no discovery.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pathToFileURL } from 'node:url';

/** A test file the worker will run, and the names of the tests it runs there (undefined: all). */
export interface PlannedFile {
  readonly filepath: string;
  readonly testNamePattern: RegExp | undefined;
}

const discovering = new AsyncLocalStorage<PlannedFile>();

/** The file whose discovery import is running here (its registerScenarios must not register tests), if any. */
export function discoveringFile(): PlannedFile | undefined {
  return discovering.getStore();
}

interface WorkerStateView {
  readonly config?: { readonly isolate?: boolean; readonly testNamePattern?: RegExp | string };
  readonly ctx?: {
    readonly files?: readonly {
      readonly filepath: string;
      readonly testNamePattern?: RegExp | string;
      readonly testIds?: readonly string[];
      readonly testLocations?: readonly number[];
      readonly testTagsFilter?: unknown;
    }[];
  };
}

/** vitest's state of this worker (`globalThis.__vitest_worker__`); undefined outside a worker or when its shape changed. */
function workerState(): WorkerStateView | undefined {
  const state = (globalThis as { __vitest_worker__?: WorkerStateView }).__vitest_worker__;
  return Array.isArray(state?.ctx?.files) ? state : undefined;
}

function asPattern(pattern: RegExp | string | undefined): RegExp | undefined {
  return pattern === undefined || pattern === '' ? undefined : typeof pattern === 'string' ? new RegExp(pattern) : pattern;
}

/**
 * The files this worker runs after `current`, in order, when they can be discovered: the worker runs
 * them in one module graph and selects their tests by name alone. Empty otherwise.
 */
export function filesAfter(current: string): PlannedFile[] {
  const state = workerState();
  if (state === undefined || state.config?.isolate !== false) return [];
  const files = state.ctx!.files!;
  const at = files.findIndex((file) => file.filepath === current);
  if (at === -1) return [];
  return files
    .slice(at + 1)
    .filter((file) => (file.testIds?.length ?? 0) === 0 && (file.testLocations?.length ?? 0) === 0 && file.testTagsFilter === undefined)
    .map((file) => ({ filepath: file.filepath, testNamePattern: asPattern(file.testNamePattern ?? state.config?.testNamePattern) }));
}

/** Imports a test file once more, under its own module URL, with `discoveringFile()` naming it. Resolves when its top level has run. */
export async function discover(file: PlannedFile): Promise<void> {
  await discovering.run(file, () => import(`${pathToFileURL(file.filepath).href}?conformance-discovery`));
}
