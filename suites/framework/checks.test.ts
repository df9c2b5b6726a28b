import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateRuleStatus, isRouteNotServed } from './checks.ts';
import { loadConfig } from './config.ts';
import { defineScenario, runScenario, scenarioMeta } from './scenario.ts';
import { createTarget, type Target } from './target.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations, type TestServer } from './testing.ts';

type Ops = typeof testOperations;
type E = typeof TestErrorBody;
const scenario = defineScenario<Ops, E>;

let server: TestServer;
let t: Target<Ops, E>;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const body = JSON.parse(req.body || '{}') as { thing_id?: string };
    if (req.url === '/v1/things.create') {
      if (body.thing_id?.includes('refused')) return json(res, 400, { message: 'no such things', code: 'invalid_inputs', env: 'sandbox' });
      return json(res, 200, { id: body.thing_id });
    }
    if (req.url === '/v1/things.get') {
      if (body.thing_id === 'broken') return json(res, 200, { add_on: false, items: [] });
      if (body.thing_id === 'down') return json(res, 503, { message: 'down', code: 'unavailable', env: 'sandbox' });
      if (body.thing_id === 'gone') return json(res, 404, { message: 'Thing gone not found', code: 'thing_not_found', env: 'sandbox' });
      return json(res, 200, { id: body.thing_id, add_on: false, items: [] });
    }
    json(res, 404, { message: 'no route', code: 'route_not_found', env: 'sandbox' });
  });
  const config = loadConfig({ env: { BASE_URL: server.url, API_KEY: TEST_KEY, CONFORMANCE_SEED: '5' } });
  t = await createTarget({
    operations: testOperations,
    errorBody: TestErrorBody,
    config,
    retry: false,
    creates: { 'things.create': (request: { thing_id: string }) => ({ kind: 'thing', id: request.thing_id }) },
  });
});
afterAll(async () => {
  await t.close();
  await server.close();
});

const get = (ctx: { client: Target<Ops, E>['client'] }, id: string) => ctx.client.call('things.get', { thing_id: id });

describe('per-rule verdicts', () => {
  it('fails exactly the rule whose check failed; rules not yet decided are BLOCKED by it', async () => {
    const outcome = await runScenario(
      // A passes before B fails and C is never reached: what the verdicts of A and C must then say is the subject.
      scenario({ id: 'V-1', title: 't', rules: ['A', 'B', 'C'] }, async (ctx) => {
        ctx.check('A', () => expect(1).toBe(1));
        const thing = ctx.expectOk(await get(ctx, 'x'), 'B');
        ctx.check('B', () => expect(thing.id, 'the id sent').toBe('y'));
        ctx.check('C', () => expect(1).toBe(1));
      }),
      t,
    );
    expect(outcome.status).toBe('fail');
    expect(outcome.verdicts['B']).toMatchObject({ status: 'FAIL', expected: 'y', actual: 'x', message: expect.stringMatching(/the id sent/) });
    expect(outcome.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'B' });
    expect(outcome.verdicts['C']).toMatchObject({ status: 'BLOCKED', blockedBy: 'B' });
    const meta = scenarioMeta({ id: 'V-1', title: 't', rules: ['A', 'B', 'C'] }, t.info, outcome);
    const behind = meta.ruleResults?.['B']?.exchanges ?? [];
    expect(behind.map((i) => meta.evidence?.[i]?.label)).toEqual(['things.get']);
  });

  it('passes every declared rule of a scenario that ends, and refuses a check of an undeclared rule', async () => {
    const outcome = await runScenario(
      scenario({ id: 'V-2', title: 't', rules: ['A', 'THING-GET-SHAPE'] }, async (ctx) => {
        ctx.expectOk(await get(ctx, 'x'), 'A');
        await ctx.check('A', async () => expect(ctx.expectOk(await get(ctx, 'y')).id).toBe('y'));
      }),
      t,
    );
    expect(outcome).toMatchObject({ status: 'pass', verdicts: { A: { status: 'PASS' }, 'THING-GET-SHAPE': { status: 'PASS' } } });
    const stray = await runScenario(scenario({ id: 'V-3', title: 't', rules: ['A'] }, async (ctx) => ctx.check('Z', () => undefined)), t);
    expect(stray).toMatchObject({ status: 'error', verdicts: { A: { status: 'ERROR' } } });
    expect(String(stray.error)).toMatch(/names rule Z, which the scenario does not declare/);
  });

  it('gives an unattributed assertion to the only rule that is not a shape rule, and to no rule when there are several', async () => {
    const failing = async (ctx: { client: Target<Ops, E>['client'] }) => {
      expect((await get(ctx, 'x')).ok, 'a plain assertion').toBe(false);
    };
    const single = await runScenario(scenario({ id: 'V-4', title: 't', rules: ['A', 'THING-GET-SHAPE'] }, failing), t);
    expect(single.verdicts).toMatchObject({ A: { status: 'FAIL' }, 'THING-GET-SHAPE': { status: 'PASS' } });
    const several = await runScenario(scenario({ id: 'V-5', title: 't', rules: ['A', 'B'] }, failing), t);
    expect(several.status).toBe('fail');
    expect(several.verdicts).toMatchObject({
      A: { status: 'BLOCKED', blockedBy: 'an unattributed assertion' },
      B: { status: 'BLOCKED', blockedBy: 'an unattributed assertion' },
    });
  });

  it('blocks on a refused setup call with one message naming the call, request and response; skips on a route not served', async () => {
    const blocked = await runScenario(
      scenario({ id: 'V-6', title: 't', rules: ['A', 'B'] }, async (ctx) => {
        ctx.setup(await ctx.client.call('things.create', { thing_id: 'refused_1', name: 'n' }));
        ctx.check('A', () => expect(1).toBe(2));
      }),
      t,
    );
    expect(blocked.status).toBe('blocked');
    expect(blocked.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'setup things.create' });
    expect(blocked.verdicts['A']?.message).toMatch(/^setup things\.create was refused: request \{"thing_id":"refused_1","name":"n"\} answered 400 \{"message":"no such things"/);
    expect(blocked.reason).toMatch(/^BLOCKED by setup things\.create/);

    const skipped = await runScenario(
      scenario({ id: 'V-7', title: 't', rules: ['A'] }, async (ctx) => {
        ctx.setup(await ctx.client.call('things.delete', { thing_id: 'x' }));
      }),
      t,
    );
    expect(skipped).toMatchObject({ status: 'skip', verdicts: { A: { status: 'SKIP' } } });
    expect(skipped.reason).toMatch(/does not serve things\.delete \(it answered 404\)/);
  });

  it('makes a 5xx ERROR of the rule being checked, never FAIL, and blocks the rest', async () => {
    const outcome = await runScenario(
      scenario({ id: 'V-8', title: 't', rules: ['A', 'B'] }, async (ctx) => {
        ctx.expectError(await get(ctx, 'down'), { rule: 'A' });
        ctx.check('B', () => undefined);
      }),
      t,
    );
    expect(outcome.status).toBe('error');
    expect(outcome.verdicts).toMatchObject({ A: { status: 'ERROR', message: expect.stringMatching(/answered 503/) }, B: { status: 'BLOCKED', blockedBy: 'A' } });
  });

  it('records a shape failure once, carries on with the raw body, and blocks when a field the scenario reads is missing', async () => {
    const outcome = await runScenario(
      scenario({ id: 'V-9', title: 't', rules: ['A'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'broken'));
        ctx.check('A', () => expect(thing.add_on).toBe(false));
        (thing.id as unknown as { length: number } | undefined)!.length;
      }),
      t,
    );
    expect(outcome.status).toBe('blocked');
    expect(outcome.verdicts['THING-GET-SHAPE']).toMatchObject({ status: 'FAIL', actual: ['id'], message: expect.stringMatching(/^things\.get: the 200 answer does not match its schema: id: /) });
    expect(outcome.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE' });
  });

  it('blocks, on the shape rule, a check that fails only because a field the answer left out is missing; fails it on any other difference', async () => {
    const explained = await runScenario(
      scenario({ id: 'V-12', title: 't', rules: ['A', 'B'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'broken'));
        ctx.check('A', () => expect(thing).toEqual({ id: 'broken', add_on: false, items: [] }));
        ctx.check('B', () => expect(true).toBe(true));
      }),
      t,
    );
    expect(explained.verdicts['THING-GET-SHAPE']).toMatchObject({ status: 'FAIL' });
    expect(explained.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE', message: expect.stringMatching(/^things\.get answered without id, which this check of A reads/) });
    expect(explained.verdicts['B']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE' });
    expect(explained.status).toBe('blocked');

    const unexplained = await runScenario(
      scenario({ id: 'V-13', title: 't', rules: ['A'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'broken'));
        ctx.check('A', () => expect(thing).toEqual({ id: 'broken', add_on: true, items: [] }));
      }),
      t,
    );
    expect(unexplained.verdicts['A']).toMatchObject({ status: 'FAIL' });

    let sent = 0;
    const builtFromMissing = await runScenario(
      scenario({ id: 'V-14', title: 't', rules: ['A'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'broken'));
        sent = ctx.evidence.length;
        ctx.expectOk(await get(ctx, (thing as { id?: string }).id as string), 'A');
      }),
      t,
    );
    expect(builtFromMissing.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE', message: expect.stringMatching(/things\.get was not sent: its thing_id would come from what things\.get left out \(id\)/) });
    expect(builtFromMissing.evidence.length, 'the request built from the missing field was not sent').toBe(sent);
  });

  it('records what a call created in the ledger as soon as it is answered 200, before any check', async () => {
    let made = '';
    await runScenario(
      scenario({ id: 'V-11', title: 't', rules: ['A'] }, async (ctx) => {
        made = ctx.ns.id('thing');
        await ctx.client.call('things.create', { thing_id: made, name: 'n' });
        await ctx.client.call('things.create', { thing_id: 'refused_2', name: 'n' });
      }),
      t,
    );
    expect(t.ledger.entries().map((e) => e.entry)).toContainEqual({ kind: 'thing', id: made });
    expect(t.ledger.entries().map((e) => e.entry.id)).not.toContain('refused_2');
  });

  it('needs fields of a setup answer: a missing one blocks', async () => {
    const outcome = await runScenario(
      scenario({ id: 'V-10', title: 't', rules: ['A'] }, async (ctx) => {
        ctx.setup(await get(ctx, 'broken'), ['id']);
      }),
      t,
    );
    expect(outcome.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'setup things.get', message: expect.stringMatching(/answered 200 without id/) });
  });
});

describe('aggregateRuleStatus', () => {
  it('takes the highest of FAIL > ERROR > PASS > BLOCKED > SKIP', () => {
    expect(aggregateRuleStatus([])).toBeUndefined();
    expect(aggregateRuleStatus(['SKIP', 'BLOCKED'])).toBe('BLOCKED');
    expect(aggregateRuleStatus(['BLOCKED', 'PASS', 'SKIP'])).toBe('PASS');
    expect(aggregateRuleStatus(['PASS', 'ERROR'])).toBe('ERROR');
    expect(aggregateRuleStatus(['ERROR', 'FAIL', 'PASS'])).toBe('FAIL');
  });
});

describe('isRouteNotServed', () => {
  it('tells a missing route from a missing record', () => {
    expect(isRouteNotServed(404, { message: 'no route', code: 'route_not_found', env: 'sandbox' })).toBe(true);
    expect(isRouteNotServed(404, { message: 'Customer x not found', code: 'customer_not_found', env: 'sandbox' })).toBe(false);
    expect(isRouteNotServed(401, {})).toBe(true);
    expect(isRouteNotServed(401, { message: 'bad key', code: 'invalid_secret_key', env: 'sandbox' })).toBe(false);
    expect(isRouteNotServed(400, {})).toBe(false);
  });
});
