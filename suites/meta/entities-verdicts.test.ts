/**
 * Verdicts of the entities scenarios that rest on what interface.md leaves open (issue 17, round two):
 * - the filters of entities.list whose wire names the document does not show (plan filter, search,
 *   processor type): with the reference's names (the default profile) the MUST rules are checked and
 *   pass; with a profile naming a field the target does not read, they are SKIP naming the profile
 *   key, never FAIL;
 * - entities.delete on a target that, like the 2.3.0 reference, keeps the deleted entity's plan
 *   active at customer level (a sibling then matches the plan filter), while plans.create leaves out
 *   version_slug and active: the deviation is ENT-DELETE's FAIL, saying what it saw, not BLOCKED by
 *   plans.create's missing fields.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeApp } from '../../fake-server/app.ts';
import { attach } from '../../fake-server/domain/billing.ts';
import { getEntity } from '../../fake-server/domain/entities.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { rewriteOutput } from '../../fake-server/faults/fault.ts';
import { serve } from '../../fake-server/http/node-adapter.ts';
import { testSeed } from '../../fixtures/random.ts';
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { ruleById } from '../../spec/rules/catalogue.ts';
import type { WireNameKey } from '../../spec/wire-names.ts';
import { createTarget, loadConfig, runScenario } from '../framework/index.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { LEDGER, PROBES, type ConformanceTarget } from '../support.ts';
import { runAgainstFake } from './against-fake.ts';

const dir = mkdtempSync(join(tmpdir(), 'conformance-entities-verdicts-'));
let served: Awaited<ReturnType<typeof serve>>;
let apiKey: string;
const targets: ConformanceTarget[] = [];

beforeAll(async () => {
  const app = createFakeApp();
  served = await serve(app);
  apiKey = app.keys[0]!.key;
});
afterAll(async () => {
  for (const target of targets) await target.close();
  await served.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A target of the fake (its control plane granted, capabilities probed) under a profile with these wire names. */
async function targetWith(wireNames: Partial<Record<WireNameKey, string>>): Promise<ConformanceTarget> {
  const profile = join(dir, `profile-${targets.length}.json`);
  writeFileSync(profile, JSON.stringify({ capabilities: ['control-plane'], wireNames }));
  const config = loadConfig({ env: { CONFORMANCE_PROFILE: profile } });
  const target = await createTarget({ operations, errorBody: ErrorBody, config, run: { baseUrl: served.url, apiKey, seed: testSeed(), salt: `entities-${targets.length}`, kind: 'fake' }, retry: false, ...LEDGER, probes: PROBES });
  targets.push(target);
  return target;
}

function scenarioById(id: string) {
  const found = SCENARIOS.find((scenario) => scenario.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return found;
}

/** Each scenario, the wire name its MUST rules rest on, and those rules. */
const RESTING_ON_WIRE_NAMES: readonly { scenario: string; key: WireNameKey; rules: readonly string[] }[] = [
  { scenario: 'entities.list-plan-filter', key: 'entities.list.plan_filter', rules: ['ENT-PLAN-FILTER-INHERITED', 'ENT-PLAN-FILTER-DIRECT'] },
  { scenario: 'entities.list-plan-version', key: 'entities.list.plan_filter', rules: ['ENT-PLAN-FILTER-VERSION', 'ENT-PLAN-FILTER-INHERITED'] },
  { scenario: 'entities.list-statuses', key: 'entities.list.plan_filter', rules: ['ENT-STATUSES-DEFAULT', 'ENT-PLAN-FILTER-INHERITED'] },
  { scenario: 'entities.list-replaced-plan', key: 'entities.list.plan_filter', rules: ['ENT-STATUSES-DEFAULT'] },
  { scenario: 'entities.list-search', key: 'entities.list.search', rules: ['ENT-SEARCH'] },
  { scenario: 'entities.list-processors', key: 'entities.list.processor_type', rules: ['ENT-PROCESSOR-FILTER'] },
  { scenario: 'entities.delete-filters', key: 'entities.list.plan_filter', rules: ['ENT-PLAN-FILTER-DIRECT', 'ENT-SEARCH'] },
  { scenario: 'entities.delete-filters', key: 'entities.list.search', rules: ['ENT-PLAN-FILTER-DIRECT', 'ENT-SEARCH'] },
];

describe('entities.list filters whose wire names interface.md does not show', () => {
  it('are MUST rules that rest on those names', () => {
    for (const { rules } of RESTING_ON_WIRE_NAMES) for (const rule of rules) expect(ruleById.get(rule)?.level, rule).toBe('MUST');
  });

  it('with the reference’s names (the default profile), the probe passes and the MUST rules are checked and PASS', async () => {
    const target = await targetWith({});
    for (const scenario of new Set(RESTING_ON_WIRE_NAMES.map((entry) => entry.scenario))) {
      const outcome = await runScenario(scenarioById(scenario), target, { timeoutMs: 30_000 });
      for (const { rules } of RESTING_ON_WIRE_NAMES.filter((entry) => entry.scenario === scenario)) {
        for (const rule of rules) expect(outcome.verdicts[rule], `${scenario}: ${rule}`).toMatchObject({ status: 'PASS' });
      }
    }
  }, 120_000);

  it.each(RESTING_ON_WIRE_NAMES)('$scenario under a profile naming $key as a field the target does not read: SKIP naming the key, no FAIL', async ({ scenario, key, rules }) => {
    const outcome = await runScenario(scenarioById(scenario), await targetWith({ [key]: 'not_read_here' }), { timeoutMs: 30_000 });
    for (const rule of rules) {
      expect(outcome.verdicts[rule], `${scenario}: ${rule}`).toMatchObject({
        status: 'SKIP',
        message: expect.stringContaining(`interface.md does not show this wire name; set wireNames.${key} in the profile`),
      });
    }
    expect(Object.entries(outcome.verdicts).filter(([, verdict]) => verdict.status === 'FAIL' || verdict.status === 'ERROR')).toEqual([]);
    const sent = outcome.evidence.filter((exchange) => exchange.label === 'entities.list').flatMap((exchange) => Object.keys(exchange.request.body as object));
    expect(sent).toContain('not_read_here');
  }, 60_000);
});

describe('entities.delete on a target that keeps the deleted entity’s plan at customer level (as the 2.3.0 reference does)', () => {
  /** entities.delete moves the plans the entity held to its customer before deleting it. */
  const planPassesToCustomer: Fault = {
    rule: 'ENT-DELETE',
    breaks: "entities.delete keeps the entity's own plans active at customer level",
    handlers: {
      'entities.delete': (real) => (ctx, input) => {
        const entity = getEntity(ctx, input);
        for (const subscription of entity.subscriptions) {
          if (subscription.status === 'active') attach(ctx, { customer_id: entity.customer_id, plan_id: subscription.plan_id });
        }
        return real(ctx, input);
      },
    },
  };
  /** plans.create answers without version_slug and active, as the 2.3.0 reference does. */
  const planWithoutVersionFields: Fault = {
    rule: 'PLAN-SHAPE',
    breaks: 'plans.create answers without version_slug and active',
    output: rewriteOutput('plans.create', ({ version_slug: _slug, active: _active, ...plan }: Record<string, unknown>) => plan),
  };

  it('FAILs ENT-DELETE, saying the sibling matches the plan, and blames no missing field of plans.create', async () => {
    const [outcome] = await runAgainstFake([planPassesToCustomer, planWithoutVersionFields], [scenarioById('entities.delete-filters')]);
    expect(outcome!.verdicts['ENT-DELETE']).toMatchObject({ status: 'FAIL', message: expect.stringContaining('the sibling entity does not match it') });
    expect(outcome!.verdicts['ENT-DELETE']?.blockedBy).toBeUndefined();
    for (const rule of ['ENT-PLAN-FILTER-DIRECT', 'ENT-SEARCH', 'ENT-CUSTOMER-FILTER']) expect(outcome!.verdicts[rule], rule).toMatchObject({ status: 'PASS' });
  });

  it('without the fault, ENT-DELETE PASSes there', async () => {
    const [outcome] = await runAgainstFake([planWithoutVersionFields], [scenarioById('entities.delete-filters')]);
    expect(outcome!.verdicts['ENT-DELETE']).toMatchObject({ status: 'PASS' });
  });
});
