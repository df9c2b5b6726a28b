/**
 * API keys and tenants. Each secret key belongs to one tenant, an organisation in one environment:
 * `am_sk_test_…` keys are sandbox, `am_sk_live_…` keys are live (as in the reference). Tenants never
 * see each other's data; each has its own store, created on first use.
 */
import type { Env } from '../spec/common.ts';
import { TenantStore } from './store/tenant-store.ts';

export interface ApiKeyConfig {
  readonly key: string;
  readonly org: string;
}

/** The keys a fake accepts when none are configured (printed by the CLI). */
export const DEFAULT_KEYS: readonly ApiKeyConfig[] = [
  { key: 'am_sk_test_fake0000000000000000000000000000000000000000', org: 'org_fake' },
  { key: 'am_sk_live_fake0000000000000000000000000000000000000000', org: 'org_fake' },
];

const KEY_PATTERN = /^am_sk_(test|live)_[A-Za-z0-9]+$/;

export function envOfKey(key: string): Env {
  return key.startsWith('am_sk_test_') ? 'sandbox' : 'live';
}

/** The tenant a key opens: its organisation in the environment its prefix names. */
function tenantOf({ key, org }: ApiKeyConfig): string {
  return `${org}\u0000${envOfKey(key)}`;
}

/** The first configured key that opens another tenant than `key` (the default keys: the live key of the same organisation). */
export function otherTenantKey(keys: readonly ApiKeyConfig[], key: string): string | undefined {
  const own = keys.find((config) => config.key === key);
  return own === undefined ? undefined : keys.find((config) => tenantOf(config) !== tenantOf(own))?.key;
}

export class Tenants {
  readonly #orgByKey = new Map<string, string>();
  readonly #stores = new Map<string, TenantStore>();

  constructor(keys: readonly ApiKeyConfig[]) {
    for (const { key, org } of keys) {
      if (!KEY_PATTERN.test(key)) throw new Error(`API keys look like am_sk_test_… or am_sk_live_… (letters and digits); got ${JSON.stringify(key)}`);
      this.#orgByKey.set(key, org);
    }
  }

  get keys(): readonly ApiKeyConfig[] {
    return [...this.#orgByKey].map(([key, org]) => ({ key, org }));
  }

  /** The tenant store a key opens, or undefined for an unknown key. */
  storeFor(key: string): TenantStore | undefined {
    const org = this.#orgByKey.get(key);
    if (org === undefined) return undefined;
    const name = tenantOf({ key, org });
    let store = this.#stores.get(name);
    if (!store) this.#stores.set(name, (store = new TenantStore(org, envOfKey(key))));
    return store;
  }

  /** Every tenant store that exists so far. */
  stores(): TenantStore[] {
    return [...this.#stores.values()];
  }

  clear(): void {
    this.#stores.clear();
  }
}
