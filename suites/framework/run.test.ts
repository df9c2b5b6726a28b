import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import { setupRun, type RunInfo } from './run.ts';

const cwd = mkdtempSync(join(tmpdir(), 'conformance-run-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function project() {
  const provided = new Map<string, RunInfo | undefined>();
  return { provided, provide: (key: 'conformance:run', value: RunInfo | undefined) => void provided.set(key, value) };
}

describe('setupRun', () => {
  it('accepts the TestProject a vitest global setup receives', () => {
    expectTypeOf<TestProject>().toExtend<Parameters<typeof setupRun>[0]>();
  });

  it('boots the fake when no target is given, provides its URL, key and the seed, and stops it on teardown', async () => {
    const p = project();
    let closed = false;
    const teardown = await setupRun(p, {
      env: { CONFORMANCE_SEED: '31' },
      cwd,
      startFake: async () => ({ url: 'http://127.0.0.1:5555', apiKey: 'am_sk_test_fake', close: async () => void (closed = true) }),
    });
    expect(p.provided.get('conformance:run')).toEqual({
      baseUrl: 'http://127.0.0.1:5555',
      apiKey: 'am_sk_test_fake',
      seed: 31,
      salt: '',
      kind: 'fake',
      deadline: expect.any(Number),
      guardFile: expect.stringMatching(/conformance-guard-.*state\.json$/),
    });
    expect(closed).toBe(false);
    await teardown();
    expect(closed).toBe(true);
  });

  it("provides the fake's key of another tenant when it has one", async () => {
    const p = project();
    await setupRun(p, {
      env: { CONFORMANCE_SEED: '31' },
      cwd,
      startFake: async () => ({ url: 'http://127.0.0.1:5555', apiKey: 'am_sk_test_fake', otherTenantApiKey: 'am_sk_live_fake', close: async () => {} }),
    });
    expect(p.provided.get('conformance:run')).toMatchObject({ apiKey: 'am_sk_test_fake', otherTenantApiKey: 'am_sk_live_fake', kind: 'fake' });
  });

  it('with a target, boots nothing, keeps the key out of what it provides, and salts the namespace with the start time', async () => {
    const p = project();
    let booted = false;
    await setupRun(p, {
      env: { BASE_URL: 'https://staging.example', API_KEY: 'am_sk_test_secret', CONFORMANCE_SEED: '5' },
      cwd,
      startFake: async () => {
        booted = true;
        return { url: '', apiKey: '', close: async () => {} };
      },
    });
    const info = p.provided.get('conformance:run');
    expect(booted).toBe(false);
    expect(info).toMatchObject({ baseUrl: 'https://staging.example', seed: 5, kind: 'deployment' });
    expect(info).not.toHaveProperty('apiKey');
    expect(Number.isNaN(Date.parse(info?.salt ?? ''))).toBe(false);
  });

  it('starts the run clock: the deadline is CONFORMANCE_RUN_TIMEOUT_MS from now, and the guard file goes at teardown', async () => {
    const p = project();
    const before = Date.now();
    const teardown = await setupRun(p, { env: { BASE_URL: 'https://t.example', API_KEY: 'k', CONFORMANCE_RUN_TIMEOUT_MS: '60000' }, cwd, startFake: () => Promise.reject(new Error('must not boot')) });
    const info = p.provided.get('conformance:run');
    expect(info?.deadline).toBeGreaterThanOrEqual(before + 60_000);
    expect(info?.deadline).toBeLessThanOrEqual(Date.now() + 60_000);
    const guardFile = info?.guardFile ?? '';
    writeFileSync(guardFile, '{"consecutiveFailures":1}');
    await teardown();
    expect(existsSync(guardFile)).toBe(false);
  });

  it('prints the warnings, and refuses a live key with a mutating profile before booting anything', async () => {
    const warned: string[] = [];
    const live = { BASE_URL: 'http://billing.example.com', API_KEY: 'am_sk_live_Zb8Nc3Vx1Lk5Jh7Gf9Dp2Sa4Mq6Wr0Et' };
    const refused = setupRun(project(), { env: live, cwd, warn: (l) => warned.push(l), startFake: () => Promise.reject(new Error('must not boot')) });
    await expect(refused).rejects.toThrow(/API_KEY is a live key .*refused/);
    expect(warned).toEqual([expect.stringMatching(/plain http:\/\//)]);

    warned.length = 0;
    const p = project();
    await setupRun(p, { env: { ...live, CONFORMANCE_ALLOW_LIVE: '1' }, cwd, warn: (l) => warned.push(l), startFake: () => Promise.reject(new Error('must not boot')) });
    expect(warned).toEqual([expect.stringMatching(/plain http:\/\//), expect.stringMatching(/^WARNING: API_KEY is a live key.*READ-ONLY/)]);
    expect(p.provided.get('conformance:run')).toMatchObject({ kind: 'deployment' });
  });

  it('fails before booting anything when the configuration is invalid', async () => {
    await expect(setupRun(project(), { env: { CONFORMANCE_TIMEOUT_MS: '0' }, cwd, startFake: () => Promise.reject(new Error('must not boot')) })).rejects.toThrow(
      /CONFORMANCE_TIMEOUT_MS/,
    );
  });

  it('probes the target once for the run (prepare) and provides what it learnt; a failed preparation stops the fake it booted', async () => {
    const p = project();
    const seen: unknown[] = [];
    await setupRun(p, {
      env: { CONFORMANCE_SEED: '7' },
      cwd,
      startFake: async () => ({ url: 'http://127.0.0.1:5555', apiKey: 'am_sk_test_fake', close: async () => {} }),
      prepare: async (run, config, workDir) => {
        seen.push([run.baseUrl, config.seed, existsSync(workDir)]);
        return { capabilities: { available: ['mutation'], why: [] }, unserved: ['customers.delete'], probeCleanupFile: join(workDir, 'probe-cleanup.json') };
      },
    });
    expect(seen).toEqual([['http://127.0.0.1:5555', 7, true]]);
    expect(p.provided.get('conformance:run')).toMatchObject({ capabilities: { available: ['mutation'] }, unserved: ['customers.delete'], probeCleanupFile: expect.stringMatching(/probe-cleanup\.json$/) });
    let closed = false;
    const failing = setupRun(project(), {
      env: {},
      cwd,
      startFake: async () => ({ url: 'http://127.0.0.1:5555', apiKey: 'am_sk_test_fake', close: async () => void (closed = true) }),
      prepare: () => Promise.reject(new Error('probe failed')),
    });
    await expect(failing).rejects.toThrow('probe failed');
    expect(closed).toBe(true);
  });
});
