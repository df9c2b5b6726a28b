import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateRuleStatus, conventionBreachOf, gateOnConvention, isRouteNotServed, shapeVerdicts, type ConventionBreach } from './checks.ts';
import type { Exchange } from './evidence.ts';
import { loadConfig } from './config.ts';
import { ControlPlaneError } from './control-client.ts';
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
      if (body.thing_id?.includes('created201')) return json(res, 201, { id: body.thing_id });
      return json(res, 200, { id: body.thing_id });
    }
    if (req.url === '/v1/things.get') {
      if (body.thing_id === 'broken') return json(res, 200, { add_on: false, items: [] });
      if (body.thing_id === 'down') return json(res, 503, { message: 'down', code: 'unavailable', env: 'sandbox' });
      if (body.thing_id === 'gone') return json(res, 404, { message: 'Thing gone not found', code: 'thing_not_found', env: 'sandbox' });
      if (body.thing_id === 'wrapped') return json(res, 404, { error: { message: 'Thing wrapped not found', code: 'thing_not_found' } });
      if (body.thing_id === 'created201') return json(res, 201, { id: body.thing_id, add_on: false, items: [] });
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

  it('blocks on a control-plane call refused with a 4xx (a setup step), and makes its 5xx ERROR', async () => {
    const refusing = (status: number) =>
      scenario({ id: `V-12-${status}`, title: 't', rules: ['A'] }, async () => {
        throw new ControlPlaneError(`POST /_fake/records.force_state answered ${status}`, status, [], { seq: 1, label: 'control:records.force_state' } as Exchange);
      });
    const blocked = await runScenario(refusing(400), t);
    expect(blocked).toMatchObject({ status: 'blocked', verdicts: { A: { status: 'BLOCKED', blockedBy: 'setup control:records.force_state', message: 'POST /_fake/records.force_state answered 400' } } });
    expect((await runScenario(refusing(500), t)).verdicts['A']).toMatchObject({ status: 'ERROR' });
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
        // Never reached (A stops the scenario): B is BLOCKED by the shape rule, whatever it would assert.
        ctx.check('B', () => expect(thing.items).toEqual([]));
      }),
      t,
    );
    expect(explained.verdicts['THING-GET-SHAPE']).toMatchObject({ status: 'FAIL' });
    expect(explained.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE', message: expect.stringMatching(/^things\.get \(exchange #\d+\) answered without id, which this check of A compared: id: expected "broken", saw undefined/) });
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
    expect(builtFromMissing.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE', message: expect.stringMatching(/things\.get was not sent: its thing_id would come from id, which things\.get \(exchange #\d+\) left out/) });
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

describe('conventions every answer rests on', () => {
  it('charges a success answered with another 2xx to the success rule of the operation, not to the checked rule', async () => {
    const create = (ctx: { client: Target<Ops, E>['client'] }) => ctx.client.call('things.create', { thing_id: 'created201', name: 'n' });
    // things.create is a reference operation, things.get a documented one.
    const other = await runScenario(
      scenario({ id: 'G-1', title: 't', rules: ['A', 'B'] }, async (ctx) => {
        ctx.expectOk(await create(ctx), 'A');
        ctx.check('B', () => undefined);
      }),
      t,
    );
    expect(other.status).toBe('blocked');
    expect(other.verdicts).toMatchObject({
      A: { status: 'BLOCKED', blockedBy: 'ERR-SUCCESS-200-SETUP', message: expect.stringMatching(/things\.create succeeded with 201, not 200 \(ERR-SUCCESS-200-SETUP\), so A was not asked/) },
      B: { status: 'BLOCKED', blockedBy: 'ERR-SUCCESS-200-SETUP' },
    });
    const documented = await runScenario(scenario({ id: 'G-2', title: 't', rules: ['A'] }, async (ctx) => void ctx.expectOk(await get(ctx, 'created201'))), t);
    expect(documented.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'ERR-SUCCESS-200' });
    // The success rule's own check, or a scenario declaring it, FAILs it.
    const own = await runScenario(scenario({ id: 'G-3', title: 't', rules: ['ERR-SUCCESS-200', 'A'] }, async (ctx) => void ctx.expectOk(await get(ctx, 'created201'), 'A')), t);
    expect(own.verdicts).toMatchObject({ 'ERR-SUCCESS-200': { status: 'FAIL' }, A: { status: 'BLOCKED', blockedBy: 'ERR-SUCCESS-200' } });
  });

  it("asserts an error code only on the documented error body: the refusal is the rule's own, an unreadable code blocks on ERR-BODY-SHAPE", async () => {
    const outcome = await runScenario(
      scenario({ id: 'G-4', title: 't', rules: ['A'] }, async (ctx) => {
        ctx.expectError(await get(ctx, 'wrapped'), { rule: 'A', status: 404, code: 'thing_not_found' });
      }),
      t,
    );
    expect(outcome.verdicts['A']).toMatchObject({ status: 'BLOCKED', blockedBy: 'ERR-BODY-SHAPE', message: expect.stringMatching(/is not \{message, code, env\} \(message, code, env\)/) });
    const wrongStatus = await runScenario(
      scenario({ id: 'G-5', title: 't', rules: ['A'] }, async (ctx) => {
        ctx.expectError(await get(ctx, 'wrapped'), { rule: 'A', status: 400, code: 'thing_not_found' });
      }),
      t,
    );
    expect(wrongStatus.verdicts['A']).toMatchObject({ status: 'FAIL' });
    const documented = await runScenario(scenario({ id: 'G-6', title: 't', rules: ['A'] }, async (ctx) => void ctx.expectError(await get(ctx, 'gone'), { rule: 'A', code: 'thing_not_found' })), t);
    expect(documented.verdicts['A']).toMatchObject({ status: 'PASS' });
  });

  it('finds a refused version or unread JSON bodies from two answers of one read, and nothing else', () => {
    const answer = (status: number, body: unknown) => ({ status, body, text: JSON.stringify(body) });
    const missing = answer(400, { message: 'customer_id: Required', code: 'invalid_inputs', env: 'sandbox' });
    expect(conventionBreachOf(answer(404, { message: 'Customer c not found', code: 'customer_not_found', env: 'sandbox' }), missing, '2.4.0')).toBeUndefined();
    const version = answer(400, { message: '"2.4.0" is not a valid API version', code: 'invalid_api_version', env: 'sandbox' });
    expect(conventionBreachOf(version, version, '2.4.0')).toMatchObject({ blockedBy: 'x-api-version 2.4.0 refused', rules: ['AUTH-API-VERSION-HEADER', 'VER-2-4-0-ACCEPTED'] });
    expect(conventionBreachOf(missing, missing, '2.4.0')).toMatchObject({ blockedBy: 'CONV-POST-JSON', rules: ['CONV-POST-JSON'] });
    // Different refusals, a missing route, a 5xx: no breach.
    expect(conventionBreachOf(answer(400, { message: 'customer_id: bad pattern', code: 'invalid_inputs', env: 'sandbox' }), missing, '2.4.0')).toBeUndefined();
    const route = answer(404, { message: 'no route', code: 'route_not_found', env: 'sandbox' });
    expect(conventionBreachOf(route, route, '2.4.0')).toBeUndefined();
    expect(conventionBreachOf(answer(503, {}), answer(503, {}), '2.4.0')).toBeUndefined();
  });

  it("turns the FAILs of other rules into BLOCKED by a breach, keeps the convention's own, and blocks the scenario", async () => {
    const breach: ConventionBreach = { blockedBy: 'CONV-POST-JSON', rules: ['CONV-POST-JSON'], message: 'bodies are not read' };
    expect(
      gateOnConvention(
        { A: { status: 'FAIL', message: 'x' }, B: { status: 'BLOCKED', blockedBy: 'A' }, 'CONV-POST-JSON': { status: 'FAIL' }, C: { status: 'PASS' }, D: { status: 'BLOCKED', blockedBy: 'CONV-POST-JSON' } },
        breach,
      ),
    ).toEqual({
      A: { status: 'BLOCKED', blockedBy: 'CONV-POST-JSON', message: 'bodies are not read' },
      B: { status: 'BLOCKED', blockedBy: 'CONV-POST-JSON', message: 'bodies are not read' },
      'CONV-POST-JSON': { status: 'FAIL' },
      C: { status: 'PASS' },
      D: { status: 'BLOCKED', blockedBy: 'CONV-POST-JSON' },
    });
    const failing = scenario({ id: 'G-7', title: 't', rules: ['A', 'B'] }, async (ctx) => {
      ctx.check('A', () => expect(1).toBe(2));
    });
    const breached = await runScenario(failing, { ...t, conventionBreach: async () => breach });
    expect(breached).toMatchObject({ status: 'blocked', reason: 'BLOCKED by CONV-POST-JSON: bodies are not read', verdicts: { A: { status: 'BLOCKED' }, B: { status: 'BLOCKED', blockedBy: 'CONV-POST-JSON' } } });
    // The test server serves no licenses.list: the real probe finds no breach, and the FAIL stands.
    expect(await t.conventionBreach?.()).toBeUndefined();
    expect((await runScenario(failing, t)).verdicts['A']).toMatchObject({ status: 'FAIL' });
  });
});

describe('the spelling rule', () => {
  it('is decided by every answer carrying a field spelled two ways in the document: FAIL at the first that mixes them, with where', () => {
    const answer = (seq: number, extra: Partial<Exchange>) => ({ seq, label: 'things.get', ...extra }) as Exchange;
    const kept = answer(1, { spellings: { add_on: 'wire' } });
    const mixed = answer(2, { spellings: { add_on: 'documented', created_at: 'wire' }, mixedSpellings: ['addOn (documented)', 'items[0].created_at (wire)'] });
    expect(shapeVerdicts([answer(0, {})]).has('CONV-CONSISTENT-SPELLING')).toBe(false);
    expect(shapeVerdicts([kept]).get('CONV-CONSISTENT-SPELLING')).toEqual({ status: 'PASS' });
    expect(shapeVerdicts([kept, mixed, kept]).get('CONV-CONSISTENT-SPELLING')).toMatchObject({
      status: 'FAIL',
      message: 'things.get: one answer uses both the documented camelCase and the snake_case wire spelling: addOn (documented), items[0].created_at (wire)',
      seqs: [2],
    });
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
