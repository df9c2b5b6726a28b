import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadOnlyViolation } from './client.ts';
import { loadConfig } from './config.ts';
import { TransportError } from './http.ts';
import {
  boundExchanges,
  defineScenario,
  REPORTED_BODY_CHARS,
  REPORTED_EXCHANGES,
  runScenario,
  scenarioMeta,
  ScenarioTimeoutError,
  testName,
} from './scenario.ts';
import { createTarget, type Target } from './target.ts';
import { json, startServer, TEST_KEY, TestErrorBody, testOperations, type TestServer } from './testing.ts';

type Ops = typeof testOperations;
type E = typeof TestErrorBody;
const scenario = defineScenario<Ops, E>;

let server: TestServer;
let noControl: TestServer;
let dir: string;
const targets: Target<Ops, E>[] = [];

/** A tiny stand-in for the fake: a control plane, things.get (good, broken, slow or lagging by ID), things.create. */
function handler(withControl: boolean) {
  return (req: { url: string; body: string }, res: import('node:http').ServerResponse) => {
    if (req.url === '/_fake/health') {
      return withControl ? json(res, 200, { fake: true, api_version: '2.4.0', faults: [] }) : json(res, 404, { message: 'nope', code: 'route_not_found', env: 'sandbox' });
    }
    if (req.url === '/_fake/clock.get') return json(res, 200, { now: 5, frozen: false });
    const body = JSON.parse(req.body || '{}') as { thing_id?: string };
    if (req.url === '/v1/things.create') return json(res, 200, { id: body.thing_id });
    if (req.url === '/v1/things.get') {
      if (body.thing_id === 'slow') return; // never answers
      if (body.thing_id === 'lagging') return void setTimeout(() => json(res, 200, { id: 'lagging', addOn: false, items: [] }), 100);
      if (body.thing_id === 'broken') return json(res, 200, { id: 'broken', add_on: 'maybe', items: [] });
      if (body.thing_id === 'missing') return json(res, 404, { message: 'Thing missing not found', code: 'thing_not_found', env: 'sandbox' });
      return json(res, 200, { id: body.thing_id, addOn: false, items: [] });
    }
    json(res, 404, { message: 'no route', code: 'route_not_found', env: 'sandbox' });
  };
}

beforeAll(async () => {
  server = await startServer(handler(true));
  noControl = await startServer(handler(false));
  dir = mkdtempSync(join(tmpdir(), 'conformance-scenario-'));
  writeFileSync(
    join(dir, 'ro.json'),
    JSON.stringify({ readOnly: true, fixtures: { past_due_subscription: { customer_id: 'cus_pd', plan_id: 'pro' }, expired_purchase: { customer_id: 'cus_x', plan_id: 'pack' } } }),
  );
});
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
  await Promise.all([server.close(), noControl.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function target(url: string, env: Record<string, string> = {}): Promise<Target<Ops, E>> {
  const config = loadConfig({ env: { BASE_URL: url, API_KEY: TEST_KEY, CONFORMANCE_SEED: '77', CONFORMANCE_TIMEOUT_MS: '5000', ...env }, cwd: dir });
  const t = await createTarget({ operations: testOperations, errorBody: TestErrorBody, config, retry: false });
  targets.push(t);
  return t;
}

describe('defineScenario', () => {
  it('defaults to mutating with no needs, and names tests after the rules', () => {
    const s = scenario({ id: 'S-1', title: 'does a thing', rules: ['A-ONE', 'B-TWO'] }, async () => {});
    expect(s).toMatchObject({ id: 'S-1', needs: [], mutates: true });
    expect(testName(s)).toBe('[A-ONE, B-TWO] does a thing');
  });

  it('refuses a scenario without rules, with a malformed rule ID, or with a malformed ID', () => {
    expect(() => scenario({ id: 'S', title: 't', rules: [] }, async () => {})).toThrow(/names no rule/);
    expect(() => scenario({ id: 'S', title: 't', rules: ['lower-case'] }, async () => {})).toThrow(/not rule IDs: lower-case/);
    expect(() => scenario({ id: 'has space', title: 't', rules: ['A'] }, async () => {})).toThrow(/scenario ID/);
  });
});

describe('runScenario', () => {
  it('passes, with the scenario’s own evidence and IDs in its own scope', async () => {
    const t = await target(server.url);
    let made = '';
    const outcome = await runScenario(
      scenario({ id: 'PASS-1', title: 'reads', rules: ['THING-GET-SHAPE'] }, async (ctx) => {
        made = ctx.ns.id('thing');
        const created = ctx.expectOk(await ctx.client.call('things.create', { thing_id: made, name: 'Thing' }));
        ctx.ledger.record({ kind: 'thing', id: created.id });
        const thing = ctx.expectOk(await ctx.client.call('things.get', { thing_id: made }));
        expect(thing.add_on).toBe(false);
        expect(ctx.evidence.map((e) => e.label)).toEqual(['things.create', 'things.get']);
        expect(ctx.seed).toBe(77);
      }),
      t,
    );
    expect(outcome).toMatchObject({ status: 'pass' });
    expect(outcome.evidence.map((e) => e.label)).toEqual(['things.create', 'things.get']);
    expect(made).toBe(t.ns.scope('PASS-1').id('thing').replace(/_2$/, '_1'));
    expect(t.ledger.entries()).toEqual([{ entry: { kind: 'thing', id: made }, scenario: 'PASS-1' }]);
  });

  it("sends every other call as the target's mixed caller where it may, the same calls at the same seed, and leaves a call that names its own User-Agent", async () => {
    const config = loadConfig({ env: { BASE_URL: server.url, API_KEY: TEST_KEY, CONFORMANCE_SEED: '77', CONFORMANCE_TIMEOUT_MS: '5000' }, cwd: dir });
    const t = await createTarget({ operations: testOperations, errorBody: TestErrorBody, config, retry: false, mixedCaller: { headers: { 'user-agent': 'other-client/1' }, sends: (_operation, body) => (body as { thing_id?: string }).thing_id !== 'plain' } });
    targets.push(t);
    const agents = async () => {
      const outcome = await runScenario(
        scenario({ id: 'MIXED-1', title: 'reads as two callers', rules: ['THING-GET-SHAPE'] }, async (ctx) => {
          for (const id of ['a', 'b', 'plain', 'plain', 'c', 'd']) await ctx.client.call('things.get', { thing_id: id });
          await ctx.client.call('things.get', { thing_id: 'e' }, { headers: { 'User-Agent': 'own/1' } });
          await ctx.client.call('things.get', { thing_id: 'f' }, { headers: { 'User-Agent': 'own/1' } });
        }),
        t,
      );
      return outcome.evidence.map((e) => e.request.headers['user-agent'] ?? 'plain');
    };
    const seen = await agents();
    const mixed = seen.slice(0, 6).flatMap((agent, index) => (agent === 'other-client/1' ? [index] : []));
    // Every other call of the first six, less the two it may not send; the last two as they asked.
    expect([[0, 4], [1, 5]]).toContainEqual(mixed);
    expect(seen.slice(2, 4)).toEqual(['plain', 'plain']);
    expect(seen.slice(6)).toEqual(['own/1', 'own/1']);
    expect(await agents(), 'the same calls at the same seed').toEqual(seen);
  });

  it('reports an assertion failure as fail, with the error and the evidence', async () => {
    const t = await target(server.url);
    const outcome = await runScenario(
      scenario({ id: 'FAIL-1', title: 'expects the impossible', rules: ['THING-GET-SHAPE'] }, async (ctx) => {
        const thing = ctx.expectOk(await ctx.client.call('things.get', { thing_id: 'x' }));
        expect(thing.id, 'the thing is called y').toBe('y');
      }),
      t,
    );
    expect(outcome.status).toBe('fail');
    expect(String(outcome.error)).toMatch(/the thing is called y/);
    expect(outcome.evidence).toHaveLength(1);
    expect(JSON.stringify(outcome.evidence)).not.toContain(TEST_KEY);
  });

  it('records a wire-schema failure as a FAIL of the shape rule and carries on; the scenario fails only if it declares that rule', async () => {
    const t = await target(server.url);
    const reads = (rules: string[]) =>
      scenario({ id: 'FAIL-2', title: 'reads a broken thing', rules }, async (ctx) => {
        const thing = ctx.expectOk(await ctx.client.call('things.get', { thing_id: 'broken' }));
        expect(thing.id).toBe('broken');
      });
    const other = await runScenario(reads(['THING-OTHER']), t);
    expect(other.status).toBe('pass');
    expect(other.verdicts).toMatchObject({ 'THING-OTHER': { status: 'PASS' }, 'THING-GET-SHAPE': { status: 'FAIL', actual: ['add_on'] } });
    expect(scenarioMeta({ id: 'FAIL-2', title: 't', rules: ['THING-OTHER'] }, t.info, other).shapeChecks).toEqual({ 'THING-GET-SHAPE': 'fail' });
    const shape = await runScenario(reads(['THING-GET-SHAPE']), t);
    expect(shape.status).toBe('fail');
    expect(shape.verdicts['THING-GET-SHAPE']?.message).toMatch(/^things\.get: the 200 answer does not match its schema: add_on: /);
  });

  it('reports a transport failure or a bug as error, not fail', async () => {
    const t = await target(server.url, { CONFORMANCE_TIMEOUT_MS: '150' });
    const timeout = await runScenario(
      scenario({ id: 'ERR-1', title: 'waits', rules: ['X'] }, async (ctx) => {
        await ctx.client.call('things.get', { thing_id: 'slow' });
      }),
      t,
    );
    expect(timeout.status).toBe('error');
    expect(timeout.error).toBeInstanceOf(TransportError);
    const bug = await runScenario(scenario({ id: 'ERR-2', title: 'throws', rules: ['X'] }, () => Promise.reject(new TypeError('oops'))), t);
    expect(bug).toMatchObject({ status: 'error', error: new TypeError('oops') });
  });

  it('abandons a scenario that outlives its own time limit, and aborts what it sends after', async () => {
    const t = await target(server.url, { CONFORMANCE_TIMEOUT_MS: '60000' });
    let signal: AbortSignal | undefined;
    let late: unknown;
    const outcome = await runScenario(
      scenario({ id: 'ERR-3', title: 'works on its own too long', rules: ['X'] }, async (ctx) => {
        signal = ctx.signal;
        await new Promise((resolve) => setTimeout(resolve, 400));
        late = await ctx.client.call('things.get', { thing_id: 'lagging' }).catch((e: unknown) => e);
      }),
      t,
      { timeoutMs: 200 },
    );
    expect(outcome.status).toBe('error');
    expect(outcome.error).toBeInstanceOf(ScenarioTimeoutError);
    expect((outcome.error as Error).message).toMatch(/ms of its own time, past its limit of 200 ms/);
    expect(signal?.aborted).toBe(true);
    await expect.poll(() => late).toBeInstanceOf(TransportError);
    expect((late as TransportError).kind).toBe('aborted');
  });

  it("leaves the time a scenario waits for the target out of its limit (issue 26: a correct but slow target never ERRORs for the suite's length)", async () => {
    const t = await target(server.url);
    // Five calls answered 100 ms late: 500 ms of waiting, far past the 200 ms limit a fixed wall clock would apply.
    const outcome = await runScenario(
      scenario({ id: 'SLOW-1', title: 'waits for a slow target', rules: ['X'] }, async (ctx) => {
        for (let i = 0; i < 5; i++) ctx.expectOk(await ctx.client.call('things.get', { thing_id: 'lagging' }));
      }),
      t,
      { timeoutMs: 200 },
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({ status: 'pass', verdicts: { X: { status: 'PASS' } } });
    expect(outcome.evidence).toHaveLength(5);
  });

  it('a request that never answers still ends the scenario, at its own timeout', async () => {
    const t = await target(server.url, { CONFORMANCE_TIMEOUT_MS: '300' });
    const outcome = await runScenario(
      scenario({ id: 'ERR-4', title: 'hangs', rules: ['X'] }, async (ctx) => {
        await ctx.client.call('things.get', { thing_id: 'slow' });
      }),
      t,
      { timeoutMs: 200 },
    );
    expect(outcome.status).toBe('error');
    expect(outcome.error).toBeInstanceOf(TransportError);
    expect((outcome.error as TransportError).kind).toBe('timeout');
  });

  it('skips, with the reason, a scenario whose capability the target lacks, without running it', async () => {
    const t = await target(noControl.url);
    let ran = false;
    const outcome = await runScenario(
      scenario({ id: 'SKIP-1', title: 'moves the clock', rules: ['X'], needs: ['control-plane'] }, async () => {
        ran = true;
      }),
      t,
    );
    const reason = "needs the fake's control plane (POST /_fake/health answered 404)";
    expect(outcome).toEqual({ status: 'skip', reason, evidence: [], verdicts: { X: { status: 'SKIP', message: reason } } });
    expect(ran).toBe(false);
  });

  it('gives the control plane only to a scenario that declares it', async () => {
    const t = await target(server.url);
    const declared = await runScenario(
      scenario({ id: 'CP-1', title: 'reads the clock', rules: ['X'], needs: ['control-plane'] }, async (ctx) => {
        expect(await ctx.control.call('clock.get', {})).toEqual({ now: 5, frozen: false });
        expect(ctx.evidence.map((e) => e.label)).toEqual(['control:clock.get']);
      }),
      t,
    );
    expect(declared.status).toBe('pass');
    const undeclared = await runScenario(
      scenario({ id: 'CP-2', title: 'sneaks a clock read', rules: ['X'] }, async (ctx) => {
        await ctx.control.call('clock.get', {});
      }),
      t,
    );
    expect(undeclared.status).toBe('error');
    expect(String(undeclared.error)).toMatch(/declares it in neither needs nor uses/);
  });

  it('lets a scenario use an optional capability without being skipped when the target lacks it', async () => {
    const withPlane = await target(server.url);
    const probe = scenario({ id: 'CP-3', title: 'uses the clock if there is one', rules: ['X'], uses: ['control-plane'] }, async (ctx) => {
      if (ctx.has('control-plane')) expect(await ctx.control.call('clock.get', {})).toEqual({ now: 5, frozen: false });
    });
    expect((await runScenario(probe, withPlane)).status).toBe('pass');
    const withoutPlane = await target(server.url, { CONFORMANCE_PROFILE: 'read-only.example' });
    const outcome = await runScenario({ ...probe, mutates: false }, withoutPlane);
    expect(outcome.status, 'an optional capability never skips').toBe('pass');
  });

  it("hands another tenant's key only to a scenario that declares it, and redacts it from the evidence", async () => {
    const otherKey = 'am_sk_live_otherTenant123';
    const t = await target(server.url, { OTHER_TENANT_API_KEY: otherKey });
    const declared = await runScenario(
      scenario({ id: 'OT-1', title: 'reads as another tenant', rules: ['X'], needs: ['other-tenant'] }, async (ctx) => {
        const result = await ctx.client.raw({ path: '/v1/things.get', headers: { authorization: `Bearer ${ctx.otherTenantKey}` }, body: '{"thing_id":"a"}' });
        expect(result.status).toBe(200);
      }),
      t,
    );
    expect(declared.status).toBe('pass');
    expect(server.requests.at(-1)?.headers['authorization']).toBe(`Bearer ${otherKey}`);
    expect(JSON.stringify(declared.evidence)).not.toContain(otherKey);
    const undeclared = await runScenario(scenario({ id: 'OT-2', title: 'sneaks a key', rules: ['X'] }, async (ctx) => void ctx.otherTenantKey), t);
    expect(String(undeclared.error)).toMatch(/does not declare needs: \['other-tenant'\]/);
    const without = await runScenario(scenario({ id: 'OT-3', title: 'needs a key', rules: ['X'], needs: ['other-tenant'] }, async () => {}), await target(server.url));
    expect(without).toMatchObject({ status: 'skip', reason: expect.stringContaining('OTHER_TENANT_API_KEY') });
  });

  it('in a read-only profile: skips mutating scenarios, runs read-only ones with a client that refuses to mutate, and hands over declared fixtures only', async () => {
    const t = await target(noControl.url, { CONFORMANCE_PROFILE: './ro.json' });
    const mutating = await runScenario(scenario({ id: 'RO-1', title: 'creates', rules: ['X'] }, async () => {}), t);
    expect(mutating).toMatchObject({ status: 'skip', reason: 'needs to change data, but profile ./ro.json is read-only' });

    let fixtures: unknown;
    const sneaky = await runScenario(
      scenario({ id: 'RO-2', title: 'reads, then writes', rules: ['X'], mutates: false, needs: [['control-plane', 'fixture:past_due_subscription']] }, async (ctx) => {
        fixtures = ctx.fixtures;
        expect(ctx.has('control-plane')).toBe(false);
        ctx.expectOk(await ctx.client.call('things.get', { thing_id: 'a' }));
        await ctx.client.call('things.create', { thing_id: 'b', name: 'B' });
      }),
      t,
    );
    expect(fixtures).toEqual({ past_due_subscription: { customer_id: 'cus_pd', plan_id: 'pro' } });
    expect(sneaky.status).toBe('error');
    expect(sneaky.error).toBeInstanceOf(ReadOnlyViolation);
    expect(sneaky.evidence.map((e) => e.label)).toEqual(['things.get']);
  });
});

describe('expectOk / expectError', () => {
  it('expectError accepts the expected error, and fails on a 200, a wrong status or a wrong code', async () => {
    const t = await target(server.url);
    const run = (check: Parameters<typeof scenario>[1]) => runScenario(scenario({ id: 'EXP', title: 'expects', rules: ['X'] }, check), t);
    const ok = await run(async (ctx) => {
      const failure = ctx.expectError(await ctx.client.call('things.get', { thing_id: 'missing' }), { status: 404, code: 'thing_not_found' });
      expect(failure.error?.message).toBe('Thing missing not found');
      ctx.expectError(await ctx.client.call('things.get', { thing_id: 'missing' }));
      ctx.expectError(await ctx.client.call('things.get', { thing_id: 'missing' }), { status: [404, 409] });
    });
    expect(ok.status).toBe('pass');
    const cases = [
      [{ thing_id: 'present' }, {}, /things.get: expected an error, got 200/],
      [{ thing_id: 'missing' }, { status: 400 }, /things.get: expected status 400, got 404/],
      [{ thing_id: 'missing' }, { status: [500, 599] as const }, /expected status 500-599, got 404/],
      [{ thing_id: 'missing' }, { code: 'other_code' }, /expected error code other_code/],
    ] as const;
    for (const [body, expected, message] of cases) {
      const outcome = await run(async (ctx) => {
        ctx.expectError(await ctx.client.call('things.get', body), expected);
      });
      expect(outcome.status).toBe('fail');
      expect(String(outcome.error)).toMatch(message);
    }
  });

  it('expectOk fails on an error response, showing status and body', async () => {
    const t = await target(server.url);
    const outcome = await runScenario(
      scenario({ id: 'EXP-OK', title: 'expects 200', rules: ['X'] }, async (ctx) => {
        ctx.expectOk(await ctx.client.call('things.get', { thing_id: 'missing' }));
      }),
      t,
    );
    expect(outcome.status).toBe('fail');
    expect(String(outcome.error)).toMatch(/things.get: expected 200, got 404 .*thing_not_found/);
  });
});

describe('scenarioMeta and evidence bounds', () => {
  it('keeps only the last exchanges of a failing scenario, bodies cut, and none of a passing one', async () => {
    const t = await target(server.url);
    const outcome = await runScenario(
      scenario({ id: 'MANY', title: 'many calls', rules: ['X'] }, async (ctx) => {
        for (let i = 0; i < REPORTED_EXCHANGES + 5; i++) await ctx.client.call('things.get', { thing_id: `t${i}${'x'.repeat(REPORTED_BODY_CHARS)}` });
        expect(ctx.evidence).toHaveLength(REPORTED_EXCHANGES + 5);
        throw new Error('after many calls');
      }),
      t,
    );
    const meta = scenarioMeta({ id: 'MANY', title: 'many calls', rules: ['X'] }, t.info, outcome);
    expect(meta).toMatchObject({ status: 'error', exchangeCount: REPORTED_EXCHANGES + 5, shapeChecks: { 'THING-GET-SHAPE': 'pass' } });
    expect(meta.evidence).toHaveLength(REPORTED_EXCHANGES);
    expect(String(meta.evidence?.[0]?.request.body)).toMatch(/^\{"thing_id":"t5x+… \[truncated, \d+ chars\]$/);
    expect(scenarioMeta({ id: 'P', title: 'p', rules: ['X'] }, t.info, { status: 'pass', evidence: outcome.evidence, verdicts: {} })).not.toHaveProperty('evidence');
    expect(boundExchanges([])).toEqual([]);
  });
});
