/**
 * The main-process side of a run. vitest runs test files in several worker processes, but a run
 * must have one seed, one namespace and (without BASE_URL) one fake. So the suite's global setup
 * calls `setupRun` once: it loads the configuration, boots the fake when no target is given, and
 * hands the outcome to the workers with `project.provide`; `createTarget` reads it back with
 * `inject`. This module imports nothing from vitest's runtime, so a global setup can load it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CapabilityReport } from './capabilities.ts';
import type { JournalInfo } from './cleanup.ts';
import { checkLiveKey, ConfigError, loadConfig, type ConformanceConfig, type LoadConfigOptions } from './config.ts';
import { journalPath } from './journal.ts';
import { runNamespace } from './namespace.ts';

/** Internal: a run against the embedded fake journals what it creates into this file (suites/cleanup-command.ts). */
export const LEARN_IDS = 'BESI_CONFORMANCE_LEARN_IDS';

/** What the main process decided for the whole run. */
export interface RunInfo {
  readonly baseUrl: string;
  /** Only for a fake the run booted (its key); a deployment's key stays in the environment. */
  readonly apiKey?: string;
  /** Only for a fake the run booted: its key of another tenant, for the tenant-isolation scenario. */
  readonly otherTenantApiKey?: string;
  readonly seed: number;
  /** Namespace salt: empty for a fresh fake (reproducible IDs), the start time for a deployment. */
  readonly salt: string;
  readonly kind: 'fake' | 'deployment';
  /** Epoch ms: nothing is sent after this (CONFORMANCE_RUN_TIMEOUT_MS from the start of the run). Set by setupRun. */
  readonly deadline?: number;
  /** The run guard's state file, shared by every test file (see guard.ts). Set by setupRun. */
  readonly guardFile?: string;
  /** The target's capabilities, probed once for the whole run (prepare.ts); absent: each target probes its own. */
  readonly capabilities?: CapabilityReport;
  /** Operations the cleanup must not try: the target does not serve them (probed once per run). */
  readonly unserved?: readonly string[];
  /** Where the cleanup of the run's probes waits for the one test file that reports it (cleanup.ts). */
  readonly probeCleanupFile?: string;
  /**
   * The run journal (journal.ts): only for a target by URL that the run may change. Its path is known
   * from the start (an interrupted setup still finds it); prepare.ts adds what earlier runs left.
   */
  readonly journal?: JournalInfo;
}

/** What a run learns about its target once, in the main process, for every test file (prepare.ts). */
export type RunPreparation = Pick<RunInfo, 'capabilities' | 'unserved' | 'probeCleanupFile' | 'journal'>;

declare module 'vitest' {
  interface ProvidedContext {
    'conformance:run': RunInfo | undefined;
  }
}

export interface StartedFake {
  readonly url: string;
  readonly apiKey: string;
  readonly otherTenantApiKey?: string | undefined;
  close(): Promise<void>;
}

/**
 * For the suite's vitest global setup (main process):
 * `export default (project) => setupRun(project, { startFake: () => … })`.
 * Prints the configuration's warnings, refuses a live key that would change data (DESIGN.md
 * decision 9), starts the run's clock (its deadline) and its guard. Returns the teardown, which
 * stops the fake if it booted one.
 */
export async function setupRun(
  project: { provide(key: 'conformance:run', value: RunInfo | undefined): void },
  options: {
    readonly startFake: () => Promise<StartedFake>;
    readonly warn?: (line: string) => void;
    /** Probes the target once for the whole run (its capabilities, the deletes it serves), given the run decided so far. */
    readonly prepare?: (run: RunInfo, config: ConformanceConfig, workDir: string) => Promise<RunPreparation>;
  } & LoadConfigOptions,
): Promise<() => Promise<void>> {
  const config = loadConfig(options);
  const warn = options.warn ?? ((line: string) => console.warn(`conformance: ${line}`));
  for (const warning of config.warnings) warn(warning);
  const live = checkLiveKey(config);
  if (!live.ok) throw new ConfigError(live.message);

  const guardDir = mkdtempSync(join(tmpdir(), 'conformance-guard-'));
  const guard = { deadline: Date.now() + config.runTimeoutMs, guardFile: join(guardDir, 'state.json') };
  const removeGuard = () => rmSync(guardDir, { recursive: true, force: true });
  const provide = async (run: RunInfo) => {
    // Provided at once, then again once prepared: a run stopped during its preparation still knows its journal.
    project.provide('conformance:run', run);
    project.provide('conformance:run', { ...run, ...(await options.prepare?.(run, config, guardDir)) });
  };
  if (config.baseUrl !== undefined) {
    const run = { baseUrl: config.baseUrl, seed: config.seed, salt: new Date().toISOString() };
    const journal = config.profile.readOnly ? {} : { journal: { path: journalPath(config.stateDir, runNamespace(config, run).root) } };
    await provide({ ...run, kind: 'deployment', ...guard, ...journal }).catch((error: unknown) => {
      removeGuard();
      throw error;
    });
    return async () => removeGuard();
  }
  const fake = await options.startFake();
  const otherTenant = fake.otherTenantApiKey === undefined ? {} : { otherTenantApiKey: fake.otherTenantApiKey };
  const teardown = async () => {
    removeGuard();
    await fake.close();
  };
  // `besi-conformance cleanup` learns the IDs a reuse namespace makes from a run against the fake that journals them.
  const learning = process.env[LEARN_IDS] ? { journal: { path: process.env[LEARN_IDS] } } : {};
  await provide({ baseUrl: fake.url, apiKey: fake.apiKey, ...otherTenant, seed: config.seed, salt: '', kind: 'fake', ...guard, ...learning }).catch(async (error: unknown) => {
    await teardown();
    throw error;
  });
  return teardown;
}
