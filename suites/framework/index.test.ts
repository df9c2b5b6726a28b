/**
 * The framework as a conformance test file uses it, through the index, in this very vitest run:
 * scenarios registered with registerScenarios become tests named after their rules, carrying
 * their outcome in task.meta for the reporter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createTarget, defineScenario, loadConfig, registerScenarios } from './index.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations } from './testing.ts';

const server = await startServer((req, res) => {
  if (req.url === '/_fake/health') return json(res, 200, { fake: true, api_version: '2.4.0', faults: [] });
  if (req.url === '/_fake/clock.get') return json(res, 200, { now: 1, frozen: true });
  if (req.url === '/v1/things.create') return json(res, 200, { id: (JSON.parse(req.body) as { thing_id: string }).thing_id });
  if (req.url === '/v1/things.delete') return json(res, 200, { success: true });
  json(res, 200, { id: 'x', addOn: true, items: [] });
});
afterAll(() => server.close());

const target = await createTarget({
  operations: testOperations,
  errorBody: TestErrorBody,
  config: loadConfig({ env: { BASE_URL: server.url, API_KEY: TEST_KEY, CONFORMANCE_SEED: '12' } }),
  cleanup: { thing: (entry, client) => client.call('things.delete', { thing_id: entry.id }) },
});
const scenario = defineScenario<typeof testOperations, typeof TestErrorBody>;

describe('registered scenarios', () => {
  registerScenarios(
    [
      scenario({ id: 'IDX-1', title: 'creates a thing it later cleans up', rules: ['IDX-CREATE', 'IDX-SHARED'] }, async (t) => {
        const id = t.ns.id('thing');
        expect(t.expectOk(await t.client.call('things.create', { thing_id: id, name: 'Thing' })).id).toBe(id);
        t.ledger.record({ kind: 'thing', id });
      }),
      scenario({ id: 'IDX-2', title: 'reads a thing in its documented spelling and the clock', rules: ['IDX-SHARED'], mutates: false, needs: ['control-plane'] }, async (t) => {
        expect(t.expectOk(await t.client.call('things.get', { thing_id: 'x' })).add_on).toBe(true);
        expect((await t.control.call('clock.get', {})).frozen).toBe(true);
      }),
    ],
    target,
  );
});

describe('what the registered tests carry', () => {
  it('names each test [RULES] title, leaves the outcome in task.meta.conformance, and cleans up after the block', ({ task }) => {
    const registered = task.file.tasks.find((t) => t.name === 'registered scenarios');
    const tests = registered && 'tasks' in registered ? registered.tasks : [];
    expect(tests.map((t) => t.name)).toEqual([
      '[IDX-CREATE, IDX-SHARED] creates a thing it later cleans up',
      '[IDX-SHARED] reads a thing in its documented spelling and the clock',
    ]);
    expect(tests.map((t) => [t.result?.state, t.meta.conformance?.status])).toEqual([
      ['pass', 'pass'],
      ['pass', 'pass'],
    ]);
    expect(tests[1]?.meta.conformance).toMatchObject({
      scenario: 'IDX-2',
      rules: ['IDX-SHARED'],
      target: { baseUrl: server.url, seed: 12, kind: 'deployment' },
      shapeChecks: { 'THING-GET-SHAPE': 'pass' },
      exchangeCount: 2,
    });
    expect(tests[1]?.meta.conformance).not.toHaveProperty('evidence');
    // The describe block's afterAll already cleaned up what IDX-1 recorded, and closed the target.
    const deleted = server.requests.filter((r) => r.url === '/v1/things.delete').map((r) => JSON.parse(r.body) as { thing_id: string });
    expect(deleted).toEqual([{ thing_id: target.ns.scope('IDX-1').id('thing').replace(/_2$/, '_1') }]);
    expect(target.ledger.entries()).toEqual([]);
  });
});
