/**
 * Run configuration: environment > config file > defaults, every value validated with zod, and every
 * problem reported with the name of the key that caused it (the environment variable or the file key).
 *
 * A target profile (JSON, validated) says whether the run is read-only, which capabilities the run
 * may use on the target, and which pre-provisioned records stand in for states the public API
 * cannot create.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_TEST_SEED } from '../../fixtures/random.ts';
import { didYouMean } from './closest.ts';
import { WIRE_NAME_KEYS, WIRE_NAME_PATTERN } from '../../spec/wire-names.ts';

export const DEFAULT_API_VERSION = '2.4.0';
export const DEFAULT_CONFIG_FILE = 'conformance.config.json';
const VITE_BASE_URL = '/';
/** Against a remote target each call waits a round trip: 8 scenarios at a time hide most of it (latency bench, docs/performance.md) without pressing a shared deployment hard. */
export const DEFAULT_CONCURRENCY = 8;
/**
 * A target this far away (its answers' smoothed latency, ms) gets twice the default concurrency: a
 * run's time there is its round trips, and scenarios side by side are how it goes faster (at a 50 ms
 * round trip, 8 at once took 154 s and 16 took 126 s on 2026-12-05; rate-limit.ts still backs off
 * whatever the target says).
 */
export const FAR_TARGET_MS = 20;

/** The most scenarios at once a run may have: the configured number, or the default doubled for a far target. */
export function mostConcurrency(config: Pick<ConformanceConfig, 'concurrency' | 'concurrencySource'>): number {
  return config.concurrencySource === 'default' ? 2 * config.concurrency : config.concurrency;
}

/** The scenarios at once a run has now, given its answers' smoothed latency so far (undefined before the first). */
export function concurrencyNow(config: Pick<ConformanceConfig, 'concurrency' | 'concurrencySource'>, latencyMs: number | undefined): number {
  return (latencyMs ?? 0) >= FAR_TARGET_MS ? mostConcurrency(config) : config.concurrency;
}

/** More scenarios at once than this would only queue in the connection pool (and press a target hard). */
export const MAX_CONCURRENCY = 64;
export const PROFILES_DIR = fileURLToPath(new URL('../profiles/', import.meta.url));

/** A pre-provisioned subscription or purchase record, identified the way scenarios look it up. */
export const RecordFixture = z.strictObject({
  customer_id: z.string().min(1),
  plan_id: z.string().min(1),
  /** When the record belongs to an entity of the customer. */
  entity_id: z.string().min(1).optional(),
  /** The record's `id` as `subscriptions.list` / `purchases.list` show it, when known. */
  record_id: z.string().min(1).optional(),
});
export type RecordFixture = z.infer<typeof RecordFixture>;

/** Records in states the public API cannot create (interface.md, States part). */
export const Fixtures = z.strictObject({
  past_due_subscription: RecordFixture.optional(),
  expired_subscription: RecordFixture.optional(),
  scheduled_subscription: RecordFixture.optional(),
  past_due_purchase: RecordFixture.optional(),
  expired_purchase: RecordFixture.optional(),
  scheduled_purchase: RecordFixture.optional(),
});
export type Fixtures = z.infer<typeof Fixtures>;
export type FixtureName = keyof Fixtures;

/**
 * Capabilities a profile grants. `control-plane`: the fake's /_fake/ calls (also probed).
 * `paid-attach`: billing.attach of a paid plan takes effect at once, without a checkout (the fake,
 * or a test deployment whose processor charges a default payment method). `exclusive-tenant`: the run
 * has the tenant to itself, so a scenario may briefly change what every new customer of the tenant
 * gets (an auto-enable plan); never grant it for shared staging.
 */
export const ProfileCapability = z.enum(['control-plane', 'paid-attach', 'exclusive-tenant']);
export type ProfileCapability = z.infer<typeof ProfileCapability>;

export const Profile = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  /** A read-only run executes only scenarios that declare `mutates: false`, against pre-provisioned data. */
  readOnly: z.boolean().default(false),
  /**
   * With a live key (`am_sk_live_…`) and --allow-live, a run is read-only unless its profile says
   * this: the profile is meant for mutating a live environment (DESIGN.md decision 9).
   */
  allowLiveMutations: z.boolean().optional(),
  /** What the run may use on the target. Leave `control-plane` out for a shared deployment: `reset` wipes the key's whole tenant. */
  capabilities: z.array(ProfileCapability).default([]),
  fixtures: Fixtures.default({}),
  /**
   * Wire names of request fields interface.md does not show (spec/wire-names.ts), where the target
   * spells them otherwise than the reference: `{"entities.list.plan_filter": "plan_filter"}`.
   */
  wireNames: z.partialRecord(z.enum(WIRE_NAME_KEYS), z.string().regex(WIRE_NAME_PATTERN, 'must be a JSON key of letters, digits and underscores')).optional(),
  /**
   * Where the run journal is kept (suites/framework/journal.ts), relative to the working directory:
   * for nightly CI a directory cached between nights or kept as an artifact. CONFORMANCE_STATE_DIR
   * (or `stateDir` in the config file) wins over it.
   */
  stateDir: z.string().min(1).optional(),
});
export type Profile = z.infer<typeof Profile>;

/**
 * The lowest rule level whose failures fail the run: `must` (default), or `should` (SHOULD failures
 * fail it too; see suites/report/view.ts `verdictOf`).
 */
export const FailOn = z.enum(['must', 'should'], { error: 'must be "must" or "should"' });
export type FailOn = z.infer<typeof FailOn>;

const fields = {
  baseUrl: z
    // abort: the refinements below parse the URL, which throws on text that is none.
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL', abort: true })
    // Every call appends /v1/<operation> to it: a query or fragment would swallow that path, and
    // credentials in it would be written into every report.
    .refine((url) => !url.includes('?') && !url.includes('#'), 'must not have a query string or fragment (every call appends /v1/<operation> to it)')
    .refine((url) => new URL(url).username === '' && new URL(url).password === '', 'must not carry credentials (give the key in API_KEY)'),
  apiKey: z.string().min(1),
  otherTenantApiKey: z.string().min(1),
  apiVersion: z.string().min(1),
  profile: z.string().min(1),
  seed: z.int().min(0).max(2 ** 31 - 1),
  timeoutMs: z.int().positive(),
  namespacePrefix: z.string().regex(/^[a-zA-Z0-9]{1,16}$/, 'must be 1 to 16 letters or digits'),
  reuseNamespace: z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, 'must be 1 to 32 letters, digits or -'),
  reportDir: z.string().min(1),
  stateDir: z.string().min(1),
  runTimeoutMs: z.int().positive(),
  maxNetworkFailures: z.int().positive(),
  maxBodyBytes: z.int().positive(),
  retryBudgetMs: z.int().min(0),
  concurrency: z.int().min(1).max(MAX_CONCURRENCY),
  allowLive: z.enum(['1', 'true', 'yes', '0', 'false', 'no']).transform((v) => ['1', 'true', 'yes'].includes(v)),
  failOn: FailOn,
};
type Fields = { [K in keyof typeof fields]: z.output<(typeof fields)[K]> };

/** Settings that are secrets: read from the environment only, never from a file, and redacted from every output. */
const SECRET_SETTINGS = ['apiKey', 'otherTenantApiKey'] as const;

/**
 * Settings read from the environment (or the CLI) only: the secrets, and consent to run with a live
 * key, which a committed file must never give silently.
 */
const ENV_ONLY_SETTINGS = [...SECRET_SETTINGS, 'allowLive'] as const;

/**
 * The config file: any subset of the settings except the keys and `allowLive`, and nothing else (a
 * misspelt key is an error). The API keys come from the environment only, so a config file can be committed safely.
 */
export const ConfigFile = z.strictObject(fields).omit({ apiKey: true, otherTenantApiKey: true, allowLive: true }).partial();
export type ConfigFile = z.infer<typeof ConfigFile>;

export const ENV_VARS = {
  baseUrl: 'BASE_URL',
  apiKey: 'API_KEY',
  otherTenantApiKey: 'OTHER_TENANT_API_KEY',
  apiVersion: 'API_VERSION',
  profile: 'CONFORMANCE_PROFILE',
  seed: 'CONFORMANCE_SEED',
  timeoutMs: 'CONFORMANCE_TIMEOUT_MS',
  namespacePrefix: 'CONFORMANCE_NAMESPACE_PREFIX',
  reuseNamespace: 'CONFORMANCE_REUSE_NAMESPACE',
  reportDir: 'REPORT_DIR',
  stateDir: 'CONFORMANCE_STATE_DIR',
  runTimeoutMs: 'CONFORMANCE_RUN_TIMEOUT_MS',
  maxNetworkFailures: 'CONFORMANCE_MAX_NETWORK_FAILURES',
  maxBodyBytes: 'CONFORMANCE_MAX_BODY_BYTES',
  retryBudgetMs: 'CONFORMANCE_RETRY_BUDGET_MS',
  concurrency: 'CONFORMANCE_CONCURRENCY',
  allowLive: 'CONFORMANCE_ALLOW_LIVE',
  failOn: 'CONFORMANCE_FAIL_ON',
} as const satisfies Record<keyof Fields, string>;

const DEFAULTS = {
  apiVersion: DEFAULT_API_VERSION,
  profile: 'default',
  timeoutMs: 10_000,
  namespacePrefix: 'conf',
  reportDir: 'reports',
  // A full run against a rate-limited deployment takes minutes; a run past this is stuck.
  runTimeoutMs: 20 * 60_000,
  // With the 10 s timeout, a target that stops answering ends the run within about 30 s.
  maxNetworkFailures: 3,
  maxBodyBytes: 1024 * 1024,
  // A reference deployment answers retry-after: 54 to its 31st attach in a minute; setup calls must outlast that.
  retryBudgetMs: 90_000,
  concurrency: DEFAULT_CONCURRENCY,
  allowLive: false,
  failOn: 'must',
} satisfies Partial<Fields>;

/** The prefix of a key of a live (production) environment (DESIGN.md decision 6). */
export const LIVE_KEY_PREFIX = 'am_sk_live_';

export interface ResolvedProfile extends Profile {
  /** The name given (`default`) or the path given. */
  readonly name: string;
  readonly path: string;
}

export interface ConformanceConfig {
  /** Undefined: no target given, the suite boots the fake in-process. No trailing slash. */
  readonly baseUrl: string | undefined;
  readonly apiKey: string | undefined;
  /**
   * A secret key of another tenant of the same target (another organisation, or the other
   * environment), for the tenant-isolation scenario; it is skipped without one. Only for a target
   * given by BASE_URL: against the fake the run boots, the fake's own second key is used.
   */
  readonly otherTenantApiKey: string | undefined;
  readonly apiVersion: string;
  readonly seed: number;
  /** Where the seed came from; without one the run uses the project's default seed, so runs repeat. */
  readonly seedSource: 'env' | 'file' | 'default';
  readonly timeoutMs: number;
  readonly namespacePrefix: string;
  /**
   * Reuse mode: every run of this name makes the same IDs whatever its seed, so what a run cannot
   * delete is reused by the next rather than made again, and what a killed run left is removed by
   * the next (see namespace.ts). Undefined: a fresh namespace per run.
   */
  readonly reuseNamespace: string | undefined;
  /** Absolute. */
  readonly reportDir: string;
  /**
   * Where the run journal of a target by URL is kept (absolute): CONFORMANCE_STATE_DIR or `stateDir`
   * of the config file, else the profile's `stateDir`, else `<reportDir>/state`.
   */
  readonly stateDir: string;
  /**
   * The profile in effect. With a live API key and `allowLive`, it is made read-only unless it sets
   * `allowLiveMutations` (see checkLiveKey).
   */
  readonly profile: ResolvedProfile;
  /** The config file that was read, if any. */
  readonly configFile: string | undefined;
  /**
   * Nothing is sent after this long from the start of the run; left at its default, the deadline
   * stretches with the target's latency (guard.ts).
   */
  readonly runTimeoutMs: number;
  /** Where runTimeoutMs came from: only the default stretches. */
  readonly runTimeoutSource: 'env' | 'file' | 'default';
  /** After this many requests in a row the target left unserved, the run sends nothing more. */
  readonly maxNetworkFailures: number;
  /** Response bodies longer than this are cut at it and the request ends in an ERROR. */
  readonly maxBodyBytes: number;
  /** How long a request may wait in all for 429/503 retries (Retry-After honoured up to this). */
  readonly retryBudgetMs: number;
  /**
   * How many scenarios run at once (scenarios that need the target to themselves run alone; see
   * schedule.ts). 1: one after another.
   */
  readonly concurrency: number;
  /** Where concurrency came from: only the default doubles for a far target (FAR_TARGET_MS). */
  readonly concurrencySource: 'env' | 'file' | 'default';
  /** CONFORMANCE_ALLOW_LIVE (or --allow-live): the user accepts a run with a live key. */
  readonly allowLive: boolean;
  /** CONFORMANCE_FAIL_ON (or --fail-on, `failOn`): `should` makes SHOULD failures fail the run too. */
  readonly failOn: FailOn;
  /** Things the user must see before the run starts (a live key, plain http to a remote host). */
  readonly warnings: readonly string[];
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface LoadConfigOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
}

export function loadConfig({ env = process.env, cwd = process.cwd() }: LoadConfigOptions = {}): ConformanceConfig {
  const problems: string[] = [];
  const file = readConfigFile(env, cwd, problems);
  const fromEnv = readEnv(env, problems);
  if (problems.length > 0) throw new ConfigError(`invalid conformance configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);

  const merged = { ...DEFAULTS, ...file.values, ...fromEnv };
  if (merged.baseUrl !== undefined && merged.apiKey === undefined) {
    throw new ConfigError(`invalid conformance configuration:\n  - ${ENV_VARS.apiKey}: required when a target is given (${ENV_VARS.baseUrl} or baseUrl)`);
  }
  if (merged.otherTenantApiKey !== undefined && merged.otherTenantApiKey === merged.apiKey) {
    throw new ConfigError(`invalid conformance configuration:\n  - ${ENV_VARS.otherTenantApiKey}: must be a key of another tenant, not ${ENV_VARS.apiKey} again`);
  }
  // A profile path from the file is relative to the file; from the environment, to the working directory.
  const profileBase = fromEnv.profile === undefined && file.values.profile !== undefined && file.path ? dirname(file.path) : cwd;
  const seedSource = fromEnv.seed !== undefined ? 'env' : file.values.seed !== undefined ? 'file' : 'default';
  const runTimeoutSource = fromEnv.runTimeoutMs !== undefined ? 'env' : file.values.runTimeoutMs !== undefined ? 'file' : 'default';
  const concurrencySource = fromEnv.concurrency !== undefined ? 'env' : file.values.concurrency !== undefined ? 'file' : 'default';
  const baseUrl = merged.baseUrl?.replace(/\/+$/, '');
  const loaded = loadProfile(merged.profile, profileBase);
  const live = isLiveKey(merged.apiKey);
  const profile = live && merged.allowLive && !loaded.allowLiveMutations ? { ...loaded, readOnly: true } : loaded;
  const config: Omit<ConformanceConfig, 'warnings'> = {
    baseUrl,
    apiKey: merged.apiKey,
    otherTenantApiKey: merged.otherTenantApiKey,
    apiVersion: merged.apiVersion,
    seed: merged.seed ?? DEFAULT_TEST_SEED,
    seedSource,
    timeoutMs: merged.timeoutMs,
    namespacePrefix: merged.namespacePrefix,
    reuseNamespace: merged.reuseNamespace,
    reportDir: resolve(cwd, merged.reportDir),
    stateDir: resolve(cwd, merged.stateDir ?? profile.stateDir ?? join(merged.reportDir, 'state')),
    profile,
    configFile: file.path,
    runTimeoutMs: merged.runTimeoutMs,
    runTimeoutSource,
    maxNetworkFailures: merged.maxNetworkFailures,
    maxBodyBytes: merged.maxBodyBytes,
    retryBudgetMs: merged.retryBudgetMs,
    concurrency: merged.concurrency,
    concurrencySource,
    allowLive: merged.allowLive,
    failOn: merged.failOn,
  };
  const liveKey = checkLiveKey(config);
  const warnings = [
    ...(baseUrl !== undefined && isPlainHttpToRemote(baseUrl)
      ? [`${ENV_VARS.baseUrl} ${baseUrl} is plain http:// to a host that is not this machine: the API key travels unencrypted. Use https:// unless this network is yours.`]
      : []),
    ...(liveKey.ok && liveKey.warning !== undefined ? [liveKey.warning] : []),
  ];
  return { ...config, warnings };
}

/** Whether a key is a live (production) key. */
export function isLiveKey(key: string | undefined): boolean {
  return key?.startsWith(LIVE_KEY_PREFIX) ?? false;
}

export type LiveKeyCheck = { readonly ok: true; readonly warning?: string } | { readonly ok: false; readonly kind: 'live-key'; readonly message: string };

/**
 * DESIGN.md decision 9: a live key (`am_sk_live_…`) is production. A run that would change data with
 * one is refused unless the user allows live keys (--allow-live, CONFORMANCE_ALLOW_LIVE=1); when
 * allowed, loadConfig has already made the profile read-only unless it sets `allowLiveMutations`.
 * Either way there is a warning. Only a target given by BASE_URL uses API_KEY, so only then does
 * this apply. Pure: preflight and the CLI call it, and so does the run's global setup.
 */
export function checkLiveKey(
  config: Pick<ConformanceConfig, 'baseUrl' | 'apiKey' | 'allowLive'> & { readonly profile: Pick<ResolvedProfile, 'name' | 'readOnly'> },
): LiveKeyCheck {
  if (config.baseUrl === undefined || !isLiveKey(config.apiKey)) return { ok: true };
  const { profile } = config;
  if (!profile.readOnly && !config.allowLive) {
    return {
      ok: false,
      kind: 'live-key',
      message:
        `${ENV_VARS.apiKey} is a live key (${LIVE_KEY_PREFIX}…): ${config.baseUrl} is treated as production, and profile ${profile.name} changes data, ` +
        'so the run was refused. Use a sandbox key (am_sk_test_…) for a certification run; or choose a read-only profile ' +
        `(${ENV_VARS.profile}=read-only.example, or a copy of it); or, to run read-only against production on purpose, pass --allow-live ` +
        `(${ENV_VARS.allowLive}=1). A mutating run with a live key also needs "allowLiveMutations": true in the profile.`,
    };
  }
  return {
    ok: true,
    warning: profile.readOnly
      ? `WARNING: ${ENV_VARS.apiKey} is a live key (${LIVE_KEY_PREFIX}…): ${config.baseUrl} is treated as production. The run is READ-ONLY: only scenarios that change nothing will run.`
      : `WARNING: ${ENV_VARS.apiKey} is a live key (${LIVE_KEY_PREFIX}…) and profile ${profile.name} allows live mutations: this run WILL CREATE AND CHANGE DATA in the production environment of ${config.baseUrl}.`,
  };
}

const LOOPBACK_HOSTS = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function isPlainHttpToRemote(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  return url.protocol === 'http:' && !LOOPBACK_HOSTS.test(url.hostname);
}

/** Every secret the configuration holds (the API keys), for redaction. */
export function secretsOf(config: Pick<ConformanceConfig, (typeof SECRET_SETTINGS)[number]>): string[] {
  return SECRET_SETTINGS.map((setting) => config[setting]).filter((secret): secret is string => secret !== undefined);
}

function readConfigFile(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  problems: string[],
): { path: string | undefined; values: ConfigFile } {
  const given = nonEmpty(env['CONFORMANCE_CONFIG']);
  const path = resolve(cwd, given ?? DEFAULT_CONFIG_FILE);
  if (!existsSync(path)) {
    if (given !== undefined) problems.push(`CONFORMANCE_CONFIG: file ${path} does not exist`);
    return { path: undefined, values: {} };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    problems.push(`${path}: not valid JSON (${(error as Error).message})`);
    return { path, values: {} };
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.map(String).join('.')];
      for (const key of keys) {
        const envOnly = ENV_ONLY_SETTINGS.find((setting) => setting === key);
        const why = envOnly ? `the key is read from ${ENV_VARS[envOnly]} only, never from a file` : issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message;
        problems.push(`${path}: key "${key}": ${why}`);
      }
    }
    return { path, values: {} };
  }
  return { path, values: parsed.data };
}

function readEnv(env: Readonly<Record<string, string | undefined>>, problems: string[]): Partial<Fields> {
  const out: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(ENV_VARS) as [keyof Fields, string][]) {
    const text = nonEmpty(env[variable]);
    // vitest copies Vite's env into process.env, and Vite's BASE_URL (its base path, "/") is set
    // whenever the user did not set BASE_URL. "/" can never be a target, so it means "not set".
    if (text === undefined || (key === 'baseUrl' && text === VITE_BASE_URL)) continue;
    const schema = fields[key];
    // Numeric settings arrive as text; anything but an integer literal is left as text for zod to reject.
    const value = schema instanceof z.ZodNumber && /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
    const parsed = schema.safeParse(value);
    if (parsed.success) out[key] = parsed.data;
    else problems.push(`${variable}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  return out as Partial<Fields>;
}

/** Resolves a profile name (`suites/profiles/<name>.json`) or path, and validates it. */
export function loadProfile(nameOrPath: string, base: string): ResolvedProfile {
  const isName = /^[a-z0-9][a-z0-9._-]*$/i.test(nameOrPath) && !nameOrPath.endsWith('.json');
  const path = isName ? resolve(PROFILES_DIR, `${nameOrPath}.json`) : isAbsolute(nameOrPath) ? nameOrPath : resolve(base, nameOrPath);
  const label = `profile ${nameOrPath} (${path})`;
  if (!existsSync(path)) throw new ConfigError(`${ENV_VARS.profile}: ${label} does not exist${isName ? didYouMean(nameOrPath, profileNames()) : ''}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${label}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = Profile.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.flatMap((issue) => {
      const at = issue.path.map(String).join('.');
      return issue.code === 'unrecognized_keys'
        ? issue.keys.map((k) => `key "${at === '' ? k : `${at}.${k}`}": unknown key`)
        : [`key "${at}": ${issue.message}`];
    });
    throw new ConfigError(`invalid ${label}:\n${lines.map((l) => `  - ${l}`).join('\n')}`);
  }
  return { ...parsed.data, name: nameOrPath, path };
}

/** The profiles shipped in suites/profiles/, by name. */
function profileNames(): string[] {
  return existsSync(PROFILES_DIR) ? readdirSync(PROFILES_DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)) : [];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
