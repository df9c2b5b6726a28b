/**
 * The envelope of the fake over real HTTP: routing, auth, tenants, version header, body parsing and
 * validation, error bodies. Rule IDs proven are named in each test.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSeed } from '../fixtures/random.ts';
import { ErrorBody } from '../spec/common.ts';
import { OPERATION_NAMES } from '../spec/operations.ts';
import { createFakeServer, type FakeServer } from './index.ts';

const OTHER_ORG_KEY = 'am_sk_test_otherorg000000000000000000000000000000000000';
const LIVE_KEY = 'am_sk_live_fake0000000000000000000000000000000000000000';
const SANDBOX_KEY = 'am_sk_test_fake0000000000000000000000000000000000000000';

let fake: FakeServer;

beforeAll(async () => {
  fake = await createFakeServer({
    validateResponses: true,
    bodyLimit: 64 * 1024,
    keys: [
      { key: SANDBOX_KEY, org: 'org_fake' },
      { key: LIVE_KEY, org: 'org_fake' },
      { key: OTHER_ORG_KEY, org: 'org_other' },
    ],
  });
});
afterAll(() => fake.close());

async function post(path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${SANDBOX_KEY}` }) {
  const response = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('authentication [AUTH-BEARER-REQUIRED, AUTH-NO-KEY-CODE, AUTH-UNKNOWN-KEY-CODE, AUTH-SECRET-KEY]', () => {
  it('answers 401 no_secret_key without an Authorization header, and with another scheme', async () => {
    for (const headers of [{}, { authorization: `Basic ${SANDBOX_KEY}` }, { authorization: 'Bearer' }] as Record<string, string>[]) {
      const result = await post('/v1/features.list', {}, headers);
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ message: 'Secret key not found in Authorization header', code: 'no_secret_key', env: 'sandbox' });
    }
  });

  it('answers 401 invalid_secret_key to an unknown key, masking it', async () => {
    const result = await post('/v1/features.list', {}, { authorization: 'Bearer am_sk_test_wrong000000000000' });
    expect(result.status).toBe(401);
    expect(result.body).toMatchObject({ code: 'invalid_secret_key', env: 'sandbox' });
    expect(String(result.body['message'])).toBe(`Invalid secret key: am_sk_test_wron${'*'.repeat(13)}`);
  });
});

describe('tenants [AUTH-TENANT-ISOLATION]', () => {
  it('keeps organisations and environments apart; the same id can exist in each', async () => {
    const feature = { feature_id: 'iso_flag', name: 'Iso', type: 'boolean' };
    expect((await post('/v1/features.create', feature)).status).toBe(200);
    const other = await post('/v1/features.get', { feature_id: 'iso_flag' }, { authorization: `Bearer ${OTHER_ORG_KEY}` });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 'feature_not_found', env: 'sandbox' });
    const live = await post('/v1/features.get', { feature_id: 'iso_flag' }, { authorization: `Bearer ${LIVE_KEY}` });
    expect(live.body).toMatchObject({ code: 'feature_not_found', env: 'live' });
    expect((await post('/v1/features.create', feature, { authorization: `Bearer ${LIVE_KEY}` })).status).toBe(200);
  });
});

describe('x-api-version [VER-HEADER-DEFAULT, VER-2-4-0-ACCEPTED, VER-INVALID-VERSION]', () => {
  it('serves a request without the header, with 2.4.0, and with earlier 2.x versions', async () => {
    for (const version of [undefined, '2.4.0', '2.3.0', '2.3', '2']) {
      const headers: Record<string, string> = { authorization: `Bearer ${SANDBOX_KEY}`, ...(version && { 'x-api-version': version }) };
      expect((await post('/v1/features.list', {}, headers)).status).toBe(200);
    }
  });

  it('answers 400 invalid_api_version to an unparseable or unknown version', async () => {
    for (const version of ['9.9.9', '2.5.0', 'latest', '2025-05-05']) {
      const result = await post('/v1/features.list', {}, { authorization: `Bearer ${SANDBOX_KEY}`, 'x-api-version': version });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({ message: `"${version}" is not a valid API version`, code: 'invalid_api_version', env: 'sandbox' });
    }
  });
});

describe('bodies [ERR-VALIDATION-CODE, ERR-BODY-SHAPE]', () => {
  it('names each invalid field in a 400 invalid_inputs message', async () => {
    const result = await post('/v1/subscriptions.list', { limit: 201, statuses: [] });
    expect(result.status).toBe(400);
    expect(result.body['code']).toBe('invalid_inputs');
    expect(result.body['message']).toBe(
      '[Validation Errors] limit: Too big: expected number to be <=200; statuses: Too small: expected array to have >=1 items',
    );
  });

  it('reads an empty body as {} and reports the missing fields', async () => {
    const response = await fetch(`${fake.url}/v1/plans.get`, { method: 'POST', headers: { authorization: `Bearer ${SANDBOX_KEY}` } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_inputs', message: expect.stringContaining('plan_id') });
  });

  it('refuses malformed JSON with 400 and a body that is not an object with 400 invalid_inputs', async () => {
    expect(await post('/v1/plans.get', '{"plan_id": ')).toMatchObject({ status: 400, body: { code: 'invalid_json' } });
    expect(await post('/v1/plans.get', '[1,2]')).toMatchObject({ status: 400, body: { code: 'invalid_inputs', message: 'input: Invalid input: expected object, received array' } });
    expect(await post('/v1/plans.get', 'null')).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
  });

  it('refuses a body over the limit with 413', async () => {
    const result = await post('/v1/features.create', { feature_id: 'big', name: 'x'.repeat(70 * 1024), type: 'boolean' });
    expect(result.status).toBe(413);
    expect(result.body['code']).toBe('payload_too_large');
  });
});

describe('routing', () => {
  it('answers an unknown path with 404 and a known path with another method with 405 and Allow: POST', async () => {
    const unknown = await post('/v1/customers.teleport', {});
    expect(unknown).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
    const get = await fetch(`${fake.url}/v1/plans.get`, { headers: { authorization: `Bearer ${SANDBOX_KEY}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(ErrorBody.safeParse(await get.json()).success).toBe(true);
  });

  it('exposes the control plane under /_fake/ with the same keys', async () => {
    const health = await post('/_fake/health', {});
    expect(health).toMatchObject({ status: 200, body: { fake: true, api_version: '2.4.0', faults: [] } });
    expect((await post('/_fake/health', {}, {})).status).toBe(401);
  });
});

describe('robustness', () => {
  it('never answers 5xx, whatever JSON body any operation receives (property, seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATION_NAMES), fc.oneof(fc.object(), fc.anything()), async (operation, body) => {
        const result = await post(`/v1/${operation}`, body);
        expect(result.status).toBeLessThan(500);
        expect(ErrorBody.safeParse(result.body).success || result.status === 200).toBe(true);
      }),
      { seed: testSeed(), numRuns: 300 },
    );
  });
});
