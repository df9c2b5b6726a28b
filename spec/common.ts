/**
 * Shapes shared by every part of the interface: timestamps, environments, the error body, list
 * envelopes and the small objects several resources embed.
 */
import { z } from 'zod';
import { fromReference, type ReferenceSource } from './meta.ts';

/** "Timestamps are Unix time in milliseconds (integers)." */
export const Timestamp = z.int().nonnegative().meta({ description: 'Unix time in milliseconds' });

/**
 * The largest magnitude of a number a request may give the fake to compute with (an amount, a
 * quantity, a usage value). interface.md bounds none; a near-1.8e308 value summed or multiplied
 * overflows to Infinity, which JSON answers as null. Within ±2^53 − 1 every count is still exact,
 * and sums and products of such numbers stay finite for any number of requests. The reference uses
 * the same bound for `max_redemptions` (observed-behaviour §3.10).
 */
export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

/**
 * A finite number of at most MAX_AMOUNT in magnitude, for request fields the fake computes with. The
 * bound's provenance is in its description, not an `x-provenance` mark: a mark would travel to the
 * documented constraints of the fields built on it (`positive`, `min(-100)`) and demote them.
 */
export const Amount = z
  .number()
  .min(-MAX_AMOUNT)
  .max(MAX_AMOUNT)
  .meta({ description: 'At most 2^53 − 1 in magnitude: a bound this project adds (interface.md states none; the reference bounds max_redemptions alike), so every sum stays finite' });

/** "Money amounts are in the major unit of the currency." */
export const Money = z.number().meta({ description: 'Amount in the major unit of the currency' });

/** A money amount in a request, bounded like every Amount. */
export const MoneyInput = Amount.meta({ description: 'Amount in the major unit of the currency' });

export const Env = z.enum(['sandbox', 'live']);
export type Env = z.infer<typeof Env>;

export type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Arbitrary JSON key-value data (plan metadata, event properties, processor parameters), every key
 * kept. zod's record drops a `__proto__` key (it would replace the prototype of the object it
 * builds); this passes the parsed object through as it is, so every key round-trips.
 */
export const JsonObject = z
  .custom<JsonObject>(isJsonObject, { message: 'Invalid input: expected record' })
  .meta({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} });

/**
 * The longest ID a call may create (customer, entity, feature, plan, referral program, reward,
 * lock). interface.md bounds no ID; the reference bounds `lock_id` at 256 characters
 * (openapi-2.3.0 /v1/balances.check), and this project holds every created ID to the same, so
 * storage and answers stay proportionate to what an application sends.
 */
export const ID_MAX_LENGTH = 256;

/**
 * A non-empty identifier of at most ID_MAX_LENGTH characters; an empty one can never name anything.
 * The length bound's provenance is in its description (see Amount for why not a mark).
 */
export const Id = z
  .string()
  .min(1)
  .max(ID_MAX_LENGTH)
  .meta({ description: 'At most 256 characters: a bound this project adds (interface.md states none; the reference bounds lock_id at 256)' });

export const ErrorBody = fromReference(
  z
    .object({
      message: z.string(),
      code: z.string().regex(/^[a-z0-9_]+$/, 'snake_case error code'),
      env: Env,
    })
    .meta({ id: 'ErrorBody', description: 'Body of every non-2xx response' }),
  'observed-behaviour §1.1',
  'exchanges/006-features.create-duplicate-id.json',
);
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * Error codes and statuses (interface.md: "Error response body shape: not shown", "Status codes and
 * error codes for each failing condition: not shown"). Most are the reference's; the few marked
 * `decision 5` are the fake's clearer answers where the reference has none (DESIGN.md, decision 5),
 * and the suite never fails a target over those.
 */
export const ERROR_CODES = {
  invalid_inputs: { status: 400, source: 'exchanges/020-plans.create-bad-id-characters.json' },
  invalid_request: { status: 400, source: 'exchanges/072-licenses.attach-duplicate-entity-ids.json' },
  invalid_json: { status: 400, source: 'decision 5' },
  invalid_cursor: { status: 400, source: 'exchanges/061-entities.list-bad-cursor.json' },
  invalid_api_version: { status: 400, source: 'exchanges/146-customers.get-api-version-9.9.9.json' },
  invalid_feature: { status: 400, source: 'observed-behaviour §3.8' },
  product_already_exists: { status: 400, source: 'exchanges/019-plans.create-duplicate-id.json' },
  no_secret_key: { status: 401, source: 'exchanges/140-customers.get-no-authorization.json' },
  invalid_secret_key: { status: 401, source: 'exchanges/141-customers.get-wrong-key.json' },
  customer_not_found: { status: 404, source: 'exchanges/098-balances.check-unknown-customer.json' },
  entity_not_found: { status: 404, source: 'exchanges/045-entities.get-unknown-id.json' },
  product_not_found: { status: 404, source: 'exchanges/024-plans.get-unknown-id.json' },
  feature_not_found: { status: 404, source: 'exchanges/097-balances.check-unknown-feature.json' },
  cus_product_not_found: { status: 404, source: 'exchanges/137-billing.preview_multi_update-plan-not-on-customer.json' },
  reward_not_found: { status: 404, source: 'observed-behaviour §3.10' },
  reward_program_not_found: { status: 404, source: 'exchanges/125-referral_programs.update-unknown-program.json' },
  lock_not_found: { status: 404, source: 'decision 5' },
  route_not_found: { status: 404, source: 'decision 5' },
  method_not_allowed: { status: 405, source: 'decision 5' },
  request_timeout: { status: 408, source: 'decision 5' },
  duplicate_feature_id: { status: 409, source: 'exchanges/006-features.create-duplicate-id.json' },
  entity_already_exists: { status: 409, source: 'exchanges/039-entities.create-duplicate-id.json' },
  payload_too_large: { status: 413, source: 'decision 5' },
  request_header_fields_too_large: { status: 431, source: 'decision 5' },
  rate_limit_exceeded: { status: 429, source: 'observed-behaviour §1.2' },
  internal_error: { status: 500, source: 'observed-behaviour §1.1' },
} as const satisfies Record<string, { status: number; source: ReferenceSource | 'decision 5' }>;
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * A refusal because the object is still in use (deleting a feature a plan uses): the reference
 * answers its code with 409, not the 400 the table gives it.
 */
export const IN_USE_ERROR = { code: 'invalid_request', status: 409, source: 'exchanges/169-features.delete-feature-used-by-plan.json' } as const satisfies {
  code: ErrorCode;
  status: number;
  source: ReferenceSource;
};

/** Plan-level billing controls, also customer and entity defaults. interface.md: "Inner shapes of … `billing_controls` … not shown". */
export const BillingControls = fromReference(
  z.object({
    auto_topups: z.array(JsonObject).optional(),
    spend_limits: z.array(JsonObject).optional(),
    usage_limits: z.array(JsonObject).optional(),
    usage_alerts: z.array(JsonObject).optional(),
    overage_allowed: z.array(z.object({ feature_id: z.string(), enabled: z.boolean().default(false) })).optional(),
  }),
  'observed-behaviour §3.7',
  'openapi-2.3.0 /v1/plans.create',
);

/** `{success: true}`, the answer of the write operations that return no resource. */
export const Success = z.object({ success: z.literal(true) }).meta({ id: 'Success' });

/** Envelope of `licenses.list` and the other unpaginated lists. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ list: z.array(item) });
}

/**
 * Envelope of the cursor-paginated listings: "`next_cursor` is null when `has_more` is false. A page
 * may hold fewer than `limit` rows, even zero, while `has_more` is true."
 */
export function cursorPageOf<T extends z.ZodType>(item: T) {
  return z.object({ list: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });
}

/** `start_cursor`: "default empty string = first page; otherwise the `next_cursor` of a prior response". */
export const StartCursor = z.string().default('');

/** Display texts of a price or an item, in their snake_case wire spelling (decision 2). */
export const Display = z.object({ primary_text: z.string(), secondary_text: z.string().optional() });

/**
 * Response keys the document spells in a client library's camelCase (decision 2): wire key →
 * documented spelling. The fake emits the wire key; the suite accepts either spelling.
 */
export const PLAN_DOCUMENTED_SPELLINGS = {
  add_on: 'addOn',
  auto_enable: 'autoEnable',
  created_at: 'createdAt',
  base_variant_id: 'baseVariantId',
  free_trial: 'freeTrial',
  primary_text: 'primaryText',
  secondary_text: 'secondaryText',
  feature_id: 'featureId',
  billing_units: 'billingUnits',
  billing_method: 'billingMethod',
  max_purchase: 'maxPurchase',
  duration_length: 'durationLength',
  duration_type: 'durationType',
  card_required: 'cardRequired',
} as const;

export const PREVIEW_DOCUMENTED_SPELLINGS = {
  customer_id: 'customerId',
  line_items: 'lineItems',
} as const;
