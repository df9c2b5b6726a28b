/**
 * A run leaves nothing it could have removed, and its report says truthfully what stays: checked
 * against what the fake holds afterwards (its state export), never against the report alone.
 * - the whole suite, run as a user runs it (the CLI, the fake given by URL): what the fake holds
 *   afterwards is exactly what the report lists as left, and that is at most a handful of records;
 * - a target that does not serve customers.delete: the run learns it once (the probes), and its
 *   report lists exactly the records that stay;
 * - a target that keeps a plan although it refused to create it (the reference does): the file's
 *   cleanup finds it by listing and removes it;
 * - reuse mode: a run removes what an earlier run of the same name left.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import { fail } from '../../fake-server/domain/context.ts';
import { serve } from '../../fake-server/http/node-adapter.ts';
import { createFakeServer } from '../../fake-server/index.ts';
import { claimProbeCleanup } from '../framework/cleanup.ts';
import { loadConfig } from '../framework/config.ts';
import type { CleanupReport } from '../framework/ledger.ts';
import { prepareRun, runNamespace } from '../framework/prepare.ts';
import type { RunInfo } from '../framework/run.ts';
import { runConformance } from '../hostile/conformance-run.ts';
import { inProcessTarget } from '../support.ts';
import { PREPARE } from '../target-setup.ts';

/** Most records a full run may leave on a fake that serves every delete (docs/vendors.md, "What a run leaves behind"). */
const MOST_LEFT = 10;

const dir = mkdtempSync(join(tmpdir(), 'conformance-cleanup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `<kind> <id>` of every record a tenant holds, as the cleanup names kinds. */
function recordsOf(fake: Pick<FakeApp, 'exportState'>, key: string): string[] {
  const { tables } = fake.exportState(key).tenants[0]!;
  return [
    ...tables.customers.map((row) => `customer ${row.id}`),
    ...tables.entities.map((row) => `entity ${row.id}`),
    ...tables.plans.map((versions) => `plan ${versions[0]!.id}`),
    ...tables.features.map((row) => `feature ${row.id}`),
    ...tables.referralPrograms.map((row) => `referral_program ${row.id}`),
    ...tables.rewards.map((row) => `reward ${row.id}`),
  ].sort();
}

function stays(report: Pick<CleanupReport, 'left' | 'failed'>): string[] {
  return [...report.left, ...report.failed].map(({ entry }) => `${entry.kind} ${entry.id}`).sort();
}

describe('a conformance run against a fake given by URL', () => {
  it(`leaves at most ${MOST_LEFT} records, exactly those its report lists, and says so in one console line`, async () => {
    const fake = await createFakeServer();
    try {
      const run = await runConformance({ env: { BASE_URL: fake.url, API_KEY: fake.apiKey, OTHER_TENANT_API_KEY: fake.otherTenantApiKey! }, killAfterMs: 15 * 60_000 });
      expect(run.exitCode, run.console.slice(-3000)).toBe(0);
      const reported = run.report!.cleanup.flatMap((c) => [...c.left, ...c.failed]).map(({ kind, id }) => `${kind} ${id}`).sort();
      const held = [...recordsOf(fake, fake.apiKey), ...recordsOf(fake, fake.otherTenantApiKey!)].sort();
      expect(held).toEqual(reported);
      expect(held.length).toBeLessThanOrEqual(MOST_LEFT);
      expect(run.console.match(/^conformance: cleanup /gm)).toHaveLength(1);
      expect(run.report!.cleanup.reduce((sum, c) => sum + c.undone, 0)).toBeGreaterThan(500);
    } finally {
      await fake.close();
    }
  }, 16 * 60_000);
});

async function fakeBy(app: FakeApp) {
  const served = await serve(app);
  const key = app.keys[0]!.key;
  const run: RunInfo = { baseUrl: served.url, apiKey: key, seed: 1, salt: '', kind: 'fake' };
  return { served, key, run };
}

describe("a test file's cleanup", () => {
  it('finds by listing a plan the target kept although it refused the create, and removes it', async () => {
    const app = createFakeApp({
      faults: [
        {
          rule: 'PLAN-SHAPE',
          breaks: 'plans.create refuses an item but keeps the plan, as the reference does (observed-behaviour §8.4)',
          handlers: {
            'plans.create': (real) => (ctx, input) => {
              real(ctx, { ...input, items: [] });
              return fail('invalid_inputs', 'items: refused, the plan kept');
            },
          },
        },
      ],
    });
    const { served, key } = await fakeBy(app);
    try {
      const target = await inProcessTarget({ url: served.url, apiKey: key, otherTenantApiKey: undefined });
      const planId = target.ns.scope('some.scenario').id('plan');
      expect((await target.client.call('plans.create', { plan_id: planId, name: 'Kept' })).status).toBe(400);
      expect(target.ledger.entries()).toEqual([]);
      expect(recordsOf(app, key)).toEqual([`plan ${planId}`]);
      const report = await target.close();
      expect(report.undone.map(({ entry }) => entry.id)).toContain(planId);
      expect(recordsOf(app, key)).toEqual([]);
    } finally {
      await served.close();
    }
  });
});

describe('the run preparation (probes once per run)', () => {
  it('learns which deletes a target does not serve, and its report lists exactly the probe records that stay', async () => {
    const app = createFakeApp({
      faults: [{ rule: 'CUS-DELETE', breaks: 'customers.delete is not served', handlers: { 'customers.delete': () => () => fail('route_not_found', 'The fake does not serve customers.delete') } }],
    });
    const { served, key, run } = await fakeBy(app);
    try {
      const prepared = await prepareRun(loadConfig({ env: {} }), run, dir, PREPARE);
      expect(prepared.unserved).toEqual(['customers.delete']);
      expect(prepared.capabilities?.available).toEqual(expect.arrayContaining(['paid-attach', 'multi-currency', 'control-plane']));
      const cleanup = claimProbeCleanup(prepared.probeCleanupFile)!;
      // The two probe customers cannot go (the delete is tried, which is the probe); the paid plan one of them holds is refused, and archived.
      expect(stays(cleanup)).toEqual(recordsOf(app, key));
      expect(cleanup.left).toEqual([]);
      expect(cleanup.failed.map(({ entry, error }) => [entry.kind, error]).sort()).toEqual([
        ['customer', expect.stringMatching(/^answered 404: .*does not serve customers.delete/)],
        ['customer', expect.stringMatching(/^answered 404: .*does not serve customers.delete/)],
        ['plan', expect.stringMatching(/customers .* on it/)],
      ]);
      expect(app.exportState(key).tenants[0]!.tables.plans.flat().every((plan) => plan.archived)).toBe(true);
      expect(cleanup.undone.length).toBeGreaterThanOrEqual(5);
    } finally {
      await served.close();
    }
  });

  it('in reuse mode removes first what an earlier run of the same name left, and nothing of another name', async () => {
    const app = createFakeApp();
    const { served, key, run } = await fakeBy(app);
    try {
      const config = loadConfig({ env: { CONFORMANCE_REUSE_NAMESPACE: 'nightly' } });
      const earlier = runNamespace(config, { seed: 99, salt: 'earlier' }).scope('some.scenario');
      const other = runNamespace({ ...config, reuseNamespace: 'other' }, { seed: 1, salt: '' }).scope('some.scenario');
      const call = async (operation: string, body: unknown) => {
        const response = await app.fetch(new Request(`http://fake.invalid/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify(body) }));
        expect(response.status, `${operation}: ${await response.clone().text()}`).toBe(200);
      };
      const [feature, plan, customer, entity, otherFeature] = [earlier.id('feat'), earlier.id('plan'), earlier.id('cus'), earlier.id('ent'), other.id('feat')];
      await call('features.create', { feature_id: feature, name: 'Left', type: 'metered', consumable: false });
      await call('plans.create', { plan_id: plan, name: 'Left', items: [{ feature_id: feature, included: 1 }] });
      await call('customers.get_or_create', { customer_id: customer });
      await call('billing.attach', { customer_id: customer, plan_id: plan });
      await call('entities.create', { customer_id: customer, entity_id: entity, feature_id: feature });
      await call('features.create', { feature_id: otherFeature, name: 'Another name', type: 'boolean' });

      const prepared = await prepareRun(config, run, dir, PREPARE);
      const cleanup = claimProbeCleanup(prepared.probeCleanupFile)!;
      expect(recordsOf(app, key)).toEqual([`feature ${otherFeature}`]);
      expect(cleanup.undone.map(({ entry }) => entry.id)).toEqual(expect.arrayContaining([feature, plan, customer, entity]));
      expect(stays(cleanup)).toEqual([]);
    } finally {
      await served.close();
    }
  });
});
