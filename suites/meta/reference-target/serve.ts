/**
 * Serves the reference-like target on a port, for manual conformance runs against "the reference"
 * without one (it is deliberately not an option of the public fake CLI):
 *
 *   npx tsx suites/meta/reference-target/serve.ts [--port 4100] [--latency 400]
 *   BASE_URL=<printed url> API_KEY=<printed key> API_VERSION=2.3.0 npm run conformance
 *
 * `--latency <ms>` holds every answer that long, as a slower deployment would.
 * It prints one line, `{"url", "apiKey", "apiVersion", "latencyMs", "behaviours"}`, and stops on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util';
import { serve } from '../../../fake-server/http/node-adapter.ts';
import { REFERENCE_BEHAVIOURS } from './behaviours.ts';
import { createReferenceLikeApp, REFERENCE_API_VERSION } from './target.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' }, latency: { type: 'string', default: '0' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be a port number, not ${values.port}`);
  process.exit(2);
}
const latencyMs = Number(values.latency);
if (!Number.isInteger(latencyMs) || latencyMs < 0) {
  console.error(`--latency must be a whole number of milliseconds, not ${values.latency}`);
  process.exit(2);
}

const app = createReferenceLikeApp({ latencyMs });
const served = await serve(app, { port, host: values.host });
console.log(JSON.stringify({ url: served.url, apiKey: app.apiKey, apiVersion: REFERENCE_API_VERSION, latencyMs, behaviours: REFERENCE_BEHAVIOURS.map((b) => b.id) }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void served.close().then(() => process.exit(0)));
}
