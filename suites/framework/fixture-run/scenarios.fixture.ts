/**
 * A tiny conformance run for reporter.test.ts, which runs this file with vitest programmatically:
 * one scenario of each outcome (pass, skip, fail, wire-schema fail of a declared shape rule, error) against a throwaway
 * server that has no control plane, echoes the key in one error, and refuses one cleanup.
 */
import { afterAll } from 'vitest';
import { loadConfig } from '../config.ts';
import { defineScenario, registerScenarios } from '../scenario.ts';
import { createTarget } from '../target.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations } from '../testing.ts';

const server = await startServer((req, res) => {
  const body = JSON.parse(req.body || '{}') as { thing_id?: string };
  if (req.url === '/v1/things.create') return json(res, 200, { id: body.thing_id });
  if (req.url === '/v1/things.delete') {
    return body.thing_id?.endsWith('_2') ? json(res, 500, { message: 'cannot delete', code: 'internal_error', env: 'sandbox' }) : json(res, 200, { success: true });
  }
  if (req.url === '/v1/things.get' && body.thing_id === 'broken') return json(res, 200, { id: 1, add_on: false, items: [] });
  if (req.url === '/v1/things.get' && body.thing_id === 'echo') {
    return json(res, 401, { message: `Invalid secret key: ${String(req.headers['authorization'])}`, code: 'invalid_secret_key', env: 'sandbox' });
  }
  if (req.url === '/v1/things.get') return json(res, 200, { id: body.thing_id, add_on: false, items: [] });
  json(res, 404, { message: 'no such route', code: 'route_not_found', env: 'sandbox' });
});
afterAll(() => server.close());

const target = await createTarget({
  operations: testOperations,
  errorBody: TestErrorBody,
  config: loadConfig({ env: { BASE_URL: server.url, API_KEY: TEST_KEY, CONFORMANCE_SEED: '4242' } }),
  retry: false,
  cleanup: { thing: (entry, client) => client.call('things.delete', { thing_id: entry.id }) },
});
const scenario = defineScenario<typeof testOperations, typeof TestErrorBody>;

registerScenarios(
  [
    scenario({ id: 'REP-PASS', title: 'creates and reads things', rules: ['DOC-A'] }, async (t) => {
      for (let i = 0; i < 2; i++) {
        const id = t.ns.id('thing');
        t.expectOk(await t.client.call('things.create', { thing_id: id, name: 'Thing' }));
        t.ledger.record({ kind: 'thing', id });
      }
      t.expectOk(await t.client.call('things.get', { thing_id: 'fine' }));
    }),
    scenario({ id: 'REP-SKIP', title: 'reads the clock', rules: ['DOC-A', 'DOC-D'], needs: ['control-plane'] }, async (t) => {
      await t.control.call('clock.get', {});
    }),
    scenario({ id: 'REP-FAIL', title: 'is answered with the key echoed', rules: ['DOC-B'], mutates: false }, async (t) => {
      t.expectOk(await t.client.call('things.get', { thing_id: 'echo' }));
    }),
    scenario({ id: 'REP-WIRE', title: 'reads a broken thing', rules: ['DOC-C', 'THING-GET-SHAPE'], mutates: false }, async (t) => {
      await t.client.call('things.get', { thing_id: 'broken' });
    }),
    scenario({ id: 'REP-ERROR', title: 'has a bug', rules: ['DOC-E'] }, () => Promise.reject(new TypeError('scenario bug'))),
  ],
  target,
);
