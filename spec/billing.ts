/** `billing.attach`, the setup call that gives a customer or an entity a plan (reference). */
import { z } from 'zod';
import { Amount, Id } from './common.ts';
import { fromReference } from './meta.ts';

export const BillingAttachRequest = fromReference(
  z.object({
    customer_id: z.string(),
    plan_id: Id,
    entity_id: z.string().optional(),
    version: z.int().positive().optional(),
    // Total seats of each license pool, included seats counted: paid = max(0, quantity − included).
    license_quantities: z.array(z.object({ license_plan_id: Id, quantity: z.int().nonnegative() })).optional(),
    feature_quantities: z.array(z.object({ feature_id: Id, quantity: Amount.nonnegative() })).optional(),
    redirect_mode: z.enum(['always', 'if_required', 'never']).optional(),
    subscription_id: Id.optional(),
    success_url: z.string().optional(),
  }),
  'observed-behaviour §4',
  'openapi-2.3.0 /v1/billing.attach',
);

export const BillingAttachResult = fromReference(
  z.object({
    customer_id: z.string(),
    entity_id: z.string().optional(),
    payment_url: z.string().nullable(),
    invoice: z
      .object({
        status: z.string().nullable(),
        stripe_id: z.string(),
        total: z.number(),
        currency: z.string(),
        hosted_invoice_url: z.string().nullable(),
      })
      .optional(),
  }),
  'exchanges/029-billing.attach-free-main-plan.json',
  'openapi-2.3.0 /v1/billing.attach',
);
