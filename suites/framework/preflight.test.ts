import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeServer, type FakeServer } from '../../fake-server/index.ts';
import { loadConfig } from './config.ts';
import { preflight } from './preflight.ts';

let fake: FakeServer;
beforeAll(async () => {
  fake = await createFakeServer();
});
afterAll(() => fake.close());

const config = (env: Record<string, string>) => loadConfig({ env: { BASE_URL: fake.url, API_KEY: fake.apiKey, ...env } });

/** A port nothing listens on: bound, noted, closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('preflight', () => {
  it('passes against a healthy target, and without a target (the fake is booted)', async () => {
    expect(await preflight(config({}))).toEqual({ ok: true });
    expect(await preflight(loadConfig({ env: {} }))).toEqual({ ok: true });
  });

  it('names a refused key, without printing it', async () => {
    const wrong = 'am_sk_test_WrongWrongWrong0123456789';
    const result = await preflight(config({ API_KEY: wrong }));
    expect(result).toMatchObject({ ok: false, kind: 'key-refused', message: expect.stringMatching(/refused the API key \(401.*Set API_KEY/) });
    expect(JSON.stringify(result)).not.toContain(wrong);
  });

  it('names a refused version', async () => {
    expect(await preflight(config({ API_VERSION: 'banana' }))).toMatchObject({ ok: false, kind: 'version-refused', message: expect.stringMatching(/API version banana.*API_VERSION/) });
  });

  it('names an unreachable target on a dead port', async () => {
    const result = await preflight(config({ BASE_URL: `http://127.0.0.1:${await deadPort()}` }));
    expect(result).toMatchObject({ ok: false, kind: 'unreachable', message: expect.stringMatching(/cannot be reached \(ECONNREFUSED/) });
  });

  it('refuses a live key for a run that changes data unless allowed', async () => {
    const live = config({ API_KEY: 'am_sk_live_abc' });
    expect(await preflight(live)).toMatchObject({ ok: false, kind: 'live-key' });
    expect(await preflight(live, { allowLiveKey: true })).toMatchObject({ ok: false, kind: 'key-refused' });
  });
});
