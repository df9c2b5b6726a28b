import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepProbeCleanup } from './cleanup.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createNamespace } from './namespace.ts';
import { createTarget } from './target.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations, type TestServer } from './testing.ts';

let fake: TestServer;
const cwd = mkdtempSync(join(tmpdir(), 'conformance-target-'));

beforeAll(async () => {
  fake = await startServer((req, res) => {
    if (req.url === '/_fake/health') return json(res, 200, { fake: true, api_version: '2.4.0', faults: [] });
    if (req.url === '/v1/things.delete') return json(res, 200, { success: true });
    // Creates answer the ID they were given with a suffix, so a test can tell the answer's ID from the request's.
    if (req.url === '/v1/things.create') return json(res, 200, { id: `${(JSON.parse(req.body) as { thing_id: string }).thing_id}_made` });
    json(res, 404, { message: 'no', code: 'route_not_found', env: 'sandbox' });
  });
});
afterAll(async () => {
  await fake.close();
  rmSync(cwd, { recursive: true, force: true });
});

const options = { operations: testOperations, errorBody: TestErrorBody, retry: false } as const;

describe('createTarget', () => {
  it('uses the fake the global setup booted: its URL, its key, the run seed, reproducible IDs', async () => {
    const config = loadConfig({ env: { CONFORMANCE_SEED: '1' }, cwd });
    const target = await createTarget({ ...options, config, run: { baseUrl: fake.url, apiKey: TEST_KEY, seed: 808, salt: '', kind: 'fake' } });
    expect(target.info).toEqual({ baseUrl: fake.url, kind: 'fake', apiVersion: '2.4.0', seed: 808, profile: 'default', readOnly: false });
    expect(target.capabilities.has('control-plane')).toBe(true);
    expect(target.control).toBeDefined();
    expect(target.ns.root).toBe(createNamespace({ prefix: 'conf', seed: 808 }).root);
    expect(fake.requests.at(-1)?.headers['authorization']).toBe(`Bearer ${TEST_KEY}`);
    expect(JSON.stringify(target.evidence.entries())).not.toContain(TEST_KEY);
    expect(target.capabilities.has('other-tenant')).toBe(false);
    await target.close();
  });

  it("takes the other tenant's key from the run for the fake, and from OTHER_TENANT_API_KEY for a deployment", async () => {
    const run = { baseUrl: fake.url, apiKey: TEST_KEY, otherTenantApiKey: 'am_sk_live_fromrun', seed: 1, salt: '', kind: 'fake' } as const;
    const ofFake = await createTarget({ ...options, config: loadConfig({ env: { OTHER_TENANT_API_KEY: 'am_sk_live_ignored' }, cwd }), run });
    expect(ofFake.otherTenantApiKey).toBe('am_sk_live_fromrun');
    expect(ofFake.capabilities.has('other-tenant')).toBe(true);
    expect(ofFake.evidence.redact('Bearer am_sk_live_fromrun')).toBe('Bearer [REDACTED]');
    await ofFake.close();
    const config = loadConfig({ env: { API_KEY: TEST_KEY, OTHER_TENANT_API_KEY: 'am_sk_live_fromenv' }, cwd });
    const ofDeployment = await createTarget({ ...options, config, run: { ...run, kind: 'deployment', apiKey: undefined, otherTenantApiKey: undefined } });
    expect(ofDeployment.otherTenantApiKey).toBe('am_sk_live_fromenv');
    await ofDeployment.close();
  });

  it("follows the run's target in a worker whose BASE_URL vitest replaced, with the keys of the worker's environment", async () => {
    // In a vitest worker BASE_URL reads "/" (Vite's base path), which loadConfig treats as unset.
    const config = loadConfig({ env: { BASE_URL: '/', API_KEY: 'am_sk_test_from_env', CONFORMANCE_PROFILE: 'read-only.example' }, cwd });
    const target = await createTarget({ ...options, config, run: { baseUrl: fake.url, seed: 3, salt: 'x', kind: 'deployment' } });
    expect(target.info).toMatchObject({ baseUrl: fake.url, kind: 'deployment', seed: 3, readOnly: true, profile: 'read-only.example' });
    expect(target.control).toBeUndefined();
    expect(target.capabilities.missing(['control-plane'])).toMatch(/does not grant/);
    await target.client.raw({ path: '/v1/things.get', body: '{}' });
    expect(fake.requests.at(-1)?.headers['authorization']).toBe('Bearer am_sk_test_from_env');
    await target.close();
    const keyless = loadConfig({ env: { BASE_URL: '/' }, cwd });
    await expect(createTarget({ ...options, config: keyless, run: { baseUrl: fake.url, seed: 3, salt: 'x', kind: 'deployment' } })).rejects.toThrow(/set API_KEY/);
  });

  it('cleans up the ledger when closed', async () => {
    const config = loadConfig({ env: {}, cwd });
    const target = await createTarget({
      ...options,
      config,
      run: { baseUrl: fake.url, apiKey: TEST_KEY, seed: 4, salt: '', kind: 'fake' },
      cleanup: { thing: (entry, client) => client.call('things.delete', { thing_id: entry.id }) },
    });
    const id = target.ns.scope('S').id('thing');
    target.ledger.record({ kind: 'thing', id }, 'S');
    const report = await target.close();
    expect(report.undone.map((r) => r.entry.id)).toEqual([id]);
    expect(JSON.parse(fake.requests.at(-1)?.body ?? '{}')).toEqual({ thing_id: id });
  });

  it('records what every 200 names, raw calls included, by the ID the answer gives, and removes it when closed', async () => {
    const target = await createTarget({
      ...options,
      config: loadConfig({ env: {}, cwd }),
      run: { baseUrl: fake.url, apiKey: TEST_KEY, seed: 5, salt: '', kind: 'fake' },
      cleanup: { thing: (entry, client) => client.call('things.delete', { thing_id: entry.id }) },
      creates: { 'things.create': ((_request: unknown, response?: { id: string }) => (response === undefined ? undefined : { kind: 'thing', id: response.id })) as never },
    });
    const ns = target.ns.scope('S');
    const [called, sent] = [ns.id('thing'), ns.id('thing')];
    await target.client.with({ evidence: target.evidence }).call('things.create', { thing_id: called, name: 'Called' });
    await target.client.raw({ path: '/v1/things.create', body: JSON.stringify({ thing_id: sent, name: 'Raw' }) });
    await target.client.raw({ path: '/v1/things.create', body: JSON.stringify({ thing_id: 'not_ours', name: 'Foreign' }) });
    expect(target.ledger.entries().map((r) => r.entry.id)).toEqual([`${called}_made`, `${sent}_made`]);
    const report = await target.close();
    expect(report.undone.map((r) => r.entry.id).sort()).toEqual([`${called}_made`, `${sent}_made`].sort());
  });

  it("takes the run's capabilities and unserved deletes without probing again, and one file reports the probes' cleanup", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-probe-'));
    const probeCleanupFile = join(dir, 'probe-cleanup.json');
    const probeEntry = { entry: { kind: 'thing', id: 'conf_x_probe' }, scenario: 'capability-probe' };
    keepProbeCleanup(probeCleanupFile, { undone: [], alreadyGone: [], left: [probeEntry], failed: [] });
    const run = {
      baseUrl: fake.url,
      apiKey: TEST_KEY,
      seed: 6,
      salt: '',
      kind: 'fake',
      capabilities: { available: ['mutation'], why: [['control-plane', 'the probe said no']] },
      unserved: ['things.delete'],
      probeCleanupFile,
    } as const;
    const before = fake.requests.length;
    const make = () =>
      createTarget({
        ...options,
        config: loadConfig({ env: {}, cwd }),
        run,
        cleanup: { thing: { remove: (entry, client) => client.call('things.delete', { thing_id: entry.id }), removeWith: 'things.delete' } },
      });
    const [first, second] = [await make(), await make()];
    expect(fake.requests.length).toBe(before);
    expect(first.capabilities.has('control-plane')).toBe(false);
    expect(first.capabilities.missing(['control-plane'])).toBe('needs the probe said no');
    const id = first.ns.scope('S').id('thing');
    first.ledger.record({ kind: 'thing', id });
    const reports = [await first.close(), await second.close()];
    // things.delete is not served: not tried, so the thing is left, and the probes' leftover is reported once.
    expect(fake.requests.length).toBe(before);
    expect(reports.map((r) => r.left.map((l) => l.entry.id))).toEqual([[id, 'conf_x_probe'], []]);
    expect(existsSync(probeCleanupFile)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('without BASE_URL and without a global setup, says there is no target', async () => {
    const config = loadConfig({ env: {}, cwd });
    await expect(createTarget({ ...options, config })).rejects.toThrow(ConfigError);
    await expect(createTarget({ ...options, config })).rejects.toThrow(/no target: set BASE_URL, or run the suite with its global setup/);
  });
});
