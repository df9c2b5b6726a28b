/**
 * Naming a bug nobody foresaw: a fault left out of the catalogue stands for it. A fault of another
 * rule that reproduces the first difference, but not the same calls asked otherwise, only mimics
 * it, and the owners' rule names the finding; with the fault back in the catalogue, the fault names
 * it (docs/exploration.md gives the figures over a sample of the catalogue).
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { FAULTS, faultsFor } from '../../fake-server/faults/index.ts';
import { createNamespace } from '../framework/namespace.ts';
import { localise, type Localisable } from './attribution.ts';
import type { VariantName } from './command.ts';
import { explore } from './explorer.ts';
import type { Step } from './lockstep.ts';
import { replaySteps } from './replay.ts';
import { inProcessTarget, type ExploreTarget } from './targets.ts';

/** The target cannot read a JSON body; another fault (every request carrying the version header refused) answers its first difference alike. */
const BUG = 'CONV-POST-JSON';
const MIMIC = 'AUTH-API-VERSION-HEADER';

/** `calls` replayed on `target` from mid-June: the finding of the first that differs, as exploration reports one. */
async function firstDifference(target: ExploreTarget, prefix: string, calls: readonly (readonly [operation: string, request: unknown, sent?: VariantName | 'live'])[]): Promise<Localisable> {
  const program = { idPrefix: prefix, start: { kind: 'mid-june' as const, at: 0 }, apiVersion: '2.4.0' };
  const steps = calls.map(([operation, request, sent], index): Step => ({ index, command: 'test', operation, request, ...(sent === 'live' ? { caller: { environment: 'live' } } : sent ? { variant: sent } : {}), model: { status: 0, body: null }, target: { status: 0, body: null }, differences: [] }));
  const ran = await replaySteps({ ...program, steps }, target);
  const at = ran.lockstep.steps.findIndex((step) => step.differences.length > 0);
  const differences = ran.lockstep.steps[at]!.differences;
  return { ...program, idPrefix: ran.prefix, start: { ...program.start, at: ran.start }, steps: ran.lockstep.steps, at, differences, rule: differences[0]!.rule };
}

/**
 * A fault outside the catalogue: requests to `operation` that `sentAs` picks (by their headers) are
 * served with the key `keyFor` gives (another tenant's, or the organisation's other environment's),
 * answered as if served with their own: a write that lands elsewhere.
 */
function servedElsewhere(rule: Fault['rule'], breaks: string, operation: string, sentAs: (headers: Headers) => boolean, keyFor: (request: Request, fake: { readonly firstKey: string }) => string | undefined): Fault {
  return {
    rule,
    breaks,
    request: (request, fake) => {
      const key = keyFor(request, fake);
      if (!request.url.endsWith(`/${operation}`) || !sentAs(request.headers) || key === undefined) return request;
      const headers = new Headers(request.headers);
      headers.set('authorization', `Bearer ${key}`);
      return new Request(request.url, { method: request.method, headers, body: request.body, duplex: 'half' } as RequestInit);
    },
  };
}

describe('a finding of a bug the catalogue does not know', () => {
  it(`is named by its owners (${BUG}), not by a fault that only mimics its first difference (${MIMIC}); known, by its fault`, { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([BUG]) }), createNamespace({ prefix: 'conf', seed: 5 }));
    const result = await explore(broken(), { seed: 5, runs: 5, maxSteps: 10, maxFindings: 1, shrinkRuns: 10, localise: false });
    const finding = { ...result.findings[0]!, apiVersion: '2.4.0' };
    expect(finding.rule).toBe(BUG);

    const unforeseen = await localise(finding, { target: broken(), catalogue: [...FAULTS.values()].filter((fault) => fault.rule !== BUG) });
    expect(unforeseen.reproducing).toContain(MIMIC);
    expect(unforeseen).toMatchObject({ rule: BUG, how: 'owner' });
    expect(unforeseen.note).toMatch(new RegExp(`^[A-Z0-9-, ]*${MIMIC}[A-Z0-9-, ]* reproduces? the first difference, but not .* as the target answers them: another bug; ${BUG} owns`));

    const known = await localise(finding, { target: broken() });
    expect(known).toMatchObject({ rule: BUG, how: 'fault' });
  });
});

describe('a listing walked page by page that lists other rows than the model', () => {
  const WALK = 'ENT-CURSOR-WALK';
  it(`is named by the walk’s rule (${WALK}) when the same listing asked as one page lists them as the model does (the fault left out)`, { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([WALK]) }), createNamespace({ prefix: 'conf', seed: 6 }));
    const prefix = 'conf_walk_';
    const entity = (n: number) => ['entities.create', { customer_id: `${prefix}cus_1`, entity_id: `${prefix}seat_${n}`, feature_id: `${prefix}feat_1`, name: `Seat ${n}` }] as const;
    const finding = await firstDifference(broken(), prefix, [['features.create', { feature_id: `${prefix}feat_1`, name: 'Seats', type: 'metered', consumable: false }], entity(1), entity(2), entity(3), entity(4), ['entities.list', { customer_id: `${prefix}cus_1`, limit: 2 }]]);
    expect(finding.differences.map((d) => d.kind)).toContain('membership');
    expect(finding.rule).not.toBe(WALK);

    const named = await localise(finding, { target: broken(), catalogue: [...FAULTS.values()].filter((fault) => fault.rule !== WALK) });
    expect(named).toMatchObject({ rule: WALK, how: 'owner' });
    expect(named.note).toMatch(/^the same listing asked in pages of another size lists the rows as the model does/);
  });
  it(`is named by the walk’s rule (${WALK}) when pages larger than some size are cut short, and a walk of small pages lists every row`, { timeout: 120_000 }, async () => {
    // Not in the catalogue: a page asked larger than 20 rows holds 20, and no cursor.
    const cutShort: Fault = {
      rule: WALK,
      breaks: 'an entities.list page asked larger than 20 holds the first 20 rows and no next_cursor',
      handlers: { 'entities.list': (real) => (ctx, input) => { const page = real(ctx, input); return (input.limit ?? 0) > 20 ? { ...page, list: page.list.slice(0, 20), next_cursor: null } : page; } },
    };
    const broken = () => inProcessTarget(createFakeApp({ faults: [cutShort] }), createNamespace({ prefix: 'conf', seed: 8 }));
    const prefix = 'conf_page_';
    const entity = (n: number) => ['entities.create', { customer_id: `${prefix}cus_1`, entity_id: `${prefix}seat_${n}`, feature_id: `${prefix}feat_1`, name: `Seat ${n}` }] as const;
    const entities = Array.from({ length: 24 }, (_, i) => entity(i + 1));
    const finding = await firstDifference(broken(), prefix, [['features.create', { feature_id: `${prefix}feat_1`, name: 'Seats', type: 'metered', consumable: false }], ...entities, ['entities.list', { customer_id: `${prefix}cus_1`, limit: 100 }]]);
    expect(finding.differences.map((d) => d.kind)).toContain('membership');
    expect(finding.rule).not.toBe(WALK);
    const named = await localise(finding, { target: broken() });
    expect(named).toMatchObject({ rule: WALK, how: 'owner' });
  });
});

describe("a difference that the owners' own fault and another both reproduce exactly", () => {
  // A deleted customer's entity still listed: its delete kept the customer (CUS-DELETE), or only its entities (CUS-DELETE-CASCADES).
  const BUG = 'CUS-DELETE-CASCADES';
  it(`is named by the one that answers the same calls asked otherwise as the target does (${BUG}), not by the owners' first`, { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([BUG]) }), createNamespace({ prefix: 'conf', seed: 7 }));
    const prefix = 'conf_cascade_';
    const finding = await firstDifference(broken(), prefix, [
      ['features.create', { feature_id: `${prefix}feat_1`, name: 'Seats', type: 'metered', consumable: false }],
      ['entities.create', { customer_id: `${prefix}cus_1`, entity_id: `${prefix}ent_1`, feature_id: `${prefix}feat_1`, name: 'Seat 1' }],
      ['customers.delete', { customer_id: `${prefix}cus_1` }],
      ['entities.list', { customer_id: `${prefix}cus_1` }],
    ]);
    expect(finding.rule).toBe('CUS-DELETE');
    const named = await localise(finding, { target: broken() });
    expect(named.reproducing).toEqual(expect.arrayContaining(['CUS-DELETE', BUG]));
    expect(named).toMatchObject({ rule: BUG, how: 'fault' });
  });
});

describe('a difference in an answer only the reference shows, which a fault of a MUST rule reproduces', () => {
  // A new customer without its auto-enable plan, first seen in customers.get_or_create's answer (the reference's only).
  const BUG = 'PLAN-AUTO-ENABLE';
  it(`is named by that fault (${BUG}) where a documented read of the same state shows it, not by a SHOULD rule's fault alike`, { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([BUG]) }), createNamespace({ prefix: 'conf', seed: 9 }));
    const prefix = 'conf_auto_';
    const finding = await firstDifference(broken(), prefix, [
      ['features.create', { feature_id: `${prefix}feat_1`, name: 'Units', type: 'metered', consumable: true }],
      ['plans.create', { plan_id: `${prefix}plan_1`, name: 'Free', add_on: true, auto_enable: true, items: [{ feature_id: `${prefix}feat_1`, included: 3, reset: { interval: 'month' } }] }],
      ['customers.get_or_create', { customer_id: `${prefix}cus_1` }],
    ]);
    expect(finding.steps[finding.at]?.operation).toBe('customers.get_or_create');
    const named = await localise(finding, { target: broken() });
    expect(named).toMatchObject({ rule: BUG, how: 'fault' });
    expect(named.evidence?.steps[named.evidence.at]?.operation).not.toBe('customers.get_or_create');
  });
});

describe('a difference first seen in an answer only the reference shows', () => {
  // A bug the catalogue does not know: the target's clock moves, but its balances never reset.
  const stuck: Fault = {
    rule: 'PLAN-CONSUMABLE-RESET',
    breaks: 'a clock move reaches no balance',
    request: (request) => (new URL(request.url).pathname === '/_fake/clock.advance' ? new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify({ ms: 1 }) }) : request),
  };
  it('is named by the rule a documented read after the same calls shows it under (the reset, not customers.get), with that run as evidence', { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: [stuck] }), createNamespace({ prefix: 'conf', seed: 8 }));
    const prefix = 'conf_reset_';
    const finding = await firstDifference(broken(), prefix, [
      ['features.create', { feature_id: `${prefix}feat_1`, name: 'Messages', type: 'metered', consumable: true }],
      ['plans.create', { plan_id: `${prefix}plan_1`, name: 'Monthly messages', items: [{ feature_id: `${prefix}feat_1`, included: 5, reset: { interval: 'month' } }] }],
      ['customers.get_or_create', { customer_id: `${prefix}cus_1` }],
      ['billing.attach', { customer_id: `${prefix}cus_1`, plan_id: `${prefix}plan_1` }],
      ['balances.track', { customer_id: `${prefix}cus_1`, feature_id: `${prefix}feat_1`, value: 2 }],
      ['control:clock.advance', { ms: 40 * 86_400_000 }],
      ['customers.get', { customer_id: `${prefix}cus_1` }],
    ]);
    expect(finding.steps[finding.at]!.operation).toBe('customers.get');
    expect(finding.rule).toBe('CUS-GET');

    const named = await localise(finding, { target: broken() });
    expect(named).toMatchObject({ rule: 'PLAN-CONSUMABLE-RESET', how: 'owner' });
    expect(named.note).toMatch(/^CUS-GET owns .* of an answer only the reference shows; balances.check, a documented read of the same state, shows a difference in what interface.md shows, which PLAN-CONSUMABLE-RESET owns/);
    expect(named.evidence?.steps[named.evidence.at]?.operation).toBe('balances.check');
  });
});

describe('a plan found after its delete', () => {
  // Two faults reproduce it: the delete that keeps the plan, and a read that finds any plan. The read's
  // fault is tried beside the delete's (a fault of the diverging call), and a read of a plan no one made tells them apart.
  it.each(['PLAN-DELETE', 'ERR-PLAN-NOT-FOUND'])('is named %s when that is what the target breaks', { timeout: 120_000 }, async (rule) => {
    const broken = () => inProcessTarget(createFakeApp({ faults: faultsFor([rule]) }), createNamespace({ prefix: 'conf', seed: 7 }));
    const prefix = 'conf_gone_';
    const items = (included: number) => [{ feature_id: `${prefix}feat_1`, included, reset: { interval: 'month' } }];
    // A second version, the latest deleted, then a read of that version (a shrunk finding of ERR-PLAN-NOT-FOUND's sweep).
    const finding = await firstDifference(broken(), prefix, [
      ['features.create', { feature_id: `${prefix}feat_1`, name: 'Units', type: 'metered', consumable: true }],
      ['plans.create', { plan_id: `${prefix}plan_1`, name: 'Gone', items: items(5) }],
      ['plans.update', { plan_id: `${prefix}plan_1`, items: items(7) }],
      ['plans.delete', { plan_id: `${prefix}plan_1` }],
      ['plans.get', { plan_id: `${prefix}plan_1`, version: 2 }],
    ]);
    expect(finding.rule).toBe('PLAN-DELETE');
    expect(await localise(finding, { target: broken() })).toMatchObject({ rule, how: 'fault' });
  });
});

describe('a write sent in an envelope variant that the target reads otherwise, seen in a later plain call', () => {
  // Not in the catalogue: a feature made with the media type spelt `Application/JSON` lands in another tenant, answered as if made here.
  const misrouted = servedElsewhere('CONV-POST-JSON', 'features.create with the media type in capitals is made in the tenant of the first key', 'features.create', (headers) => headers.get('content-type') === 'Application/JSON', (_, fake) => fake.firstKey);
  it("is named by the variant's rule, found by sending those calls plain, not by the read's", { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: [misrouted] }), createNamespace({ prefix: 'conf', seed: 11 }));
    const prefix = 'conf_case_';
    const finding = await firstDifference(broken(), prefix, [
      ['features.create', { feature_id: `${prefix}feat_1`, name: 'Units', type: 'metered', consumable: true }, 'media-type-case'],
      ['plans.create', { plan_id: `${prefix}plan_1`, name: 'Plan', items: [{ feature_id: `${prefix}feat_1`, included: 5 }] }],
    ]);
    expect(finding.at).toBe(1);
    expect(finding.rule).not.toBe('CONV-POST-JSON');
    const named = await localise(finding, { target: broken() });
    expect(named).toMatchObject({ rule: 'CONV-POST-JSON', how: 'owner' });
    expect(named.note).toMatch(/^with the calls sent in the media-type-case envelope sent plain, plans.create agrees with the model/);
  });
});

describe('a plain JSON body that the target reads otherwise than one naming its charset', () => {
  // Not in the catalogue: features.create sent as plain `application/json` (no charset) is made in the tenant of the first key.
  const plainMisread = servedElsewhere('CONV-POST-JSON', 'features.create without a charset in its media type is made in the tenant of the first key', 'features.create', (headers) => headers.get('content-type') === 'application/json', (_, fake) => fake.firstKey);
  it('is named CONV-POST-JSON, found by sending every call before the diverging one with its charset named', { timeout: 120_000 }, async () => {
    const broken = () => inProcessTarget(createFakeApp({ faults: [plainMisread] }), createNamespace({ prefix: 'conf', seed: 12 }));
    const prefix = 'conf_utf_';
    const finding = await firstDifference(broken(), prefix, [
      ['features.create', { feature_id: `${prefix}feat_1`, name: 'Units', type: 'metered', consumable: true }],
      ['plans.create', { plan_id: `${prefix}plan_1`, name: 'Café', items: [{ feature_id: `${prefix}feat_1`, included: 5 }] }],
    ]);
    expect(finding.at).toBe(1);
    expect(finding.rule).not.toBe('CONV-POST-JSON');
    const named = await localise(finding, { target: broken() });
    expect(named).toMatchObject({ rule: 'CONV-POST-JSON', how: 'owner' });
    expect(named.note).toMatch(/^with every call before it sent with its charset named, plans.create agrees with the model/);
  });
});

describe("a write made with the organisation's live key that lands in its sandbox, seen in a later sandbox call", () => {
  /** Not in the catalogue: features.create with an organisation's live key is served by its sandbox (its answer says nothing of where). */
  function sandboxedLiveCreates(): FakeApp {
    const keyOf = (request: Request) => request.headers.get('authorization')?.replace(/^Bearer\s+/i, '') ?? '';
    const sandboxOf = (key: string) => {
      const org = app.keys.find((config) => config.key === key)?.org;
      return app.keys.find((config) => config.org === org && config.key.startsWith('am_sk_test_'))?.key;
    };
    const leak = servedElsewhere('AUTH-TENANT-ISOLATION', "features.create with the live key makes the feature in the organisation's sandbox", 'features.create', (headers) => /^Bearer\s+am_sk_live_/i.test(headers.get('authorization') ?? ''), (request) => sandboxOf(keyOf(request)));
    const app = createFakeApp({ faults: [leak] });
    return app;
  }
  it('is named AUTH-TENANT-ISOLATION, found by leaving out the calls of the other environment', { timeout: 120_000 }, async () => {
    const bug = 'AUTH-TENANT-ISOLATION';
    const broken = () => inProcessTarget(sandboxedLiveCreates(), createNamespace({ prefix: 'conf', seed: 13 }));
    const prefix = 'conf_env_';
    const finding = await firstDifference(broken(), prefix, [
      ['features.create', { feature_id: `${prefix}feat_1`, name: 'Made live', type: 'metered', consumable: true }, 'live'],
      ['features.get', { feature_id: `${prefix}feat_1` }],
    ]);
    expect(finding.at).toBe(1);
    expect(finding.rule).not.toBe(bug);
    const named = await localise(finding, { target: broken() });
    expect(named).toMatchObject({ rule: bug, how: 'owner' });
    expect(named.note).toMatch(/^without the 1 call\(s\) made for another environment or tenant, features.get agrees with the model/);
  });
});
