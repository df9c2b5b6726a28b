/** Customers: the setup calls `customers.get_or_create` and `customers.get` (reference). */
import { z } from 'zod';
import { Balance, Flag } from './balances.ts';
import { BillingControls, Env, ID_MAX_LENGTH, JsonObject, Timestamp } from './common.ts';
import { LicensePool } from './licenses.ts';
import { EmbeddedPurchase, EmbeddedSubscription, RecordScope } from './listings.ts';
import { fromReference } from './meta.ts';

/** A customer's subscription in `customers.get`: the embedded shape plus the record `id` and `scope`. */
export const CustomerSubscription = fromReference(
  EmbeddedSubscription.extend({ id: z.string(), scope: RecordScope }),
  'exchanges/031-customers.get-with-plans.json',
);

export const Customer = fromReference(
  z.object({
    id: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    created_at: Timestamp,
    fingerprint: z.string().nullable(),
    stripe_id: z.string().nullable(),
    env: Env,
    metadata: JsonObject,
    send_email_receipts: z.boolean(),
    billing_controls: JsonObject,
    subscriptions: z.array(CustomerSubscription),
    purchases: z.array(EmbeddedPurchase),
    licenses: z.array(LicensePool),
    balances: z.record(z.string(), Balance),
    flags: z.record(z.string(), Flag),
    config: JsonObject.optional(),
    processors: z.record(z.string(), JsonObject).optional(),
  }),
  'exchanges/027-customers.get_or_create-new.json',
  'exchanges/031-customers.get-with-plans.json',
);
export type Customer = z.infer<typeof Customer>;

/** Customer ids: the reference allows letters, digits, `_`, `:` and `-`. */
export const CustomerId = fromReference(z.string().min(1).max(ID_MAX_LENGTH).regex(/^[a-zA-Z0-9_:-]+$/), 'observed-behaviour §4');

export const CustomersGetOrCreateRequest = fromReference(
  z.object({
    customer_id: CustomerId,
    name: z.string().nullable().optional(),
    email: z.email().nullable().optional(),
    fingerprint: z.string().nullable().optional(),
    metadata: JsonObject.optional(),
    billing_controls: BillingControls.optional(),
    send_email_receipts: z.boolean().optional(),
  }),
  'exchanges/027-customers.get_or_create-new.json',
  'observed-behaviour §4',
);

export const CustomersGetRequest = fromReference(z.object({ customer_id: z.string() }), 'exchanges/031-customers.get-with-plans.json');

/** `customers.delete` (reference): removes the customer with what it holds. */
export const CustomersDeleteRequest = fromReference(
  z.object({ customer_id: z.string().min(1), delete_in_stripe: z.boolean().optional() }),
  'exchanges/166-customers.delete-customer-with-plan.json',
  'openapi-2.3.0 /v1/customers.delete',
);
