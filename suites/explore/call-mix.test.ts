/**
 * The call mix (command.ts `CallMix`): a program sends some of the reads its commands leave plain in
 * an envelope variant the conventions allow; a read in a variant that differs plain as well is
 * charged to the operation's rule, not the variant's; writes are sent in variants too. And requests
 * wrong in two ways on any operation a refusal is generated for.
 */
import { describe, expect, it } from 'vitest';
import { createFakeApp, type FakeApp } from '../../fake-server/app.ts';
import { testSeed } from '../../fixtures/random.ts';
import { createNamespace } from '../framework/namespace.ts';
import { VARIANTS, variantHeaders, variantQuestion } from './command.ts';
import { explore } from './explorer.ts';
import { Lockstep, type CallSpec } from './lockstep.ts';
import { appSide, type Side } from './sides.ts';
import { inProcessTarget, sharedTenantTarget } from './targets.ts';
import { WorldState } from './world.ts';

const seed = testSeed();
const NOW = Date.UTC(2030, 5, 15, 12);

describe('the call mix', () => {
  it('charges a read in a variant that differs sent plain too to the operation’s rule, and one that differs only in the variant to the variant’s', async () => {
    const model = createFakeApp({ now: NOW, frozen: true });
    const target = createFakeApp({ now: NOW, frozen: true });
    const side = (app: typeof model) => appSide(app, app.keys[0]!.key, '2.4.0');
    // The target has lost the customer's records, whoever asks; and refuses a balances.check whose header names are capitalised.
    const wrong = (inner: Side): Side => ({
      ...inner,
      call: async (operation, body, options) => {
        if (operation === 'subscriptions.list') return { status: 404, body: { code: 'customer_not_found', message: 'no such customer' } };
        if (operation === 'balances.check' && options?.headers?.['Authorization'] !== undefined) return { status: 401, body: { code: 'unauthorized', message: 'no' } };
        return inner.call(operation, body, options);
      },
    });
    const run = new Lockstep({ model: side(model), target: wrong(side(target)), world: new WorldState(NOW), timeToleranceMs: 0, found: new Set() });
    const call = (spec: Omit<CallSpec, 'command'>): CallSpec => ({ command: 'test', ...spec });
    const variant = { name: 'header-case', rule: VARIANTS['header-case'].rule };
    const capitalised = (app: typeof model) => variantHeaders('header-case', app.keys[0]!.key, undefined, '2.4.0')!;
    const headers = { model: capitalised(model), target: capitalised(target) };
    await run.call(call({ operation: 'customers.get_or_create', body: { customer_id: 'acme' }, customerId: 'acme' }));
    // Refused plain too: the listing's own rule, not the variant's.
    await run.call(call({ operation: 'subscriptions.list', body: { customer_id: 'acme' }, customerId: 'acme', headers, variant })).catch(() => undefined);
    // Refused otherwise only in the variant (both sides refuse the unknown feature plain): the variant's.
    await run.call(call({ operation: 'balances.check', body: { customer_id: 'acme', feature_id: 'none' }, customerId: 'acme', headers, variant })).catch(() => undefined);
    const [listing, check] = run.steps.slice(1).map((s) => [...new Set(s.differences.map((d) => d.rule))]);
    expect(listing).toHaveLength(1);
    expect(listing).not.toContain(VARIANTS['header-case'].rule);
    expect(check).toEqual([VARIANTS['header-case'].rule]);
  });
});

describe('writes in the mix', () => {
  it('charge a write in an allowed variant that the model refuses and the target takes to the operation, not the envelope', async () => {
    const model = createFakeApp({ now: NOW, frozen: true });
    const target = createFakeApp({ now: NOW, frozen: true });
    const side = (app: typeof model) => appSide(app, app.keys[0]!.key, '2.4.0');
    // The target takes a feature of an unknown type as a metered one.
    const lenient = (inner: Side): Side => ({ ...inner, call: (operation, body, options) => inner.call(operation, operation === 'features.create' ? { ...(body as object), type: 'metered' } : body, options) });
    const run = new Lockstep({ model: side(model), target: lenient(side(target)), world: new WorldState(NOW), timeToleranceMs: 0, found: new Set() });
    const headers = { model: variantHeaders('scheme-space', model.keys[0]!.key, undefined, '2.4.0')!, target: variantHeaders('scheme-space', target.keys[0]!.key, undefined, '2.4.0')! };
    await run.call({ command: 'test', operation: 'features.create', body: { feature_id: 'seats', name: 'Seats', type: 'no-such-type' }, headers, variant: variantQuestion('scheme-space') }).catch(() => undefined);
    const rules = run.steps[0]!.differences.map((d) => d.rule);
    expect(rules).not.toEqual([]);
    expect(rules).not.toContain(VARIANTS['scheme-space'].rule);
  });

  it('are sent in a variant too: a target that refuses a plans.update whose media type is not spelt `application/json` is found at that call', { timeout: 120_000 }, async () => {
    const app = createFakeApp();
    const fetch: FakeApp['fetch'] = async (request) =>
      request.url.endsWith('/v1/plans.update') && request.headers.get('content-type') !== 'application/json' ? Response.json({ code: 'invalid_request', message: 'unsupported media type' }, { status: 415 }) : app.fetch(request);
    const strict = Object.assign(Object.create(app) as FakeApp, { fetch, reply: undefined });
    const result = await explore(inProcessTarget(strict, createNamespace({ prefix: 'conf', seed, salt: 'write-variants' })), { seed, runs: 40, maxSteps: 15, maxFindings: 1, shrinkRuns: 0, minimize: false, localise: false });
    const finding = result.findings[0];
    expect(finding, `seed ${seed}: ${result.programs} programs`).toBeDefined();
    const step = finding!.steps[finding!.at]!;
    expect([step.operation, step.variant]).toEqual(['plans.update', expect.stringMatching(/^(charset|media-type-case)$/)]);
    // plans.update is the reference's (interface.md does not document it): its own SHOULD rule, not the convention's MUST.
    expect(finding!.level).toBe('SHOULD');
  });
});

describe('a request wrong in two ways', () => {
  it('finds a target that checks the body before the key, on whatever operation a refusal is generated for', { timeout: 300_000 }, async () => {
    const app = createFakeApp();
    const key = app.keys[0]!.key;
    // Without a key, the target answers what it would answer the same request with one, when that is a refusal.
    const bodyFirst = (side: Side): Side => ({
      ...side,
      call: async (operation, body, options) => {
        if (options?.headers?.['authorization'] !== null || options.headers === undefined) return side.call(operation, body, options);
        const { authorization: _none, ...rest } = options.headers;
        const keyed = await side.call(operation, body, { ...options, headers: { ...rest, authorization: `Bearer ${key}` } });
        return keyed.status === 400 ? keyed : side.call(operation, body, options);
      },
    });
    const result = await explore(sharedTenantTarget(app, key, createNamespace({ prefix: 'conf', seed, salt: 'two-ways' }), { wrap: bodyFirst }), { seed, runs: 60, maxSteps: 25, maxFindings: 1, shrinkRuns: 0, minimize: false, localise: false });
    expect(result.findings.map((f) => f.rule), `seed ${seed}: ${result.programs} programs`).toEqual(['AUTH-BEARER-REQUIRED']);
  });
});
