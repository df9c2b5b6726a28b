/**
 * The target a test file talks to: clients, capability set, namespace and ledger, built from the
 * configuration and from what the run's global setup decided (see run.ts), read back with `inject`.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { inject } from 'vitest';
import type { z } from 'zod';
import type { ConventionBreach } from './checks.ts';
import { resolveCapabilities, type CapabilitySet, type Probe, type ProbedCapability } from './capabilities.ts';
import { createClient, type Client, type OperationTable } from './client.ts';
import { ConfigError, ENV_VARS, loadConfig, type ConformanceConfig } from './config.ts';
import { ControlClient } from './control-client.ts';
import { EvidenceLog } from './evidence.ts';
import { transportLimits } from './guard.ts';
import { Ledger, type CleanupAction, type CleanupReport, type LedgerEntry, type ScenarioLedger } from './ledger.ts';
import { createNamespace, type Namespace } from './namespace.ts';
import { probeConventions } from './preflight.ts';
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
  readonly capabilities: CapabilitySet;
  /** The run's namespace; each scenario gets `ns.scope(scenario.id)`. */
  readonly ns: Namespace;
  readonly ledger: Ledger<Client<Ops, E>>;
  /** Operation → the ledger entry its request creates (see CreateTargetOptions.creates). */
  readonly creates: Readonly<Record<string, Creates>>;
  /** Every exchange of this target (most recent 1000); scenarios log into children of it. */
  readonly evidence: EvidenceLog;
  /**
   * A convention the whole target breaks (a refused x-api-version, JSON bodies not read), probed once
   * when first asked; runScenario asks when a rule FAILs (checks.ts `ConventionBreach`).
   */
  conventionBreach?(): Promise<ConventionBreach | undefined>;
  /** Cleans up what the ledger recorded, then closes the connection pool. */
  close(): Promise<CleanupReport>;
}

export interface CreateTargetOptions<Ops extends OperationTable, E extends z.ZodType> {
  readonly operations: Ops;
  readonly errorBody: E;
  /** Default: `loadConfig()`. */
  readonly config?: ConformanceConfig;
  /** Default: what the global setup provided (`inject('conformance:run')`). */
  readonly run?: RunInfo;
  /** Cleanup action per ledger kind. */
  readonly cleanup?: Readonly<Record<string, CleanupAction<Client<Ops, E>>>>;
  /**
   * Operation → the ledger entry a call creates, read from its request body. Every scenario's call
   * answered 200 is recorded at once, whatever the answer's shape (IDs outside the run's namespace
   * are not the suite's to record). Kinds without a cleanup action are reported as left behind.
   */
  readonly creates?: Readonly<Record<string, Creates>>;
  /** How to try the probed capabilities on this target (support.ts: PROBES); what they create goes in the ledger. */
  readonly probes?: Partial<Record<ProbedCapability, (context: ProbeContext<Ops, E>) => Promise<string | undefined>>>;
  readonly retry?: Partial<RetryPolicy> | false;
  /** Where requests go instead of sockets (an in-process fake; see http.ts). */
  readonly dispatcher?: Dispatcher;
}

/** What a probe works with: the client (recording into the ledger like a scenario's) and its own namespace scope. */
export interface ProbeContext<Ops extends OperationTable, E extends z.ZodType> {
  readonly client: Client<Ops, E>;
  readonly ns: Namespace;
}

/** The ledger entry a request creates; undefined when it names none. */
export type Creates = (request: never) => LedgerEntry | undefined;

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
  const client = createClient({
    baseUrl,
    apiKey,
    apiVersion: config.apiVersion,
    timeoutMs: config.timeoutMs,
    operations: options.operations,
    errorBody: options.errorBody,
    evidence,
    ...transportLimits(config, run, options.retry),
    // One limiter for every test file's target of the run: a 429 slows the whole run (rate-limit.ts).
    limiter: limiterFor(baseUrl, config.concurrency),
    ...(options.dispatcher && { dispatcher: options.dispatcher }),
  });
  // Without a global setup, a deployment still gets a fresh salt, so a re-run with the same seed cannot collide.
  const salt = run?.salt ?? (kind === 'deployment' ? new Date().toISOString() : '');
  const ns = createNamespace({ prefix: config.namespacePrefix, seed, salt });
  const ledger = new Ledger<Client<Ops, E>>(ns, options.cleanup);
  const creates = options.creates ?? {};
  const probeLedger = ledger.forScenario('capability-probe');
  const probeContext: ProbeContext<Ops, E> = {
    client: client.with({ onSuccess: (operation, request) => recordCreated(creates, ns, probeLedger, operation, request) }),
    // Every test file builds its own target and probes again: a scope of its own, so probes never collide.
    ns: ns.scope(`capability-probe-${randomUUID()}`),
  };
  const probes = Object.fromEntries(Object.entries(options.probes ?? {}).map(([capability, probe]): [string, Probe] => [capability, () => probe(probeContext)]));
  const capabilities = await resolveCapabilities({ ...config, otherTenantApiKey }, client, probes);
  let breach: Promise<ConventionBreach | undefined> | undefined;
  return {
    config,
    info: { baseUrl, kind, apiVersion: config.apiVersion, seed, profile: config.profile.name, readOnly: config.profile.readOnly },
    client,
    control: capabilities.has('control-plane') ? new ControlClient(client.transport) : undefined,
    otherTenantApiKey,
    apiKey,
    capabilities,
    ns,
    ledger,
    creates,
    evidence,
    conventionBreach: () => (breach ??= probeConventions(client, config.apiVersion)),
    async close() {
      const report = await ledger.cleanup(client);
      await client.close();
      return report;
    },
  };
}

/** Records in `ledger` what `operation` created, when the request names an ID of the run's namespace. */
export function recordCreated(creates: Readonly<Record<string, Creates>>, ns: Pick<Namespace, 'owns'>, ledger: ScenarioLedger, operation: string, request: unknown): void {
  const entry = (creates[operation] as ((request: unknown) => LedgerEntry | undefined) | undefined)?.(request);
  if (entry !== undefined && ns.owns(entry.id)) ledger.record(entry);
}
