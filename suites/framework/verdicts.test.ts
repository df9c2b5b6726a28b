/**
 * A detected deviation is never lost (issue 17): each situation that used to hide one is planted
 * against a small stub target, and the verdict must be the right FAIL (or SKIP/BLOCKED naming the
 * real cause, where the deviation is not the rule's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuleFacts } from './checks.ts';
import { loadConfig } from './config.ts';
import { inOwnWords, printable } from './own-words.ts';
import { defineScenario, runScenario, scenarioMeta, type RunOptions } from './scenario.ts';
import { createTarget, type Target } from './target.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations, type TestServer } from './testing.ts';

type Ops = typeof testOperations;
type E = typeof TestErrorBody;
const scenario = defineScenario<Ops, E>;

/** The catalogue of these tests: things.check and things.get are documented operations. */
const FACTS: Record<string, RuleFacts> = {
  'MUST-GET': { level: 'MUST', operations: ['things.get'] },
  'MUST-CHECK': { level: 'MUST', operations: ['things.check'] },
  'SHOULD-GET': { level: 'SHOULD', operations: ['things.get'] },
  'MUST-ANY': { level: 'MUST', operations: [] },
  'MUST-ID': { level: 'MUST', operations: ['things.get'], fields: ['id'] },
  'MUST-ID-AGAIN': { level: 'MUST', operations: ['things.get'], fields: ['id'] },
  'THING-GET-SHAPE': { level: 'MUST', operations: ['things.get'] },
};
const options: RunOptions = { rules: (rule) => FACTS[rule] };

let server: TestServer;
let t: Target<Ops, E>;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const body = JSON.parse(req.body || '{}') as { thing_id?: string };
    if (req.url === '/v1/things.create') return body.thing_id === 'crash' ? json(res, 500, { message: 'No things found', code: 'internal_error', env: 'sandbox' }) : json(res, 200, { id: body.thing_id });
    if (req.url === '/v1/things.get') {
      if (body.thing_id === 'nameless') return json(res, 200, { add_on: false, items: [] });
      if (body.thing_id === 'itemless') return json(res, 200, { id: 'itemless', add_on: false });
      if (body.thing_id === 'two') return json(res, 200, { id: 'two', add_on: true, items: [{ created_at: 1 }, { created_at: 2 }] });
      if (body.thing_id === 'unknown') return json(res, 404, { message: 'Thing unknown not found', code: 'thing_not_found', env: 'sandbox' });
      if (body.thing_id === 'crash') return json(res, 500, { message: 'boom', code: 'internal_error', env: 'sandbox' });
      return json(res, 200, { id: body.thing_id, add_on: false, items: [] });
    }
    // things.check is not served: the reference's answer to an unknown path once the key is accepted.
    if (req.url === '/v1/things.check') return json(res, 401, '');
    json(res, 404, { message: 'no route', code: 'route_not_found', env: 'sandbox' });
  });
  t = await createTarget({ operations: testOperations, errorBody: TestErrorBody, config: loadConfig({ env: { BASE_URL: server.url, API_KEY: TEST_KEY, CONFORMANCE_SEED: '9' } }), retry: false });
});
afterAll(async () => {
  await t.close();
  await server.close();
});

const get = (ctx: { client: Target<Ops, E>['client'] }, id: string) => ctx.client.call('things.get', { thing_id: id });

describe('a precondition never asserts the behaviour under test', () => {
  it('refuses, loudly, a precondition over an answer of an operation a rule of the scenario owns, whether it holds or not', async () => {
    for (const holds of [true, false]) {
      const outcome = await runScenario(
        scenario({ id: `P-1-${holds}`, title: 't', rules: ['MUST-GET'] }, async (ctx) => {
          const thing = ctx.expectOk(await get(ctx, 'a'));
          ctx.precondition('the thing is called a', () => expect(thing.id).toBe(holds ? 'a' : 'b'));
          ctx.check('MUST-GET', () => expect(thing.add_on).toBe(false));
        }),
        t,
        options,
      );
      expect(outcome.status).toBe('error');
      expect(outcome.verdicts['MUST-GET']).toMatchObject({ status: 'ERROR', message: expect.stringMatching(/^suite defect: precondition "the thing is called a" rests on things\.get \(exchange #\d+\), whose behaviour MUST-GET of this scenario own/) });
      expect(outcome.overreachingPreconditions).toEqual([{ precondition: 'the thing is called a', operation: 'things.get', rules: ['MUST-GET'] }]);
    }
  });

  it('refuses an async precondition that reads an owned operation itself', async () => {
    const outcome = await runScenario(
      scenario({ id: 'P-4', title: 't', rules: ['MUST-GET'] }, async (ctx) => {
        await ctx.precondition('the thing reads as a', async () => expect(ctx.expectOk(await get(ctx, 'a')).id).toBe('a'));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-GET']).toMatchObject({ status: 'ERROR', message: expect.stringMatching(/^suite defect: precondition "the thing reads as a" rests on things\.get/) });
  });

  it('lets through a precondition over setup operations, over operations no rule of the scenario owns, and over a rule already reported', async () => {
    const outcome = await runScenario(
      scenario({ id: 'P-2', title: 't', rules: ['MUST-CHECK', 'SHOULD-GET'] }, async (ctx) => {
        const made = ctx.setup(await ctx.client.call('things.create', { thing_id: ctx.ns.id('thing'), name: 'n' }));
        ctx.precondition('the setup answer names the thing', () => expect(made.id).toMatch(/thing/));
        const thing = ctx.expectOk(await get(ctx, 'a'));
        ctx.check('SHOULD-GET', () => expect(thing.add_on, 'add_on').toBe(true));
        const again = ctx.expectOk(await get(ctx, 'a'));
        // SHOULD-GET is reported (FAIL), so a precondition may rest on things.get now.
        ctx.precondition('the thing reads the same again', () => expect(again.id).toBe('a'));
        ctx.check('MUST-CHECK', () => expect(1).toBe(1));
      }),
      t,
      options,
    );
    expect(outcome.verdicts).toMatchObject({ 'SHOULD-GET': { status: 'FAIL' }, 'MUST-CHECK': { status: 'PASS' } });
    expect(outcome.overreachingPreconditions).toBeUndefined();
  });
});

describe('a failed SHOULD never blocks a MUST that does not need its result', () => {
  it('records the SHOULD failure and goes on: the MUST rule after it PASSes when it holds, and is BLOCKED by it, its failure quoted, when not', async () => {
    const run = (mustHolds: boolean) =>
      runScenario(
        scenario({ id: `S-1-${mustHolds}`, title: 't', rules: ['SHOULD-GET', 'MUST-ANY'] }, async (ctx) => {
          const thing = ctx.expectOk(await get(ctx, 'a'));
          ctx.check('SHOULD-GET', () => expect(thing.add_on, 'add_on').toBe(true));
          ctx.check('MUST-ANY', () => expect(thing.id, 'id').toBe(mustHolds ? 'a' : 'z'));
        }),
        t,
        options,
      );
    const passing = await run(true);
    expect(passing.status).toBe('fail');
    expect(passing.verdicts).toMatchObject({ 'SHOULD-GET': { status: 'FAIL', message: 'add_on: expected true, saw false' }, 'MUST-ANY': { status: 'PASS' } });
    const failing = await run(false);
    // The state it relied on may be the SHOULD failure's doing: not a FAIL of its own, but not verified either (the run cannot PASS).
    expect(failing.verdicts).toMatchObject({
      'SHOULD-GET': { status: 'FAIL' },
      'MUST-ANY': { status: 'BLOCKED', blockedBy: 'SHOULD-GET', message: 'after SHOULD-GET failed, this check of MUST-ANY failed too, maybe as its knock-on: id: expected "z", saw "a"', expected: 'z', actual: 'a' },
    });
  });

  it('blocks, on the SHOULD rule, what needed the failed check’s result, sync or async; a later failure of the same rule keeps the first message', async () => {
    const outcome = await runScenario(
      scenario({ id: 'S-2', title: 't', rules: ['SHOULD-GET', 'MUST-ANY'] }, async (ctx) => {
        const body = ctx.expectOk(await get(ctx, 'unknown'), 'SHOULD-GET');
        await ctx.check('SHOULD-GET', async () => expect((await get(ctx, 'a')).ok, 'the second read').toBe(false));
        ctx.check('MUST-ANY', () => expect(body.id).toBe('unknown'));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['SHOULD-GET']).toMatchObject({ status: 'FAIL', message: expect.stringMatching(/^things\.get: expected 200, got 404/) });
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({ status: 'BLOCKED', blockedBy: 'SHOULD-GET', message: expect.stringMatching(/needed the result of the check of SHOULD-GET/) });
  });

  it('takes a crash after a SHOULD failure as its knock-on, not as ERROR', async () => {
    const outcome = await runScenario(
      scenario({ id: 'S-3', title: 't', rules: ['SHOULD-GET', 'MUST-ANY'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'a'));
        ctx.check('SHOULD-GET', () => expect(thing.items, 'one item').toHaveLength(1));
        ctx.check('MUST-ANY', () => expect(thing.items[0]!.created_at).toBe(1));
      }),
      t,
      options,
    );
    expect(outcome.verdicts).toMatchObject({ 'SHOULD-GET': { status: 'FAIL', message: 'one item: expected 1 item(s), saw 0' }, 'MUST-ANY': { status: 'BLOCKED', blockedBy: 'SHOULD-GET' } });
  });
});

describe('every failed check reaches the report', () => {
  it('turns asymmetric matchers into their printed form, so the scenario meta clones', async () => {
    const outcome = await runScenario(
      scenario({ id: 'R-1', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'a'));
        ctx.check('MUST-ANY', () => expect(thing).toEqual({ id: expect.any(Number), add_on: false, items: expect.arrayContaining([1]) }));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({
      status: 'FAIL',
      message: 'id: expected Any<Number>, saw "a"; items: expected ArrayContaining [1], saw []',
      expected: { id: 'Any<Number>', add_on: false, items: 'ArrayContaining [1]' },
    });
    const meta = scenarioMeta({ id: 'R-1', title: 't', rules: ['MUST-ANY'] }, t.info, outcome);
    expect(() => structuredClone(meta)).not.toThrow();
  });

  it('keeps an explicit FAIL of a shape rule against the schema PASS of the same answer', async () => {
    const outcome = await runScenario(
      scenario({ id: 'R-2', title: 't', rules: ['THING-GET-SHAPE', 'MUST-ANY'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'a'));
        ctx.check('THING-GET-SHAPE', () => expect(thing.items, 'the thing lists its items').not.toEqual([]));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['THING-GET-SHAPE']).toMatchObject({ status: 'FAIL', message: 'the thing lists its items: expected anything but [], saw []' });
    expect(outcome.status).toBe('fail');
  });

  it('makes a bug inside one scenario ERROR of its rules, with the run going on', async () => {
    const broken = await runScenario(scenario({ id: 'R-3', title: 't', rules: ['MUST-ANY'] }, () => Promise.reject(new RangeError('bad index'))), t, options);
    expect(broken.verdicts['MUST-ANY']).toMatchObject({ status: 'ERROR', message: 'the scenario crashed: bad index' });
    const next = await runScenario(scenario({ id: 'R-4', title: 't', rules: ['MUST-ANY'] }, async (ctx) => void ctx.expectOk(await get(ctx, 'a'), 'MUST-ANY')), t, options);
    expect(next.status).toBe('pass');
  });
});

describe('BLOCKED only for a real knock-on', () => {
  it('FAILs a check whose list holds an extra element, although an earlier answer left a field out', async () => {
    const outcome = await runScenario(
      scenario({ id: 'B-1', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        const nameless = ctx.expectOk(await get(ctx, 'nameless'));
        ctx.check('MUST-ANY', () => expect(nameless.add_on).toBe(false));
        const two = ctx.expectOk(await get(ctx, 'two'));
        ctx.check('MUST-ANY', () => expect(two.items.filter((item) => item.created_at > 1), 'items after 1').toEqual([]));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({ status: 'FAIL', message: 'items after 1: expected [], saw [{"created_at":2}]' });
  });

  it('BLOCKS a check that compared the missing path, naming the answer that left it out (not another broken one)', async () => {
    const outcome = await runScenario(
      scenario({ id: 'B-2', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        ctx.expectOk(await get(ctx, 'nameless'));
        const itemless = ctx.expectOk(await get(ctx, 'itemless'));
        ctx.check('MUST-ANY', () => expect(itemless.items, 'the items').toEqual([]));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({
      status: 'BLOCKED',
      blockedBy: 'THING-GET-SHAPE',
      message: expect.stringMatching(/^things\.get \(exchange #2\) answered without items, which this check of MUST-ANY compared: the items: expected \[\], saw undefined$/),
    });
    expect(outcome.verdicts['THING-GET-SHAPE']).toMatchObject({ status: 'FAIL' });
  });

  it('BLOCKS a check on a copy of the broken answer, or on a default put for the missing value, but not on an empty list expected', async () => {
    const outcome = await runScenario(
      scenario({ id: 'B-8', title: 't', rules: ['MUST-ANY', 'MUST-GET'] }, async (ctx) => {
        const itemless = ctx.expectOk(await get(ctx, 'itemless'));
        const { id: _id, ...rest } = itemless;
        ctx.check('MUST-ANY', () => expect(rest, 'the rest of the thing').toEqual({ add_on: false, items: [] }));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE', message: expect.stringMatching(/answered without items, which this check of MUST-ANY compared/) });
    const defaulted = await runScenario(
      scenario({ id: 'B-9', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        const itemless = ctx.expectOk(await get(ctx, 'itemless'));
        ctx.check('MUST-ANY', () => expect(itemless.items ?? [], 'the items').toEqual([{ created_at: 1 }]));
      }),
      t,
      options,
    );
    expect(defaulted.verdicts['MUST-ANY']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE' });
    const extra = await runScenario(
      scenario({ id: 'B-10', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        const itemless = ctx.expectOk(await get(ctx, 'itemless'));
        const two = ctx.expectOk(await get(ctx, 'two'));
        ctx.check('MUST-ANY', () => expect([...(itemless.items ?? []), ...two.items.slice(1)], 'the items').toEqual([]));
      }),
      t,
      options,
    );
    expect(extra.verdicts['MUST-ANY']).toMatchObject({ status: 'FAIL', message: 'the items: expected [], saw [{"created_at":2}]' });
  });

  it('FAILs a check that saw nothing where a value was expected, when the last missing read was before the previous check (not blamed on that answer)', async () => {
    const outcome = await runScenario(
      scenario({ id: 'B-11', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        const nameless = ctx.expectOk(await get(ctx, 'nameless'));
        ctx.check('MUST-ANY', () => expect(nameless.id ?? 'none').toBe('none'));
        const thing = ctx.expectOk(await get(ctx, 'a'));
        ctx.check('MUST-ANY', () => expect((thing as { entity_id?: unknown }).entity_id, 'entity_id').toBeNull());
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({ status: 'FAIL', message: 'entity_id: expected null, saw undefined' });
  });

  it('BLOCKS a check whose expectation was computed earlier from a missing field', async () => {
    const outcome = await runScenario(
      scenario({ id: 'B-12', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        const nameless = ctx.expectOk(await get(ctx, 'nameless'));
        const expectedId = nameless.id;
        ctx.check('MUST-ANY', () => expect(nameless.add_on).toBe(false));
        const thing = ctx.expectOk(await get(ctx, 'a'));
        ctx.check('MUST-ANY', () => expect([thing.id], 'the ids').toEqual([expectedId]));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({ status: 'BLOCKED', blockedBy: 'THING-GET-SHAPE', message: expect.stringMatching(/^things\.get \(exchange #1\) answered without id/) });
  });

  it('FAILs a rule whose own field is missing: it is the rule’s deviation, not a knock-on', async () => {
    const outcome = await runScenario(
      scenario({ id: 'B-3', title: 't', rules: ['MUST-ID'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'nameless'));
        ctx.check('MUST-ID', () => expect(thing.id, 'the id').toBe('nameless'));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ID']).toMatchObject({ status: 'FAIL', message: 'the id: expected "nameless", saw undefined' });
  });

  it('goes on after a MUST rule FAILs on its own missing field: a later check on its own missing field FAILs too, a later passing check PASSes', async () => {
    const outcome = await runScenario(
      scenario({ id: 'B-3b', title: 't', rules: ['MUST-ID', 'MUST-ID-AGAIN', 'MUST-GET'] }, async (ctx) => {
        const thing = ctx.expectOk(await get(ctx, 'nameless'));
        ctx.check('MUST-ID', () => expect(thing.id, 'the id').toBe('nameless'));
        ctx.check('MUST-ID-AGAIN', () => expect(thing.id, 'the id again').toBe('nameless'));
        ctx.check('MUST-GET', () => expect(thing.add_on).toBe(false));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-ID']).toMatchObject({ status: 'FAIL' });
    expect(outcome.verdicts['MUST-ID-AGAIN']).toMatchObject({ status: 'FAIL', message: 'the id again: expected "nameless", saw undefined' });
    expect(outcome.verdicts['MUST-GET']).toMatchObject({ status: 'PASS' });
  });

  it('SKIPs a rule whose own operation is not served, and BLOCKS on it a rule that only asked through it', async () => {
    const own = await runScenario(
      scenario({ id: 'B-4', title: 't', rules: ['MUST-CHECK', 'MUST-GET'] }, async (ctx) => {
        ctx.expectOk(await ctx.client.call('things.check', { thing_id: 'a' }), 'MUST-CHECK');
      }),
      t,
      options,
    );
    expect(own.verdicts['MUST-CHECK']).toMatchObject({ status: 'SKIP', message: expect.stringMatching(/^the target does not serve things\.check \(exchange #\d+ answered 401 with an empty body, as an unknown route\), the operation MUST-CHECK is about$/) });
    expect(own.verdicts['MUST-GET']).toMatchObject({ status: 'BLOCKED' });
    expect(own.status).toBe('skip');

    const vehicle = await runScenario(
      scenario({ id: 'B-5', title: 't', rules: ['MUST-ANY'] }, async (ctx) => {
        ctx.expectOk(await ctx.client.call('things.check', { thing_id: 'a' }), 'MUST-ANY');
      }),
      t,
      options,
    );
    expect(vehicle.verdicts['MUST-ANY']).toMatchObject({ status: 'BLOCKED', blockedBy: 'things.check not served' });
  });

  it('never passes a refusal check on an unknown route by accident; a check that asks for that very status may', async () => {
    const vacuous = await runScenario(
      scenario({ id: 'B-6', title: 't', rules: ['MUST-CHECK'] }, async (ctx) => {
        ctx.expectError(await ctx.client.call('things.check', { thing_id: '' }), { rule: 'MUST-CHECK' });
      }),
      t,
      options,
    );
    expect(vacuous.verdicts['MUST-CHECK']).toMatchObject({ status: 'SKIP' });
    const asked = await runScenario(
      scenario({ id: 'B-7', title: 't', rules: ['MUST-CHECK'] }, async (ctx) => {
        ctx.expectError(await ctx.client.call('things.check', { thing_id: '' }), { rule: 'MUST-CHECK', status: 401 });
      }),
      t,
      options,
    );
    expect(asked.verdicts['MUST-CHECK']).toMatchObject({ status: 'PASS' });
  });
});

describe('messages in the suite’s own words', () => {
  const failed = (assertion: () => void): string => {
    try {
      assertion();
    } catch (error) {
      return inOwnWords(error as Error);
    }
    throw new Error('the assertion held');
  };

  it('say what was expected and what the target gave, field by field, without the matcher’s wording', () => {
    expect(failed(() => expect(false, 'a boolean feature in no plan is denied').toBe(true))).toBe('a boolean feature in no plan is denied: expected true, saw false');
    expect(failed(() => expect({ status: 'expired', quantity: 1 }).toEqual({ status: 'active', quantity: 1 }))).toBe('status: expected "active", saw "expired"');
    expect(failed(() => expect({ a: { b: [1, 2] } }).toMatchObject({ a: { b: [1, 3] } }))).toBe('a.b[1]: expected 3, saw 2');
    expect(failed(() => expect(3, 'seats left').toBeGreaterThanOrEqual(5))).toBe('seats left: expected at least 5, saw 3');
    expect(failed(() => expect([1], 'rows').toHaveLength(2))).toBe('rows: expected 2 item(s), saw 1');
    expect(failed(() => expect(['a', 'b'], 'plans').toContain('c'))).toBe("plans: expected 'c' among [ 'a', 'b' ]");
    expect(failed(() => expect(null, 'next_cursor').not.toBeNull())).toBe('next_cursor: expected a value, saw null');
    expect(failed(() => expect(1, 'balance').toBeNull())).toBe('balance: expected null, saw 1');
    for (const message of [failed(() => expect(1).toBe(2)), failed(() => expect([1]).toEqual([2]))]) expect(message).not.toMatch(/Object\.is|to be|deeply equal/);
  });

  it('make any value plain data', () => {
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic['self'] = cyclic;
    expect(printable({ when: new Date(0), at: expect.any(String), cyclic, f: Math.max, s: Symbol('s'), m: new Map([[1, 2]]) })).toEqual({
      when: '1970-01-01T00:00:00.000Z',
      at: 'Any<String>',
      cyclic: { n: '1n', self: '[Circular]' },
      f: '[Function max]',
      s: 'Symbol(s)',
      m: [[1, 2]],
    });
  });
});

describe('a server fault outside a rule check is charged once (issue 26)', () => {
  it('a 5xx of a setup operation is ERROR of ERR-SUCCESS-200-SETUP only; the undecided rules are BLOCKED by it, naming the call', async () => {
    const outcome = await runScenario(
      scenario({ id: 'FAULT-1', title: 'a setup call crashes', rules: ['MUST-GET', 'ERR-SUCCESS-200'] }, async (ctx) => {
        const one = ctx.expectOk(await get(ctx, 'one'));
        ctx.check('MUST-GET', () => expect((one as { id: string }).id).toBe('one'));
        ctx.setup(await ctx.client.call('things.create', { thing_id: 'crash', name: 'Crash' }));
      }),
      t,
      options,
    );
    expect(outcome.status).toBe('error');
    expect(outcome.charged).toEqual(['ERR-SUCCESS-200-SETUP']);
    expect(outcome.verdicts['ERR-SUCCESS-200-SETUP']).toMatchObject({ status: 'ERROR', message: expect.stringContaining('things.create') });
    for (const rule of ['MUST-GET', 'ERR-SUCCESS-200']) {
      expect(outcome.verdicts[rule], rule).toMatchObject({ status: 'BLOCKED', blockedBy: 'ERR-SUCCESS-200-SETUP', message: expect.stringContaining('answered 500') });
    }
    const meta = scenarioMeta({ id: 'FAULT-1', title: 'a setup call crashes', rules: ['MUST-GET', 'ERR-SUCCESS-200'] }, t.info, outcome);
    expect(meta.charged).toEqual(['ERR-SUCCESS-200-SETUP']);
    expect(meta.ruleResults?.['ERR-SUCCESS-200-SETUP']?.status).toBe('ERROR');
  });

  it('a 5xx of a documented operation outside a check is charged to ERR-SUCCESS-200', async () => {
    const outcome = await runScenario(
      scenario({ id: 'FAULT-2', title: 'a read crashes', rules: ['MUST-ANY'] }, async (ctx) => {
        ctx.setup(await get(ctx, 'crash'));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['ERR-SUCCESS-200']).toMatchObject({ status: 'ERROR' });
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({ status: 'BLOCKED', blockedBy: 'ERR-SUCCESS-200' });
  });

  it('a scenario that can go on past a 5xx (t.serverFault) charges it once and decides its other rules', async () => {
    const outcome = await runScenario(
      scenario({ id: 'FAULT-3', title: 'crashes twice, goes on', rules: ['MUST-GET'] }, async (ctx) => {
        for (const id of ['crash', 'crash']) expect(ctx.serverFault(await ctx.client.call('things.create', { thing_id: id, name: 'Crash' }))).toBe(true);
        const one = await get(ctx, 'one');
        expect(ctx.serverFault(one)).toBe(false);
        ctx.check('MUST-GET', () => expect(one.status).toBe(200));
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-GET']).toEqual({ status: 'PASS' });
    expect(outcome.verdicts['ERR-SUCCESS-200-SETUP']).toMatchObject({ status: 'ERROR', message: expect.stringMatching(/things\.create.*answered 500.*\(and 1 more server fault\(s\) in this scenario\)$/) });
  });

  it('inside a check a 5xx stays that rule\'s ERROR', async () => {
    const outcome = await runScenario(
      scenario({ id: 'FAULT-4', title: 'the checked read crashes', rules: ['MUST-GET', 'MUST-ANY'] }, async (ctx) => {
        ctx.expectOk(await get(ctx, 'crash'), 'MUST-GET');
      }),
      t,
      options,
    );
    expect(outcome.verdicts['MUST-GET']?.status).toBe('ERROR');
    expect(outcome.verdicts['MUST-ANY']).toMatchObject({ status: 'BLOCKED', blockedBy: 'MUST-GET' });
    expect(outcome.verdicts['ERR-SUCCESS-200']).toBeUndefined();
  });
});
