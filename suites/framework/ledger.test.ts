import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { answerRecorder } from './cleanup.ts';
import { Ledger } from './ledger.ts';
import { createNamespace } from './namespace.ts';
import { json, startServer, testClient, type TestServer } from './testing.ts';

let server: TestServer;
/** thing_id → status things.delete answers with (default 200). */
const deleteStatus = new Map<string, number>();

beforeAll(async () => {
  server = await startServer((req, res) => {
    const { thing_id } = JSON.parse(req.body) as { thing_id: string };
    const status = deleteStatus.get(thing_id) ?? 200;
    if (status === 200) json(res, 200, { success: true });
    else json(res, status, { message: `status ${status} for ${thing_id}`, code: 'some_code', env: 'sandbox' });
  });
});
afterAll(() => server.close());

function setup() {
  const client = testClient(server.url);
  const ns = createNamespace({ prefix: 'conf', seed: 1234 });
  const ledger = new Ledger<typeof client>(ns, {
    thing: (entry, c) => c.call('things.delete', { thing_id: entry.id, ...(entry['owner_id'] ? { owner_id: entry['owner_id'] } : {}) }),
  });
  return { client, ns, ledger };
}

describe('Ledger', () => {
  it('records a kind and ID once, however often it is recorded', () => {
    const { ns, ledger } = setup();
    const id = ns.scope('s').id('thing');
    ledger.record({ kind: 'thing', id });
    ledger.forScenario('s').record({ kind: 'thing', id });
    expect(ledger.entries()).toHaveLength(1);
  });

  it('undoes entries newest first, passing parent IDs to the action', async () => {
    const { client, ns, ledger } = setup();
    const scoped = ns.scope('S1');
    const ids = [scoped.id('thing'), scoped.id('thing'), scoped.id('thing')];
    ledger.record({ kind: 'thing', id: ids[0]!, owner_id: 'cus_foreign_parent' }, 'S1');
    ledger.forScenario('S1').record({ kind: 'thing', id: ids[1]! });
    ledger.forScenario('S2').record({ kind: 'thing', id: ids[2]! });
    const before = server.requests.length;
    const report = await ledger.cleanup(client);
    const sent = server.requests.slice(before).map((r) => JSON.parse(r.body) as Record<string, string>);
    expect(sent).toEqual([{ thing_id: ids[2] }, { thing_id: ids[1] }, { thing_id: ids[0], owner_id: 'cus_foreign_parent' }]);
    expect(report.undone.map((r) => [r.entry.id, r.scenario])).toEqual([
      [ids[2], 'S2'],
      [ids[1], 'S1'],
      [ids[0], 'S1'],
    ]);
    expect(ledger.entries()).toEqual([]);
  });

  it('counts a 404 as already gone, collects failures without stopping, and leaves kinds it cannot undo', async () => {
    const { client, ns, ledger } = setup();
    const s = ns.scope('S3');
    const [gone, broken, fine, customer, throws] = [s.id('thing'), s.id('thing'), s.id('thing'), s.id('customer'), s.id('widget')];
    deleteStatus.set(gone, 404);
    deleteStatus.set(broken, 500);
    ledger.register('widget', () => Promise.reject(new Error('widget API down')));
    for (const [kind, id] of [['thing', fine], ['thing', broken], ['thing', gone], ['customer', customer], ['widget', throws]] as const) ledger.record({ kind, id });
    const report = await ledger.cleanup(client);
    expect(report.alreadyGone.map((r) => r.entry.id)).toEqual([gone]);
    expect(report.undone.map((r) => r.entry.id)).toEqual([fine]);
    expect(report.left.map((r) => r.entry.id)).toEqual([customer]);
    expect(report.failed.map((r) => [r.entry.id, r.error])).toEqual([
      [throws, 'widget API down'],
      [broken, expect.stringMatching(/^answered 500: .*status 500 for/)],
    ]);
  });

  it("records a 200 of a creating call made with the run's key, and nothing made with another tenant's key", () => {
    const { ns, ledger } = setup();
    const creates = { 'things.create': ((request: { thing_id: string }) => ({ kind: 'thing', id: request.thing_id })) as never };
    const record = answerRecorder(creates, ns, ledger.forScenario(undefined), 'am_sk_test_run');
    const [own, bare, other, refused] = ['own', 'bare', 'other', 'refused'].map((name) => ns.scope(name).id('thing'));
    record({ operation: 'things.create', request: { thing_id: own }, status: 200, body: {}, headers: { authorization: 'Bearer am_sk_test_run' } });
    record({ operation: 'things.create', request: { thing_id: bare }, status: 200, body: {}, headers: undefined });
    // An exploration program's own tenant, deleted whole: the run's key would only find it gone.
    record({ operation: 'things.create', request: { thing_id: other }, status: 200, body: {}, headers: { Authorization: 'Bearer am_sk_test_tenant2' } });
    record({ operation: 'things.create', request: { thing_id: refused }, status: 400, body: {}, headers: undefined });
    expect(ledger.entries().map((recorded) => recorded.entry.id)).toEqual([own, bare]);
  });

  it('refuses to record an ID outside the namespace, so cleanup can never delete it', async () => {
    const { client, ledger } = setup();
    const other = createNamespace({ prefix: 'conf', seed: 99 }).scope('S').id('thing');
    expect(() => ledger.record({ kind: 'thing', id: 'customer_of_someone_else' })).toThrow(/not in this run's namespace/);
    expect(() => ledger.record({ kind: 'thing', id: other })).toThrow(/refusing to record thing/);
    const before = server.requests.length;
    const report = await ledger.cleanup(client);
    expect(server.requests.length).toBe(before);
    expect(report).toEqual({ undone: [], alreadyGone: [], left: [], failed: [] });
  });
});

/**
 * A target that holds things: `things.delete` refuses (409) a thing another thing still names as its
 * owner, `things.get` reads one (404 once gone). Routes listed in `unservedRoutes` answer 404
 * route_not_found whatever the thing; IDs in `failsWith` answer that status and stay.
 */
describe('Ledger against a target with dependencies', () => {
  let target: TestServer;
  const things = new Map<string, string | undefined>();
  const unservedRoutes = new Set<string>();
  const failsWith = new Map<string, number>();

  beforeAll(async () => {
    target = await startServer((req, res) => {
      const route = req.url;
      if (unservedRoutes.has(route)) return json(res, 404, { message: `no ${route}`, code: 'route_not_found', env: 'sandbox' });
      const { thing_id } = JSON.parse(req.body) as { thing_id: string };
      if (route === '/v1/things.get') return things.has(thing_id) ? json(res, 200, { id: thing_id, add_on: false, items: [] }) : json(res, 404, { message: 'gone', code: 'not_found', env: 'sandbox' });
      const status = failsWith.get(thing_id);
      if (status !== undefined) return json(res, status, { message: `status ${status}`, code: 'some_code', env: 'sandbox' });
      if (!things.has(thing_id)) return json(res, 404, { message: 'gone', code: 'not_found', env: 'sandbox' });
      const owned = [...things].find(([, owner]) => owner === thing_id);
      if (owned) return json(res, 409, { message: `${thing_id} owns ${owned[0]}`, code: 'invalid_request', env: 'sandbox' });
      things.delete(thing_id);
      json(res, 200, { success: true });
    });
  });
  afterAll(() => target.close());

  type TC = ReturnType<typeof testClient>;
  const remove = (entry: { id: string }, c: TC) => c.call('things.delete', { thing_id: entry.id });
  const exists = async (entry: { id: string }, c: TC) => {
    const { status } = await c.call('things.get', { thing_id: entry.id });
    return status === 200 ? true : status === 404 ? false : undefined;
  };

  function fresh(seed: number) {
    things.clear();
    unservedRoutes.clear();
    failsWith.clear();
    return { client: testClient(target.url), ns: createNamespace({ prefix: 'conf', seed }).scope('S') };
  }

  it('undoes kinds in the order given, and tries a refused removal again once what blocked it is gone', async () => {
    const { client, ns } = fresh(11);
    const [owner, child] = [ns.id('owner'), ns.id('child')];
    things.set(owner, undefined).set(child, owner);
    // The order names owners first: the first pass is refused, the second succeeds.
    const ledger = new Ledger<TC>(ns, { owner: { remove, exists }, child: { remove, exists } }, { order: ['owner', 'child'] });
    ledger.record({ kind: 'child', id: child });
    ledger.record({ kind: 'owner', id: owner });
    const report = await ledger.cleanup(client);
    expect(report.undone.map((r) => r.entry.id)).toEqual([child, owner]);
    expect([report.failed, report.left, report.alreadyGone]).toEqual([[], [], []]);
    const deletes = target.requests.filter((r) => r.url === '/v1/things.delete').map((r) => (JSON.parse(r.body) as { thing_id: string }).thing_id);
    expect(deletes.slice(-3)).toEqual([owner, child, owner]);
  });

  it('decides by a read what a refusal does not say: a 404 of a route not served is no removal, a 500 of a thing already gone is', async () => {
    const { client, ns } = fresh(12);
    const [kept, gone] = [ns.id('thing'), ns.id('thing')];
    things.set(kept, undefined);
    failsWith.set(gone, 500);
    unservedRoutes.add('/v1/things.delete');
    const ledger = new Ledger<TC>(ns, { thing: { remove, exists } });
    for (const id of [kept, gone]) ledger.record({ kind: 'thing', id });
    const report = await ledger.cleanup(client);
    expect(report.alreadyGone.map((r) => r.entry.id)).toEqual([gone]);
    expect(report.failed.map((r) => [r.entry.id, r.error])).toEqual([[kept, expect.stringMatching(/^answered 404: .*route_not_found/)]]);
    expect(report.undone).toEqual([]);
  });

  it('does not try a removal the target does not serve: its fallback runs and the record is reported left', async () => {
    const { client, ns } = fresh(13);
    const id = ns.id('thing');
    things.set(id, undefined);
    const fallback = vi.fn(async () => undefined);
    const ledger = new Ledger<TC>(ns, { thing: { remove, removeWith: 'things.delete', fallback, exists } }, { unserved: new Set(['things.delete']) });
    ledger.record({ kind: 'thing', id });
    const before = target.requests.length;
    const report = await ledger.cleanup(client);
    expect(target.requests.slice(before).map((r) => r.url)).toEqual(['/v1/things.get']);
    expect(fallback).toHaveBeenCalledOnce();
    expect(report.left.map((r) => r.entry.id)).toEqual([id]);
    expect(things.has(id)).toBe(true);
  });

  it('finds by listing what its scopes made and it never recorded, and nothing of another scope or run', async () => {
    const { client } = fresh(14);
    const root = createNamespace({ prefix: 'conf', seed: 14 });
    const mine = root.scope('mine');
    const kept = mine.id('thing');
    const theirs = createNamespace({ prefix: 'conf', seed: 14 }).scope('theirs').id('thing');
    const foreign = createNamespace({ prefix: 'conf', seed: 15 }).scope('mine').id('thing');
    const derived = `${mine.id('thing')}_annual`;
    for (const id of [kept, theirs, foreign, derived]) things.set(id, undefined);
    const list = vi.fn(async (_client: TC, _root: string) => [...things.keys()].map((id) => ({ kind: 'thing', id })));
    const ledger = new Ledger<TC>(root, { thing: { remove, exists, list } });
    const report = await ledger.cleanup(client, root.madeHere);
    expect(list).toHaveBeenCalledWith(client, root.root);
    expect(report.undone.map((r) => r.entry.id).sort()).toEqual([derived, kept].sort());
    expect([...things.keys()].sort()).toEqual([foreign, theirs].sort());
  });
});
