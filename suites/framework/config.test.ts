import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_TEST_SEED } from '../../fixtures/random.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLiveKey, concurrencyNow, ConfigError, DEFAULT_CONCURRENCY, loadConfig, loadProfile, PROFILES_DIR, secretsOf } from './config.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A fresh working directory holding the given files. */
function workdir(files: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-config-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(resolve(path, '..'), { recursive: true });
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('uses the defaults when neither environment nor file says anything', () => {
    const cwd = workdir();
    const config = loadConfig({ env: {}, cwd });
    expect(config).toMatchObject({
      baseUrl: undefined,
      apiKey: undefined,
      apiVersion: '2.4.0',
      timeoutMs: 10_000,
      namespacePrefix: 'conf',
      reportDir: join(cwd, 'reports'),
      seedSource: 'default',
      seed: DEFAULT_TEST_SEED,
      configFile: undefined,
      profile: { name: 'default', readOnly: false, capabilities: ['control-plane', 'paid-attach', 'exclusive-tenant'], fixtures: {} },
    });
  });

  it('takes the environment over the config file, and the file over the defaults', () => {
    const cwd = workdir({
      'conformance.config.json': { apiVersion: '2.3.0', timeoutMs: 5_000, namespacePrefix: 'filepfx', seed: 11, baseUrl: 'http://file.example' },
    });
    const config = loadConfig({ env: { CONFORMANCE_TIMEOUT_MS: '7000', CONFORMANCE_SEED: '42', API_KEY: 'k', BASE_URL: 'https://env.example/base/' }, cwd });
    expect(config).toMatchObject({
      timeoutMs: 7_000,
      seed: 42,
      seedSource: 'env',
      baseUrl: 'https://env.example/base',
      apiKey: 'k',
      apiVersion: '2.3.0',
      namespacePrefix: 'filepfx',
      reportDir: join(cwd, 'reports'),
      configFile: join(cwd, 'conformance.config.json'),
    });
    expect(loadConfig({ env: { API_KEY: 'k' }, cwd })).toMatchObject({ seed: 11, seedSource: 'file', baseUrl: 'http://file.example' });
  });

  it('doubles the default concurrency once the target answers in 20 ms or more, and keeps a concurrency the environment or the file sets', () => {
    const defaults = loadConfig({ env: {}, cwd: workdir() });
    expect([defaults.concurrencySource, concurrencyNow(defaults, undefined), concurrencyNow(defaults, 3), concurrencyNow(defaults, 50)]).toEqual(['default', DEFAULT_CONCURRENCY, DEFAULT_CONCURRENCY, 2 * DEFAULT_CONCURRENCY]);
    const set = loadConfig({ env: { CONFORMANCE_CONCURRENCY: '8' }, cwd: workdir() });
    expect([set.concurrencySource, concurrencyNow(set, 50)]).toEqual(['env', 8]);
    const filed = loadConfig({ env: {}, cwd: workdir({ 'conformance.config.json': { concurrency: 4 } }) });
    expect([filed.concurrencySource, concurrencyNow(filed, 50)]).toEqual(['file', 4]);
  });

  it('refuses an API key in the config file, so the file can be committed', () => {
    const cwd = workdir({ 'conformance.config.json': { baseUrl: 'http://file.example', apiKey: 'am_sk_test_secret' } });
    expect(configError(() => loadConfig({ env: {}, cwd }))).toMatch(/key "apiKey": the key is read from API_KEY only/);
  });

  it('reads the key of another tenant from OTHER_TENANT_API_KEY only, and refuses the main key again', () => {
    const cwd = workdir();
    expect(loadConfig({ env: {}, cwd }).otherTenantApiKey).toBeUndefined();
    const env = { BASE_URL: 'http://t.example', API_KEY: 'am_sk_test_a' };
    expect(loadConfig({ env: { ...env, OTHER_TENANT_API_KEY: 'am_sk_live_b' }, cwd }).otherTenantApiKey).toBe('am_sk_live_b');
    expect(configError(() => loadConfig({ env: { ...env, OTHER_TENANT_API_KEY: 'am_sk_test_a' }, cwd }))).toMatch(
      /OTHER_TENANT_API_KEY: must be a key of another tenant, not API_KEY again/,
    );
    const withFile = workdir({ 'conformance.config.json': { otherTenantApiKey: 'am_sk_live_b' } });
    expect(configError(() => loadConfig({ env, cwd: withFile }))).toMatch(/key "otherTenantApiKey": the key is read from OTHER_TENANT_API_KEY only/);
  });

  it('reads the file named by CONFORMANCE_CONFIG, and names the variable when it is missing', () => {
    const cwd = workdir({ 'etc/target.json': { apiVersion: '2.2.0' } });
    expect(loadConfig({ env: { CONFORMANCE_CONFIG: 'etc/target.json' }, cwd }).apiVersion).toBe('2.2.0');
    expect(configError(() => loadConfig({ env: { CONFORMANCE_CONFIG: 'nope.json' }, cwd }))).toMatch(/CONFORMANCE_CONFIG: file .*nope\.json does not exist/);
  });

  it('treats an empty variable as unset', () => {
    const config = loadConfig({ env: { BASE_URL: '', API_VERSION: ' ', CONFORMANCE_SEED: '' }, cwd: workdir() });
    expect(config).toMatchObject({ baseUrl: undefined, apiVersion: '2.4.0', seedSource: 'default' });
  });

  it("treats BASE_URL=/ (what vitest puts there when it is unset) as unset", () => {
    expect(loadConfig({ env: { BASE_URL: '/' }, cwd: workdir() }).baseUrl).toBeUndefined();
  });

  it('names each bad environment variable', () => {
    const message = configError(() =>
      loadConfig({ env: { CONFORMANCE_TIMEOUT_MS: 'soon', CONFORMANCE_SEED: '-1', BASE_URL: 'ftp://x', CONFORMANCE_NAMESPACE_PREFIX: 'has_underscore' }, cwd: workdir() }),
    );
    expect(message).toMatch(/CONFORMANCE_TIMEOUT_MS: .*expected number/);
    expect(message).toMatch(/CONFORMANCE_SEED: .*>=0/);
    expect(message).toMatch(/BASE_URL: must be an http\(s\) URL/);
    expect(message).toMatch(/CONFORMANCE_NAMESPACE_PREFIX: must be 1 to 16 letters or digits/);
  });

  it('names each bad or unknown key of the config file', () => {
    const cwd = workdir({ 'conformance.config.json': { timeoutMs: 'fast', baseURL: 'http://typo' } });
    const message = configError(() => loadConfig({ env: {}, cwd }));
    expect(message).toContain('key "timeoutMs": Invalid input: expected number, received string');
    expect(message).toContain('key "baseURL": unknown key');
  });

  it('reports a config file that is not JSON', () => {
    const cwd = workdir({ 'conformance.config.json': '{ nope' });
    expect(configError(() => loadConfig({ env: {}, cwd }))).toMatch(/conformance\.config\.json: not valid JSON/);
  });

  it('requires API_KEY when a target is given', () => {
    expect(configError(() => loadConfig({ env: { BASE_URL: 'http://t.example' }, cwd: workdir() }))).toMatch(/API_KEY: required when a target is given/);
  });
});

describe('BASE_URL', () => {
  it('refuses a query string, a fragment or credentials: every call appends /v1/<operation> to it', () => {
    for (const url of ['https://t.example/api?tenant=1', 'https://t.example/api?', 'https://t.example/#v1', 'https://user:pw@t.example']) {
      expect(configError(() => loadConfig({ env: { BASE_URL: url, API_KEY: 'k' }, cwd: workdir() })), url).toMatch(/^invalid conformance configuration:\n {2}- BASE_URL: must (not have a query string or fragment|not carry credentials)/);
    }
    const fromFile = workdir({ 'conformance.config.json': { baseUrl: 'https://t.example/?x=1' } });
    expect(configError(() => loadConfig({ env: { API_KEY: 'k' }, cwd: fromFile }))).toMatch(/key "baseUrl": must not have a query string/);
  });

  it('accepts plain http:// to a remote host with a warning, and to this machine without one', () => {
    const remote = loadConfig({ env: { BASE_URL: 'http://billing.example.com/api', API_KEY: 'k' }, cwd: workdir() });
    expect(remote.baseUrl).toBe('http://billing.example.com/api');
    expect(remote.warnings).toEqual([expect.stringMatching(/BASE_URL http:\/\/billing\.example\.com\/api is plain http:\/\/ to a host that is not this machine/)]);
    for (const url of ['http://127.0.0.1:3000', 'http://localhost:8080', 'http://[::1]:80', 'http://api.localhost', 'https://billing.example.com']) {
      expect(loadConfig({ env: { BASE_URL: url, API_KEY: 'k' }, cwd: workdir() }).warnings, url).toEqual([]);
    }
  });
});

describe('run limits', () => {
  it('has defaults that end a dead run in about 30 s and outlast a 54 s Retry-After, and reads each from the environment or the file', () => {
    const cwd = workdir();
    expect(loadConfig({ env: {}, cwd })).toMatchObject({ runTimeoutMs: 1_200_000, maxNetworkFailures: 3, maxBodyBytes: 1_048_576, retryBudgetMs: 90_000, allowLive: false });
    const env = { CONFORMANCE_RUN_TIMEOUT_MS: '60000', CONFORMANCE_MAX_NETWORK_FAILURES: '5', CONFORMANCE_MAX_BODY_BYTES: '2048', CONFORMANCE_RETRY_BUDGET_MS: '0' };
    expect(loadConfig({ env, cwd })).toMatchObject({ runTimeoutMs: 60_000, maxNetworkFailures: 5, maxBodyBytes: 2048, retryBudgetMs: 0 });
    const fromFile = workdir({ 'conformance.config.json': { runTimeoutMs: 1000, maxNetworkFailures: 1, maxBodyBytes: 10, retryBudgetMs: 5 } });
    expect(loadConfig({ env: {}, cwd: fromFile })).toMatchObject({ runTimeoutMs: 1000, maxNetworkFailures: 1, maxBodyBytes: 10, retryBudgetMs: 5 });
    expect(configError(() => loadConfig({ env: { CONFORMANCE_MAX_NETWORK_FAILURES: '0' }, cwd }))).toMatch(/CONFORMANCE_MAX_NETWORK_FAILURES/);
  });

  it('runs 8 scenarios at once unless told otherwise, from 1 (one after another) to 64', () => {
    const cwd = workdir();
    expect(loadConfig({ env: {}, cwd }).concurrency).toBe(8);
    expect(loadConfig({ env: { CONFORMANCE_CONCURRENCY: '1' }, cwd }).concurrency).toBe(1);
    expect(loadConfig({ env: {}, cwd: workdir({ 'conformance.config.json': { concurrency: 32 } }) }).concurrency).toBe(32);
    for (const bad of ['0', '65', '2.5', 'many']) expect(configError(() => loadConfig({ env: { CONFORMANCE_CONCURRENCY: bad }, cwd }))).toMatch(/CONFORMANCE_CONCURRENCY/);
  });
});

describe('live keys (DESIGN.md decision 9)', () => {
  const LIVE = 'am_sk_live_Zb8Nc3Vx1Lk5Jh7Gf9Dp2Sa4Mq6Wr0Et';
  const target = { BASE_URL: 'https://billing.example.com', API_KEY: LIVE };
  const mutatingLive = { 'live.json': { readOnly: false, allowLiveMutations: true, capabilities: [] } };

  it('refuses a live key with a mutating profile, saying how to fix it, as a live-key failure', () => {
    const config = loadConfig({ env: target, cwd: workdir() });
    const check = checkLiveKey(config);
    expect(check).toMatchObject({ ok: false, kind: 'live-key' });
    expect(check.ok ? '' : check.message).toMatch(/API_KEY is a live key \(am_sk_live_…\).*refused.*am_sk_test_.*read-only.*--allow-live \(CONFORMANCE_ALLOW_LIVE=1\)/);
    expect(check.ok ? '' : check.message).not.toContain(LIVE.slice(11));
    // The flag alone is not consent for a profile that says nothing about live data: it is still refused without the flag.
    expect(checkLiveKey(loadConfig({ env: { ...target, CONFORMANCE_PROFILE: './live.json' }, cwd: workdir(mutatingLive) }))).toMatchObject({ ok: false, kind: 'live-key' });
  });

  it('with --allow-live, runs read-only and warns, unless the profile allows live mutations (a louder warning)', () => {
    const allowed = loadConfig({ env: { ...target, CONFORMANCE_ALLOW_LIVE: '1' }, cwd: workdir() });
    expect(allowed.profile.readOnly).toBe(true);
    expect(checkLiveKey(allowed)).toMatchObject({ ok: true, warning: expect.stringMatching(/^WARNING: API_KEY is a live key.*READ-ONLY/) });
    expect(allowed.warnings).toEqual([expect.stringMatching(/READ-ONLY/)]);

    const mutating = loadConfig({ env: { ...target, CONFORMANCE_ALLOW_LIVE: 'true', CONFORMANCE_PROFILE: './live.json' }, cwd: workdir(mutatingLive) });
    expect(mutating.profile.readOnly).toBe(false);
    expect(mutating.warnings).toEqual([expect.stringMatching(/^WARNING: .*WILL CREATE AND CHANGE DATA in the production environment of https:\/\/billing\.example\.com/)]);
  });

  it('runs a read-only profile with a live key without the flag, with a warning', () => {
    const config = loadConfig({ env: { ...target, CONFORMANCE_PROFILE: 'read-only.example' }, cwd: workdir() });
    expect(checkLiveKey(config)).toMatchObject({ ok: true, warning: expect.stringMatching(/READ-ONLY/) });
  });

  it('leaves test keys, and runs against the embedded fake, alone', () => {
    expect(checkLiveKey(loadConfig({ env: { ...target, API_KEY: 'am_sk_test_x' }, cwd: workdir() }))).toEqual({ ok: true });
    expect(checkLiveKey(loadConfig({ env: { API_KEY: LIVE }, cwd: workdir() }))).toEqual({ ok: true });
  });

  it('takes consent from the environment only, never from a committed file', () => {
    const cwd = workdir({ 'conformance.config.json': { allowLive: true } });
    expect(configError(() => loadConfig({ env: target, cwd }))).toMatch(/key "allowLive": the key is read from CONFORMANCE_ALLOW_LIVE only/);
    expect(configError(() => loadConfig({ env: { ...target, CONFORMANCE_ALLOW_LIVE: 'maybe' }, cwd: workdir() }))).toMatch(/CONFORMANCE_ALLOW_LIVE/);
  });
});

describe('secretsOf', () => {
  it('lists every key the configuration holds, for redaction', () => {
    const config = loadConfig({ env: { BASE_URL: 'https://t.example', API_KEY: 'am_sk_test_a', OTHER_TENANT_API_KEY: 'am_sk_live_b' }, cwd: workdir() });
    expect(secretsOf(config)).toEqual(['am_sk_test_a', 'am_sk_live_b']);
    expect(secretsOf(loadConfig({ env: {}, cwd: workdir() }))).toEqual([]);
  });
});

describe('profiles', () => {
  it('resolves a name to suites/profiles/<name>.json', () => {
    const config = loadConfig({ env: { CONFORMANCE_PROFILE: 'read-only.example' }, cwd: workdir() });
    expect(config.profile.path).toBe(join(PROFILES_DIR, 'read-only.example.json'));
    expect(config.profile.readOnly).toBe(true);
    expect(config.profile.capabilities).toEqual([]);
    expect(config.profile.fixtures.past_due_subscription).toEqual({ customer_id: 'cus_past_due', plan_id: 'pro_monthly' });
  });

  it('resolves a path from the environment against the working directory, and from the file against the file', () => {
    const profile = { readOnly: true, fixtures: { expired_purchase: { customer_id: 'c', plan_id: 'p' } } };
    const cwd = workdir({ 'p/mine.json': profile, 'conf/conformance.config.json': { profile: '../p/mine.json' } });
    expect(loadConfig({ env: { CONFORMANCE_PROFILE: 'p/mine.json' }, cwd }).profile).toMatchObject({ readOnly: true, capabilities: [] });
    const fromFile = loadConfig({ env: { CONFORMANCE_CONFIG: 'conf/conformance.config.json' }, cwd });
    expect(fromFile.profile.path).toBe(join(cwd, 'p/mine.json'));
    expect(fromFile.profile.fixtures.expired_purchase?.plan_id).toBe('p');
  });

  it('names the bad key of an invalid profile', () => {
    const cwd = workdir({
      'bad.json': { readOnly: 'yes', capabilities: ['time-travel'], fixtures: { past_due_subscription: { plan_id: 'p' }, overdue_thing: {} } },
    });
    const message = configError(() => loadConfig({ env: { CONFORMANCE_PROFILE: './bad.json' }, cwd }));
    expect(message).toContain('key "readOnly"');
    expect(message).toContain('key "capabilities.0"');
    expect(message).toContain('key "fixtures.past_due_subscription.customer_id"');
    expect(message).toContain('key "fixtures.overdue_thing": unknown key');
  });

  it('reports a profile that does not exist, naming CONFORMANCE_PROFILE', () => {
    expect(configError(() => loadProfile('no-such-profile', '/'))).toMatch(/CONFORMANCE_PROFILE: profile no-such-profile .* does not exist/);
  });
});
