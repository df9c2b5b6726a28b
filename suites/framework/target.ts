/**
 * The target a test file talks to: clients, capability set, namespace and ledger, built from the
 * configuration and from what the run's global setup decided (see run.ts), read back with `inject`.
 */
import type { Dispatcher } from 'undici';
import { inject } from 'vitest';
import type { z } from 'zod';
import type { ConventionBreach } from './checks.ts';
import { capabilitiesFrom, type CapabilitySet } from './capabilities.ts';
import { answerRecorder, claimProbeCleanup, type CleanupPlan, type Creates, journalHooks, mergeCleanups } from './cleanup.ts';
import { createClient, type Client, type OperationTable } from './client.ts';
import { ConfigError, concurrencyNow, ENV_VARS, loadConfig, mostConcurrency, type ConformanceConfig } from './config.ts';
import { ControlClient } from './control-client.ts';
import { EvidenceLog } from './evidence.ts';
import type { HeaderOverrides } from './http.ts';
import { transportLimits } from './guard.ts';
import { Journal } from './journal.ts';
import { Ledger, type CleanupReport } from './ledger.ts';
import type { Namespace } from './namespace.ts';
import { probeConventions } from './preflight.ts';
import { runNamespace } from './namespace.ts';
import { probeTarget, type TargetProbes } from './prepare.ts';
import { limiterFor } from './rate-limit.ts';
import type { RetryPolicy } from './retry.ts';
import type { RunInfo } from './run.ts';

/** Identifies the target in reports; carries no secret. */
export interface TargetInfo {
  readonly baseUrl: string;
  readonly kind: 'fake' | 'deployment';
  readonly apiVersion: string;
  readonly seed: number;
  readonly profile: string;
  readonly readOnly: boolean;
}

export interface Target<Ops extends OperationTable, E extends z.ZodType> {
  readonly config: ConformanceConfig;
  readonly info: TargetInfo;
  readonly client: Client<Ops, E>;
  /** Present when the capability set has `control-plane`. */
  readonly control: ControlClient | undefined;
  /** A secret key of another tenant of the target; present when the capability set has `other-tenant`. */
  readonly otherTenantApiKey: string | undefined;
  /** The run's own key, for raw calls that send it in other forms (redacted in the evidence). */
  readonly apiKey: string;
  /** Another caller some of every scenario's calls are sent as (scenario.ts). */
  readonly mixedCaller: MixedCaller | undefined;
  readonly capabilities: CapabilitySet;
  /**
   * How many scenarios run at once now: the configured number; the default one doubled once the
   * target's answers take FAR_TARGET_MS or more (scenario.ts reads it whenever one ends).
   */
  concurrency(): number;
  /** The run's namespace; each scenario gets `ns.scope(scenario.id)`. */
  readonly ns: Namespace;
  readonly ledger: Ledger<Client<Ops, E>>;
  /** Operation → the ledger entries its answer creates (see CleanupPlan.creates). */
  readonly creates: Readonly<Record<string, Creates>>;
  /** Every exchange of this target (most recent 1000); scenarios log into children of it. */
  readonly evidence: EvidenceLog;
  /**
   * A convention the whole target breaks (a refused x-api-version, JSON bodies not read), probed once
   * when first asked; runScenario asks when a rule FAILs (checks.ts `ConventionBreach`).
   */
  conventionBreach?(): Promise<ConventionBreach | undefined>;
  /**
   * Cleans up what the ledger recorded and what listing finds of this file's scopes, then closes the
   * connection pool. The first file to close also reports the cleanup of the run's probes.
   */
  close(): Promise<CleanupReport>;
}

/**
 * `cleanup`: how each ledger kind is cleaned up, in `order`; `creates`: operation → the ledger entries
 * a 200 creates, read from its answer and request. Every call's 200 is recorded at once, `raw` calls
 * included (IDs outside the run's namespace are not the suite's to record).
 */
export interface CreateTargetOptions<Ops extends OperationTable, E extends z.ZodType> extends Partial<CleanupPlan<Client<Ops, E>>> {
  readonly operations: Ops;
  readonly errorBody: E;
  /** Default: `loadConfig()`. */
  readonly config?: ConformanceConfig;
  /** Default: what the global setup provided (`inject('conformance:run')`). */
  readonly run?: RunInfo;
  /**
   * How to try the probed capabilities on this target (support.ts: PROBES); what they create goes in
   * the ledger. Used only without a global setup that probed the run already (run.capabilities).
   */
  readonly probes?: TargetProbes<Ops, E>;
  readonly retry?: Partial<RetryPolicy> | false;
  /** Where requests go instead of sockets (an in-process fake; see http.ts). */
  readonly dispatcher?: Dispatcher;
  /** Another caller some of every scenario's calls are sent as (support.ts: the published client). */
  readonly mixedCaller?: MixedCaller;
}

/**
 * A caller other than the run's plain one, told apart by headers only (the published client by its
 * User-Agent). Where the document does not tell callers apart, every other call of a scenario goes
 * as this caller, unchanged otherwise, so a target that answers it differently fails the rule the
 * scenario checks with that call, or the rule a later plain read shows.
 */
export interface MixedCaller {
  readonly headers: HeaderOverrides;
  /** Whether this request's whole answer is the document's when this caller sends it. */
  sends(operation: string, body: unknown): boolean;
}

export async function createTarget<Ops extends OperationTable, E extends z.ZodType>(
  options: CreateTargetOptions<Ops, E>,
): Promise<Target<Ops, E>> {
  const config = options.config ?? loadConfig();
  const run = options.run ?? inject('conformance:run');
  // The run decided by the global setup wins: vitest hides the user's BASE_URL from its workers
  // (it sets Vite's base path "/" there), so a worker's own configuration may not know the target.
  const baseUrl = run?.baseUrl ?? config.baseUrl;
  if (baseUrl === undefined) {
    throw new ConfigError(`no target: set ${ENV_VARS.baseUrl}, or run the suite with its global setup, which boots the fake`);
  }
  const kind = run?.kind ?? (config.baseUrl === undefined ? 'fake' : 'deployment');
  // A fake the run booted brings its own keys; a deployment's keys come from the environment only.
  const apiKey = kind === 'fake' ? (run?.apiKey ?? config.apiKey) : config.apiKey;
  if (apiKey === undefined) throw new ConfigError(`no API key for ${baseUrl}: set ${ENV_VARS.apiKey}`);
  const otherTenantApiKey = kind === 'fake' ? (run?.otherTenantApiKey ?? config.otherTenantApiKey) : config.otherTenantApiKey;
  const seed = run?.seed ?? config.seed;

  const evidence = new EvidenceLog({ secrets: [apiKey, ...(otherTenantApiKey === undefined ? [] : [otherTenantApiKey])], capacity: 1000 });
  // Without a global setup, a deployment still gets a fresh salt, so a re-run with the same seed cannot collide.
  const salt = run?.salt ?? (kind === 'deployment' ? new Date().toISOString() : '');
  const ns = runNamespace(config, { seed, salt });
  const journal = run?.journal === undefined ? undefined : new Journal(run.journal.path);
  if (journal !== undefined) exitWithParent();
  const unserved = new Set(run?.unserved ?? []);
  const ledger = new Ledger<Client<Ops, E>>(ns, options.cleanup ?? {}, { order: options.order ?? [], unserved, ...(journal ? { journal } : {}) });
  const creates = options.creates ?? {};
  // One limiter for every test file's target of the run: a 429 slows the whole run (rate-limit.ts); its latency stretches a default deadline (guard.ts).
  const limiter = limiterFor(baseUrl, mostConcurrency(config));
  const base = createClient({
    baseUrl,
    apiKey,
    apiVersion: config.apiVersion,
    timeoutMs: config.timeoutMs,
    operations: options.operations,
    errorBody: options.errorBody,
    evidence,
    ...transportLimits(config, run, options.retry, () => limiter.latencyMs),
    limiter,
    ...(options.dispatcher && { dispatcher: options.dispatcher }),
  });
  const plan = { cleanup: options.cleanup ?? {}, order: options.order ?? [], creates };
  // The root client journals what a request may create before sending it, and records every answer;
  // scenarios' clients are made from it and keep that.
  const hooks = journal && run?.journal && journalHooks(run.journal, journal, { creates, ns, apiKey, plan, unserved, client: () => client });
  const client: Client<Ops, E> = (hooks ? base.with({ onSend: hooks.onSend, onAnswer: hooks.onAnswer }) : base).with({ onAnswer: answerRecorder(creates, ns, ledger.forScenario(undefined), apiKey) });
  // The run's global setup probed the target once for every file; a target made without one probes
  // it itself (the probes record and clean up their own records).
  const probed = run?.capabilities === undefined ? await probeTarget({ ...config, otherTenantApiKey }, base, ns, { ...plan, probes: options.probes ?? {} }) : undefined;
  const capabilities = run?.capabilities === undefined ? probed!.capabilities : capabilitiesFrom(run.capabilities);
  let breach: Promise<ConventionBreach | undefined> | undefined;
  return {
    config,
    info: { baseUrl, kind, apiVersion: config.apiVersion, seed, profile: config.profile.name, readOnly: config.profile.readOnly },
    client,
    control: capabilities.has('control-plane') ? new ControlClient(client.transport) : undefined,
    otherTenantApiKey,
    apiKey,
    mixedCaller: options.mixedCaller,
    capabilities,
    concurrency: () => concurrencyNow(config, limiter.latencyMs),
    ns,
    ledger,
    creates,
    evidence,
    conventionBreach: () => (breach ??= probeConventions(client, config.apiVersion)),
    async close() {
      // A read-only run made nothing: no listing to find what a refused create kept.
      const report = await ledger.cleanup(client, config.profile.readOnly ? undefined : ns.madeHere);
      await client.close();
      return mergeCleanups(mergeCleanups(report, probed?.cleanup), claimProbeCleanup(run?.probeCleanupFile));
    },
  };
}

/**
 * A test worker whose run's main process is gone (SIGKILLed) stops at once: scenarios going on
 * without it would create what no journal reader waits for (the next run may already have swept).
 */
function exitWithParent(): void {
  if (process.send === undefined || exitingWithParent) return;
  exitingWithParent = true;
  process.once('disconnect', () => process.exit(2));
}
let exitingWithParent = false;

export { recordCreated, type Creates } from './cleanup.ts';
