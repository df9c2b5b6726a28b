/**
 * `billing.preview_multi_update` (documented): the billing effect of several plan updates, without
 * changing anything. Responses are snake_case on the wire (decision 2); the document's `customerId`
 * and `lineItems` are listed in `PREVIEW_DOCUMENTED_SPELLINGS` and accepted by the suite.
 */
import { z } from 'zod';
import { JsonObject, Money, Timestamp } from './common.ts';
import { fromReference } from './meta.ts';
import { CurrencyCode } from './plans.ts';

/** "`cancel_immediately` occurs"; the other values come from the reference. */
export const CancelAction = fromReference(
  z.enum(['cancel_immediately', 'cancel_end_of_cycle', 'uncancel']),
  'exchanges/139-billing.preview_multi_update-bad-cancel-action.json',
);

/** "refund mode": `prorated` refunds the unused portion, `full` the entire last payment. Default: prorated. */
export const RefundMode = z.enum(['prorated', 'full']);

export const PlanUpdate = z.object({
  plan_id: z.string(),
  cancel_action: CancelAction,
  entity_id: z.string().optional(),
  subscription_id: fromReference(z.string().optional(), 'observed-behaviour §3.6'),
  proration_behavior: fromReference(z.enum(['prorate_immediately', 'none']).optional(), 'observed-behaviour §3.6'),
});

export const PreviewMultiUpdateRequest = z
  .object({
    customer_id: z.string(),
    updates: z.array(PlanUpdate).min(1),
    entity_id: z.string().optional(),
    refund_last_payment: fromReference(RefundMode.optional(), 'autumn-js PreviewMultiUpdateParams', 'observed-behaviour §3.6'),
    subscription_params: fromReference(JsonObject.optional(), 'autumn-js PreviewMultiUpdateParams', 'observed-behaviour §3.6'),
  })
  .meta({ id: 'PreviewMultiUpdateRequest' });

export const PreviewLineItem = z.object({
  display_name: z.string(),
  description: z.string(),
  subtotal: Money,
  total: Money,
  discounts: z.array(JsonObject),
  // Not listed by interface.md; the reference sends them and the published client requires them.
  plan_id: fromReference(z.string().optional(), 'observed-behaviour §3.6', 'autumn-js PreviewMultiUpdateLineItem'),
  feature_id: fromReference(z.string().nullable().optional(), 'observed-behaviour §3.6', 'autumn-js PreviewMultiUpdateLineItem'),
  quantity: fromReference(z.number().optional(), 'observed-behaviour §3.6', 'autumn-js PreviewMultiUpdateLineItem'),
});

/** A plan a previewed update brings in (`incoming`) or takes out (`outgoing`). */
export const PreviewPlanChange = fromReference(
  z.object({
    plan_id: z.string(),
    feature_quantities: z.array(z.object({ feature_id: z.string(), quantity: z.number() })),
    effective_at: Timestamp.nullable(),
    canceled_at: Timestamp.nullable(),
    expires_at: Timestamp.nullable(),
  }),
  'observed-behaviour §3.6',
  'autumn-js PreviewMultiUpdateOutgoing',
);

/** One entry per affected payment-processor subscription. */
export const PreviewSubscription = z.object({
  customer_id: z.string(),
  line_items: z.array(PreviewLineItem),
  subtotal: Money,
  total: Money,
  currency: CurrencyCode,
  plan_ids: z.array(z.string()),
  // Not listed by interface.md; the reference sends them and the published client requires them.
  incoming: z.array(PreviewPlanChange).optional(),
  outgoing: z.array(PreviewPlanChange).optional(),
});

export const PreviewMultiUpdateResult = z
  .object({
    customer_id: z.string(),
    currency: CurrencyCode,
    total: Money,
    subscriptions: z.array(PreviewSubscription),
  })
  .meta({ id: 'PreviewMultiUpdateResult' });
