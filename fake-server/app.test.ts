/**
 * The envelope of the fake over real HTTP: routing, auth, tenants, version header, body parsing and
 * validation, error bodies. Rule IDs proven are named in each test.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSeed } from '../fixtures/random.ts';
import { ErrorBody } from '../spec/common.ts';
import { OPERATION_NAMES } from '../spec/operations.ts';
import { createFakeApp } from './app.ts';
import { faultsFor } from './faults/index.ts';
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

describe('the authentication faults, in a fake given keys of its own', () => {
  it("serve a keyless request (AUTH-BEARER-REQUIRED) and any test-prefixed token (AUTH-SECRET-KEY) as the fake's first key, not the default key it does not hold", async () => {
    const own = 'am_sk_test_ownkey00000000000000000000000000000000000000';
    for (const [fault, headers] of [
      ['AUTH-BEARER-REQUIRED', {}],
      ['AUTH-SECRET-KEY', { authorization: 'Bearer am_sk_test_anything' }],
    ] as const) {
      const app = createFakeApp({ keys: [{ key: own, org: 'org_own' }], faults: faultsFor([fault]) });
      const response = await app.fetch(new Request('http://fake/v1/features.list', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' }));
      expect(response.status, fault).toBe(200);
    }
  });
});

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
  // 300 requests each: allow for a loaded CI machine (a timeout here is not a verdict on speed).
  it('never answers 5xx, whatever JSON body any operation receives (property, seeded)', { timeout: 60_000 }, async () => {
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

describe('methods and paths', () => {
  it('answers every other method on a known path with 405 and a JSON error body', async () => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const response = await fetch(`${fake.url}/v1/features.list`, { method, headers: { authorization: `Bearer ${SANDBOX_KEY}` } });
      expect(response.status, method).toBe(405);
      expect(ErrorBody.safeParse(await response.json()).success).toBe(true);
    }
  });

  it('finds operations by path only: a query string is ignored, prototype names and sub-paths are unknown', async () => {
    expect((await post('/v1/features.list?limit=1', {})).status).toBe(200);
    for (const path of ['/v1/', '/v1/__proto__', '/v1/constructor', '/v1/features.list/extra', '/v2/features.list', '/_fake/__proto__', '/_fake/', '/']) {
      expect((await post(path, {})).status, path).toBe(404);
    }
  });
});

describe('request size', () => {
  it('refuses a chunked body (no Content-Length) once it passes the limit', async () => {
    const chunk = new TextEncoder().encode(`"${'x'.repeat(8 * 1024)}",`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 0) controller.enqueue(new TextEncoder().encode('{"feature_id":"big","name":['));
        if (sent > 10) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${fake.url}/v1/features.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SANDBOX_KEY}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload_too_large' });
  });
});

describe('control plane', () => {
  const T0 = Date.UTC(2030, 0, 15);
  const DAY = 86_400_000;
  let cp: FakeServer;

  beforeAll(async () => {
    cp = await createFakeServer({
      now: T0,
      frozen: true,
      validateResponses: true,
      seed: [
        { operation: 'features.create', body: { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true } },
        { operation: 'plans.create', body: { plan_id: 'monthly', name: 'Monthly', price: { amount: 10, interval: 'month' }, items: [{ feature_id: 'messages', included: 10, reset: { interval: 'month' } }] } },
        { operation: 'customers.get_or_create', body: { customer_id: 'acme' } },
        { operation: 'billing.attach', body: { customer_id: 'acme', plan_id: 'monthly' } },
      ],
    });
  });
  afterAll(() => cp.close());

  async function call(path: string, body: unknown, key: string | null = SANDBOX_KEY, method = 'POST') {
    const response = await fetch(`${cp.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key !== null && { authorization: `Bearer ${key}` }) },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function recordId(): Promise<string> {
    const { body } = await call('/v1/subscriptions.list', { customer_id: 'acme', statuses: ['active', 'scheduled', 'expired'] });
    return (body['list'] as { id: string }[])[0]!.id;
  }

  it('clock: reads the frozen start, refuses to go backwards, and advancing runs what falls due in time order', async () => {
    expect(await call('/_fake/clock.get', {})).toEqual({ status: 200, body: { now: T0, frozen: true } });
    expect(await call('/_fake/clock.set', { now: T0 - 1 })).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    const advanced = await call('/_fake/clock.advance', { ms: 31 * DAY });
    expect(advanced.body).toMatchObject({ now: T0 + 31 * DAY, frozen: true });
    expect(advanced.body['ran']).toMatchObject({ 'grant.reset': expect.any(Number), 'billing.period_end': expect.any(Number) });
    const ran = advanced.body['ran'] as Record<string, number>;
    expect(ran['grant.reset']).toBeGreaterThan(0);
    expect(ran['billing.period_end']).toBeGreaterThan(0);
    expect(await call('/_fake/clock.set', { now: T0 + 40 * DAY })).toEqual({ status: 200, body: { now: T0 + 40 * DAY, frozen: true } });
    expect(await call('/_fake/clock.advance', { ms: 0 })).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
  });

  it('records.force_state: past due reads active with past_due, expired is final, and an unknown record is 404', async () => {
    const id = await recordId();
    expect(await call('/_fake/records.force_state', { record_id: id, state: 'past_due' })).toEqual({ status: 200, body: { record_id: id, status: 'active', past_due: true } });
    const pastDue = await call('/v1/subscriptions.list', { customer_id: 'acme', statuses: ['past_due'] });
    expect((pastDue.body['list'] as { id: string }[]).map((record) => record.id)).toEqual([id]);
    expect(await call('/_fake/records.force_state', { record_id: id, state: 'active' })).toMatchObject({ body: { status: 'active', past_due: false } });
    expect(await call('/_fake/records.force_state', { record_id: id, state: 'past_due', at: T0 })).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
    expect(await call('/_fake/records.force_state', { record_id: id, state: 'expired' })).toMatchObject({ status: 200, body: { status: 'expired' } });
    expect(await call('/_fake/records.force_state', { record_id: id, state: 'active' })).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect(await call('/_fake/records.force_state', { record_id: 'cus_prod_none', state: 'expired' })).toMatchObject({ status: 404, body: { code: 'cus_product_not_found' } });
  });

  it('events.list: the usage events of the key tenant, filtered by customer', async () => {
    await call('/v1/customers.get_or_create', { customer_id: 'globex' });
    await call('/v1/billing.attach', { customer_id: 'globex', plan_id: 'monthly' });
    expect((await call('/v1/balances.check', { customer_id: 'globex', feature_id: 'messages', required_balance: 2, send_event: true })).status).toBe(200);
    expect((await call('/v1/balances.track', { customer_id: 'globex', feature_id: 'messages', value: 3 })).status).toBe(200);
    const { body } = await call('/_fake/events.list', { customer_id: 'globex' });
    expect(body['list']).toMatchObject([
      { customer_id: 'globex', feature_id: 'messages', value: 2 },
      { customer_id: 'globex', feature_id: 'messages', value: 3 },
    ]);
    expect(await call('/_fake/events.list', { customer_id: 'acme' })).toEqual({ status: 200, body: { list: [], has_more: false, next_cursor: null } });
    expect(await call('/_fake/events.list', {}, LIVE_KEY)).toEqual({ status: 200, body: { list: [], has_more: false, next_cursor: null } });
  });

  it('reset: the key tenant back to its seed, with the same IDs and its clock where it started; other tenants untouched', async () => {
    const seededRecord = await recordId();
    await call('/v1/features.create', { feature_id: 'extra', name: 'Extra', type: 'boolean' });
    await call('/v1/features.create', { feature_id: 'live_only', name: 'Live', type: 'boolean' }, LIVE_KEY);
    await call('/_fake/clock.advance', { ms: DAY });
    expect(await call('/_fake/reset', {})).toEqual({ status: 200, body: { success: true } });
    expect((await call('/v1/features.get', { feature_id: 'extra' })).status).toBe(404);
    expect((await call('/v1/customers.get', { customer_id: 'globex' })).status).toBe(404);
    expect((await call('/v1/customers.get', { customer_id: 'acme' })).status).toBe(200);
    expect(await recordId(), 'the seed replays with the IDs it had').toBe(seededRecord);
    expect((await call('/_fake/clock.get', {})).body).toEqual({ now: T0, frozen: true });
    expect((await call('/v1/features.get', { feature_id: 'live_only' }, LIVE_KEY)).status, "another tenant's data stays").toBe(200);
    expect(await call('/_fake/reset', { all: true })).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    cp.reset();
    expect((await call('/v1/features.get', { feature_id: 'live_only' }, LIVE_KEY)).status, 'the in-process reset covers every tenant').toBe(404);
  });

  it('refuses an unknown call (404), a missing or unknown key (401), another method (405) and an invalid body (400)', async () => {
    expect(await call('/_fake/time.travel', {})).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
    expect(await call('/_fake/clock.get', {}, null)).toMatchObject({ status: 401, body: { code: 'no_secret_key' } });
    expect(await call('/_fake/clock.get', {}, 'am_sk_test_unknown')).toMatchObject({ status: 401, body: { code: 'invalid_secret_key' } });
    expect(await call('/_fake/clock.get', undefined, SANDBOX_KEY, 'GET')).toMatchObject({ status: 405, body: { code: 'method_not_allowed' } });
    expect(await call('/_fake/health', undefined, SANDBOX_KEY, 'GET')).toMatchObject({ status: 200, body: { fake: true } });
    expect(await call('/_fake/clock.set', { now: 'soon' })).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
    expect(await call('/_fake/records.force_state', { record_id: 'x', state: 'cancelled' })).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
  });
});

describe('robustness over raw HTTP', () => {
  let fuzzed: FakeServer;
  const internalErrors: unknown[] = [];
  beforeAll(async () => {
    fuzzed = await createFakeServer({ validateResponses: true, bodyLimit: 4 * 1024, onInternalError: (error) => void internalErrors.push(error) });
  });
  afterAll(() => fuzzed.close());

  /** One request with any bytes, any method, path and header values node:http lets through. */
  function send(request: { method: string; path: string; headers: Record<string, string>; body: Uint8Array }) {
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const { port, hostname } = new URL(fuzzed.url);
      // An explicit length: node sends DELETE and OPTIONS bodies unframed otherwise, which is not HTTP.
      const headers = { ...request.headers, 'content-length': String(request.body.byteLength) };
      const outgoing = httpRequest({ host: hostname, port, method: request.method, path: request.path, headers }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  }

  const printable = (max: number) => fc.stringMatching(new RegExp(`^[ -~]{0,${max}}$`));
  const paths = fc.oneof(
    fc.constantFrom(...OPERATION_NAMES.map((name) => `/v1/${name}`), '/_fake/health', '/_fake/clock.get', '/_fake/events.list', '/v1/'),
    fc.stringMatching(/^\/[A-Za-z0-9._~%-]{0,30}$/),
  );
  const bodies = fc.oneof(
    fc.uint8Array({ maxLength: 6 * 1024 }),
    fc.json().map((text) => new TextEncoder().encode(text)),
    fc.constantFrom('{"customer_id":', '\uFEFF{}', '[]', 'null', '{"__proto__":{"x":1}}').map((text) => new TextEncoder().encode(text)),
  );

  it('never answers 5xx, and answers every error with a JSON error body, whatever bytes, method, path and headers arrive (property, seeded)', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH'),
        paths,
        fc.option(fc.oneof(fc.constant(`Bearer ${SANDBOX_KEY}`), printable(80)), { nil: undefined }),
        fc.option(fc.oneof(fc.constantFrom('2.4.0', '2.3', '9.9.9'), printable(20)), { nil: undefined }),
        fc.option(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'), { nil: undefined }),
        bodies,
        async (method, path, authorization, version, contentType, body) => {
          const headers: Record<string, string> = {
            ...(authorization !== undefined && { authorization }),
            ...(version !== undefined && { 'x-api-version': version }),
            ...(contentType !== undefined && { 'content-type': contentType }),
          };
          const { status, text } = await send({ method, path, headers, body: method === 'GET' ? new Uint8Array() : body });
          expect(status, `${method} ${path} ${JSON.stringify(headers)}: ${text.slice(0, 200)}`).toBeLessThan(500);
          if (status >= 400) expect(ErrorBody.safeParse(JSON.parse(text)).success, text.slice(0, 200)).toBe(true);
        },
      ),
      { seed: testSeed(), numRuns: 300 },
    );
    expect(internalErrors).toEqual([]);
  });
});
