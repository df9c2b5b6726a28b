import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_TEST_SEED } from '../../fixtures/random.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadProfile, PROFILES_DIR } from './config.ts';

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
