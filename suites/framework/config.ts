/**
 * Run configuration: environment > config file > defaults, every value validated with zod, and every
 * problem reported with the name of the key that caused it (the environment variable or the file key).
 *
 * A target profile (JSON, validated) says whether the run is read-only, which capabilities the run
 * may use on the target, and which pre-provisioned records stand in for states the public API
 * cannot create.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_TEST_SEED } from '../../fixtures/random.ts';

export const DEFAULT_API_VERSION = '2.4.0';
export const DEFAULT_CONFIG_FILE = 'conformance.config.json';
const VITE_BASE_URL = '/';
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
  /** What the run may use on the target. Leave `control-plane` out for a shared deployment: `reset` wipes the key's whole tenant. */
  capabilities: z.array(ProfileCapability).default([]),
  fixtures: Fixtures.default({}),
});
export type Profile = z.infer<typeof Profile>;

const fields = {
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  apiKey: z.string().min(1),
  otherTenantApiKey: z.string().min(1),
  apiVersion: z.string().min(1),
  profile: z.string().min(1),
  seed: z.int().min(0).max(2 ** 31 - 1),
  timeoutMs: z.int().positive(),
  namespacePrefix: z.string().regex(/^[a-zA-Z0-9]{1,16}$/, 'must be 1 to 16 letters or digits'),
  reportDir: z.string().min(1),
};
type Fields = { [K in keyof typeof fields]: z.output<(typeof fields)[K]> };

/** Settings that are secrets: read from the environment only, never from a file. */
const SECRET_SETTINGS = ['apiKey', 'otherTenantApiKey'] as const;

/**
 * The config file: any subset of the settings except the keys, and nothing else (a misspelt key is an
 * error). The API keys come from the environment only, so a config file can be committed safely.
 */
export const ConfigFile = z.strictObject(fields).omit({ apiKey: true, otherTenantApiKey: true }).partial();
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
  reportDir: 'REPORT_DIR',
} as const satisfies Record<keyof Fields, string>;

const DEFAULTS = {
  apiVersion: DEFAULT_API_VERSION,
  profile: 'default',
  timeoutMs: 10_000,
  namespacePrefix: 'conf',
  reportDir: 'reports',
} satisfies Partial<Fields>;

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
  /** Absolute. */
  readonly reportDir: string;
  readonly profile: ResolvedProfile;
  /** The config file that was read, if any. */
  readonly configFile: string | undefined;
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
  return {
    baseUrl: merged.baseUrl?.replace(/\/+$/, ''),
    apiKey: merged.apiKey,
    otherTenantApiKey: merged.otherTenantApiKey,
    apiVersion: merged.apiVersion,
    seed: merged.seed ?? DEFAULT_TEST_SEED,
    seedSource,
    timeoutMs: merged.timeoutMs,
    namespacePrefix: merged.namespacePrefix,
    reportDir: resolve(cwd, merged.reportDir),
    profile: loadProfile(merged.profile, profileBase),
    configFile: file.path,
  };
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
        const secret = SECRET_SETTINGS.find((setting) => setting === key);
        const why = secret ? `the key is read from ${ENV_VARS[secret]} only, never from a file` : issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message;
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
  if (!existsSync(path)) throw new ConfigError(`${ENV_VARS.profile}: ${label} does not exist`);
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

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
