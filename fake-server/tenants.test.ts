import { describe, expect, it } from 'vitest';
import { DEFAULT_KEYS, envOfKey, otherTenantKey, Tenants } from './tenants.ts';

const SANDBOX = 'am_sk_test_acme1';
const LIVE = 'am_sk_live_acme1';
const OTHER_ORG = 'am_sk_test_globex1';

describe('Tenants [AUTH-SECRET-KEY, AUTH-TENANT-ISOLATION]', () => {
  it('opens one store per organisation and environment, the same store for the same key, none for an unknown key', () => {
    const tenants = new Tenants([
      { key: SANDBOX, org: 'acme' },
      { key: LIVE, org: 'acme' },
      { key: 'am_sk_test_acme2', org: 'acme' },
      { key: OTHER_ORG, org: 'globex' },
    ]);
    const sandbox = tenants.storeFor(SANDBOX)!;
    expect(sandbox).toMatchObject({ orgId: 'acme', env: 'sandbox' });
    expect(tenants.storeFor('am_sk_test_acme2'), 'two keys of one organisation and environment share its data').toBe(sandbox);
    expect(tenants.storeFor(LIVE)).toMatchObject({ orgId: 'acme', env: 'live' });
    expect(tenants.storeFor(LIVE)).not.toBe(sandbox);
    expect(tenants.storeFor(OTHER_ORG)).not.toBe(sandbox);
    expect(tenants.storeFor('am_sk_test_unknown')).toBeUndefined();
    expect(tenants.stores()).toHaveLength(3);
    tenants.clear();
    expect(tenants.stores()).toEqual([]);
  });

  it('refuses a configured key that does not look like a secret key', () => {
    for (const key of ['sk_test_x', 'am_pk_test_x', 'am_sk_test_', 'am_sk_test_a-b']) expect(() => new Tenants([{ key, org: 'o' }]), key).toThrow(/API keys look like/);
  });

  it('takes the environment from the key prefix', () => {
    expect([SANDBOX, LIVE].map(envOfKey)).toEqual(['sandbox', 'live']);
  });
});

describe('otherTenantKey', () => {
  it("is the default keys' live key for their sandbox key, another organisation's key, or none", () => {
    expect(otherTenantKey(DEFAULT_KEYS, DEFAULT_KEYS[0]!.key)).toBe(DEFAULT_KEYS[1]!.key);
    expect(otherTenantKey([{ key: SANDBOX, org: 'acme' }, { key: 'am_sk_test_acme2', org: 'acme' }, { key: OTHER_ORG, org: 'globex' }], SANDBOX)).toBe(OTHER_ORG);
    expect(otherTenantKey([{ key: SANDBOX, org: 'acme' }, { key: 'am_sk_test_acme2', org: 'acme' }], SANDBOX)).toBeUndefined();
    expect(otherTenantKey(DEFAULT_KEYS, 'am_sk_test_unknown')).toBeUndefined();
  });
});
