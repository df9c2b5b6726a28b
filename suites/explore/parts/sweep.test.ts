/**
 * The sweep every program ends with (parts/sweep.ts): the documented reads of what the program made,
 * then those only the reference shows, then a few sent again as the conventions allow; and what it is
 * for, a write whose effect differs where no random step looked is found all the same.
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp } from '../../../fake-server/app.ts';
import { testSeed } from '../../../fixtures/random.ts';
import { createNamespace } from '../../framework/namespace.ts';
import { explore } from '../explorer.ts';
import { sweepAgain, sweepReads } from './sweep.ts';
import type { Side } from '../sides.ts';
import { sharedTenantTarget } from '../targets.ts';
import { WorldState } from '../world.ts';

const seed = testSeed();

function world(): WorldState {
  const state = new WorldState(0);
  state.customers = Array.from({ length: 10 }, (_, i) => `cus_${i}`);
  state.features = Array.from({ length: 8 }, (_, i) => ({ id: `feat_${i}`, type: 'metered' as const, consumable: true, eventNames: [], covers: [] }));
  state.entities = [{ id: 'ent_a', customerId: 'cus_0', featureId: 'feat_0' }];
  state.holdings = [{ customerId: 'cus_0', planId: 'plan', featureIds: ['feat_0', 'feat_2'] }, { customerId: 'cus_0', entityId: 'ent_a', planId: 'plan', featureIds: ['feat_1'] }];
  state.plans = [{ id: 'plan', version: 1, addOn: false, group: null, archived: false, paid: false, oneOff: false, trial: false, autoEnable: false, items: [], licenses: [] }];
  return state;
}

describe('the sweep', () => {
  it('reads the first and last holders of a long list, each feature of a few, documented reads before the reference’s', () => {
    const reads = sweepReads({ world: world() });
    const customers = [...new Set(reads.map((r) => r.customerId).filter(Boolean))];
    expect(customers).toEqual(['cus_0', 'cus_1', 'cus_2', 'cus_7', 'cus_8', 'cus_9']);
    expect(reads.filter((r) => r.operation === 'balances.check' && r.body['customer_id'] === 'cus_0' && r.body['entity_id'] === undefined)).toHaveLength(6);
    // The entity's balances of what it holds itself (feat_1), not of its customer's grants.
    expect(reads.filter((r) => r.body['entity_id'] === 'ent_a').map((r) => `${r.operation} ${r.body['feature_id'] ?? ''}`.trim())).toEqual(['balances.check feat_1', 'entities.get']);
    const firstReferenceOnly = reads.findIndex((r) => ['customers.get', 'entities.get', 'plans.list', 'features.list'].includes(r.operation));
    expect(reads.slice(firstReferenceOnly).every((r) => ['customers.get', 'entities.get', 'plans.list', 'features.list', 'referral_programs.get'].includes(r.operation))).toBe(true);
  });

  it('sends a few documented reads again as the conventions allow, turning between programs, the first holder in the other case, and its records as the other environment and another organisation ask', () => {
    const reads = sweepReads({ world: world() });
    const again = sweepAgain(reads, 0, { controlPlane: true, otherTenant: true });
    expect(again.slice(0, 6).map((r) => r.variant ?? r.caller?.agent)).toEqual(['published-client', 'media-type-case', 'charset', 'scheme-space', 'header-case', 'scheme-case']);
    expect(sweepAgain(reads, 1, { controlPlane: true, otherTenant: true })[0]!.variant).toBe('media-type-case');
    // An organisation of the program's own: its other environment asks (its "other" key is its own live key).
    expect(again.slice(6).map((r) => [r.operation, r.body['customer_id'], r.caller?.environment ?? r.variant ?? 'plain'])).toEqual([
      ['balances.check', 'CUS_0', 'plain'],
      ['subscriptions.list', 'cus_0', 'live'],
    ]);
    // A shared tenant with another tenant's key: another organisation asks.
    expect(sweepAgain(reads, 0, { controlPlane: false, otherTenant: true }).slice(6).map((r) => r.variant ?? 'plain')).toEqual(['plain', 'other-tenant']);
    // A deployment with neither.
    expect(sweepAgain(reads, 0, { controlPlane: false, otherTenant: false })).toHaveLength(7);
  });

  it('finds a write whose effect no random step read: programs of their prelude alone, a target whose customers’ record listings drop what they hold', { timeout: 300_000 }, async () => {
    const app = createFakeApp();
    const key = app.keys[0]!.key;
    const dropping = (side: Side): Side => ({
      ...side,
      call: async (operation, body, options) => {
        const answer = await side.call(operation, body, options);
        // The sweep's read of a customer's records of every status (no random step sends this one).
        const { limit, statuses } = body as { limit?: number; statuses?: unknown[] };
        if (operation !== 'subscriptions.list' || answer.status !== 200 || limit !== 200 || statuses?.length !== 4) return answer;
        return { ...answer, body: { ...(answer.body as object), list: [] } };
      },
    });
    const result = await explore(sharedTenantTarget(app, key, createNamespace({ prefix: 'conf', seed, salt: 'sweep' }), { wrap: dropping }), { seed, runs: 10, maxSteps: 0, maxFindings: 1, shrinkRuns: 0, minimize: false, localise: false });
    expect(result.findings.map((f) => f.steps[f.at]?.command)).toEqual([expect.stringMatching(/^sweep\(null\) \(observed\)$/)]);
  });
});
