import { describe, expect, it } from 'vitest';
import { DEFAULT_KEYS, envOfKey, otherTenantKey, TenantLimitError, Tenants } from './tenants.ts';

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
    expect(tenants.all()).toHaveLength(3);
  });

  it('gives each tenant its own clock and ID sequence, and resets one without touching another', () => {
    const tenants = new Tenants([{ key: SANDBOX, org: 'acme' }, { key: LIVE, org: 'acme' }], { clock: { now: 1_000, frozen: true } });
    const sandbox = tenants.open(SANDBOX)!;
    const live = tenants.open(LIVE)!;
    expect(sandbox.clock).not.toBe(live.clock);
    sandbox.clock.advance(500);
    expect([sandbox.clock.now(), live.clock.now()]).toEqual([1_500, 1_000]);
    expect(sandbox.ids.next('x')).not.toBe(live.ids.next('x'));
    sandbox.store.customers.set('c', {} as never);
    live.store.customers.set('c', {} as never);
    sandbox.reset();
    expect(sandbox.clock.now(), 'reset brings the clock back where it started').toBe(1_000);
    expect(sandbox.store.customers.size).toBe(0);
    expect(live.store.customers.size).toBe(1);
  });

  it('creates organisations with fresh keys up to a cap, and deletes only those it created', () => {
    const tenants = new Tenants([{ key: SANDBOX, org: 'acme' }], { maxOrganisations: 2 });
    const first = tenants.createOrganisation();
    const second = tenants.createOrganisation();
    expect(first.sandboxKey).toMatch(/^am_sk_test_[0-9a-f]{36}$/);
    expect(first.liveKey).toMatch(/^am_sk_live_[0-9a-f]{36}$/);
    expect(first.org).not.toBe(second.org);
    expect(tenants.open(first.sandboxKey)).toMatchObject({ org: first.org, env: 'sandbox' });
    expect(() => tenants.createOrganisation()).toThrow(TenantLimitError);
    expect(tenants.deleteOrganisation('acme')).toBe(false);
    expect(tenants.deleteOrganisation(first.org)).toBe(true);
    expect(tenants.open(first.sandboxKey)).toBeUndefined();
    expect(tenants.createOrganisation().org).toBe('org_t3');
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
