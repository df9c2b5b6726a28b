import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient } from './client.ts';
import { ControlPlaneError, createControlClient } from './control-client.ts';
import { EvidenceLog } from './evidence.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations, type TestServer } from './testing.ts';

let fake: TestServer;
let plain: TestServer;
let silent: TestServer;

beforeAll(async () => {
  fake = await startServer((req, res) => {
    if (req.url === '/_fake/health') return json(res, 200, { fake: true, api_version: '2.4.0', faults: [] });
    if (req.url === '/_fake/clock.advance') {
      const { ms } = JSON.parse(req.body) as { ms: number };
      return json(res, 200, { now: 1_000 + ms, frozen: true, ran: { 'grant.reset': 2, 'billing.period_end': 0, 'record.trial_end': 0, 'record.expire': 0, 'lock.expire': 0 } });
    }
    if (req.url === '/_fake/records.force_state') return json(res, 200, { record_id: 'r', status: 'past_due', past_due: 'yes' });
    json(res, 400, { message: 'bad', code: 'invalid_inputs', env: 'sandbox' });
  });
  plain = await startServer((_req, res) => json(res, 404, { message: 'Not found', code: 'route_not_found', env: 'sandbox' }));
  silent = await startServer(() => {
    /* never answers */
  });
});
afterAll(() => Promise.all([fake.close(), plain.close(), silent.close()]));

function control(url: string, evidence = new EvidenceLog()) {
  const client = createClient({ baseUrl: url, apiKey: TEST_KEY, apiVersion: '2.4.0', timeoutMs: 5_000, retry: false, operations: testOperations, errorBody: TestErrorBody, evidence });
  return createControlClient(client);
}

describe('ControlClient', () => {
  it('sends typed control calls under /_fake/ with the same headers, and parses the answer', async () => {
    const evidence = new EvidenceLog();
    const result = await control(fake.url, evidence).call('clock.advance', { ms: 500 });
    expectTypeOf(result.ran['grant.reset']).toEqualTypeOf<number>();
    expect(result).toEqual({ now: 1_500, frozen: true, ran: { 'grant.reset': 2, 'billing.period_end': 0, 'record.trial_end': 0, 'record.expire': 0, 'lock.expire': 0 } });
    const request = fake.requests.at(-1);
    expect(request).toMatchObject({ method: 'POST', url: '/_fake/clock.advance', headers: { authorization: `Bearer ${TEST_KEY}`, 'x-api-version': '2.4.0' } });
    expect(evidence.entries()[0]).toMatchObject({ label: 'control:clock.advance', schemaIssues: [] });
    expect(JSON.stringify(evidence.entries())).not.toContain(TEST_KEY);
  });

  it('throws ControlPlaneError for an error status', async () => {
    const error = await control(fake.url).call('reset', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlPlaneError);
    expect((error as ControlPlaneError).status).toBe(400);
    expect((error as ControlPlaneError).message).toMatch(/^POST \/_fake\/reset answered 400: .*invalid_inputs/);
  });

  it('throws ControlPlaneError, with the issues, for a 200 of the wrong shape', async () => {
    const evidence = new EvidenceLog();
    const error = await control(fake.url, evidence).call('records.force_state', { record_id: 'r', state: 'past_due' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlPlaneError);
    expect((error as ControlPlaneError).issues.map((i) => i.path)).toEqual(['status', 'past_due']);
    expect(evidence.entries()[0]?.schemaIssues).toHaveLength(2);
  });
});

describe('ControlClient.probe', () => {
  it('finds the control plane of a fake', async () => {
    expect(await control(fake.url).probe(1_000)).toEqual({ available: true, health: { fake: true, api_version: '2.4.0', faults: [] } });
  });

  it('says what a target without one answered', async () => {
    expect(await control(plain.url).probe(1_000)).toEqual({ available: false, reason: 'POST /_fake/health answered 404' });
  });

  it('gives up after its timeout on a target that does not answer', async () => {
    expect(await control(silent.url).probe(150)).toEqual({ available: false, reason: 'POST /_fake/health did not answer within 150 ms' });
  });
});
