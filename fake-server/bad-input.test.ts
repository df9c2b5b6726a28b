/**
 * The bad-input cases of the fake over real HTTP, as an application would send them: deep nesting,
 * numbers that overflow, prototype keys. Each is refused with a clear 400 in the error body, or
 * round-trips; none is stored half-way or poisons later answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_TIME } from '../spec/control-plane.ts';
import { MAX_JSON_DEPTH } from './http/json.ts';
import { createFakeServer, type FakeServer } from './index.ts';

let fake: FakeServer;

beforeAll(async () => {
  fake = await createFakeServer({ frozen: true, validateResponses: true });
  await post('/v1/features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true });
  await post('/v1/plans.create', { plan_id: 'free', name: 'Free', auto_enable: true, items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }] });
  await post('/v1/customers.get_or_create', { customer_id: 'cus' });
});
afterAll(() => fake.close());

async function post(path: string, body: unknown): Promise<{ status: number; text: string; body: Record<string, unknown> }> {
  const response = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('deeply nested bodies', () => {
  it('plans.create with metadata 5,000 deep is refused with invalid_json, stores nothing, and plans stay readable', async () => {
    const refused = await post('/v1/plans.create', `{"plan_id":"deep","name":"Deep","metadata":${nested(5_000)}}`);
    expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_json', env: 'sandbox', message: expect.stringContaining('nests') } });
    expect((await post('/v1/plans.get', { plan_id: 'deep' })).status).toBe(404);
    expect((await post('/v1/plans.list', {})).status).toBe(200);
  });

  it('customer metadata and event properties past the bound are refused too; just within it they are stored and answered', async () => {
    expect((await post('/v1/customers.get_or_create', `{"customer_id":"deep","metadata":${nested(5_000)}}`)).body['code']).toBe('invalid_json');
    expect((await post('/v1/customers.get', { customer_id: 'deep' })).status).toBe(404);
    expect((await post('/v1/balances.track', `{"customer_id":"cus","feature_id":"messages","properties":${nested(MAX_JSON_DEPTH)}}`)).body['code']).toBe('invalid_json');

    const within = await post('/v1/customers.get_or_create', `{"customer_id":"nested","metadata":${nested(MAX_JSON_DEPTH - 2)}}`);
    expect(within.status).toBe(200);
    expect((await post('/v1/customers.get', { customer_id: 'nested' })).text).toContain(nested(MAX_JSON_DEPTH - 2));
  });
});

describe('numbers that would overflow', () => {
  it('refuses values near 1.8e308 and 1e999 with invalid_inputs, and usage stays a finite number', async () => {
    for (const value of ['1.7e308', '1e308', '1e999', '-1.7e308']) {
      const refused = await post('/v1/balances.track', `{"customer_id":"cus","feature_id":"messages","value":${value}}`);
      expect(refused, value).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
    }
    expect((await post('/v1/balances.track', { customer_id: 'cus', feature_id: 'messages', value: Number.MAX_SAFE_INTEGER, overage_behavior: 'overflow' })).status).toBe(200);
    expect((await post('/v1/balances.track', { customer_id: 'cus', feature_id: 'messages', value: Number.MAX_SAFE_INTEGER, overage_behavior: 'overflow' })).status).toBe(200);
    const { balances } = (await post('/v1/customers.get', { customer_id: 'cus' })).body as { balances: Record<string, { usage: unknown }> };
    expect(balances['messages']!.usage).toBe(2 * Number.MAX_SAFE_INTEGER);
    expect((await post('/v1/plans.create', `{"plan_id":"costly","name":"Costly","price":{"amount":1e308,"interval":"month"}}`)).body['code']).toBe('invalid_inputs');
  });
});

describe('the clock', () => {
  it('cannot be moved past the latest time a date can hold: 400, and it stays where it was', async () => {
    const before = (await post('/_fake/clock.get', {})).body['now'] as number;
    expect(await post('/_fake/clock.advance', { ms: LATEST_TIME })).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect(await post('/_fake/clock.advance', { ms: 1e16 })).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
    expect(await post('/_fake/clock.set', { now: LATEST_TIME + 1 })).toMatchObject({ status: 400, body: { code: 'invalid_inputs' } });
    expect((await post('/_fake/clock.get', {})).body['now']).toBe(before);
  });
});

describe('prototype keys', () => {
  it('metadata keys named __proto__ and constructor round-trip through HTTP', async () => {
    const metadata = '{"__proto__":{"x":1},"constructor":{"prototype":{"polluted":true}}}';
    expect((await post('/v1/customers.get_or_create', `{"customer_id":"proto","metadata":${metadata}}`)).status).toBe(200);
    expect((await post('/v1/customers.get', { customer_id: 'proto' })).text).toContain(`"metadata":${metadata}`);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('and through a state snapshot', async () => {
    expect((await post('/_fake/state.export', {})).text).toContain('"__proto__":{"x":1}');
  });
});
