/**
 * A small conformance run for verdicts-run.test.ts, which runs this file with vitest and the
 * conformance reporter: a check that fails on an asymmetric matcher (whose operands cannot be
 * structured-cloned as they are), a SHOULD failure before a MUST check, and a scenario after both,
 * against a throwaway server. Rule IDs are the catalogue's, for their levels: AUTH-NO-KEY-CODE is
 * SHOULD, AUTH-BEARER-REQUIRED and AUTH-SECRET-KEY are MUST.
 */
import { afterAll, expect } from 'vitest';
import { loadConfig } from '../../framework/config.ts';
import { defineScenario, registerScenarios } from '../../framework/scenario.ts';
import { createTarget } from '../../framework/target.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations } from '../../framework/testing.ts';

const server = await startServer((req, res) => {
  const body = JSON.parse(req.body || '{}') as { thing_id?: string };
  if (req.url === '/v1/things.get') return json(res, 200, { id: body.thing_id, add_on: false, items: [{ created_at: 'yesterday' }] });
  json(res, 404, { message: 'no such route', code: 'route_not_found', env: 'sandbox' });
});
afterAll(() => server.close());

const target = await createTarget({
  operations: testOperations,
  errorBody: TestErrorBody,
  config: loadConfig({ env: { BASE_URL: server.url, API_KEY: TEST_KEY, CONFORMANCE_SEED: '17' } }),
  retry: false,
});
const scenario = defineScenario<typeof testOperations, typeof TestErrorBody>;

registerScenarios(
  [
    scenario({ id: 'VR-MATCHER', title: 'compares with an asymmetric matcher', rules: ['AUTH-BEARER-REQUIRED'] }, async (t) => {
      const thing = t.expectOk(await t.client.call('things.get', { thing_id: 'a' }));
      t.check('AUTH-BEARER-REQUIRED', () => expect(thing.items, 'the items').toEqual([{ created_at: expect.any(Number) }]));
    }),
    scenario({ id: 'VR-SHOULD-FIRST', title: 'fails a SHOULD check before a MUST check', rules: ['AUTH-NO-KEY-CODE', 'AUTH-SECRET-KEY'] }, async (t) => {
      const thing = t.expectOk(await t.client.call('things.get', { thing_id: 'b' }));
      t.check('AUTH-NO-KEY-CODE', () => expect(thing.add_on, 'add_on').toBe(true));
      t.check('AUTH-SECRET-KEY', () => expect(thing.id, 'id').toBe('b'));
    }),
    scenario({ id: 'VR-AFTER', title: 'runs after both', rules: ['AUTH-SERVER-ADDRESS'] }, async (t) => {
      t.expectOk(await t.client.call('things.get', { thing_id: 'c' }), 'AUTH-SERVER-ADDRESS');
    }),
  ],
  target,
);
