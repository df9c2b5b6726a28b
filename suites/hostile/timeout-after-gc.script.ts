/**
 * Run by timeout-after-gc.test.ts as `node --expose-gc --import tsx <this>`: one request to a server
 * that never answers, with a 1 s timeout, while garbage collections run every 20 ms. Prints
 * `{"kind": …, "elapsedMs": …}`. In Node 20 a timeout combined through AbortSignal.any was lost to
 * the first collection (nodejs/node#57736) and the request waited for the server instead.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EvidenceLog } from '../framework/evidence.ts';
import { Transport, TransportError } from '../framework/http.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

// Never answers; closes whatever is open after 20 s so a lost timeout still ends.
const server = createServer(() => {});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const stop = setTimeout(() => server.closeAllConnections(), 20_000);

const transport = new Transport({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'am_sk_test_gc', apiVersion: '2.4.0', timeoutMs: 1_000, retry: false, evidence: new EvidenceLog() });
// The scenario's signal, as a scenario passes it: combined with the timeout inside the transport.
const scenario = new AbortController();
const collector = setInterval(gc, 20);
const started = performance.now();
let kind = 'answered';
try {
  await transport.with({ signal: scenario.signal }).send({ label: 'raw', path: '/v1/never', body: '{}' }, () => ({ value: undefined }));
} catch (error) {
  kind = error instanceof TransportError ? error.kind : String(error);
}
const elapsedMs = Math.round(performance.now() - started);
clearInterval(collector);
clearTimeout(stop);
server.closeAllConnections();
server.close();
await transport.close();
console.log(JSON.stringify({ kind, elapsedMs }));
