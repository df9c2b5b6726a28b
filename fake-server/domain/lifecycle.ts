/**
 * What time does to the state (interface.md: "Transitions: not shown"): in time order, consumable
 * balances return to their included amount at each reset, billing periods roll over, trials end,
 * records past their expiry expire, and lapsed locks give their units back. Also the states only
 * the control plane can force: past due, expired, scheduled.
 */
import type { z } from 'zod';
import { DUE_KINDS, type DueKind, type ForcedState } from '../../spec/control-plane.ts';
import { addInterval, occurrencesUpTo } from '../clock.ts';
import type { DueEntry } from '../store/due-queue.ts';
import type { TenantStore } from '../store/tenant-store.ts';
import { releaseLock } from './balances.ts';
import { endRecord } from './billing.ts';
import { type DomainContext, fail } from './context.ts';

/** Units of a grant that outstanding locks hold; they stay held across a reset, so a later release cannot push usage below zero. */
function heldByLocks(store: TenantStore, grantId: string): number {
  let held = 0;
  for (const lock of store.locks.values()) {
    for (const deduction of lock.deductions) if (deduction.grantId === grantId) held += deduction.value;
  }
  return held;
}

/** The next time, or null when it lies beyond what the clock can represent (nothing more falls due). */
function laterOrNull(next: () => number): number | null {
  try {
    return next();
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** A recurrence: the times anchor + k·(count × interval), k ≥ 1. */
interface Recurrence {
  readonly anchor: number;
  readonly interval: string;
  readonly count: number;
}

/**
 * Collapses the run of occurrences that starts at `first`: every occurrence up to `horizon` (at
 * least `first` itself) would find the row as the previous one left it, so applying the last one
 * is the same as applying each. Returns how many there were, the last one, and the one after it
 * (null beyond the representable range).
 */
function collapse({ anchor, interval, count }: Recurrence, first: number, horizon: number): { count: number; last: number; next: number | null } {
  const from = occurrencesUpTo(anchor, interval, count, first);
  const to = Math.max(from, occurrencesUpTo(anchor, interval, count, horizon));
  return {
    count: to - from + 1,
    last: to === from ? first : addInterval(anchor, interval, count * to),
    next: laterOrNull(() => addInterval(anchor, interval, count * (to + 1))),
  };
}

/** Kinds of entry that can change what a reset or a period end does: an expiry (of a record or a lock). */
const ROW_CHANGING: readonly DueKind[] = ['record.expire', 'lock.expire'];

/** What one due entry did: `count` occurrences, from `at` to `last`, collapsed into one step when they recur. */
export interface DueRun {
  readonly kind: DueKind;
  readonly id: string;
  readonly at: number;
  readonly last: number;
  readonly count: number;
}

/**
 * Applies one due entry, as of `now`; null when it was stale. A reset or a period end applies at
 * once every occurrence before the next entry that could change its row (an expiry) and not after
 * `now`: a year of minute resets is one step, not 525,600.
 */
function apply(ctx: DomainContext, entry: DueEntry, now: number): DueRun | null {
  const { store } = ctx;
  const once = { kind: entry.kind, id: entry.id, at: entry.at, last: entry.at, count: 1 };
  const horizon = () => Math.min(now, store.due.nextAt(ROW_CHANGING) - 1);
  switch (entry.kind) {
    case 'grant.reset': {
      const grant = store.grants.get(entry.id);
      const record = grant && store.records.get(grant.recordId);
      if (!grant || !record || record.status === 'expired' || grant.reset === null || grant.nextResetAt !== entry.at) return null;
      grant.usage = heldByLocks(store, grant.id);
      // Resets count from the grant's start, so a month-end start keeps its day after a short month.
      const run = collapse({ anchor: grant.createdAt, interval: grant.reset.interval, count: grant.reset.intervalCount }, entry.at, horizon());
      grant.nextResetAt = run.next;
      if (run.next !== null) store.due.schedule(run.next, 'grant.reset', grant.id);
      return { ...once, last: run.last, count: run.count };
    }
    case 'billing.period_end': {
      const billing = store.processorSubscriptions.get(entry.id);
      if (!billing || billing.currentPeriodEnd !== entry.at) return null;
      // The records that live on past this end: an expired record has its expiry set, and one expiring at this very end keeps the period it ends with.
      const live = billing.recordIds.map((id) => store.records.get(id)!).filter((record) => record.expiresAt === null || record.expiresAt > entry.at);
      if (live.length === 0) return null;
      // Periods count from the first one, so a month-end cycle keeps its day after a short month.
      const run = collapse({ anchor: billing.anchor, interval: billing.interval, count: billing.intervalCount }, entry.at, horizon());
      if (run.next === null) return null;
      billing.currentPeriodStart = run.last;
      billing.currentPeriodEnd = run.next;
      for (const record of live) {
        record.currentPeriodStart = billing.currentPeriodStart;
        record.currentPeriodEnd = billing.currentPeriodEnd;
      }
      store.due.schedule(billing.currentPeriodEnd, 'billing.period_end', billing.id);
      return { ...once, last: run.last, count: run.count };
    }
    case 'record.trial_end': {
      const record = store.records.get(entry.id);
      if (!record || record.trialEndsAt !== entry.at) return null;
      // As in the reference, trial_ends_at is set only while the record is trialing.
      record.trialEndsAt = null;
      return once;
    }
    case 'record.expire': {
      const record = store.records.get(entry.id);
      if (!record || record.status === 'expired' || record.expiresAt !== entry.at) return null;
      endRecord(ctx, record, entry.at);
      return once;
    }
    case 'lock.expire': {
      const lock = store.locks.get(entry.id);
      if (!lock || lock.expiresAt !== entry.at) return null;
      releaseLock(store, lock);
      return once;
    }
  }
}

/** Runs, oldest first, everything due by now; returns what ran, repeated occurrences collapsed into one run each. */
export function runDue(ctx: DomainContext): DueRun[] {
  const runs: DueRun[] = [];
  const now = ctx.clock.now();
  for (let entry = ctx.store.due.popDue(now); entry !== undefined; entry = ctx.store.due.popDue(now)) {
    const run = apply(ctx, entry, now);
    if (run !== null) runs.push(run);
  }
  return runs;
}

/** How many occurrences of each kind a list of runs applied: the summary `clock.advance` answers. */
export function countByKind(runs: readonly DueRun[]): Record<DueKind, number> {
  const counts = Object.fromEntries(DUE_KINDS.map((kind) => [kind, 0])) as Record<DueKind, number>;
  for (const run of runs) counts[run.kind] += run.count;
  return counts;
}

/** Puts a subscription or purchase into a state the public API cannot produce. */
export function forceState(ctx: DomainContext, recordId: string, state: z.infer<typeof ForcedState>, at?: number) {
  const record = ctx.store.records.get(recordId) ?? fail('cus_product_not_found', `No subscription or purchase ${recordId}`);
  switch (state) {
    case 'past_due':
      if (record.status !== 'active') fail('invalid_request', `Only an active record can be past due; ${recordId} is ${record.status}`);
      record.pastDue = true;
      break;
    case 'active':
      if (record.status === 'expired') fail('invalid_request', `Record ${recordId} has expired and cannot come back`);
      record.status = 'active';
      record.pastDue = false;
      break;
    case 'expired':
      if (record.status === 'expired') break;
      if (at !== undefined && at > ctx.clock.now()) {
        record.expiresAt = at;
        record.canceledAt ??= ctx.clock.now();
        ctx.store.due.schedule(at, 'record.expire', record.id);
      } else endRecord(ctx, record, at);
      break;
    case 'scheduled':
      if (record.status === 'expired') fail('invalid_request', `Record ${recordId} has expired and cannot be scheduled`);
      record.status = 'scheduled';
      record.pastDue = false;
      break;
  }
  return { record_id: record.id, status: record.status, past_due: record.pastDue };
}
