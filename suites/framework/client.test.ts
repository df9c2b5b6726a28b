import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { TargetFault } from './checks.ts';
import { Client, normaliseSpellings, ReadOnlyViolation } from './client.ts';
import { EvidenceLog } from './evidence.ts';
import { json, startServer, TEST_KEY, testClient, type TestServer } from './testing.ts';

let server: TestServer;
/** What `things.get` answers next, by thing_id. */
const answers = new Map<string, { status: number; body: unknown }>();

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url === '/v1/things.get') {
      const { thing_id } = JSON.parse(req.body) as { thing_id: string };
      const answer = answers.get(thing_id);
      if (!answer) return json(res, 404, { message: `Thing ${thing_id} not found`, code: 'thing_not_found', env: 'sandbox' });
      return json(res, answer.status, answer.body);
    }
    if (req.url === '/v1/things.create') return json(res, 200, { id: 'new' });
    json(res, 404, 'Not Found');
  });
});
afterAll(() => server.close());

function client(evidence = new EvidenceLog()) {
  return testClient(server.url, evidence);
}

describe('call: 200 responses', () => {
  it('validates the body and returns it typed, with a clean wire-schema record', async () => {
    answers.set('ok', { status: 200, body: { id: 'ok', add_on: false, items: [{ created_at: 5 }] } });
    const result = await client().call('things.get', { thing_id: 'ok' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expectTypeOf(result.body).toEqualTypeOf<{ id: string; add_on: boolean; items: { created_at: number }[] }>();
    expect(result.body).toEqual({ id: 'ok', add_on: false, items: [{ created_at: 5 }] });
    expect(result.exchange).toMatchObject({ label: 'things.get', shapeRule: 'THING-GET-SHAPE', schemaIssues: [], spellings: { add_on: 'wire', created_at: 'wire' } });
  });

  it('records a 200 that fails its schema (shape rule, each zod issue) and returns the raw body, without throwing', async () => {
    answers.set('bad', { status: 200, body: { id: 7, add_on: false, items: [{ created_at: 'yesterday' }] } });
    const evidence = new EvidenceLog();
    const result = await client(evidence).call('things.get', { thing_id: 'bad' });
    expect(result.ok && result.body).toEqual({ id: 7, add_on: false, items: [{ created_at: 'yesterday' }] });
    const issues = [
      { path: 'id', message: 'Invalid input: expected string, received number' },
      { path: 'items[0].created_at', message: 'Invalid input: expected number, received string' },
    ];
    expect(result.ok && result.schemaIssues).toEqual(issues);
    expect(evidence.entries()[0]).toMatchObject({ seq: 1, shapeRule: 'THING-GET-SHAPE', schemaIssues: issues });
  });

  it('throws TargetFault (an ERROR, not a shape failure) for a 200 that is not JSON', async () => {
    answers.set('text', { status: 200, body: 'surprise' });
    const evidence = new EvidenceLog();
    await expect(client(evidence).call('things.get', { thing_id: 'text' })).rejects.toThrow(TargetFault);
    expect(evidence.entries()[0]).not.toHaveProperty('shapeRule');
  });

  it('accepts the documented spelling (addOn, createdAt) at any depth and records that it saw it', async () => {
    answers.set('camel', { status: 200, body: { id: 'c', addOn: true, items: [{ createdAt: 1 }, { created_at: 2 }] } });
    const result = await client().call('things.get', { thing_id: 'camel' });
    expect(result.ok && result.body).toEqual({ id: 'c', add_on: true, items: [{ created_at: 1 }, { created_at: 2 }] });
    expect(result.exchange.spellings).toEqual({ add_on: 'documented', created_at: 'mixed' });
    expect(result.exchange.mixedSpellings).toEqual(['addOn (documented)', 'items[0].createdAt (documented)', 'items[1].created_at (wire)']);
    expect(result.exchange.response?.body).toEqual({ id: 'c', addOn: true, items: [{ createdAt: 1 }, { created_at: 2 }] });
  });

  it('rejects any third spelling', async () => {
    answers.set('kebab', { status: 200, body: { id: 'k', 'add-on': true, items: [] } });
    const result = await client().call('things.get', { thing_id: 'kebab' });
    expect(result.ok && result.schemaIssues).toEqual([{ path: 'add_on', message: 'Invalid input: expected boolean, received undefined' }]);
  });
});

describe('call: error responses', () => {
  it('returns ok: false with the parsed error body and no issues', async () => {
    const result = await client().call('things.get', { thing_id: 'missing' });
    expect(result).toMatchObject({ ok: false, status: 404, error: { code: 'thing_not_found', env: 'sandbox' }, errorBodyIssues: [] });
    expect(result.exchange.errorBodyIssues).toEqual([]);
  });

  it('never throws over an error body of the wrong shape, and reports why', async () => {
    answers.set('odd', { status: 400, body: { error: 'nope' } });
    const result = await client().call('things.get', { thing_id: 'odd' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeUndefined();
    expect(result.body).toEqual({ error: 'nope' });
    expect(result.errorBodyIssues.map((i) => i.path)).toEqual(['message', 'code', 'env']);
    expect(result.exchange.errorBodyIssues).toEqual(result.errorBodyIssues);
  });
});

describe('raw', () => {
  it('sends the body text as given (malformed JSON, another method) and returns what came back', async () => {
    const c = client();
    const before = server.requests.length;
    const malformed = await c.raw({ path: '/v1/things.get', body: '{"thing_id":' });
    expect(malformed.status).toBe(500);
    const wrongMethod = await c.raw({ method: 'GET', path: '/v1/nowhere', body: undefined, headers: { authorization: null } });
    expect(wrongMethod).toMatchObject({ status: 404, body: 'Not Found', text: 'Not Found' });
    expect(server.requests.slice(before).map((r) => [r.method, r.body, r.headers['authorization']])).toEqual([
      ['POST', '{"thing_id":', `Bearer ${TEST_KEY}`],
      ['GET', '', undefined],
    ]);
    expect(wrongMethod.exchange.request.headers).not.toHaveProperty('authorization');
  });
});

describe('answer listeners', () => {
  it('hear every answer to an operation of the table, by call or raw, through every client made with with()', async () => {
    const heard: unknown[] = [];
    const root = client().with({ onAnswer: (answer) => heard.push(['root', answer]) });
    const scoped = root.with({ evidence: new EvidenceLog(), onSuccess: () => heard.push(['scope success']), onAnswer: () => heard.push(['scope']) });
    await scoped.call('things.create', { thing_id: 'a', name: 'A' });
    await root.raw({ path: '/v1/things.create', body: '{"thing_id":"b","name":"B"}' });
    await root.raw({ path: '/v1/things.get', body: 'not json' });
    await root.raw({ path: '/v1/nothing.here', body: '{}' });
    expect(heard).toEqual([
      ['scope success'],
      ['root', { operation: 'things.create', request: { thing_id: 'a', name: 'A' }, status: 200, body: { id: 'new' } }],
      ['scope'],
      ['root', { operation: 'things.create', request: { thing_id: 'b', name: 'B' }, status: 200, body: { id: 'new' } }],
      // A body that is not JSON is heard as undefined (the test server fails on the request: a 500 in text).
      ['root', { operation: 'things.get', request: undefined, status: 500, body: undefined }],
    ]);
  });
});

describe('header overrides of a scope', () => {
  it('go with every request of clients made with with(), under the request\'s own, and the listeners hear them', async () => {
    const heard: unknown[] = [];
    const own = { authorization: 'Bearer am_sk_test_OwnTenantKey' };
    const scoped = client()
      .with({ onSend: ({ headers }) => void heard.push(headers) })
      .with({ headers: own });
    const before = server.requests.length;
    await scoped.with({ evidence: new EvidenceLog() }).call('things.create', { thing_id: 'a', name: 'A' });
    await scoped.raw({ path: '/v1/things.create', body: '{"thing_id":"b","name":"B"}' });
    await scoped.call('things.create', { thing_id: 'c', name: 'C' }, { headers: { Authorization: null, 'x-extra': '1' } });
    await scoped.transport.send({ label: 'control:health', path: '/_fake/health', body: '{}' }, (res) => ({ value: res }));
    const sent = server.requests.slice(before).map((r) => [r.headers.authorization, r.headers['x-extra']]);
    expect(sent).toEqual([[own.authorization, undefined], [own.authorization, undefined], [undefined, '1'], [own.authorization, undefined]]);
    expect(heard).toEqual([own, own, { Authorization: null, 'x-extra': '1' }]);
  });
});

describe('read-only clients', () => {
  it('refuse a mutating operation, by call or by raw path, without sending anything', async () => {
    const readOnly = client().with({ readOnly: true });
    const before = server.requests.length;
    await expect(readOnly.call('things.create', { thing_id: 'a', name: 'A' })).rejects.toThrow(ReadOnlyViolation);
    await expect(readOnly.raw({ path: '/v1/things.create', body: '{}' })).rejects.toThrow(/things.create mutates data/);
    expect(server.requests.length).toBe(before);
    answers.set('ro', { status: 200, body: { id: 'ro', add_on: true, items: [] } });
    expect((await readOnly.call('things.get', { thing_id: 'ro' })).ok).toBe(true);
  });

  it('decide by the body for an operation that reads or writes depending on it', async () => {
    const readOnly = client().with({ readOnly: true });
    const before = server.requests.length;
    await expect(readOnly.call('things.check', { thing_id: 'a', use_up: true })).rejects.toThrow(/things.check mutates data/);
    await expect(readOnly.raw({ path: '/v1/things.check', body: '{"thing_id":"a","use_up":true}' })).rejects.toThrow(ReadOnlyViolation);
    await expect(readOnly.raw({ path: '/v1/things.check', body: 'not json' }), 'an unreadable body counts as writing').rejects.toThrow(ReadOnlyViolation);
    expect(server.requests.length).toBe(before);
    await readOnly.call('things.check', { thing_id: 'a' });
    expect(server.requests.length, 'a plain check is sent').toBe(before + 1);
  });

  it('keep their pool and settings: a with() client is a Client of the same table', () => {
    const c = client();
    const scoped = c.with({ evidence: new EvidenceLog() });
    expect(scoped).toBeInstanceOf(Client);
    expect(scoped.operations).toBe(c.operations);
    expect(scoped.readOnly).toBe(false);
  });
});

describe('normaliseSpellings', () => {
  it('keeps the wire value when an object carries both spellings', () => {
    const { value, seen } = normaliseSpellings({ add_on: true, addOn: false }, { add_on: 'addOn' });
    expect(value).toEqual({ add_on: true });
    expect(seen).toEqual({ add_on: 'mixed' });
  });

  it('says where one answer uses both spellings: one key both ways, or some keys documented and others wire', () => {
    const spellings = { add_on: 'addOn', created_at: 'createdAt' };
    expect(normaliseSpellings({ addOn: true, items: [{ createdAt: 1 }] }, spellings).mixedAt).toEqual([]);
    expect(normaliseSpellings({ add_on: true, items: [{ created_at: 1 }] }, spellings).mixedAt).toEqual([]);
    expect(normaliseSpellings({ addOn: true, items: [{ created_at: 1 }] }, spellings).mixedAt).toEqual(['addOn (documented)', 'items[0].created_at (wire)']);
    expect(normaliseSpellings({ add_on: true, addOn: false }, spellings).mixedAt).toEqual(['addOn (both spellings)', 'add_on (wire)']);
  });

  it('leaves other keys, scalars and nulls untouched', () => {
    expect(normaliseSpellings({ a: null, b: [1, 'x'], free_trial: null }, { free_trial: 'free trial' })).toEqual({
      value: { a: null, b: [1, 'x'], free_trial: null },
      seen: { free_trial: 'wire' },
      mixedAt: [],
    });
    expect(normaliseSpellings({ 'free trial': { d: 1 } }, { free_trial: 'free trial' }).value).toEqual({ free_trial: { d: 1 } });
  });
});
