import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilitySet, resolveCapabilities } from './capabilities.ts';
import { createClient } from './client.ts';
import type { ResolvedProfile } from './config.ts';
import { EvidenceLog } from './evidence.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations, type TestServer } from './testing.ts';

let fake: TestServer;
let deployment: TestServer;

beforeAll(async () => {
  fake = await startServer((req, res) =>
    req.url === '/_fake/health' ? json(res, 200, { fake: true, api_version: '2.4.0', faults: [] }) : json(res, 404, {}),
  );
  deployment = await startServer((_req, res) => json(res, 404, { message: 'Not found', code: 'route_not_found', env: 'live' }));
});
afterAll(() => Promise.all([fake.close(), deployment.close()]));

function clientFor(url: string) {
  return createClient({ baseUrl: url, apiKey: TEST_KEY, apiVersion: '2.4.0', timeoutMs: 5_000, operations: testOperations, errorBody: TestErrorBody, evidence: new EvidenceLog() });
}

function profile(overrides: Partial<ResolvedProfile> = {}): ResolvedProfile {
  return { name: 'test', path: '/dev/null', readOnly: false, capabilities: ['control-plane'], fixtures: {}, ...overrides };
}

describe('resolveCapabilities', () => {
  it('grants the control plane and mutation on a fake with the default profile', async () => {
    const caps = await resolveCapabilities({ profile: profile(), timeoutMs: 10_000 }, clientFor(fake.url));
    expect([...caps.available].sort()).toEqual(['control-plane', 'mutation']);
    expect(caps.missing(['control-plane', 'mutation'])).toBeUndefined();
  });

  it('says what the probe got when the target has no control plane', async () => {
    const caps = await resolveCapabilities({ profile: profile(), timeoutMs: 10_000 }, clientFor(deployment.url));
    expect(caps.has('control-plane')).toBe(false);
    expect(caps.missing(['control-plane'])).toBe("needs the fake's control plane (POST /_fake/health answered 404)");
  });

  it('grants own-tenant when the control plane makes and deletes an organisation (probed once, both), and records its keys nowhere', async () => {
    const made = { org: 'org_new', sandbox_key: 'am_sk_test_NewOrgSandboxKey0123456789abcdef', live_key: 'am_sk_live_NewOrgLiveKey0123456789abcdef' };
    const orgs = await startServer((req, res) => {
      if (req.url === '/_fake/health') return json(res, 200, { fake: true, api_version: '2.4.0', faults: [] });
      if (req.url === '/_fake/tenants.create') return json(res, 200, made);
      if (req.url === '/_fake/tenants.delete' && req.headers.authorization === `Bearer ${made.sandbox_key}`) return json(res, 200, { success: true });
      return json(res, 404, {});
    });
    try {
      const evidence = new EvidenceLog();
      const client = createClient({ baseUrl: orgs.url, apiKey: TEST_KEY, apiVersion: '2.4.0', timeoutMs: 5_000, operations: testOperations, errorBody: TestErrorBody, evidence });
      const caps = await resolveCapabilities({ profile: profile(), timeoutMs: 10_000 }, client);
      expect(caps.has('own-tenant'), caps.why.get('own-tenant')).toBe(true);
      expect(orgs.requests.map((r) => r.url)).toEqual(['/_fake/health', '/_fake/tenants.create', '/_fake/tenants.delete']);
      expect(JSON.stringify(evidence.entries())).not.toContain('NewOrg');
    } finally {
      await orgs.close();
    }
    // A control plane without tenants.create, or none: the scenarios that change the whole tenant run alone.
    const without = await resolveCapabilities({ profile: profile(), timeoutMs: 10_000 }, clientFor(fake.url));
    expect(without.has('own-tenant')).toBe(false);
    expect(without.why.get('own-tenant')).toMatch(/which the target does not do \(tenants.create or tenants.delete failed: POST \/_fake\/tenants.create answered 404/);
    const none = await resolveCapabilities({ profile: profile({ capabilities: [] }), timeoutMs: 10_000 }, clientFor(deployment.url));
    expect(none.why.get('own-tenant')).toMatch(/which needs the control plane$/);
  });

  it('grants paid-attach only when the profile allows it and the probe finds a paid plan attached at once', async () => {
    const resolve = (capabilities: ('paid-attach' | 'control-plane')[], probe?: () => Promise<string | undefined>, readOnly = false) =>
      resolveCapabilities({ profile: profile({ capabilities, readOnly }), timeoutMs: 10_000 }, clientFor(deployment.url), probe ? { 'paid-attach': probe } : {});
    let probed = 0;
    const works = async () => {
      probed++;
      return undefined;
    };
    expect((await resolve(['paid-attach'], works)).has('paid-attach')).toBe(true);
    const checkout = await resolve(['paid-attach'], async () => 'billing.attach of a paid plan answered a checkout URL');
    expect(checkout.has('paid-attach')).toBe(false);
    expect(checkout.missing(['paid-attach'])).toContain('which the target does not do (billing.attach of a paid plan answered a checkout URL)');
    const withheld = await resolve([], works);
    expect(withheld.missing(['paid-attach'])).toContain('paid plans to attach without a checkout');
    expect((await resolve(['paid-attach'])).has('paid-attach')).toBe(false);
    expect((await resolve(['paid-attach'], works, true)).has('paid-attach')).toBe(false);
    expect(probed, 'probed only where the profile allows it and may change data').toBe(1);
  });

  it('grants multi-currency only when its probe succeeds', async () => {
    const resolve = (probe: () => Promise<string | undefined>) =>
      resolveCapabilities({ profile: profile({ capabilities: [] }), timeoutMs: 10_000 }, clientFor(deployment.url), { 'multi-currency': probe });
    expect((await resolve(async () => undefined)).has('multi-currency')).toBe(true);
    const refused = await resolve(async () => 'plans.create of a plan priced in two currencies answered 400');
    expect(refused.missing(['multi-currency'])).toMatch(/plans priced in several currencies, which the target does not do \(plans\.create/);
  });

  it('grants other-tenant only when the run has a key of another tenant', async () => {
    const granted = await resolveCapabilities({ profile: profile({ capabilities: [] }), timeoutMs: 10_000, otherTenantApiKey: 'am_sk_live_x' }, clientFor(deployment.url));
    expect(granted.has('other-tenant')).toBe(true);
    const withheld = await resolveCapabilities({ profile: profile({ capabilities: [] }), timeoutMs: 10_000 }, clientFor(deployment.url));
    expect(withheld.has('other-tenant')).toBe(false);
    expect(withheld.missing(['other-tenant'])).toContain('set OTHER_TENANT_API_KEY');
  });

  it('grants exclusive-tenant only when the profile says the run has the tenant to itself', async () => {
    const granted = await resolveCapabilities({ profile: profile({ capabilities: ['exclusive-tenant'] }), timeoutMs: 10_000 }, clientFor(deployment.url));
    expect(granted.has('exclusive-tenant')).toBe(true);
    const withheld = await resolveCapabilities({ profile: profile({ capabilities: [] }), timeoutMs: 10_000 }, clientFor(deployment.url));
    expect(withheld.missing(['exclusive-tenant'])).toContain('the tenant to itself');
  });

  it('does not even probe when the profile does not grant the control plane', async () => {
    const before = fake.requests.length;
    const caps = await resolveCapabilities({ profile: profile({ name: 'staging', capabilities: [] }), timeoutMs: 10_000 }, clientFor(fake.url));
    expect(fake.requests.length).toBe(before);
    expect(caps.missing(['control-plane'])).toBe("needs the fake's control plane, which profile staging does not grant");
  });

  it('grants fixtures the profile supplies, and refuses mutation in a read-only profile', async () => {
    const caps = await resolveCapabilities(
      { profile: profile({ name: 'ro', readOnly: true, capabilities: [], fixtures: { past_due_subscription: { customer_id: 'c', plan_id: 'p' } } }), timeoutMs: 10_000 },
      clientFor(deployment.url),
    );
    expect([...caps.available]).toEqual(['fixture:past_due_subscription']);
    expect(caps.missing(['mutation'])).toBe('needs to change data, but profile ro is read-only');
    expect(caps.missing([['control-plane', 'fixture:past_due_subscription']])).toBeUndefined();
    expect(caps.missing(['fixture:expired_purchase'])).toBe('needs fixture expired_purchase; supply fixture expired_purchase in the profile to run this against a deployment');
  });
});

describe('CapabilitySet.missing', () => {
  const why = new Map([['control-plane', "the fake's control plane (POST /_fake/health answered 404)"]] as const);

  it('explains an unmet set of alternatives, with the hint for the fixture', () => {
    expect(capabilitySet(new Set(['mutation']), why).missing([['control-plane', 'fixture:past_due_subscription']])).toBe(
      "needs the fake's control plane (POST /_fake/health answered 404) or fixture past_due_subscription; supply fixture past_due_subscription in the profile to run this against a deployment",
    );
  });

  it('lists every unmet need and nothing that is met', () => {
    const caps = capabilitySet(new Set(['mutation', 'fixture:expired_subscription']), why);
    expect(caps.missing(['mutation', 'fixture:expired_subscription', 'control-plane', 'fixture:scheduled_purchase'])).toBe(
      "needs the fake's control plane (POST /_fake/health answered 404); needs fixture scheduled_purchase; supply fixture scheduled_purchase in the profile to run this against a deployment",
    );
    expect(caps.missing([])).toBeUndefined();
  });
});
