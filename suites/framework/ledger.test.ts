import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
