/**
 * The run journal (suites/framework/journal.ts) outlives the run: what a request may create is
 * written down before the request is sent, and the sweep that reads it back (a reuse run's start,
 * every run's end, `besi-conformance cleanup`) removes what is still there, dependents first, and
 * counts only what was. Checked against what the fake holds (its state export).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import { fail } from '../../fake-server/domain/context.ts';
import type { HandlerOverrides } from '../../fake-server/faults/fault.ts';
import { serve } from '../../fake-server/http/node-adapter.ts';
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { createClient } from '../framework/client.ts';
import { loadConfig } from '../framework/config.ts';
import { EvidenceLog } from '../framework/evidence.ts';
import { Journal, readJournal } from '../framework/journal.ts';
import { createNamespace } from '../framework/namespace.ts';
import { sweepJournal } from '../framework/prepare.ts';
import { createTarget } from '../framework/target.ts';
import { LEDGER, PREPARE } from '../target-setup.ts';
import { recordsOf } from './fake-records.ts';

const dir = mkdtempSync(join(tmpdir(), 'conformance-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const journalFile = () => join(dir, `journal-conf_${String(++files).padStart(6, '0')}.jsonl`);

describe('the journal file', () => {
  it('says of each record what its last line says, skips a line cut short by a kill, and keeps a reuse namespace’s file when nothing is left', () => {
    const path = journalFile();
    const journal = new Journal(path, { reuse: 'nightly' });
    journal.write('intent', [{ kind: 'entity', id: 'conf_a_e_1', customer_id: 'conf_a_c_1' }, { kind: 'plan', id: 'conf_a_p_1' }]);
    journal.write('made', [{ kind: 'entity', id: 'conf_a_e_1' }]);
    journal.write('refused', [{ kind: 'plan', id: 'conf_a_p_1' }], 'answered 400');
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"s":"removed","kind":"enti`);
    // The next run opens it: its lines start on a line of their own.
    const next = new Journal(path);
    expect(next.records()).toEqual([
      { entry: { kind: 'entity', id: 'conf_a_e_1', customer_id: 'conf_a_c_1' }, state: 'made' },
      { entry: { kind: 'plan', id: 'conf_a_p_1' }, state: 'refused', note: 'answered 400' },
    ]);
    next.write('removed', [{ kind: 'entity', id: 'conf_a_e_1' }, { kind: 'plan', id: 'conf_a_p_1' }]);
    expect(next.outstanding()).toEqual([]);
    next.compact();
    expect(readFileSync(path, 'utf8')).toBe('{"reuse":"nightly"}\n');
    expect(next.reuse()).toBe('nightly');
    const own = new Journal(journalFile());
    own.write('made', [{ kind: 'plan', id: 'x' }]);
    own.write('removed', [{ kind: 'plan', id: 'x' }]);
    own.compact();
    expect(() => readFileSync(own.path)).toThrow();
  });
});

/** A fake whose plans.create goes through `wrap` first. */
function wrappingPlansCreate(breaks: string, wrap: NonNullable<HandlerOverrides['plans.create']>): FakeApp {
  return createFakeApp({ faults: [{ rule: 'PLAN-SHAPE', breaks, handlers: { 'plans.create': wrap } }] });
}

async function fakeBy(app: FakeApp) {
  const served = await serve(app);
  return { served, key: app.keys[0]!.key };
}

describe('a target with a journal', () => {
  it('writes down what a request may create before sending it, and how the answer went', async () => {
    const path = journalFile();
    const seen: string[] = [];
    // The fake reads the journal as each create arrives: the intent must be there already.
    const app = wrappingPlansCreate('reads the journal first (a meta-test probe, not a fault)', (real) => (ctx, input) => {
      seen.push(readJournal(path).find((r) => r.entry.id === input.plan_id)?.state ?? 'nothing');
      return real(ctx, input);
    });
    const { served, key } = await fakeBy(app);
    try {
      const target = await createTarget({ operations, errorBody: ErrorBody, ...LEDGER, config: loadConfig({ env: { API_KEY: key } }), run: { baseUrl: served.url, seed: 1, salt: '', kind: 'deployment', journal: { path } }, retry: false });
      const ns = target.ns.scope('journal.test');
      const [plan, refused] = [ns.id('plan'), ns.id('plan')];
      expect((await target.client.call('plans.create', { plan_id: plan, name: 'Journalled' })).status).toBe(200);
      expect((await target.client.call('plans.create', { plan_id: refused, name: '' })).status).toBe(400);
      // The second is refused by validation, before the domain (and the probe) sees it.
      expect(seen).toEqual(['intent']);
      expect(readJournal(path).map((r) => [r.entry.id, r.state])).toEqual([
        [plan, 'made'],
        [refused, 'refused'],
      ]);
      await target.close();
      expect(Object.fromEntries(readJournal(path).map((r) => [r.entry.id, r.state]))).toEqual({ [plan]: 'removed', [refused]: 'refused' });
      expect(recordsOf(app, key)).toEqual([]);
    } finally {
      await served.close();
    }
  });
});

describe('the sweep of a journal', () => {
  it('removes what is there, dependents first; a record never made costs no count; a refused create the target kept is found', async () => {
    const app = wrappingPlansCreate('plans.create refuses but keeps the plan, as the reference does (observed-behaviour §8.4)', (real) => (ctx, input) => {
      if (!input.plan_id.endsWith('_kept_1')) return real(ctx, input);
      real(ctx, input);
      return fail('invalid_inputs', 'refused, the plan kept');
    });
    const { served, key } = await fakeBy(app);
    try {
      const ns = createNamespace({ prefix: 'conf', seed: 5, reuse: 'sweep' }).scope('some.scenario');
      const client = createClient({ baseUrl: served.url, apiKey: key, apiVersion: '2.4.0', timeoutMs: 5_000, retry: false, operations, errorBody: ErrorBody, evidence: new EvidenceLog() });
      const call = async (operation: keyof typeof operations, body: unknown) => (await client.call(operation, body as never)).status;
      const [feature, plan, kept, customer, entity, never] = [ns.id('feat'), ns.id('plan'), ns.id('kept'), ns.id('cus'), ns.id('ent'), ns.id('cus')];
      expect(await call('features.create', { feature_id: feature, name: 'F', type: 'metered', consumable: false })).toBe(200);
      expect(await call('plans.create', { plan_id: plan, name: 'P', items: [{ feature_id: feature, included: 1 }] })).toBe(200);
      expect(await call('plans.create', { plan_id: kept, name: 'K' })).toBe(400);
      expect(await call('customers.get_or_create', { customer_id: customer })).toBe(200);
      expect(await call('billing.attach', { customer_id: customer, plan_id: plan })).toBe(200);
      expect(await call('entities.create', { customer_id: customer, entity_id: entity, feature_id: feature })).toBe(200);
      // What a run killed at that point left written down: made, refused, and a create cut off before any answer.
      const journal = new Journal(journalFile(), { reuse: 'sweep' });
      journal.write('made', [{ kind: 'feature', id: feature }, { kind: 'plan', id: plan }, { kind: 'customer', id: customer }, { kind: 'entity', id: entity, customer_id: customer }]);
      journal.write('refused', [{ kind: 'plan', id: kept }], 'answered 400');
      journal.write('intent', [{ kind: 'customer', id: never }]);
      expect(recordsOf(app, key)).toHaveLength(5);

      const report = await sweepJournal(client, createNamespace({ prefix: 'conf', seed: 0, reuse: 'sweep' }), journal, { plan: PREPARE });
      expect(recordsOf(app, key)).toEqual([]);
      expect(report.undone.map(({ entry }) => `${entry.kind} ${entry.id}`)).toEqual([`entity ${entity}`, `customer ${customer}`, `plan ${kept}`, `plan ${plan}`, `feature ${feature}`]);
      expect([...report.left, ...report.failed, ...report.alreadyGone]).toEqual([]);
      expect(journal.outstanding()).toEqual([]);
      await client.close();
    } finally {
      await served.close();
    }
  });
});

describe('a record an earlier run left and could not remove', () => {
  it('is removed when the run first makes its ID, or the create is not sent: the scenario is BLOCKED by the suite’s leftover, never a FAIL', async () => {
    const app = createFakeApp();
    const { served, key } = await fakeBy(app);
    try {
      const ns = createNamespace({ prefix: 'conf', seed: 0, reuse: 'claims' }).scope('some.scenario');
      const [customer, plan, holder] = [ns.id('cus'), ns.id('plan'), ns.id('cus')];
      const raw = async (operation: string, body: unknown) => (await app.fetch(new Request(`http://fake.invalid/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify(body) }))).status;
      expect(await raw('customers.get_or_create', { customer_id: customer, name: 'Left by an earlier run' })).toBe(200);
      expect(await raw('plans.create', { plan_id: plan, name: 'Held' })).toBe(200);
      expect(await raw('customers.get_or_create', { customer_id: holder })).toBe(200);
      expect(await raw('billing.attach', { customer_id: holder, plan_id: plan })).toBe(200);
      const path = journalFile();
      const present = [{ kind: 'customer', id: customer }, { kind: 'plan', id: plan }];
      const target = await createTarget({
        operations,
        errorBody: ErrorBody,
        ...LEDGER,
        config: loadConfig({ env: { API_KEY: key, CONFORMANCE_REUSE_NAMESPACE: 'claims' } }),
        run: { baseUrl: served.url, seed: 1, salt: '', kind: 'deployment', journal: { path, present } },
        retry: false,
      });
      const made = await target.client.call('customers.get_or_create', { customer_id: customer, name: 'This run' });
      expect(made.ok && made.body.name).toBe('This run');
      // The plan is held by a customer the journal does not know: it stays, and the create is not sent.
      await expect(target.client.call('plans.create', { plan_id: plan, name: 'Again' })).rejects.toMatchObject({ name: 'SetupFailed', step: 'suite leftover', message: expect.stringMatching(/earlier run of this namespace/) });
      expect(readJournal(path).find((r) => r.entry.id === plan)).toMatchObject({ state: 'failed', note: expect.stringMatching(/^answered 400: .*customers .* on it/) });
      await target.close();
    } finally {
      await served.close();
    }
  });
});
