/**
 * Preflight against the hostile targets: each outage a user can point the suite at by mistake ends
 * before any scenario, in one attempt, with the kind of failure and how to fix it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../framework/config.ts';
import { preflight, type PreflightResult } from '../framework/preflight.ts';
import type { TestServer } from '../framework/testing.ts';
import { startHostileTarget, type HostileBehaviour } from './targets.ts';

const API_KEY = 'am_sk_test_Pf7Lk2Mq9Wz4Xc8Vb3Nh6Jd1Gs5Ae0Ru';
const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

// How long preflight takes is bounded by its own request timeout (the message names it), never by a
// wall-clock assertion: one attempt, not a retry loop, is what these tests hold it to.
async function preflightAgainst(behaviour: HostileBehaviour): Promise<{ result: PreflightResult; requests: number }> {
  const server = await startHostileTarget(behaviour);
  servers.push(server);
  const result = await preflight(loadConfig({ env: { BASE_URL: server.url, API_KEY }, cwd: '/' }));
  return { result, requests: server.requests.length };
}

describe.concurrent('preflight against hostile targets', { timeout: 30_000 }, () => {
  const refused: [HostileBehaviour, 'unreachable' | 'config', RegExp][] = [
    ['never-answers', 'unreachable', /cannot be reached \(no answer within 10000 ms\)/],
    ['answers-500', 'unreachable', /answered 500 to a plain read .*"Internal server error".*up but failing/],
    ['non-json', 'config', /answered a plain read \(POST \/v1\/licenses\.list\) with 200 and a body that is not JSON: "<html>.*BASE_URL does not seem to point at the API/],
    ['huge-body', 'unreachable', /cannot be reached \(the answer's body is longer than the 1048576-byte cap .*content-length 52428800, not read\)/],
    ['endless-body', 'unreachable', /cannot be reached \(the answer's body is longer than the 1048576-byte cap .*reading stopped at the cap\)/],
  ];
  for (const [behaviour, kind, message] of refused) {
    it(`${behaviour}: ${kind}, in one attempt`, async () => {
      const { result, requests } = await preflightAgainst(behaviour);
      expect(result).toMatchObject({ ok: false, kind, message: expect.stringMatching(message) });
      expect(requests).toBe(1);
    });
  }

  it('refuses-everything: a 400 to the read shows the key and version were taken, so the run goes on (and the scenarios judge)', async () => {
    expect((await preflightAgainst('refuses-everything')).result).toEqual({ ok: true });
  });
});
