/**
 * What the clock does to the state, without a socket: handlers called with inputs parsed by the spec,
 * the frozen clock moved by hand and `runDue` run after each move, as the router and the control
 * plane do.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { testSeed } from '../../fixtures/random.ts';
import { type OperationName, operations } from '../../spec/operations.ts';
import { addInterval, Clock } from '../clock.ts';
import { IdGenerator } from '../ids.ts';
import { TenantStore } from '../store/tenant-store.ts';
import type { DomainContext, OutputOf } from './context.ts';
import { handlers } from './handlers.ts';
import { forceState, runDue } from './lifecycle.ts';

const DAY = 86_400_000;
const at = (iso: string) => Date.parse(iso);
/** 31 January: monthly cycles started here meet a short month first. */
const MONTH_END = at('2026-01-31T10:00:00Z');

let ctx: DomainContext;

function call<N extends OperationName>(name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
  const handler = handlers[name] as (ctx: DomainContext, input: unknown) => OutputOf<N>;
  return handler(ctx, operations[name].request.parse(body));
}

/** Moves the clock to `time` and runs what fell due; returns what ran as `[kind, at]`. */
function moveTo(time: number): [string, number][] {
  ctx.clock.set({ now: time });
  return runDue(ctx).map((entry) => [entry.kind, entry.at]);
}

function messages(customerId = 'cus') {
  const { balance } = call('balances.check', { customer_id: customerId, feature_id: 'messages' });
  return { remaining: balance!.remaining, usage: balance!.usage, nextResetAt: balance!.next_reset_at, resetsAt: balance!.breakdown[0]!.reset!.resets_at };
}

function use(units: number, customerId = 'cus'): void {
  call('balances.check', { customer_id: customerId, feature_id: 'messages', required_balance: units, send_event: true });
}

function subscription(customerId = 'cus') {
  const { list } = call('subscriptions.list', { customer_id: customerId, statuses: ['active', 'scheduled', 'expired'] });
  expect(list).toHaveLength(1);
  return list[0]!;
}

function start(now: number): void {
  ctx = { store: new TenantStore('org', 'sandbox'), clock: new Clock({ now, frozen: true }), ids: new IdGenerator(1) };
  call('features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true });
  call('plans.create', { plan_id: 'free', name: 'Free', items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }] });
  call('plans.create', { plan_id: 'pro', name: 'Pro', group: 'paid', price: { amount: 20, interval: 'month' } });
  call('plans.create', {
    plan_id: 'trial',
    name: 'Trial',
    group: 'paid',
    price: { amount: 20, interval: 'month' },
    free_trial: { duration_length: 7, duration_type: 'day', card_required: false },
  });
  call('customers.get_or_create', { customer_id: 'cus' });
}

describe('consumable resets', () => {
  beforeEach(() => {
    start(MONTH_END);
    call('billing.attach', { customer_id: 'cus', plan_id: 'free' });
  });

  it('[PLAN-CONSUMABLE-RESET] usage returns to included at next_reset_at, not a millisecond before, and resets_at moves on by the interval', () => {
    use(30);
    expect(messages()).toEqual({ remaining: 70, usage: 30, nextResetAt: at('2026-02-28T10:00:00Z'), resetsAt: at('2026-02-28T10:00:00Z') });

    expect(moveTo(at('2026-02-28T10:00:00Z') - 1)).toEqual([]);
    expect(messages().remaining).toBe(70);

    expect(moveTo(at('2026-02-28T10:00:00Z'))).toEqual([['grant.reset', at('2026-02-28T10:00:00Z')]]);
    // The cycle keeps its anchor: after the short February it is back on the 31st.
    expect(messages()).toEqual({ remaining: 100, usage: 0, nextResetAt: at('2026-03-31T10:00:00Z'), resetsAt: at('2026-03-31T10:00:00Z') });
    use(5);
    expect(moveTo(at('2026-03-31T10:00:00Z'))).toEqual([['grant.reset', at('2026-03-31T10:00:00Z')]]);
    expect(messages()).toMatchObject({ remaining: 100, nextResetAt: at('2026-04-30T10:00:00Z') });
  });

  it('[PLAN-CONSUMABLE-RESET] a jump over several periods applies the missed resets as one run, oldest to latest, and lands on the next one ahead', () => {
    use(40);
    ctx.clock.set({ now: at('2026-05-15T00:00:00Z') });
    expect(runDue(ctx)).toEqual([{ kind: 'grant.reset', id: expect.any(String), at: at('2026-02-28T10:00:00Z'), last: at('2026-04-30T10:00:00Z'), count: 3 }]);
    expect(messages()).toMatchObject({ remaining: 100, nextResetAt: at('2026-05-31T10:00:00Z') });
  });

  it('a lock held across a reset keeps its units held; releasing it afterwards gives back the balance, never more than included', () => {
    call('balances.check', { customer_id: 'cus', feature_id: 'messages', required_balance: 10, lock: { lock_id: 'hold', enabled: true } });
    use(20);
    expect(messages()).toMatchObject({ remaining: 70 });
    moveTo(at('2026-02-28T10:00:00Z'));
    expect(messages(), 'the reset frees the used units but not the held ones').toMatchObject({ remaining: 90, usage: 10 });
    call('balances.finalize', { lock_id: 'hold', action: 'release' });
    expect(messages()).toMatchObject({ remaining: 100, usage: 0 });
  });

  it('an expired record stops resetting', () => {
    const record = subscription();
    use(30);
    forceState(ctx, record.id, 'expired');
    expect(moveTo(at('2026-04-01T00:00:00Z'))).toEqual([]);
  });
});

describe('billing periods and trials', () => {
  it('a paid record rolls its period over at current_period_end, the new period starting where the old one ended', () => {
    const fifteenth = at('2026-01-15T08:00:00Z');
    start(fifteenth);
    call('billing.attach', { customer_id: 'cus', plan_id: 'pro' });
    expect(subscription()).toMatchObject({ current_period_start: fifteenth, current_period_end: at('2026-02-15T08:00:00Z'), trial_ends_at: null });

    expect(moveTo(at('2026-02-15T08:00:00Z') - 1)).toEqual([]);
    expect(moveTo(at('2026-02-15T08:00:00Z'))).toEqual([['billing.period_end', at('2026-02-15T08:00:00Z')]]);
    expect(subscription()).toMatchObject({ current_period_start: at('2026-02-15T08:00:00Z'), current_period_end: at('2026-03-15T08:00:00Z') });
    moveTo(at('2026-04-01T00:00:00Z'));
    expect(subscription()).toMatchObject({ current_period_start: at('2026-03-15T08:00:00Z'), current_period_end: at('2026-04-15T08:00:00Z') });
  });

  it('a trial ends at trial_ends_at: the field clears and the first paid period starts there', () => {
    const now = at('2026-03-02T12:00:00Z');
    const trialEnd = now + 7 * DAY;
    start(now);
    call('billing.attach', { customer_id: 'cus', plan_id: 'trial' });
    expect(subscription()).toMatchObject({ status: 'active', trial_ends_at: trialEnd, current_period_start: now, current_period_end: trialEnd });

    expect(moveTo(trialEnd - 1)).toEqual([]);
    expect(subscription().trial_ends_at).toBe(trialEnd);
    expect(moveTo(trialEnd)).toEqual([
      ['billing.period_end', trialEnd],
      ['record.trial_end', trialEnd],
    ]);
    expect(subscription()).toMatchObject({ status: 'active', trial_ends_at: null, current_period_start: trialEnd, current_period_end: at('2026-04-09T12:00:00Z') });
  });

  it('a replaced record no longer rolls periods; its successor does', () => {
    start(at('2026-01-15T08:00:00Z'));
    call('billing.attach', { customer_id: 'cus', plan_id: 'pro' });
    call('billing.attach', { customer_id: 'cus', plan_id: 'trial' });
    const { list } = call('subscriptions.list', { customer_id: 'cus', statuses: ['expired'] });
    expect(list.map((record) => [record.plan_id, record.current_period_end])).toEqual([['pro', at('2026-02-15T08:00:00Z')]]);
    moveTo(at('2026-03-01T00:00:00Z'));
    expect(call('subscriptions.list', { customer_id: 'cus', statuses: ['expired'] }).list[0]!.current_period_end).toBe(at('2026-02-15T08:00:00Z'));
  });
});

describe('forced states', () => {
  beforeEach(() => {
    start(MONTH_END);
    call('billing.attach', { customer_id: 'cus', plan_id: 'free' });
  });

  it('[STATE-PAST-DUE-READS-ACTIVE] past_due leaves the record active with past_due true; active clears it; scheduled and expired set the status', () => {
    const { id } = subscription();
    expect(forceState(ctx, id, 'past_due')).toEqual({ record_id: id, status: 'active', past_due: true });
    expect(subscription()).toMatchObject({ status: 'active', past_due: true });
    expect(forceState(ctx, id, 'active')).toEqual({ record_id: id, status: 'active', past_due: false });
    expect(forceState(ctx, id, 'past_due').past_due).toBe(true);
    expect(forceState(ctx, id, 'scheduled'), 'a scheduled record is not past due').toEqual({ record_id: id, status: 'scheduled', past_due: false });
    expect(() => forceState(ctx, id, 'past_due')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(forceState(ctx, id, 'expired')).toEqual({ record_id: id, status: 'expired', past_due: false });
    expect(subscription()).toMatchObject({ status: 'expired', expires_at: MONTH_END, canceled_at: MONTH_END });
  });

  it('an expired record cannot come back, and an unknown record is not found', () => {
    const { id } = subscription();
    forceState(ctx, id, 'expired');
    expect(() => forceState(ctx, id, 'active')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => forceState(ctx, id, 'scheduled')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => forceState(ctx, 'cus_prod_nope', 'past_due')).toThrow(expect.objectContaining({ code: 'cus_product_not_found' }));
  });

  it('expired with a future `at` sets expires_at and keeps the record live until the clock reaches it; what falls due before runs first', () => {
    const { id } = subscription();
    const expiry = at('2026-03-10T00:00:00Z');
    forceState(ctx, id, 'past_due');
    expect(forceState(ctx, id, 'expired', expiry)).toEqual({ record_id: id, status: 'active', past_due: true });
    expect(subscription()).toMatchObject({ status: 'active', expires_at: expiry, canceled_at: MONTH_END });

    expect(moveTo(expiry - 1)).toEqual([['grant.reset', at('2026-02-28T10:00:00Z')]]);
    expect(subscription().status).toBe('active');
    expect(moveTo(at('2026-05-01T00:00:00Z')), 'the record expires at `at`, and its later resets never run').toEqual([['record.expire', expiry]]);
    expect(subscription()).toMatchObject({ status: 'expired', past_due: false, expires_at: expiry, canceled_at: MONTH_END });
  });

  it('expired with an `at` already past ends the record now, dated `at`', () => {
    const { id } = subscription();
    ctx.clock.advance(DAY);
    expect(forceState(ctx, id, 'expired', MONTH_END + 1).status).toBe('expired');
    expect(subscription()).toMatchObject({ expires_at: MONTH_END + 1, canceled_at: MONTH_END + 1 });
  });

  it('a later `at` replaces an earlier pending one', () => {
    const { id } = subscription();
    forceState(ctx, id, 'expired', MONTH_END + DAY);
    forceState(ctx, id, 'expired', MONTH_END + 3 * DAY);
    expect(moveTo(MONTH_END + 2 * DAY)).toEqual([]);
    expect(subscription().status).toBe('active');
    expect(moveTo(MONTH_END + 3 * DAY)).toEqual([['record.expire', MONTH_END + 3 * DAY]]);
  });
});

describe('time order', () => {
  it('whatever the intervals and the jumps, due resets run in time order, each occurrence once, and the next one is the first ahead of the clock', () => {
    const intervals = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
    fc.assert(
      fc.property(
        fc.array(fc.record({ interval: fc.constantFrom(...intervals), count: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 20 * DAY }), { minLength: 1, maxLength: 5 }),
        (items, jumps) => {
          start(MONTH_END);
          items.forEach(({ interval, count }, i) => {
            call('features.create', { feature_id: `f${i}`, name: `F${i}`, type: 'metered', consumable: true });
            call('plans.create', { plan_id: `p${i}`, name: `P${i}`, add_on: true, items: [{ feature_id: `f${i}`, included: 1, reset: { interval, interval_count: count } }] });
            call('billing.attach', { customer_id: 'cus', plan_id: `p${i}` });
          });
          let last = MONTH_END;
          const resets = new Map<string, number>();
          for (const jump of jumps) {
            ctx.clock.advance(jump);
            for (const run of runDue(ctx)) {
              expect(run.at).toBeGreaterThanOrEqual(last);
              expect(run.last).toBeGreaterThanOrEqual(run.at);
              expect(run.last).toBeLessThanOrEqual(ctx.clock.now());
              last = run.at;
              resets.set(run.id, (resets.get(run.id) ?? 0) + run.count);
            }
          }
          const now = ctx.clock.now();
          for (const grant of ctx.store.grants.values()) {
            const { interval, intervalCount } = grant.reset!;
            let due = 0;
            while (addInterval(MONTH_END, interval, intervalCount * (due + 1)) <= now) due++;
            expect(resets.get(grant.id) ?? 0, `resets of a ${intervalCount} ${interval} grant`).toBe(due);
            expect(grant.nextResetAt).toBe(addInterval(MONTH_END, interval, intervalCount * (due + 1)));
          }
        },
      ),
      { seed: testSeed(), numRuns: 50 },
    );
  });
});
