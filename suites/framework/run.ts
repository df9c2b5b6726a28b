/**
 * The main-process side of a run. vitest runs test files in several worker processes, but a run
 * must have one seed, one namespace and (without BASE_URL) one fake. So the suite's global setup
 * calls `setupRun` once: it loads the configuration, boots the fake when no target is given, and
 * hands the outcome to the workers with `project.provide`; `createTarget` reads it back with
 * `inject`. This module imports nothing from vitest's runtime, so a global setup can load it.
 */
import { loadConfig, type LoadConfigOptions } from './config.ts';

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
}

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
 * Returns the teardown, which stops the fake if it booted one.
 */
export async function setupRun(
  project: { provide(key: 'conformance:run', value: RunInfo | undefined): void },
  options: { readonly startFake: () => Promise<StartedFake> } & LoadConfigOptions,
): Promise<() => Promise<void>> {
  const config = loadConfig(options);
  if (config.baseUrl !== undefined) {
    project.provide('conformance:run', { baseUrl: config.baseUrl, seed: config.seed, salt: new Date().toISOString(), kind: 'deployment' });
    return async () => {};
  }
  const fake = await options.startFake();
  const otherTenant = fake.otherTenantApiKey === undefined ? {} : { otherTenantApiKey: fake.otherTenantApiKey };
  project.provide('conformance:run', { baseUrl: fake.url, apiKey: fake.apiKey, ...otherTenant, seed: config.seed, salt: '', kind: 'fake' });
  return () => fake.close();
}
