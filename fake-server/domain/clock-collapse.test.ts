/**
 * Collapsing repeated resets and period ends (lifecycle.ts) changes the cost of moving the clock,
 * never its outcome: one long jump leaves exactly the state that the same span walked in steps
 * shorter than any interval leaves, with lock expiries and record expiries falling in between.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../../fixtures/random.ts';
import type { DomainContext } from './context.ts';
import { countByKind, forceState, runDue } from './lifecycle.ts';
import { callHandler, testContext } from './testing.ts';

const START = Date.parse('2026-01-31T10:00:00Z');
const MINUTE = 60_000;

interface Setup {
  readonly customers: number;
  /** Per customer: units used before the jump, a lock (and when it lapses), and when its plan is forced to expire. */
  readonly used: number;
  readonly lockLapsesAfter: number | null;
  readonly expiresAfter: number | null;
}

function prepared(setup: Setup): DomainContext {
  const ctx = testContext(START);
  callHandler(ctx, 'features.create', { feature_id: 'calls', name: 'Calls', type: 'metered', consumable: true });
  callHandler(ctx, 'features.create', { feature_id: 'mails', name: 'Mails', type: 'metered', consumable: true });
  callHandler(ctx, 'plans.create', {
    plan_id: 'metered',
    name: 'Metered',
    price: { amount: 5, interval: 'month' },
    items: [
      { feature_id: 'calls', included: 100, reset: { interval: 'minute', interval_count: 7 } },
      { feature_id: 'mails', included: 50, reset: { interval: 'hour' } },
    ],
  });
  for (let i = 0; i < setup.customers; i++) {
    const customerId = `cus_${i}`;
    callHandler(ctx, 'customers.get_or_create', { customer_id: customerId });
    callHandler(ctx, 'billing.attach', { customer_id: customerId, plan_id: 'metered' });
    callHandler(ctx, 'balances.track', { customer_id: customerId, feature_id: 'calls', value: setup.used });
    const lock = { lock_id: `lock_${i}`, enabled: true as const, ...(setup.lockLapsesAfter !== null && { expires_at: START + setup.lockLapsesAfter + i }) };
    callHandler(ctx, 'balances.check', { customer_id: customerId, feature_id: 'calls', required_balance: 3, lock });
    if (setup.expiresAfter !== null) {
      const [record] = callHandler(ctx, 'subscriptions.list', { customer_id: customerId }).list;
      forceState(ctx, record!.id, 'expired', START + setup.expiresAfter + i * MINUTE);
    }
  }
  return ctx;
}

/** Everything time changes, in a comparable form. */
function timeState(ctx: DomainContext) {
  const { store } = ctx;
  return {
    grants: [...store.grants.values()].map((grant) => [grant.id, grant.usage, grant.nextResetAt]),
    records: [...store.records.values()].map((record) => [record.id, record.status, record.currentPeriodStart, record.currentPeriodEnd, record.expiresAt]),
    locks: [...store.locks.keys()],
    periods: [...store.processorSubscriptions.values()].map((billing) => [billing.id, billing.currentPeriodStart, billing.currentPeriodEnd]),
  };
}

describe('collapsed clock advance', () => {
  it('one jump leaves the state that walking the same span minute by minute leaves, and counts the same occurrences (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          customers: fc.integer({ min: 1, max: 3 }),
          used: fc.integer({ min: 0, max: 97 }),
          lockLapsesAfter: fc.option(fc.integer({ min: 1, max: 400 * MINUTE })),
          expiresAfter: fc.option(fc.integer({ min: 1, max: 400 * MINUTE })),
        }),
        fc.integer({ min: 1, max: 480 }),
        (setup, minutes) => {
          const jumped = prepared(setup);
          jumped.clock.advance(minutes * MINUTE);
          const jumpedRan = countByKind(runDue(jumped));

          const walked = prepared(setup);
          const walkedRuns = [];
          for (let minute = 0; minute < minutes; minute++) {
            walked.clock.advance(MINUTE);
            walkedRuns.push(...runDue(walked));
          }
          expect(timeState(jumped)).toEqual(timeState(walked));
          expect(jumpedRan).toEqual(countByKind(walkedRuns));
        },
      ),
      { seed: testSeed(), numRuns: 60 },
    );
  });

  it('a year of minute resets for many customers is one run per grant, counting every occurrence', () => {
    const ctx = prepared({ customers: 20, used: 10, lockLapsesAfter: null, expiresAfter: null });
    ctx.clock.advance(365 * 24 * 60 * MINUTE);
    const runs = runDue(ctx).filter((run) => run.kind === 'grant.reset');
    expect(runs).toHaveLength(40);
    expect(countByKind(runs)['grant.reset']).toBe(20 * (Math.floor((365 * 24 * 60) / 7) + 365 * 24));
  });
});
