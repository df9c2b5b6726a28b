/**
 * The lockstep's ways of calling beyond one plain call (issue 25): a caller of the organisation's
 * other environment, the published client's User-Agent (to the target only), two reads pipelined
 * on one connection, a walk around a write, a request wrong in two ways whose order is not
 * recorded; each compared, charged and replayed as the document decides.
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { faultsFor } from '../../fake-server/faults/index.ts';
import { otherTenantKey } from '../../fake-server/tenants.ts';
import { createNamespace } from '../framework/namespace.ts';
import { startAfter } from './calendar.ts';
import { compareAnswers } from './compare.ts';
import { explore } from './explorer.ts';
import { IdMap } from './ids.ts';
import { Divergence, Lockstep, type CallSpec } from './lockstep.ts';
import { WorldState } from './world.ts';
import { replaySteps } from './replay.ts';
import { PUBLISHED_CLIENT_AGENT } from '../../spec/reference/differences.ts';
import { appSide, type Headers, type PairedCall, type Side } from './sides.ts';
import { inProcessTarget } from './targets.ts';

const NOW = Date.UTC(2030, 5, 15, 12);

function sides(app: FakeApp): { side: Side; key: string; other: string } {
  const key = app.keys[0]!.key;
  return { side: appSide(app, key, '2.4.0'), key, other: otherTenantKey(app.keys, key)! };
}

/** A lockstep between two fresh fakes, the target's side changed by `wrap`. */
function lockstep(wrap: (side: Side) => Side = (side) => side): { lockstep: Lockstep; model: FakeApp; target: FakeApp } {
  const model = createFakeApp({ now: NOW, frozen: true });
  const target = createFakeApp({ now: NOW, frozen: true });
  const [m, t] = [sides(model), sides(target)];
  const run = new Lockstep({ model: m.side, target: wrap(t.side), otherKeys: { model: m.other, target: t.other }, world: new WorldState(NOW), timeToleranceMs: 0, found: new Set() });
  return { lockstep: run, model, target };
}

const call = (spec: Omit<CallSpec, 'command'>): CallSpec => ({ command: 'test', ...spec });
const customer = (id: string, extra: Partial<CallSpec> = {}) => call({ operation: 'customers.get_or_create', body: { customer_id: id }, customerId: id, ...extra });

describe('a caller of the other environment', () => {
  it('writes and reads with the live key of the same organisation on each side: one ID, two customers', async () => {
    const { lockstep: run } = lockstep();
    await run.call(customer('acme', { caller: { environment: 'live' } }));
    const sandbox = await run.call(call({ operation: 'customers.get', body: { customer_id: 'acme' }, customerId: 'acme' }));
    const live = await run.call(call({ operation: 'customers.get', body: { customer_id: 'acme' }, customerId: 'acme', caller: { environment: 'live' } }));
    expect([sandbox.model.status, sandbox.target.status, live.model.status, (live.target.body as { env: string }).env]).toEqual([404, 404, 200, 'live']);
    expect(run.steps[0]?.caller).toEqual({ environment: 'live' });
  });

  it('charges a target that mixes up the environments (the sandbox key answered as live)', async () => {
    const { lockstep: run } = lockstep((side) => ({ ...side, call: (operation, body) => side.call(operation, body, {}) }));
    await run.call(customer('acme'));
    await expect(run.call(call({ operation: 'customers.get', body: { customer_id: 'acme' }, customerId: 'acme', caller: { environment: 'live' } }))).rejects.toBeInstanceOf(Divergence);
  });
});

describe('the published client', () => {
  it("is recognised by the target only: the model answers as the document says, whoever asks", async () => {
    const seen: { target: (Headers | undefined)[]; model: (Headers | undefined)[] } = { target: [], model: [] };
    const model = createFakeApp({ now: NOW, frozen: true });
    const target = createFakeApp({ now: NOW, frozen: true });
    const record = (into: (Headers | undefined)[], side: Side): Side => ({ ...side, call: (operation, body, options) => (into.push(options?.headers), side.call(operation, body, options)) });
    const run = new Lockstep({ model: record(seen.model, sides(model).side), target: record(seen.target, sides(target).side), world: new WorldState(NOW), timeToleranceMs: 0, found: new Set() });
    await run.call(customer('acme', { caller: { agent: 'published-client' } }));
    expect(seen.target).toEqual([{ 'user-agent': PUBLISHED_CLIENT_AGENT }]);
    expect(seen.model).toEqual([undefined]);
  });
});

describe('programs that send some of their calls as the published client', () => {
  // The target counts a balances.track twice when the published client sends it: an operation no command of the client's own sends.
  const clientTracksTwice = () => {
    const app = createFakeApp();
    const fetch: FakeApp['fetch'] = async (request) => {
      if (request.headers.get('user-agent') !== PUBLISHED_CLIENT_AGENT || !request.url.endsWith('/v1/balances.track')) return app.fetch(request);
      const body = (await request.json()) as Record<string, unknown>;
      const value = typeof body['value'] === 'number' ? body['value'] * 2 : 2;
      return app.fetch(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify({ ...body, value }) }));
    };
    return Object.assign(Object.create(app) as FakeApp, { fetch, reply: undefined });
  };
  it('reach a bug only its requests meet, on any operation, and its finding replays', { timeout: 120_000 }, async () => {
    const seed = 5;
    const target = () => inProcessTarget(clientTracksTwice(), createNamespace({ prefix: 'conf', seed }));
    const result = await explore(target(), { seed, runs: 60, maxSteps: 20, maxFindings: 1, shrinkRuns: 0, minimize: false, localise: false });
    const finding = result.findings[0];
    expect(finding, `seed ${seed}: ${result.programs} programs`).toBeDefined();
    expect(finding!.steps.some((step) => step.operation === 'balances.track' && step.caller?.agent === 'published-client')).toBe(true);
    const replay = await replaySteps({ ...finding!, apiVersion: '2.4.0' }, target());
    expect(replay.lockstep.steps[replay.replayed.get(finding!.at)!]!.differences.map((d) => d.key)).toEqual(finding!.differences.map((d) => d.key));
  });
});

describe('a pipelined pair', () => {
  it('compares each read and logs them as a pair', async () => {
    const { lockstep: run } = lockstep();
    await run.call(customer('acme'));
    await run.pair(call({ operation: 'customers.get', body: { customer_id: 'acme' }, customerId: 'acme' }), call({ operation: 'customers.get', body: { customer_id: 'acme' }, customerId: 'acme', caller: { environment: 'live' } }));
    expect(run.steps.slice(1).map((s) => [s.pipelined, s.target.status, s.differences.length])).toEqual([
      ['first', 200, 0],
      ['second', 404, 0],
    ]);
  });

  it("finds a target that answers the second request of a connection with the first one's key", async () => {
    const { lockstep: run } = lockstep((side) => ({ ...side, pair: async (first: PairedCall, second: PairedCall) => Promise.all([side.call(first.operation, first.body, first.headers ? { headers: first.headers } : {}), side.call(second.operation, second.body, first.headers ? { headers: first.headers } : {})]) }));
    await run.call(customer('acme'));
    await expect(run.pair(call({ operation: 'customers.get', body: { customer_id: 'acme' }, customerId: 'acme' }), call({ operation: 'customers.get', body: { customer_id: 'acme' }, customerId: 'acme', caller: { environment: 'live' } }))).rejects.toBeInstanceOf(Divergence);
  });

  it('takes reads of one page only', async () => {
    const { lockstep: run } = lockstep();
    await expect(run.pair(customer('acme'), call({ operation: 'customers.get', body: { customer_id: 'acme' } }))).rejects.toThrow(/cannot be pipelined/);
  });
});

describe('a walk around a write', () => {
  async function entities(run: Lockstep, count: number): Promise<string[]> {
    await run.call(call({ operation: 'features.create', body: { feature_id: 'seat', name: 'Seat', type: 'metered', consumable: false } }));
    const ids = Array.from({ length: count }, (_, i) => `ent_${i}`);
    for (const id of ids) await run.call(call({ operation: 'entities.create', body: { customer_id: 'acme', entity_id: id, feature_id: 'seat', name: id }, customerId: 'acme' }));
    return ids;
  }
  const listing = call({ operation: 'entities.list', body: { customer_id: 'acme', limit: 1 }, customerId: 'acme' });
  const remove = (id: string) => call({ operation: 'entities.delete', body: { customer_id: 'acme', entity_id: id }, customerId: 'acme' });

  it('compares every row that existed throughout, not the one the write removed', async () => {
    const { lockstep: run } = lockstep();
    const ids = await entities(run, 4);
    await run.walkAround(listing, remove(ids[0]!), { field: 'id', values: [ids[0]!] });
    const walked = run.steps.at(-1)!;
    expect([walked.around, walked.differences]).toEqual([{ write: run.steps.length - 2, field: 'id', values: [ids[0]] }, []]);
    expect((walked.model.body as { list: { id: string }[] }).list.map((e) => e.id).sort()).toEqual(ids.slice(1).sort());
  });

  it('charges a row that existed throughout and is missed to LIST-WALK-CONCURRENT-INSERTS', async () => {
    // A cursor that counts rows: after a delete, the next page starts one row too far.
    const { lockstep: run } = lockstep((side) => ({
      ...side,
      call: async (operation, body, options) => {
        const answer = await side.call(operation, body, options);
        const cursor = (body as { start_cursor?: string }).start_cursor;
        if (operation !== 'entities.list' || cursor === undefined || answer.status !== 200 || !dropped.has(cursor)) return answer;
        const page = answer.body as { list: unknown[]; next_cursor: string | null };
        return { ...answer, body: { ...page, list: [] } };
      },
    }));
    const dropped = new Set<string>();
    const ids = await entities(run, 4);
    // The second page of the target's walk is answered empty.
    const first = await run.resolve('test', 'target', 'entities.list', { customer_id: 'acme', limit: 1 });
    dropped.add((first.body as { next_cursor: string }).next_cursor);
    await expect(run.walkAround(listing, remove(ids[3]!), { field: 'id', values: [ids[3]!] })).rejects.toSatisfy((e: unknown) => e instanceof Divergence && e.differences.some((d) => d.rule === 'LIST-WALK-CONCURRENT-INSERTS'));
  });
});

describe('a customers.get_or_create of a customer the program holds', () => {
  it('is no writer: balances a clock move left unreset are the clock move\'s, in its own answer and in the reads after it', async () => {
    // The target's clock moves, but its balances never reset.
    const { lockstep: run } = lockstep((side) => ({ ...side, control: (name, body, options) => side.control(name, name === 'clock.advance' ? { ms: 1 } : body, options) }));
    await run.call(call({ operation: 'features.create', body: { feature_id: 'msg', name: 'Messages', type: 'metered', consumable: true } }));
    await run.call(call({ operation: 'plans.create', body: { plan_id: 'basic', name: 'Basic', items: [{ feature_id: 'msg', included: 10, reset: { interval: 'month' } }] } }));
    await run.call(customer('acme'));
    run.world.customers.push('acme');
    await run.call(call({ operation: 'billing.attach', body: { customer_id: 'acme', plan_id: 'basic' }, customerId: 'acme' }));
    await run.call(call({ operation: 'balances.track', body: { customer_id: 'acme', feature_id: 'msg', value: 4 }, customerId: 'acme' }));
    await run.control('test', 'clock.advance', { model: { ms: 40 * 86_400_000 }, target: { ms: 40 * 86_400_000 } });
    await run.call(customer('acme')).catch(() => undefined);
    await run.call(call({ operation: 'balances.check', body: { customer_id: 'acme', feature_id: 'msg', required_balance: 0 }, customerId: 'acme' })).catch(() => undefined);
    const [own, after] = run.steps.slice(-2).map((step) => [...new Set(step.differences.map((d) => d.rule))]);
    expect(own).not.toEqual([]);
    expect(own).not.toContain('PLAN-AUTO-ENABLE');
    expect(after).toEqual(['PLAN-CONSUMABLE-RESET']);
  });
});

describe('a request wrong in two ways whose order the reference has not recorded', () => {
  it('is answered by either refusal, and by no other', () => {
    const context = { operation: 'balances.check' as const, request: {}, ids: new IdMap(), timeToleranceMs: 0, eitherCode: ['customer_not_found', 'feature_not_found'] };
    const refusal = (status: number, code: string) => ({ status, body: { message: 'no', code, env: 'sandbox' } });
    expect(compareAnswers(context, refusal(404, 'customer_not_found'), refusal(404, 'feature_not_found')).differences).toEqual([]);
    expect(compareAnswers(context, refusal(404, 'customer_not_found'), refusal(400, 'invalid_inputs')).differences.map((d) => d.kind)).toEqual(['code']);
    expect(compareAnswers(context, refusal(404, 'customer_not_found'), { status: 200, body: {} }).differences.map((d) => d.kind)).toEqual(['status']);
  });
});

describe('replaying', () => {
  it('sends pairs, walks around writes and other callers again as they were sent', async () => {
    const app = createFakeApp();
    const target = inProcessTarget(app, createNamespace({ prefix: 'conf', seed: 5 }));
    const { lockstep: run } = lockstep();
    await run.call(customer('conf_abc_p_cus_1', { caller: { environment: 'live' } }));
    await run.pair(call({ operation: 'customers.get', body: { customer_id: 'conf_abc_p_cus_1' } }), call({ operation: 'customers.get', body: { customer_id: 'conf_abc_p_cus_1' }, caller: { environment: 'live' } }));
    await run.call(call({ operation: 'features.create', body: { feature_id: 'conf_abc_p_seat_1', name: 'Seat', type: 'metered', consumable: false } }));
    for (const n of [1, 2, 3]) await run.call(call({ operation: 'entities.create', body: { customer_id: 'conf_abc_p_cus_1', entity_id: `conf_abc_p_ent_${n}`, feature_id: 'conf_abc_p_seat_1', name: 'E' } }));
    await run.walkAround(call({ operation: 'entities.list', body: { customer_id: 'conf_abc_p_cus_1', limit: 1 } }), call({ operation: 'entities.delete', body: { customer_id: 'conf_abc_p_cus_1', entity_id: 'conf_abc_p_ent_2' } }), { field: 'id', values: ['conf_abc_p_ent_2'] });
    const replay = await replaySteps({ steps: run.steps, idPrefix: 'conf_abc_p', start: { kind: 'mid-june', at: NOW }, apiVersion: '2.4.0' }, target);
    const again = replay.lockstep.steps;
    expect(again.map((s) => [s.operation, s.caller?.environment, s.pipelined, s.around?.values.length, s.model.status, s.differences.length])).toEqual(
      run.steps.map((s) => [s.operation, s.caller?.environment, s.pipelined, s.around?.values.length, s.model.status, 0]),
    );
  });
});

describe('a program in the live environment', () => {
  // A bug of one environment's code path: in live, an entity is created under another name.
  const liveOnly: Fault = {
    rule: 'ENT-CREATE',
    breaks: 'entities.create in the live environment drops the name it was given',
    handlers: { 'entities.create': (real) => (ctx, input) => real(ctx, (ctx as { env?: string }).env === 'live' ? { ...input, name: 'Renamed' } : input) },
  };
  it('reaches a bug only that environment has, through every operation, and its finding replays there', { timeout: 120_000 }, async () => {
    const seed = 31;
    const target = () => inProcessTarget(createFakeApp({ faults: [liveOnly] }), createNamespace({ prefix: 'conf', seed }));
    const result = await explore(target(), { seed, runs: 60, maxSteps: 20, maxFindings: 1, shrinkRuns: 0, minimize: false, localise: false });
    const finding = result.findings[0];
    // A program in the live environment, or the live calls of a sandbox program (callers.environments): either way, a call in live.
    const diverging = finding?.steps.find((step) => step.index === finding.at);
    expect(finding?.start.environment === 'live' || diverging?.caller?.environment === 'live').toBe(true);
    expect(finding?.differences.some((d) => d.path.endsWith('name'))).toBe(true);
    const replay = await replaySteps({ ...finding!, apiVersion: '2.4.0' }, target());
    expect(replay.lockstep.steps[replay.replayed.get(finding!.at)!]!.differences.map((d) => d.key)).toEqual(finding!.differences.map((d) => d.key));
  });
});

describe('a program whose tenant has no clock', () => {
  it('is refused at its start, not waited for: a live key its target refuses (a fault replayed in localisation) answers clock.get with an error', async () => {
    const isolationBroken = createFakeApp({ faults: faultsFor(['AUTH-TENANT-ISOLATION']) });
    const target = inProcessTarget(isolationBroken, createNamespace({ prefix: 'conf', seed: 3 }));
    await expect(target.open('mid-june', 'live')).rejects.toThrow(/not a time/);
    expect(() => startAfter('mid-june', Number.NaN)).toThrow(RangeError);
    expect(startAfter('mid-june', NOW)).toBeGreaterThan(NOW);
  });
});
