/**
 * Subscription and purchase records, and the two cursor-paginated listings `subscriptions.list` and
 * `purchases.list` (documented; the reference at 2.3.0 does not serve them).
 */
import { z } from 'zod';
import { cursorPageOf, StartCursor, Timestamp } from './common.ts';
import { fromReference } from './meta.ts';

/** States table: Subscription status is `active`, `scheduled` or `expired`. `past_due` is not a status (States rule 1). */
export const RecordStatus = z.enum(['active', 'scheduled', 'expired']);
export type RecordStatus = z.infer<typeof RecordStatus>;

/** States table: the statuses filter of the listings: `active`, `scheduled`, `past_due`, `expired`. */
export const ListingStatusFilter = z.enum(['active', 'scheduled', 'past_due', 'expired']);
export type ListingStatusFilter = z.infer<typeof ListingStatusFilter>;

/** "Default listings return `active` and `scheduled` records" (States rule 2). */
export const DEFAULT_LISTING_STATUSES = ['active', 'scheduled'] as const satisfies readonly ListingStatusFilter[];

/** "A subscription embedded in an entity carries … only." */
export const EmbeddedSubscription = z
  .object({
    plan_id: z.string(),
    auto_enable: z.boolean(),
    add_on: z.boolean(),
    status: RecordStatus,
    past_due: z.boolean(),
    canceled_at: Timestamp.nullable(),
    expires_at: Timestamp.nullable(),
    trial_ends_at: Timestamp.nullable(),
    started_at: Timestamp,
    current_period_start: Timestamp.nullable(),
    current_period_end: Timestamp.nullable(),
    quantity: z.number(),
  })
  .meta({ id: 'EmbeddedSubscription' });

/** Scope of a record: "`customer` occurs"; the reference also uses `entity` for plans attached to an entity. */
export const RecordScope = z.string().meta({ examples: ['customer', 'entity'] });

export const SubscriptionRecord = EmbeddedSubscription.extend({
  id: z.string(),
  scope: RecordScope,
  customer_id: z.string(),
  entity_id: z.string().nullable(),
  created_at: Timestamp,
}).meta({ id: 'SubscriptionRecord' });
export type SubscriptionRecord = z.infer<typeof SubscriptionRecord>;

export const PurchaseRecord = z
  .object({
    id: z.string(),
    plan_id: z.string(),
    status: RecordStatus,
    expires_at: Timestamp.nullable(),
    started_at: Timestamp,
    quantity: z.number(),
    scope: RecordScope,
    customer_id: z.string(),
    entity_id: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'PurchaseRecord' });
export type PurchaseRecord = z.infer<typeof PurchaseRecord>;

/** A purchase embedded in an entity or a customer. interface.md lists `purchases` without a shape. */
export const EmbeddedPurchase = fromReference(
  PurchaseRecord.pick({ plan_id: true, expires_at: true, started_at: true, quantity: true, scope: true }),
  'observed-behaviour §3.4',
);

/** Body of `subscriptions.list` and `purchases.list`: "identical". */
export const RecordListRequest = z
  .object({
    customer_id: z.string().optional(),
    entity_id: z.string().optional(),
    plan_id: z.string().optional(),
    limit: z.int().min(1).max(200).default(50),
    start_cursor: StartCursor,
    statuses: z.array(ListingStatusFilter).min(1).default([...DEFAULT_LISTING_STATUSES]),
  })
  .refine((body) => body.entity_id === undefined || body.customer_id !== undefined, {
    message: 'entity_id requires customer_id',
    path: ['entity_id'],
  })
  .meta({ id: 'RecordListRequest' });

export const SubscriptionsListResponse = cursorPageOf(SubscriptionRecord).meta({ id: 'SubscriptionsListResponse' });
export const PurchasesListResponse = cursorPageOf(PurchaseRecord).meta({ id: 'PurchasesListResponse' });
