/**
 * What time does to the state (interface.md: "Transitions: not shown"): in time order, consumable
 * balances return to their included amount at each reset, billing periods roll over, trials end,
 * records past their expiry expire, and lapsed locks give their units back. Also the states only
 * the control plane can force: past due, expired, scheduled.
 */
import type { z } from 'zod';
import type { ForcedState } from '../../spec/control-plane.ts';
import { nextOccurrence } from '../clock.ts';
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

function apply(ctx: DomainContext, entry: DueEntry): boolean {
  const { store } = ctx;
  switch (entry.kind) {
    case 'grant.reset': {
      const grant = store.grants.get(entry.id);
      const record = grant && store.records.get(grant.recordId);
      if (!grant || !record || record.status === 'expired' || grant.reset === null || grant.nextResetAt !== entry.at) return false;
      grant.usage = heldByLocks(store, grant.id);
      // Resets count from the grant's start, so a month-end start keeps its day after a short month.
      grant.nextResetAt = laterOrNull(() => nextOccurrence(grant.createdAt, grant.reset!.interval, grant.reset!.intervalCount, entry.at));
      if (grant.nextResetAt !== null) store.due.schedule(grant.nextResetAt, 'grant.reset', grant.id);
      return true;
    }
    case 'billing.period_end': {
      const billing = store.processorSubscriptions.get(entry.id);
      if (!billing || billing.currentPeriodEnd !== entry.at) return false;
      const live = billing.recordIds.map((id) => store.records.get(id)!).filter((record) => record.status !== 'expired');
      if (live.length === 0) return false;
      // Periods count from the first one, so a month-end cycle keeps its day after a short month.
      const nextEnd = laterOrNull(() => nextOccurrence(billing.anchor, billing.interval, billing.intervalCount, billing.currentPeriodEnd));
      if (nextEnd === null) return false;
      billing.currentPeriodStart = billing.currentPeriodEnd;
      billing.currentPeriodEnd = nextEnd;
      for (const record of live) {
        record.currentPeriodStart = billing.currentPeriodStart;
        record.currentPeriodEnd = billing.currentPeriodEnd;
      }
      store.due.schedule(billing.currentPeriodEnd, 'billing.period_end', billing.id);
      return true;
    }
    case 'record.trial_end': {
      const record = store.records.get(entry.id);
      if (!record || record.trialEndsAt !== entry.at) return false;
      // As in the reference, trial_ends_at is set only while the record is trialing.
      record.trialEndsAt = null;
      return true;
    }
    case 'record.expire': {
      const record = store.records.get(entry.id);
      if (!record || record.status === 'expired' || record.expiresAt !== entry.at) return false;
      endRecord(ctx, record, entry.at);
      return true;
    }
    case 'lock.expire': {
      const lock = store.locks.get(entry.id);
      if (!lock || lock.expiresAt !== entry.at) return false;
      releaseLock(store, lock);
      return true;
    }
  }
}

/** Runs, oldest first, everything due by now; returns what ran. */
export function runDue(ctx: DomainContext): DueEntry[] {
  const ran: DueEntry[] = [];
  const now = ctx.clock.now();
  for (let entry = ctx.store.due.popDue(now); entry !== undefined; entry = ctx.store.due.popDue(now)) {
    if (apply(ctx, entry)) ran.push(entry);
  }
  return ran;
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
