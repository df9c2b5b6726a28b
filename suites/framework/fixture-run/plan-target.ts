/**
 * For discovery.test.ts: one throwaway server for both plan fixtures (it answers every call after
 * 40 ms, so scenarios overlap when they run side by side), and a log of when each scenario starts
 * and ends, appended to the file named by PLAN_LOG.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../config.ts';
import { defineScenario } from '../scenario.ts';
import { createTarget } from '../target.ts';
import { TEST_KEY, TestErrorBody, testOperations } from '../testing.ts';

let server: Promise<string> | undefined;

function serverUrl(): Promise<string> {
  server ??= new Promise((resolve) => {
    const http: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          res.writeHead(req.url === '/v1/things.get' ? 200 : 404, { 'content-type': 'application/json' });
          res.end(JSON.stringify(req.url === '/v1/things.get' ? { id: 'thing', add_on: false, items: [] } : { message: 'no such route', code: 'route_not_found', env: 'sandbox' }));
        }, 40),
      );
    });
    // The worker must not wait for it to close.
    http.unref();
    http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(http.address() as AddressInfo).port}`));
  });
  return server;
}

export async function planTarget() {
  const url = await serverUrl();
  return createTarget({ operations: testOperations, errorBody: TestErrorBody, config: loadConfig({ env: { BASE_URL: url, API_KEY: TEST_KEY } }), retry: false });
}

const scenario = defineScenario<typeof testOperations, typeof TestErrorBody>;

/** A scenario of three calls that logs its start and end; with `alone`, it needs the tenant to itself. */
export function logged(id: string, alone = false) {
  return scenario({ id, title: `${id} reads things`, rules: ['DOC-A'], ...(alone ? { needs: ['exclusive-tenant'] as const } : {}) }, async (t) => {
    appendFileSync(process.env['PLAN_LOG']!, `start ${id} ${performance.timeOrigin + performance.now()}\n`);
    for (let i = 0; i < 3; i++) t.expectOk(await t.client.call('things.get', { thing_id: 'thing' }));
    appendFileSync(process.env['PLAN_LOG']!, `end ${id} ${performance.timeOrigin + performance.now()}\n`);
  });
}
