/**
 * API keys and tenants. Each secret key belongs to one tenant, an organisation in one environment:
 * `am_sk_test_…` keys are sandbox, `am_sk_live_…` keys are live (as in the reference). A tenant has
 * its own data, its own clock and its own ID sequence; tenants never see or move each other's.
 * Tenants are created on first use of a key; `createOrganisation` adds an organisation with fresh
 * keys, up to a cap, so parallel test files can each have their own.
 */
import { randomBytes } from 'node:crypto';
import { hashSeed } from '../fixtures/random.ts';
import type { Env } from '../spec/common.ts';
import { Clock, type ClockStart } from './clock.ts';
import type { DomainContext } from './domain/context.ts';
import { IdGenerator } from './ids.ts';
import { TenantStore } from './store/tenant-store.ts';

export interface ApiKeyConfig {
  readonly key: string;
  readonly org: string;
}

/** A tenant made for one test file: an organisation of its own, with a sandbox key and a live key. */
export interface CreatedTenant {
  readonly org: string;
  readonly sandboxKey: string;
  readonly liveKey: string;
}

/** The keys a fake accepts when none are configured (printed by the CLI). */
export const DEFAULT_KEYS: readonly ApiKeyConfig[] = [
  { key: 'am_sk_test_fake0000000000000000000000000000000000000000', org: 'org_fake' },
  { key: 'am_sk_live_fake0000000000000000000000000000000000000000', org: 'org_fake' },
];

/** How many organisations `createOrganisation` may add, unless configured: enough for any test run, bounded against a runaway loop. */
export const DEFAULT_MAX_ORGANISATIONS = 1000;

/** What a secret key looks like; the CLI checks --key against it. */
export const KEY_PATTERN = /^am_sk_(test|live)_[A-Za-z0-9]+$/;

export function envOfKey(key: string): Env {
  return key.startsWith('am_sk_test_') ? 'sandbox' : 'live';
}

/** The name of the tenant a key opens: its organisation in the environment its prefix names. */
function tenantName({ key, org }: ApiKeyConfig): string {
  return `${org}\u0000${envOfKey(key)}`;
}

/** The first configured key that opens another tenant than `key` (the default keys: the live key of the same organisation). */
export function otherTenantKey(keys: readonly ApiKeyConfig[], key: string): string | undefined {
  const own = keys.find((config) => config.key === key);
  return own === undefined ? undefined : keys.find((config) => tenantName(config) !== tenantName(own))?.key;
}

/** One tenant, the domain context of every call made with one of its keys. */
export class Tenant implements DomainContext {
  #store: TenantStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;

  constructor(
    readonly org: string,
    readonly env: Env,
    clock: ClockStart,
    idSeed: number,
  ) {
    this.#store = new TenantStore(org, env);
    this.clock = new Clock(clock);
    // Seeded per tenant: reproducible within a tenant, and a reset of one tenant cannot make another's IDs repeat.
    this.ids = new IdGenerator(hashSeed(idSeed, `${org}\u0000${env}`));
  }

  get store(): TenantStore {
    return this.#store;
  }

  /** Empty data, the clock back where it started, IDs from the start of their seed. */
  reset(): void {
    this.replaceStore(new TenantStore(this.org, this.env));
    this.clock.restart();
    this.ids.restart();
  }

  /** Puts loaded data in place (a state file); the clock and IDs are restored by the loader. */
  replaceStore(store: TenantStore): void {
    this.#store = store;
  }
}

export interface TenantsOptions {
  /** Where every tenant's clock starts (and goes back to on reset). */
  readonly clock?: ClockStart;
  /** Seed of the ID generators; each tenant's is derived from it and the tenant's name. */
  readonly idSeed?: number;
  readonly maxOrganisations?: number;
}

export class TenantLimitError extends Error {
  override readonly name = 'TenantLimitError';
}

export class Tenants {
  readonly #orgByKey = new Map<string, string>();
  readonly #tenants = new Map<string, Tenant>();
  readonly #options: TenantsOptions;
  /** Organisations added by createOrganisation and not deleted. */
  readonly #created = new Set<string>();
  #lastCreated = 0;

  constructor(keys: readonly ApiKeyConfig[], options: TenantsOptions = {}) {
    this.#options = options;
    for (const config of keys) this.#addKey(config);
  }

  #addKey({ key, org }: ApiKeyConfig): void {
    if (!KEY_PATTERN.test(key)) throw new Error(`API keys look like am_sk_test_… or am_sk_live_… (letters and digits); got ${JSON.stringify(key)}`);
    this.#orgByKey.set(key, org);
  }

  get keys(): readonly ApiKeyConfig[] {
    return [...this.#orgByKey].map(([key, org]) => ({ key, org }));
  }

  /** The tenant a key opens (created on first use), or undefined for an unknown key. */
  open(key: string): Tenant | undefined {
    const org = this.#orgByKey.get(key);
    if (org === undefined) return undefined;
    const name = tenantName({ key, org });
    let tenant = this.#tenants.get(name);
    if (!tenant) this.#tenants.set(name, (tenant = new Tenant(org, envOfKey(key), this.#options.clock ?? {}, this.#options.idSeed ?? 1)));
    return tenant;
  }

  /** The tenant store a key opens, or undefined for an unknown key. */
  storeFor(key: string): TenantStore | undefined {
    return this.open(key)?.store;
  }

  /** Every tenant that exists so far, in the order they were first used. */
  all(): Tenant[] {
    return [...this.#tenants.values()];
  }

  /**
   * A new organisation with an unguessable sandbox key and live key. Throws TenantLimitError when
   * the cap of created organisations not yet deleted is reached.
   */
  createOrganisation(): CreatedTenant {
    const max = this.#options.maxOrganisations ?? DEFAULT_MAX_ORGANISATIONS;
    if (this.#created.size >= max) {
      throw new TenantLimitError(`This fake holds ${max} created organisations already; delete the ones you are done with (tenants.delete) or raise the limit (maxOrganisations, --max-tenants).`);
    }
    const org = `org_t${++this.#lastCreated}`;
    const sandboxKey = `am_sk_test_${randomBytes(18).toString('hex')}`;
    const liveKey = `am_sk_live_${randomBytes(18).toString('hex')}`;
    this.#addKey({ key: sandboxKey, org });
    this.#addKey({ key: liveKey, org });
    this.#created.add(org);
    return { org, sandboxKey, liveKey };
  }

  /** Deletes an organisation that createOrganisation added: its keys stop working, its data goes. False for any other. */
  deleteOrganisation(org: string): boolean {
    if (!this.#created.delete(org)) return false;
    for (const [key, owner] of this.#orgByKey) {
      if (owner !== org) continue;
      this.#orgByKey.delete(key);
      this.#tenants.delete(tenantName({ key, org }));
    }
    return true;
  }

  /** The organisation a key belongs to, or undefined for an unknown key. */
  orgOf(key: string): string | undefined {
    return this.#orgByKey.get(key);
  }

  /** Resets every tenant; keys, created organisations included, stay valid. */
  resetAll(): void {
    for (const tenant of this.#tenants.values()) tenant.reset();
  }
}
