/**
 * The in-process dispatcher answers as the fake's socket does, for what the meta-tests send: the
 * same status and body for the same calls (fast path and `fetch` path), the adapter's refusals of a
 * path not in normal form and of a body over the limit, and the transport's timeouts still firing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { faultsFor } from '../../fake-server/faults/index.ts';
import { serve } from '../../fake-server/http/node-adapter.ts';
import { EvidenceLog } from '../framework/evidence.ts';
import { Transport, TransportError } from '../framework/http.ts';
import { InProcessDispatcher } from './in-process-fake.ts';

const calls = [
  { path: '/v1/features.create', body: JSON.stringify({ feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true }) },
  { path: '/v1/features.create', body: JSON.stringify({ feature_id: 'messages', name: 'Again', type: 'metered', consumable: true }) },
  { path: '/v1/features.list', body: '{}' },
  { path: '/v1/plans.get', body: '{not json' },
  { path: '//v1/features.list', body: '{}' },
  { path: '/v1/nothing.here', body: '{}' },
  { path: '/_fake/clock.get', body: '{}' },
  { path: '/v1/features.list', body: JSON.stringify({ padding: 'x'.repeat(2_000) }) },
];

async function answers(transport: Transport): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const call of calls) {
    out.push(await transport.send({ label: 'raw', path: call.path, body: call.body }, (res) => ({ value: { status: res.status, body: res.body, type: res.headers['content-type'] } })).then((r) => r.value));
  }
  return out;
}

const closers: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(closers.map((close) => close())));

describe('the in-process fake', () => {
  it.each([
    ['the fast path', [] as string[]],
    // A fault that rewrites raw requests sends the fake down its `fetch` path.
    ['the fetch path', ['AUTH-API-VERSION-HEADER']],
  ])('answers as the socket does (%s)', async (_name, faults) => {
    const options = { faults: faultsFor(faults), bodyLimit: 1_024, now: Date.UTC(2026, 0, 1), frozen: true };
    const overSocket = createFakeApp(options);
    const served = await serve(overSocket);
    closers.push(served.close);
    const inProcess = createFakeApp(options);
    const key = overSocket.keys[0]!.key;
    const base = { apiKey: key, apiVersion: '2.4.0', timeoutMs: 5_000, evidence: new EvidenceLog(), retry: false as const };
    const socket = new Transport({ ...base, baseUrl: served.url });
    closers.push(() => socket.close());
    const direct = new Transport({ ...base, baseUrl: 'http://fake.invalid', dispatcher: new InProcessDispatcher(inProcess) });
    const expected = await answers(socket);
    expect(await answers(direct)).toEqual(expected);
    expect(expected.map((a) => (a as { status: number }).status)).toEqual(faults.length === 0 ? [200, 409, 200, 400, 404, 404, 200, 413] : [400, 400, 400, 400, 404, 404, 200, 413]);
  });

  it('lets the transport time a request out', async () => {
    const stalled = { fetch: () => new Promise<Response>(() => {}), reply: undefined, bodyLimit: 1_024 };
    const transport = new Transport({ baseUrl: 'http://fake.invalid', apiKey: 'am_sk_test_x', apiVersion: '2.4.0', timeoutMs: 50, evidence: new EvidenceLog(), retry: false, dispatcher: new InProcessDispatcher(stalled) });
    const sent = transport.send({ label: 'raw', path: '/v1/features.list', body: '{}' }, (res) => ({ value: res.status }));
    await expect(sent).rejects.toBeInstanceOf(TransportError);
    await expect(sent).rejects.toMatchObject({ kind: 'timeout' });
  });
});
