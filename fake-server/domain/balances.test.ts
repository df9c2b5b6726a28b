/** The balances domain without a socket: inputs parsed by the spec's request schemas, handlers called directly. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { OperationName, operations } from '../../spec/operations.ts';
import type { GrantRow } from '../store/tenant-store.ts';
import { deduct } from './balances.ts';
import type { DomainContext, OutputOf } from './context.ts';
import { runDue } from './lifecycle.ts';
import { callHandler, domainErrorCode as errorCode, testContext } from './testing.ts';

const NOW = 1_795_328_341_817;
const MONTH = 31 * 86_400_000;
let ctx: DomainContext;

function call<N extends OperationName>(name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
  return callHandler(ctx, name, body);
}

function check(body: Omit<z.input<(typeof operations)['balances.check']['request']>, 'customer_id'> & { customer_id?: string }) {
  return call('balances.check', { customer_id: 'cus', ...body });
}

/** The units left, used and granted of a feature as a plain check sees them. */
function balance(featureId: string, customerId = 'cus', entityId?: string) {
  const result = call('balances.check', { customer_id: customerId, feature_id: featureId, ...(entityId !== undefined && { entity_id: entityId }) });
  return result.balance === null ? null : { granted: result.balance.granted, remaining: result.balance.remaining, usage: result.balance.usage };
}

const monthly = { interval: 'month' } as const;

beforeEach(() => {
  ctx = testContext(NOW);
  call('features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true, event_names: ['chat'] });
  call('features.create', { feature_id: 'tokens', name: 'Tokens', type: 'metered', consumable: true, event_names: ['chat'] });
  call('features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false });
  call('features.create', { feature_id: 'sso', name: 'SSO', type: 'boolean' });
  call('features.create', { feature_id: 'credits', name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: 'messages', credit_cost: 2 }] });
  call('plans.create', {
    plan_id: 'free',
    name: 'Free',
    items: [
      { feature_id: 'messages', included: 10, reset: monthly },
      { feature_id: 'tokens', included: 100, reset: monthly },
      { feature_id: 'seats', included: 3 },
    ],
  });
  call('plans.create', { plan_id: 'addon', name: 'Add-on', add_on: true, items: [{ feature_id: 'messages', included: 5, reset: monthly }, { feature_id: 'sso' }] });
  call('plans.create', { plan_id: 'unlimited', name: 'Unlimited', group: 'unl', items: [{ feature_id: 'messages', unlimited: true }] });
  call('plans.create', { plan_id: 'wallet', name: 'Wallet', add_on: true, items: [{ feature_id: 'credits', included: 20, reset: monthly }] });
  call('customers.get_or_create', { customer_id: 'cus' });
  call('billing.attach', { customer_id: 'cus', plan_id: 'free' });
  call('billing.attach', { customer_id: 'cus', plan_id: 'addon' });
});

describe('the Balance of a check', () => {
  it('[CHECK-BALANCE-ARITHMETIC, CHECK-BREAKDOWN-PER-SOURCE, CHECK-BREAKDOWN-PRICE-NULL] sums one breakdown entry per grant source', () => {
    call('balances.track', { customer_id: 'cus', feature_id: 'messages', value: 12 });
    const result = check({ feature_id: 'messages' });
    expect(result.balance).toMatchObject({ feature_id: 'messages', granted: 15, remaining: 3, usage: 12, unlimited: false, overage_allowed: false, max_purchase: null });
    expect(result.balance!.breakdown.map((entry) => [entry.plan_id, entry.included_grant, entry.usage, entry.remaining, entry.price])).toEqual([
      ['free', 10, 10, 0, null],
      ['addon', 5, 2, 3, null],
    ]);
    expect(result.balance!.next_reset_at).toBe(result.balance!.breakdown[0]!.reset!.resets_at);
  });

  it('[CHECK-BALANCES-MAP, CHECK-BALANCES-LINKED-CREDIT-SYSTEM] maps the checked feature and the credit systems pricing it, held or not', () => {
    const result = check({ feature_id: 'messages' });
    expect(Object.keys(result.balances).sort()).toEqual(['credits', 'messages']);
    expect(result.balances['messages']).toEqual(result.balance);
    expect(result.balances['credits']).toBeNull();
    expect(Object.keys(check({ feature_id: 'tokens' }).balances)).toEqual(['tokens']);
  });
});

describe('allowed', () => {
  it('[CHECK-ALLOWED-SUFFICIENT, CHECK-ALLOWED-BELOW-REQUIRED] is true up to the remaining balance and false one unit above it', () => {
    expect(check({ feature_id: 'messages', required_balance: 15 }).allowed).toBe(true);
    expect(check({ feature_id: 'messages', required_balance: 16 }).allowed).toBe(false);
    expect(check({ feature_id: 'messages', required_balance: 16 }).balance).not.toBeNull();
  });

  it('[CHECK-REQUIRED-BALANCE-DEFAULT] requires one unit when required_balance is omitted', () => {
    call('balances.track', { customer_id: 'cus', feature_id: 'messages', value: 14 });
    expect(check({ feature_id: 'messages' })).toMatchObject({ allowed: true, required_balance: 1 });
    call('balances.track', { customer_id: 'cus', feature_id: 'messages', value: 1 });
    expect(check({ feature_id: 'messages' })).toMatchObject({ allowed: false, required_balance: 1 });
    expect(check({ feature_id: 'messages', required_balance: 0 }).allowed).toBe(true);
    expect(check({ feature_id: 'messages', required_balance: -3 }).allowed).toBe(true);
  });

  it('[CHECK-ALLOWED-UNLIMITED] is true for any amount of an unlimited feature, which still counts usage', () => {
    call('customers.get_or_create', { customer_id: 'unl' });
    call('billing.attach', { customer_id: 'unl', plan_id: 'unlimited' });
    const result = call('balances.check', { customer_id: 'unl', feature_id: 'messages', required_balance: 1_000_000, send_event: true });
    expect(result.allowed).toBe(true);
    expect(result.balance).toMatchObject({ unlimited: true, granted: 0, remaining: 0, usage: 1_000_000, next_reset_at: null });
    expect(result.balance!.breakdown[0]).toMatchObject({ unlimited: true, reset: null, included_grant: 0 });
  });

  it('[CHECK-ALLOWED-BOOLEAN-IN-PLAN, CHECK-FLAG-OBJECT] a boolean feature in a plan is allowed with its flag and no balance', () => {
    const result = check({ feature_id: 'sso' });
    expect(result).toMatchObject({ allowed: true, balance: null, flag: { plan_id: 'addon', feature_id: 'sso', expires_at: null } });
    expect(result.flag!.id).toMatch(/^cus_ent_/);
  });

  it('[CHECK-DENIED-OTHERWISE, CHECK-BALANCE-NULL] a feature the customer holds no grant of is denied with balance and flag null', () => {
    call('customers.get_or_create', { customer_id: 'bare' });
    for (const featureId of ['sso', 'messages', 'seats']) {
      const result = call('balances.check', { customer_id: 'bare', feature_id: featureId, required_balance: 0 });
      expect(result, featureId).toMatchObject({ allowed: false, balance: null, flag: null });
    }
  });

  it('answers 404 for an unknown feature before an unknown customer, and for an entity of another customer', () => {
    expect(errorCode(() => call('balances.check', { customer_id: 'nobody', feature_id: 'nothing' }))).toBe('feature_not_found');
    expect(errorCode(() => call('balances.check', { customer_id: 'nobody', feature_id: 'messages' }))).toBe('customer_not_found');
    call('customers.get_or_create', { customer_id: 'other' });
    call('entities.create', { customer_id: 'other', entity_id: 'theirs', feature_id: 'seats' });
    expect(errorCode(() => check({ feature_id: 'messages', entity_id: 'theirs' }))).toBe('entity_not_found');
  });
});

describe('send_event', () => {
  it('[CHECK-SEND-EVENT-RECORDS, EVT-AMOUNT-IS-REQUIRED-BALANCE, CHECK-PROPERTIES-WIRE] deducts required_balance and records one event of it with the properties', () => {
    const result = check({ feature_id: 'messages', required_balance: 3, send_event: true, properties: { model: 'small' } });
    expect(result).toMatchObject({ allowed: true, required_balance: 3, balance: { remaining: 12, usage: 3 } });
    expect(balance('messages')).toEqual({ granted: 15, remaining: 12, usage: 3 });
    expect(ctx.store.events).toEqual([
      { id: expect.any(String), customerId: 'cus', entityId: null, featureId: 'messages', eventName: null, value: 3, properties: { model: 'small' }, timestamp: NOW },
    ]);
  });

  it('[EVT-ONLY-WITH-SEND-EVENT] a plain check records nothing and leaves the balance as it was', () => {
    for (let i = 0; i < 3; i++) check({ feature_id: 'messages', required_balance: 4 });
    expect(balance('messages')).toEqual({ granted: 15, remaining: 15, usage: 0 });
    expect(ctx.store.events).toEqual([]);
  });

  it('[CHECK-SEND-EVENT-ATOMIC] a denied check deducts nothing, even when part of the amount is left', () => {
    check({ feature_id: 'messages', required_balance: 13, send_event: true });
    const denied = check({ feature_id: 'messages', required_balance: 3, send_event: true });
    expect(denied).toMatchObject({ allowed: false, balance: { remaining: 2, usage: 13 } });
    expect(ctx.store.events.map((event) => event.value)).toEqual([13]);
  });

  it('[CHECK-REQUIRED-BALANCE-NEGATIVE] records an event of 0 for required_balance 0 without deducting, and refuses a negative one with send_event or a lock, giving nothing back', () => {
    check({ feature_id: 'messages', required_balance: 4, send_event: true });
    expect(check({ feature_id: 'messages', required_balance: 0, send_event: true }).balance).toMatchObject({ usage: 4 });
    expect(errorCode(() => check({ feature_id: 'messages', required_balance: -3, send_event: true }))).toBe('invalid_request');
    expect(errorCode(() => check({ feature_id: 'messages', required_balance: -3, lock: { lock_id: 'negative', enabled: true } }))).toBe('invalid_request');
    // A plain check of a negative minimum is met by any balance, and uses nothing.
    expect(check({ feature_id: 'messages', required_balance: -3 })).toMatchObject({ allowed: true, balance: { usage: 4 } });
    expect(ctx.store.events.map((event) => event.value)).toEqual([4, 0]);
  });

  it('[CHECK-SEND-EVENT-BOOLEAN] is refused for a boolean feature, as is a lock', () => {
    expect(errorCode(() => check({ feature_id: 'sso', send_event: true }))).toBe('invalid_request');
    expect(errorCode(() => check({ feature_id: 'sso', lock: { lock_id: 'l', enabled: true } }))).toBe('invalid_request');
  });
});

describe('credit systems', () => {
  beforeEach(() => call('billing.attach', { customer_id: 'cus', plan_id: 'wallet' }));

  it('[CHECK-BALANCES-LINKED-CREDIT-SYSTEM] draws credits at the credit cost once the feature is used up, and records the event in feature units', () => {
    check({ feature_id: 'messages', required_balance: 15, send_event: true });
    expect(balance('credits')).toEqual({ granted: 20, remaining: 20, usage: 0 });

    const paid = check({ feature_id: 'messages', required_balance: 4, send_event: true });
    expect(paid).toMatchObject({ allowed: true, required_balance: 8, balance: { feature_id: 'credits', remaining: 12 } });
    expect(paid.balances['messages']).toMatchObject({ remaining: 0, usage: 15 });
    expect(paid.balances['credits']).toMatchObject({ remaining: 12, usage: 8 });
    expect(ctx.store.events.map((event) => [event.featureId, event.value])).toEqual([
      ['messages', 15],
      ['messages', 4],
    ]);

    // 12 credits pay for 6 messages, not 7; a denied check takes nothing from either balance.
    expect(check({ feature_id: 'messages', required_balance: 7, send_event: true }).allowed).toBe(false);
    expect(check({ feature_id: 'messages', required_balance: 6, send_event: true }).allowed).toBe(true);
    expect(balance('credits')).toEqual({ granted: 20, remaining: 0, usage: 20 });
  });

  it('checking and tracking a credit system directly uses credits one for one', () => {
    call('balances.track', { customer_id: 'cus', feature_id: 'credits', value: 5 });
    expect(check({ feature_id: 'credits', required_balance: 15 }).allowed).toBe(true);
    expect(check({ feature_id: 'credits', required_balance: 16 }).allowed).toBe(false);
  });
});

describe('locks', () => {
  const lock = (lockId: string, extra: { expires_at?: number } = {}) => ({ lock_id: lockId, enabled: true as const, ...extra });

  it('[CHECK-LOCK-RESERVES, CHECK-LOCK-CONFIRM] holds the units until confirmed; confirm keeps them and records the event', () => {
    expect(check({ feature_id: 'messages', required_balance: 6, lock: lock('a') }).allowed).toBe(true);
    expect(balance('messages')).toMatchObject({ remaining: 9, usage: 6 });
    expect(check({ feature_id: 'messages', required_balance: 10 }).allowed).toBe(false);
    expect(ctx.store.events).toEqual([]);
    expect(call('balances.finalize', { lock_id: 'a', action: 'confirm' })).toEqual({ success: true });
    expect(balance('messages')).toMatchObject({ remaining: 9, usage: 6 });
    expect(ctx.store.events.map((event) => event.value)).toEqual([6]);
    expect(errorCode(() => call('balances.finalize', { lock_id: 'a', action: 'confirm' }))).toBe('lock_not_found');
  });

  it('[CHECK-LOCK-CONFIRM] confirm with override_value commits that amount instead', () => {
    check({ feature_id: 'messages', required_balance: 6, lock: lock('down') });
    call('balances.finalize', { lock_id: 'down', action: 'confirm', override_value: 2 });
    expect(balance('messages')).toMatchObject({ usage: 2 });
    check({ feature_id: 'messages', required_balance: 1, lock: lock('up') });
    call('balances.finalize', { lock_id: 'up', action: 'confirm', override_value: 4 });
    expect(balance('messages')).toMatchObject({ usage: 6 });
    expect(ctx.store.events.map((event) => event.value)).toEqual([2, 4]);
  });

  it('[CHECK-LOCK-RELEASE] release gives the units back and records nothing', () => {
    check({ feature_id: 'messages', required_balance: 6, lock: lock('r') });
    expect(call('balances.finalize', { lock_id: 'r', action: 'release' })).toEqual({ success: true });
    expect(balance('messages')).toMatchObject({ remaining: 15, usage: 0 });
    expect(ctx.store.events).toEqual([]);
  });

  it('[CHECK-LOCK-WIRE] a lock lapses at expires_at and gives its units back', () => {
    check({ feature_id: 'messages', required_balance: 6, lock: lock('e', { expires_at: NOW + 60_000 }) });
    ctx.clock.advance(59_999);
    runDue(ctx);
    expect(balance('messages')).toMatchObject({ usage: 6 });
    ctx.clock.advance(1);
    runDue(ctx);
    expect(balance('messages')).toMatchObject({ usage: 0 });
    expect(errorCode(() => call('balances.finalize', { lock_id: 'e', action: 'confirm' }))).toBe('lock_not_found');
  });

  it('a release after a reset cleared the usage does not go below zero', () => {
    check({ feature_id: 'messages', required_balance: 6, lock: lock('late') });
    ctx.clock.advance(MONTH);
    runDue(ctx);
    call('balances.finalize', { lock_id: 'late', action: 'release' });
    expect(balance('messages')).toMatchObject({ remaining: 15, usage: 0 });
  });

  it('a denied check holds nothing; an allocated feature and a lock id in use are refused', () => {
    expect(check({ feature_id: 'messages', required_balance: 16, lock: lock('no') }).allowed).toBe(false);
    expect(errorCode(() => call('balances.finalize', { lock_id: 'no', action: 'release' }))).toBe('lock_not_found');
    expect(errorCode(() => check({ feature_id: 'seats', lock: lock('s') }))).toBe('invalid_request');
    check({ feature_id: 'messages', lock: lock('twice') });
    expect(errorCode(() => check({ feature_id: 'messages', lock: lock('twice') }))).toBe('invalid_request');
  });

  it('a lock paid by a credit system holds credits, and an override is converted at the credit cost', () => {
    call('billing.attach', { customer_id: 'cus', plan_id: 'wallet' });
    check({ feature_id: 'messages', required_balance: 15, send_event: true });
    check({ feature_id: 'messages', required_balance: 3, lock: lock('c') });
    expect(balance('credits')).toMatchObject({ usage: 6 });
    call('balances.finalize', { lock_id: 'c', action: 'confirm', override_value: 5 });
    expect(balance('credits')).toMatchObject({ usage: 10 });
    expect(ctx.store.events.at(-1)).toMatchObject({ featureId: 'messages', value: 5 });
  });

  it('balances.track takes a lock too, for one feature only', () => {
    call('balances.track', { customer_id: 'cus', feature_id: 'messages', value: 4, lock: lock('t') });
    expect(balance('messages')).toMatchObject({ usage: 4 });
    call('balances.finalize', { lock_id: 't', action: 'release' });
    expect(balance('messages')).toMatchObject({ usage: 0 });
    expect(errorCode(() => call('balances.track', { customer_id: 'cus', event_name: 'chat', lock: lock('both') }))).toBe('invalid_request');
  });
});

describe('with_preview', () => {
  it('[CHECK-PREVIEW-WHEN-DENIED, CHECK-PREVIEW-WIRE] a denied check lists the plans that grant the feature; an allowed one says null', () => {
    call('customers.get_or_create', { customer_id: 'bare' });
    const denied = call('balances.check', { customer_id: 'bare', feature_id: 'messages', with_preview: true });
    expect(denied.preview).toMatchObject({ scenario: 'usage_limit', feature_id: 'messages', feature_name: 'Messages', title: 'Upgrade to Free' });
    expect(denied.preview!.products.map((plan) => plan.id)).toEqual(['free', 'addon', 'unlimited']);
    const flag = call('balances.check', { customer_id: 'bare', feature_id: 'sso', with_preview: true });
    expect(flag.preview).toMatchObject({ scenario: 'feature_flag', feature_id: 'sso' });
    // Plans the customer already holds are not offered.
    expect(check({ feature_id: 'messages', required_balance: 99, with_preview: true }).preview!.products.map((plan) => plan.id)).toEqual(['unlimited']);
    expect(check({ feature_id: 'messages', with_preview: true }).preview).toBeNull();
  });

  it('[CHECK-PREVIEW-ONLY-WHEN-REQUESTED] says nothing of upgrades unless asked', () => {
    expect(check({ feature_id: 'messages', required_balance: 99 })).not.toHaveProperty('preview');
  });
});

describe('entities', () => {
  beforeEach(() => {
    call('entities.create', { customer_id: 'cus', entity_id: 'e1', feature_id: 'seats' });
    call('entities.create', { customer_id: 'cus', entity_id: 'e2', feature_id: 'seats' });
    call('plans.create', { plan_id: 'seat', name: 'Seat', add_on: true, items: [{ feature_id: 'tokens', included: 7, reset: monthly }] });
    call('billing.attach', { customer_id: 'cus', entity_id: 'e1', plan_id: 'seat' });
  });

  it('[CHECK-ENTITY-SCOPED] an entity sees its own grants first, then its customer\'s; siblings and the customer do not see its own', () => {
    const own = check({ feature_id: 'tokens', entity_id: 'e1' });
    expect(own).toMatchObject({ entity_id: 'e1', balance: { granted: 107 } });
    expect(own.balance!.breakdown.map((entry) => entry.plan_id)).toEqual(['seat', 'free']);
    expect(balance('tokens', 'cus', 'e2')).toMatchObject({ granted: 100 });
    expect(balance('tokens')).toMatchObject({ granted: 100 });

    check({ feature_id: 'tokens', entity_id: 'e1', required_balance: 9, send_event: true });
    expect(balance('tokens', 'cus', 'e1')).toEqual({ granted: 107, remaining: 98, usage: 9 });
    expect(balance('tokens')).toEqual({ granted: 100, remaining: 98, usage: 2 });
    expect(ctx.store.events.at(-1)).toMatchObject({ customerId: 'cus', entityId: 'e1', value: 9 });
  });
});

describe('balances.track', () => {
  it('[BAL-TRACK-DEDUCTS, BAL-TRACK-SHAPE] caps at what is left by default, overflows when asked, and lists its deductions', () => {
    const result = call('balances.track', { customer_id: 'cus', feature_id: 'messages', value: 12 });
    expect(result).toMatchObject({ customer_id: 'cus', value: 12, balance: { usage: 12, remaining: 3 } });
    expect(result.deductions!.map((step) => [step.plan_id, step.value])).toEqual([
      ['free', 10],
      ['addon', 2],
    ]);
    call('balances.track', { customer_id: 'cus', feature_id: 'messages', value: 10 });
    expect(balance('messages')).toEqual({ granted: 15, remaining: 0, usage: 15 });
    call('balances.track', { customer_id: 'cus', feature_id: 'messages', value: 2, overage_behavior: 'overflow' });
    expect(balance('messages')).toEqual({ granted: 15, remaining: 0, usage: 17 });
  });

  it('[EVT-EVENT-NAMES] an event name drives every feature that declares it, with one event each', () => {
    const result = call('balances.track', { customer_id: 'cus', event_name: 'chat', value: 3, timestamp: NOW - 5 });
    expect(result).toMatchObject({ event_name: 'chat', balance: { feature_id: 'messages', usage: 3 } });
    expect(Object.keys(result.balances!).sort()).toEqual(['credits', 'messages', 'tokens']);
    expect(balance('messages')).toMatchObject({ usage: 3 });
    expect(balance('tokens')).toMatchObject({ usage: 3 });
    expect(ctx.store.events.map((event) => [event.featureId, event.eventName, event.value, event.timestamp])).toEqual([
      ['messages', 'chat', 3, NOW - 5],
      ['tokens', 'chat', 3, NOW - 5],
    ]);
    expect(errorCode(() => call('balances.track', { customer_id: 'cus', event_name: 'nothing' }))).toBe('feature_not_found');
  });

  it('refuses a boolean feature', () => {
    expect(errorCode(() => call('balances.track', { customer_id: 'cus', feature_id: 'sso' }))).toBe('invalid_request');
  });
});

describe('deduct', () => {
  function grant(id: string, included: number, usage = 0, price: GrantRow['price'] = null): GrantRow {
    return {
      id, recordId: 'r', customerId: 'c', entityId: null, featureId: 'f', planId: 'p', isFlag: false, included, prepaid: 0, usage,
      unlimited: false, reset: null, nextResetAt: null, price, expiresAt: null, createdAt: 0,
    };
  }
  const usageBased = (maxPurchase: number | null): GrantRow['price'] => ({ amount: 1, interval: 'month', billing_units: 1, billing_method: 'usage_based', max_purchase: maxPurchase });

  it('[CHECK-SEND-EVENT-ATOMIC] takes grants in order, and under reject changes nothing when the total falls short', () => {
    const grants = [grant('a', 3), grant('b', 2)];
    expect(deduct(grants, 6, 'reject')).toBeNull();
    expect(grants.map((g) => g.usage)).toEqual([0, 0]);
    expect(deduct(grants, 4, 'reject')).toEqual([
      { grantId: 'a', value: 3 },
      { grantId: 'b', value: 1 },
    ]);
    expect(grants.map((g) => g.usage)).toEqual([3, 1]);
  });

  it('gives units back newest grant first, never below zero', () => {
    const grants = [grant('a', 3, 3), grant('b', 2, 1)];
    expect(deduct(grants, -3, 'reject')).toEqual([
      { grantId: 'b', value: -1 },
      { grantId: 'a', value: -2 },
    ]);
    expect(deduct(grants, -9, 'cap')).toEqual([{ grantId: 'a', value: -1 }]);
    expect(grants.map((g) => g.usage)).toEqual([0, 0]);
  });

  it('lets a usage-based price run past the balance up to its max_purchase', () => {
    const grants = [grant('a', 2, 0, usageBased(3))];
    expect(deduct(grants, 6, 'reject')).toBeNull();
    expect(deduct(grants, 5, 'reject')).toEqual([
      { grantId: 'a', value: 2 },
      { grantId: 'a', value: 3 },
    ]);
    expect(deduct(grants, 1, 'cap')).toEqual([]);
    expect(deduct([grant('u', 0, 0, usageBased(null))], 1e9, 'reject')).toEqual([{ grantId: 'u', value: 1e9 }]);
  });
});
