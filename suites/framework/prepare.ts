/**
 * What a run learns about its target once, in the main process (the suite's global setup), before
 * any test file starts: its capabilities (the probes run once for the whole run, not once per file)
 * and which delete operations it serves. A probe of the deletes makes one record of each kind that
 * has a delete, and the probes' records are cleaned up at once with every delete tried: the kinds
 * none of whose records could be removed are the target's unserved deletes, which no test file then
 * tries. In reuse mode the namespace's leftovers of earlier runs are looked for and removed first.
 * This module imports nothing from vitest's runtime, so a global setup can load it.
 */
import type { z } from 'zod';
import { type CapabilitySet, type Probe, type ProbedCapability, reportCapabilities, resolveCapabilities } from './capabilities.ts';
import { answerRecorder, type CleanupPlan, keepProbeCleanup, mergeCleanups } from './cleanup.ts';
import { type Client, createClient, type OperationTable } from './client.ts';
import type { ConformanceConfig } from './config.ts';
import { EvidenceLog } from './evidence.ts';
import { transportLimits } from './guard.ts';
import { type CleanupReport, Ledger } from './ledger.ts';
import { createNamespace, type Namespace } from './namespace.ts';
import type { RunInfo, RunPreparation } from './run.ts';
import { join } from 'node:path';

/** What a probe works with: a client whose answers are recorded for cleanup, and a namespace scope of its own. */
export interface ProbeContext<Ops extends OperationTable, E extends z.ZodType> {
  readonly client: Client<Ops, E>;
  readonly ns: Namespace;
}

export type TargetProbes<Ops extends OperationTable, E extends z.ZodType> = Partial<Record<ProbedCapability, (context: ProbeContext<Ops, E>) => Promise<string | undefined>>>;

/** The scope every probe's records are made in. */
export const PROBE_SCOPE = 'capability-probe';

/** The run's namespace: the configured prefix, the run's seed and salt, or the reuse name. */
export function runNamespace(config: Pick<ConformanceConfig, 'namespacePrefix' | 'reuseNamespace'>, run: Pick<RunInfo, 'seed' | 'salt'>): Namespace {
  return createNamespace({ prefix: config.namespacePrefix, seed: run.seed, salt: run.salt, reuse: config.reuseNamespace });
}

/** Binds the probes to a context: what `resolveCapabilities` takes. */
export function boundProbes<Ops extends OperationTable, E extends z.ZodType>(probes: TargetProbes<Ops, E>, context: ProbeContext<Ops, E>): Partial<Record<ProbedCapability, Probe>> {
  return Object.fromEntries(Object.entries(probes).map(([capability, probe]): [string, Probe] => [capability, () => probe!(context)]));
}

export interface PrepareOptions<Ops extends OperationTable, E extends z.ZodType> extends CleanupPlan<Client<Ops, E>> {
  readonly operations: Ops;
  readonly errorBody: E;
  readonly probes?: TargetProbes<Ops, E>;
  /** Makes one record of each kind that has a delete (recorded through the context's client), so cleaning them up probes every delete. */
  readonly probeDeletes?: (context: ProbeContext<Ops, E>) => Promise<void>;
}

export interface Preparation {
  readonly capabilities: CapabilitySet;
  /** Delete operations the target does not serve. */
  readonly unserved: readonly string[];
  /** The probes' cleanup (and in reuse mode, what earlier runs left and this one removed). */
  readonly cleanup: CleanupReport;
}

/**
 * Probes the target for a run: capabilities, then (unless read-only) the deletes, cleaning up every
 * probe record at once. `workDir`: where the cleanup waits for the test file that reports it.
 */
export async function prepareRun<Ops extends OperationTable, E extends z.ZodType>(
  config: ConformanceConfig,
  run: RunInfo,
  workDir: string,
  options: PrepareOptions<Ops, E>,
): Promise<RunPreparation> {
  const apiKey = run.kind === 'fake' ? (run.apiKey ?? config.apiKey) : config.apiKey;
  const otherTenantApiKey = run.kind === 'fake' ? (run.otherTenantApiKey ?? config.otherTenantApiKey) : config.otherTenantApiKey;
  if (apiKey === undefined) throw new Error(`no API key for ${run.baseUrl}`);
  const client = createClient({
    baseUrl: run.baseUrl,
    apiKey,
    apiVersion: config.apiVersion,
    timeoutMs: config.timeoutMs,
    operations: options.operations,
    errorBody: options.errorBody,
    evidence: new EvidenceLog({ secrets: [apiKey, ...(otherTenantApiKey === undefined ? [] : [otherTenantApiKey])], capacity: 100 }),
    ...transportLimits(config, run, undefined),
  });
  try {
    const prepared = await probeTarget({ ...config, otherTenantApiKey }, client, runNamespace(config, run), { ...options, earlierRuns: true });
    const probeCleanupFile = join(workDir, 'probe-cleanup.json');
    keepProbeCleanup(probeCleanupFile, prepared.cleanup);
    return { capabilities: reportCapabilities(prepared.capabilities), unserved: prepared.unserved, probeCleanupFile };
  } finally {
    await client.close();
  }
}

/**
 * The probing itself, on a client that records nothing (also what a target without a global setup
 * does for itself). `earlierRuns`: in reuse mode, first remove what earlier runs of the name left;
 * only the run's one preparation may, a test file would sweep its sibling files' records.
 */
export async function probeTarget<Ops extends OperationTable, E extends z.ZodType>(
  config: ConformanceConfig & { readonly otherTenantApiKey?: string | undefined },
  client: Client<Ops, E>,
  ns: Namespace,
  options: Omit<PrepareOptions<Ops, E>, 'operations' | 'errorBody'> & { readonly earlierRuns?: boolean },
): Promise<Preparation> {
  const ledger = new Ledger<Client<Ops, E>>(ns, options.cleanup, { order: options.order ?? [] });
  const probeNs = ns.scope(PROBE_SCOPE);
  // Reuse mode: what earlier runs of this name left (a killed run, a refused delete) goes first.
  const earlier = options.earlierRuns === true && ns.reused && !config.profile.readOnly ? await ledger.cleanup(client, ns.owns) : undefined;
  const context: ProbeContext<Ops, E> = { client: client.with({ onAnswer: answerRecorder(options.creates ?? {}, ns, ledger.forScenario(PROBE_SCOPE)) }), ns: probeNs };
  const capabilities = await resolveCapabilities(config, client, boundProbes(options.probes ?? {}, context));
  if (!config.profile.readOnly && options.probeDeletes !== undefined) await options.probeDeletes(context).catch(() => undefined);
  const cleanup = await ledger.cleanup(client, config.profile.readOnly ? undefined : probeNs.madeHere);
  return { capabilities, unserved: unservedRemovals(ledger, cleanup), cleanup: earlier === undefined ? cleanup : mergeCleanups(earlier, cleanup) };
}

/** The removal operations of the kinds a cleanup had records of and could remove none of. */
function unservedRemovals<C>(ledger: Ledger<C>, report: CleanupReport): string[] {
  const tried = new Set([...report.undone, ...report.failed, ...report.left].map(({ entry }) => entry.kind));
  const removed = new Set(report.undone.map(({ entry }) => entry.kind));
  return [...ledger.removals()].filter(([kind]) => tried.has(kind) && !removed.has(kind)).map(([, operation]) => operation);
}
