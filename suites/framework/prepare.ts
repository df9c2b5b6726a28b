/**
 * What a run learns about its target once, in the main process (the suite's global setup), before
 * any test file starts: its capabilities (the probes run once for the whole run, not once per file)
 * and which delete operations it serves. A probe of the deletes makes one record of each kind that
 * has a delete, and the probes' records are cleaned up at once with every delete tried: the kinds
 * none of whose records could be removed are the target's unserved deletes, which no test file then
 * tries. In reuse mode the namespace's leftovers of earlier runs are looked for and removed first,
 * and every run by URL ends with a sweep of its journal (`sweepRun`), also `besi-conformance cleanup`'s.
 * This module imports nothing from vitest's runtime, so a global setup can load it.
 */
import type { z } from 'zod';
import { type CapabilitySet, type Probe, type ProbedCapability, reportCapabilities, resolveCapabilities } from './capabilities.ts';
import { answerRecorder, type CleanupPlan, type JournalInfo, journalHooks, keepProbeCleanup, mergeCleanups } from './cleanup.ts';
import { type Client, createClient, type OperationTable } from './client.ts';
import type { ConformanceConfig } from './config.ts';
import { EvidenceLog } from './evidence.ts';
import { runGuardFor, transportLimits } from './guard.ts';
import { Journal } from './journal.ts';
import { type CleanupReport, type KindCleanup, Ledger, type LedgerEntry } from './ledger.ts';
import { type Namespace, runNamespace } from './namespace.ts';
import type { RunInfo, RunPreparation } from './run.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** What a probe works with: a client whose answers are recorded for cleanup, and a namespace scope of its own. */
export interface ProbeContext<Ops extends OperationTable, E extends z.ZodType> {
  readonly client: Client<Ops, E>;
  readonly ns: Namespace;
}

export type TargetProbes<Ops extends OperationTable, E extends z.ZodType> = Partial<Record<ProbedCapability, (context: ProbeContext<Ops, E>) => Promise<string | undefined>>>;

/** The scope every probe's records are made in. */
export const PROBE_SCOPE = 'capability-probe';


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
  /** Writes into the journal at `path` every ID reuse namespace `name` makes, as records that may remain (learn-ids.ts). */
  readonly learn?: (name: string, path: string) => Promise<void>;
}

export interface Preparation {
  readonly capabilities: CapabilitySet;
  /** Delete operations the target does not serve. */
  readonly unserved: readonly string[];
  /** The probes' cleanup. */
  readonly cleanup: CleanupReport;
}

/** A client of the main process for the run's target (its key, version and limits), recording nothing. */
function mainClient<Ops extends OperationTable, E extends z.ZodType>(config: ConformanceConfig, run: RunInfo, options: Pick<PrepareOptions<Ops, E>, 'operations' | 'errorBody'>, guarded = true): { client: Client<Ops, E>; apiKey: string; otherTenantApiKey: string | undefined } {
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
    ...(guarded ? transportLimits(config, run, undefined) : sweepLimits(config, run)),
  });
  return { client, apiKey, otherTenantApiKey };
}

/**
 * The limits of the run's last sweep: it goes on after the run's deadline (what the run made must
 * go), with a fail-fast count of its own; where the run found the target dead (its count reached),
 * one unanswered request ends the sweep, and one answered shows the target back.
 */
function sweepLimits(config: ConformanceConfig, run: RunInfo): ReturnType<typeof transportLimits> {
  const dead = run.guardFile !== undefined && runGuardFor(config, run).state().consecutiveFailures >= config.maxNetworkFailures;
  return transportLimits({ ...config, maxNetworkFailures: dead ? 1 : config.maxNetworkFailures }, { deadline: Number.MAX_SAFE_INTEGER }, undefined);
}

/**
 * Probes the target for a run: capabilities, then (unless read-only) the deletes, cleaning up every
 * probe record at once. `workDir`: where the cleanup waits for the test file that reports it. With a
 * journal (a target by URL), a reuse namespace first removes what earlier runs left (the journal's
 * records, and what the target lists of the namespace), and tells the test files what stays.
 */
export async function prepareRun<Ops extends OperationTable, E extends z.ZodType>(
  config: ConformanceConfig,
  run: RunInfo,
  workDir: string,
  options: PrepareOptions<Ops, E>,
): Promise<RunPreparation> {
  const { client, apiKey, otherTenantApiKey } = mainClient(config, run, options);
  const ns = runNamespace(config, run);
  try {
    const survived = run.journal !== undefined && existsSync(run.journal.path);
    const journal = run.journal === undefined ? undefined : new Journal(run.journal.path, { reuse: config.reuseNamespace });
    let earlier: CleanupReport | undefined;
    let info: JournalInfo | undefined = run.journal;
    if (journal !== undefined && ns.reused) {
      // No journal of earlier runs (a first night, a lost CI cache): the IDs the namespace makes are learnt, so every one's delete is tried.
      if (!survived && run.kind === 'deployment') await options.learn?.(config.reuseNamespace!, journal.path);
      earlier = await sweepJournal(client, ns, journal, { plan: options });
      journal.compact();
      info = { path: journal.path, present: [...earlier.left, ...earlier.failed].map(({ entry }) => entry) };
    }
    const prepared = await probeTarget({ ...config, otherTenantApiKey }, client, ns, { ...options, ...(journal && info ? { journal: { info, journal, apiKey } } : {}) });
    const probeCleanupFile = join(workDir, 'probe-cleanup.json');
    keepProbeCleanup(probeCleanupFile, earlier === undefined ? prepared.cleanup : mergeCleanups(earlier, prepared.cleanup));
    return { capabilities: reportCapabilities(prepared.capabilities), unserved: prepared.unserved, probeCleanupFile, ...(info ? { journal: info } : {}) };
  } finally {
    await client.close();
  }
}

/**
 * The probing itself, on a client that records nothing (also what a target without a global setup
 * does for itself). `journal`: the run's, which the probes' records go into.
 */
export async function probeTarget<Ops extends OperationTable, E extends z.ZodType>(
  config: ConformanceConfig & { readonly otherTenantApiKey?: string | undefined },
  client: Client<Ops, E>,
  ns: Namespace,
  options: Omit<PrepareOptions<Ops, E>, 'operations' | 'errorBody'> & { readonly journal?: { readonly info: JournalInfo; readonly journal: Journal; readonly apiKey: string } },
): Promise<Preparation> {
  const journal = options.journal;
  const ledger = new Ledger<Client<Ops, E>>(ns, options.cleanup, { order: options.order ?? [], ...(journal ? { journal: journal.journal } : {}) });
  const probeNs = ns.scope(PROBE_SCOPE);
  const hooks = journal && journalHooks(journal.info, journal.journal, { creates: options.creates ?? {}, ns, apiKey: journal.apiKey, plan: options, client: () => client });
  const recorder = answerRecorder(options.creates ?? {}, ns, ledger.forScenario(PROBE_SCOPE), journal?.apiKey);
  const probing = hooks ? client.with({ onSend: hooks.onSend, onAnswer: hooks.onAnswer }).with({ onAnswer: recorder }) : client.with({ onAnswer: recorder });
  const context: ProbeContext<Ops, E> = { client: probing, ns: probeNs };
  const capabilities = await resolveCapabilities(config, client, boundProbes(options.probes ?? {}, context));
  if (!config.profile.readOnly && options.probeDeletes !== undefined) await options.probeDeletes(context).catch(() => undefined);
  const cleanup = await ledger.cleanup(client, config.profile.readOnly ? undefined : probeNs.madeHere);
  return { capabilities, unserved: unservedRemovals(ledger, cleanup), cleanup };
}

/**
 * Removes what a journal says may remain, dependents first: the records it knows to exist, those
 * whose create got no answer or a refusal where the target still holds them (a listing, a read or a
 * delete decides), and what the target lists of the namespace that the journal missed. Records that
 * never were are marked so and not counted. What stays is in the report's `left` and `failed`.
 */
export async function sweepJournal<C>(
  client: C,
  ns: Pick<Namespace, 'owns' | 'root'>,
  journal: Journal,
  options: { readonly plan: CleanupPlan<C>; readonly unserved?: ReadonlySet<string> },
): Promise<CleanupReport> {
  const kinds = Object.fromEntries(Object.entries(options.plan.cleanup).map(([kind, cleanup]) => [kind, typeof cleanup === 'function' ? { remove: cleanup } : cleanup])) as Record<string, KindCleanup<C>>;
  const listed = new Map<string, Set<string>>();
  const found: LedgerEntry[] = [];
  for (const [kind, cleanup] of Object.entries(kinds)) {
    if (cleanup.list === undefined) continue;
    const entries = await cleanup.list(client, ns.root).catch(() => undefined);
    if (entries === undefined) continue;
    listed.set(kind, new Set(entries.filter((e) => e.kind === kind).map((e) => e.id)));
    found.push(...entries.filter((e) => ns.owns(e.id)));
  }
  const ledger = new Ledger<C>(ns, options.plan.cleanup, { order: options.plan.order ?? [], ...(options.unserved ? { unserved: options.unserved } : {}), journal });
  const never: LedgerEntry[] = [];
  for (const record of journal.outstanding()) {
    if (!ns.owns(record.entry.id)) continue;
    const known = record.state === 'made' || record.state === 'left' || record.state === 'failed';
    const there = known ? true : await maybeThere(record.entry, kinds[record.entry.kind], listed.get(record.entry.kind), client);
    if (there === false) never.push(record.entry);
    else ledger.record(record.entry);
  }
  journal.write('removed', never, 'never made');
  for (const entry of found) ledger.record(entry);
  return ledger.cleanup(client);
}

/** Whether a record whose create got no answer, or a refusal, is there: the listing says, else a read; undefined when neither can tell. */
async function maybeThere<C>(entry: LedgerEntry, cleanup: KindCleanup<C> | undefined, listed: ReadonlySet<string> | undefined, client: C): Promise<boolean | undefined> {
  if (listed !== undefined) return listed.has(entry.id);
  return cleanup?.exists === undefined ? undefined : cleanup.exists(entry, client).catch(() => undefined);
}

/**
 * The run's last cleanup, in the main process once its test files are done or were stopped: what
 * the journal says may remain is removed, and the journal keeps only what stays. `signal` stops it
 * (what it did not reach is reported as not removed). Nothing for a run without a journal.
 */
export async function sweepRun<Ops extends OperationTable, E extends z.ZodType>(
  config: ConformanceConfig,
  run: RunInfo,
  options: PrepareOptions<Ops, E>,
  signal?: AbortSignal,
): Promise<CleanupReport | undefined> {
  if (run.journal === undefined || !existsSync(run.journal.path)) return undefined;
  const { client } = mainClient(config, run, options, false);
  const journal = new Journal(run.journal.path);
  try {
    const ns = runNamespace(config, run);
    const report = await sweepJournal(signal ? client.with({ signal }) : client, ns, journal, { plan: options, unserved: new Set(run.unserved ?? []) });
    journal.compact();
    return report;
  } finally {
    await client.close();
  }
}

/** The removal operations of the kinds a cleanup had records of and could remove none of. */
function unservedRemovals<C>(ledger: Ledger<C>, report: CleanupReport): string[] {
  const tried = new Set([...report.undone, ...report.failed, ...report.left].map(({ entry }) => entry.kind));
  const removed = new Set(report.undone.map(({ entry }) => entry.kind));
  return [...ledger.removals()].filter(([kind]) => tried.has(kind) && !removed.has(kind)).map(([, operation]) => operation);
}
