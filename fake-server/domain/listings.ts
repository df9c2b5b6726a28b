/**
 * Subscription and purchase records: their wire views, and the listings `subscriptions.list` and
 * `purchases.list`. Like a real service that pages first and filters afterwards, a listing takes a
 * window of `limit` rows from the cursor and then drops the rows that do not match, so a page can
 * be short or empty while `has_more` is true. Clients must page until `has_more` is false.
 */
import type { z } from 'zod';
import type { EmbeddedPurchase, EmbeddedSubscription, ListingStatusFilter, PurchaseRecord, SubscriptionRecord } from '../../spec/listings.ts';
import type { Plan } from '../../spec/plans.ts';
import type { IndexKey } from '../store/ordered-index.ts';
import type { RecordKind, RecordRow, TenantStore } from '../store/tenant-store.ts';
import type { DomainContext, InputOf, OutputOf } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';

function planOf(store: TenantStore, record: RecordRow): Plan {
  return store.plans.get(record.planId)!.find((plan) => plan.version === record.planVersion)!;
}

export function embeddedSubscriptionView(store: TenantStore, record: RecordRow): z.input<typeof EmbeddedSubscription> {
  const plan = planOf(store, record);
  return {
    plan_id: record.planId,
    auto_enable: plan.auto_enable,
    add_on: plan.add_on,
    status: record.status,
    past_due: record.pastDue,
    canceled_at: record.canceledAt,
    expires_at: record.expiresAt,
    trial_ends_at: record.trialEndsAt,
    started_at: record.startedAt,
    current_period_start: record.currentPeriodStart,
    current_period_end: record.currentPeriodEnd,
    quantity: record.quantity,
  };
}

export function recordScope(record: RecordRow): 'customer' | 'entity' {
  return record.entityId === null ? 'customer' : 'entity';
}

/** A subscription as customers.get and entities.get show it (reference shape): the embedded fields plus its id and scope. */
export function heldSubscriptionView(store: TenantStore, record: RecordRow) {
  return { id: record.id, ...embeddedSubscriptionView(store, record), scope: recordScope(record) };
}

export function subscriptionRecordView(store: TenantStore, record: RecordRow): z.input<typeof SubscriptionRecord> {
  return {
    id: record.id,
    ...embeddedSubscriptionView(store, record),
    scope: recordScope(record),
    customer_id: record.customerId,
    entity_id: record.entityId,
    created_at: record.createdAt,
  };
}

export function embeddedPurchaseView(record: RecordRow): z.input<typeof EmbeddedPurchase> {
  return { plan_id: record.planId, expires_at: record.expiresAt, started_at: record.startedAt, quantity: record.quantity, scope: recordScope(record) };
}

export function purchaseRecordView(record: RecordRow): z.input<typeof PurchaseRecord> {
  return {
    id: record.id,
    ...embeddedPurchaseView(record),
    status: record.status,
    customer_id: record.customerId,
    entity_id: record.entityId,
    created_at: record.createdAt,
  };
}

/** States rules 1 and 2: `past_due` matches overdue records, which read as `active`; `expired` only when asked for. */
export function recordMatchesStatuses(record: RecordRow, statuses: readonly ListingStatusFilter[]): boolean {
  return statuses.some((status) => (status === 'past_due' ? record.status === 'active' && record.pastDue : record.status === status));
}

export interface RecordPage {
  readonly rows: RecordRow[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

/** One page of records of a kind: a window of `limit` index rows from the cursor, then the filters. */
export function recordPage(store: TenantStore, kind: RecordKind, input: InputOf<'subscriptions.list'>): RecordPage {
  const keys = store.recordIndex(kind, input.customer_id).newestFirst(decodeCursor(input.start_cursor));
  const window: IndexKey[] = [];
  let next = keys.next();
  while (!next.done && window.length < input.limit) {
    window.push(next.value);
    next = keys.next();
  }
  // One key read past the window tells whether anything is left.
  const hasMore = !next.done;
  const rows = window
    .map((key) => store.records.get(key.id)!)
    .filter((record) => input.entity_id === undefined || record.entityId === input.entity_id)
    .filter((record) => input.plan_id === undefined || record.planId === input.plan_id)
    .filter((record) => recordMatchesStatuses(record, input.statuses));
  return { rows, hasMore, nextCursor: hasMore ? encodeCursor(window.at(-1)!) : null };
}

export function listSubscriptions(ctx: DomainContext, input: InputOf<'subscriptions.list'>): OutputOf<'subscriptions.list'> {
  const page = recordPage(ctx.store, 'subscription', input);
  return { list: page.rows.map((record) => subscriptionRecordView(ctx.store, record)), has_more: page.hasMore, next_cursor: page.nextCursor };
}

export function listPurchases(ctx: DomainContext, input: InputOf<'purchases.list'>): OutputOf<'purchases.list'> {
  const page = recordPage(ctx.store, 'purchase', input);
  return { list: page.rows.map(purchaseRecordView), has_more: page.hasMore, next_cursor: page.nextCursor };
}
