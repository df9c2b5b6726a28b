/** The features domain module, called through the handler table with inputs parsed by the spec. */
import { describe, expect, it } from 'vitest';
import { operations } from '../../spec/operations.ts';
import type { DomainContext } from './context.ts';
import { callHandler, domainErrorCode, testContext } from './testing.ts';

function context(): DomainContext {
  return testContext(Date.UTC(2026, 3, 1));
}



describe('features.create', () => {
  it('[FEAT-SHAPE] [FEAT-EVENT-NAMES-WIRE] answers a complete Feature, with event_names [] when none are set', () => {
    const ctx = context();
    const feature = callHandler(ctx, 'features.create', { feature_id: 'sso', name: 'SSO', type: 'boolean' });
    expect(operations['features.create'].response.parse(feature)).toEqual(feature);
    expect(feature).toMatchObject({ id: 'sso', name: 'SSO', type: 'boolean', consumable: false, archived: false, event_names: [] });
    expect(callHandler(ctx, 'features.create', { feature_id: 'msg', name: 'Msg', type: 'metered', event_names: ['chat'] }).event_names).toEqual(['chat']);
  });

  it('[FEAT-CONSUMABLE-METERED] a metered feature is consumable only when asked; omitted means allocated, as in the reference', () => {
    const ctx = context();
    expect(callHandler(ctx, 'features.create', { feature_id: 'a', name: 'A', type: 'metered', consumable: true }).consumable).toBe(true);
    expect(callHandler(ctx, 'features.create', { feature_id: 'b', name: 'B', type: 'metered', consumable: false }).consumable).toBe(false);
    expect(callHandler(ctx, 'features.create', { feature_id: 'c', name: 'C', type: 'metered' }).consumable).toBe(false);
  });

  it('[FEAT-CONSUMABLE-ONLY-METERED] consumable changes nothing on a boolean feature; credit systems always reset', () => {
    const ctx = context();
    const plain = callHandler(ctx, 'features.create', { feature_id: 'f1', name: 'F', type: 'boolean' });
    const flagged = callHandler(ctx, 'features.create', { feature_id: 'f2', name: 'F', type: 'boolean', consumable: true });
    expect({ ...flagged, id: plain.id }).toEqual(plain);
    expect(callHandler(ctx, 'features.create', { feature_id: 'ai', name: 'AI', type: 'ai_credit_system', consumable: true }).consumable).toBe(true);
    expect(operations['features.create'].request.safeParse({ feature_id: 'x', name: 'X', type: 'ai_credit_system', consumable: false }).success).toBe(false);
  });

  it('[FEAT-DISPLAY-ROUND-TRIP] [FEAT-GET] the display sent is the display read back', () => {
    const ctx = context();
    const display = { singular: 'seat', plural: 'seats' };
    expect(callHandler(ctx, 'features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', display }).display).toEqual(display);
    expect(callHandler(ctx, 'features.get', { feature_id: 'seats' }).display).toEqual(display);
  });

  it('[FEAT-DUPLICATE-ID] a second create of an id is refused with duplicate_feature_id and leaves the first', () => {
    const ctx = context();
    callHandler(ctx, 'features.create', { feature_id: 'sso', name: 'SSO', type: 'boolean' });
    expect(domainErrorCode(() => callHandler(ctx, 'features.create', { feature_id: 'sso', name: 'Other', type: 'metered' }))).toBe('duplicate_feature_id');
    expect(callHandler(ctx, 'features.get', { feature_id: 'sso' })).toMatchObject({ name: 'SSO', type: 'boolean' });
  });

  it('[FEAT-CREDIT-SCHEMA-WIRE] a credit schema prices consumable metered features, each at most once', () => {
    const ctx = context();
    callHandler(ctx, 'features.create', { feature_id: 'msg', name: 'Msg', type: 'metered', consumable: true });
    callHandler(ctx, 'features.create', { feature_id: 'seat', name: 'Seat', type: 'metered', consumable: false });
    const schema = [{ metered_feature_id: 'msg', credit_cost: 2 }];
    expect(callHandler(ctx, 'features.create', { feature_id: 'credits', name: 'Credits', type: 'credit_system', credit_schema: schema }).credit_schema).toEqual(schema);
    const twice = [...schema, { metered_feature_id: 'msg', credit_cost: 3 }];
    expect(domainErrorCode(() => callHandler(ctx, 'features.create', { feature_id: 'c2', name: 'C', type: 'credit_system', credit_schema: twice }))).toBe('invalid_feature');
    const allocated = [{ metered_feature_id: 'seat', credit_cost: 1 }];
    expect(domainErrorCode(() => callHandler(ctx, 'features.create', { feature_id: 'c3', name: 'C', type: 'credit_system', credit_schema: allocated }))).toBe('invalid_feature');
    expect(ctx.store.features.has('c2') || ctx.store.features.has('c3')).toBe(false);
  });

  it('[FEAT-AI-DEFAULT-MARKUP-MIN] [FEAT-AI-MARKUP-WIRE] the default markup may be -100 but not less; markups round-trip', () => {
    const ctx = context();
    const request = operations['features.create'].request;
    expect(request.safeParse({ feature_id: 'ai', name: 'AI', type: 'ai_credit_system', default_markup: -100.01 }).success).toBe(false);
    const markups = { default_markup: -100, provider_markups: { openai: { markup: 15 } } };
    const feature = callHandler(ctx, 'features.create', { feature_id: 'ai', name: 'AI', type: 'ai_credit_system', ...markups });
    expect(feature).toMatchObject({ type: 'ai_credit_system', consumable: true, ...markups });
  });

  it('[FEAT-CREDIT-SYSTEM] using a unit of a metered feature draws credit_cost credits from the credit system granting it', () => {
    const ctx = context();
    callHandler(ctx, 'features.create', { feature_id: 'msg', name: 'Msg', type: 'metered', consumable: true });
    callHandler(ctx, 'features.create', { feature_id: 'credits', name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: 'msg', credit_cost: 3 }] });
    callHandler(ctx, 'plans.create', { plan_id: 'p', name: 'P', items: [{ feature_id: 'credits', included: 20, reset: { interval: 'month' } }] });
    callHandler(ctx, 'customers.get_or_create', { customer_id: 'c' });
    callHandler(ctx, 'billing.attach', { customer_id: 'c', plan_id: 'p' });
    expect(callHandler(ctx, 'balances.check', { customer_id: 'c', feature_id: 'msg', required_balance: 2, send_event: true }).allowed).toBe(true);
    callHandler(ctx, 'balances.track', { customer_id: 'c', feature_id: 'msg', value: 4 });
    expect(callHandler(ctx, 'customers.get', { customer_id: 'c' }).balances['credits']).toMatchObject({ usage: 18, remaining: 2 });
    expect(callHandler(ctx, 'balances.check', { customer_id: 'c', feature_id: 'msg', required_balance: 1 }).allowed).toBe(false);
  });
});

describe('features.get and features.list', () => {
  it('[ERR-FEATURE-NOT-FOUND] an unknown feature is feature_not_found', () => {
    expect(domainErrorCode(() => callHandler(context(), 'features.get', { feature_id: 'nope' }))).toBe('feature_not_found');
  });

  it('[FEAT-LIST] [FEAT-LIST-SHAPE] lists every feature as created', () => {
    const ctx = context();
    const created = [
      callHandler(ctx, 'features.create', { feature_id: 'a', name: 'A', type: 'boolean' }),
      callHandler(ctx, 'features.create', { feature_id: 'b', name: 'B', type: 'metered', consumable: true }),
    ];
    const listed = callHandler(ctx, 'features.list', {});
    expect(operations['features.list'].response.parse(listed)).toEqual(listed);
    expect(listed.list).toEqual(created);
  });
});
