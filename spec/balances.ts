/**
 * Balances: the Balance resource with its breakdown, `balances.check` (documented), and the setup
 * calls `balances.track` and `balances.finalize` (reference).
 */
import { z } from 'zod';
import { Amount, Id, JsonObject, Timestamp } from './common.ts';
import { fromReference } from './meta.ts';

/** `reset` of a breakdown entry: "`{interval: string, resets_at: timestamp}` (`interval` value `month` occurs)". */
export const BalanceReset = z.object({
  interval: z.string(),
  interval_count: fromReference(z.number().optional(), 'observed-behaviour §3.9'),
  resets_at: Timestamp,
});

/** Price of a priced grant. interval.md: "Shape of `price` inside a balance breakdown entry other than null: not shown". */
export const BreakdownPrice = fromReference(
  z.object({
    amount: z.number().optional(),
    tiers: z.array(z.object({ to: z.union([z.number(), z.literal('inf')]), amount: z.number().optional() })).optional(),
    tier_behavior: z.enum(['graduated', 'volume']).optional(),
    billing_units: z.number(),
    billing_method: z.enum(['prepaid', 'usage_based']),
    max_purchase: z.number().nullable(),
  }),
  'observed-behaviour §3.9',
);

/** "Breakdown entry": one per grant source. */
export const BreakdownEntry = z
  .object({
    id: z.string(),
    plan_id: z.string(),
    included_grant: z.number(),
    prepaid_grant: z.number(),
    remaining: z.number(),
    usage: z.number(),
    unlimited: z.boolean(),
    // A grant that never resets (allocated or unlimited items) has none; the reference sends null.
    reset: fromReference(BalanceReset.nullable(), 'exchanges/043-entities.create-other-customer.json'),
    price: BreakdownPrice.nullable(),
    expires_at: Timestamp.nullable(),
  })
  .meta({ id: 'BalanceBreakdownEntry' });

export const Balance = z
  .object({
    feature_id: z.string(),
    granted: z.number(),
    remaining: z.number(),
    usage: z.number(),
    unlimited: z.boolean(),
    overage_allowed: z.boolean(),
    max_purchase: z.number().nullable(),
    // Allocated and unlimited balances never reset; the reference sends null for them.
    next_reset_at: fromReference(Timestamp.nullable(), 'exchanges/095-balances.check-unlimited.json'),
    breakdown: z.array(BreakdownEntry),
  })
  .meta({ id: 'Balance' });
export type Balance = z.infer<typeof Balance>;

/** The flag object of a boolean feature: "`{id, plan_id, expires_at, feature_id}`". */
export const Flag = z
  .object({ id: z.string(), plan_id: z.string(), expires_at: Timestamp.nullable(), feature_id: z.string() })
  .meta({ id: 'Flag' });

/** Lock settings. interface.md: "Names of the check request fields that carry … the reservation (lock) settings: not shown". */
export const LockSettings = fromReference(
  z.object({ lock_id: z.string().min(1).max(256), enabled: z.literal(true), expires_at: Timestamp.optional() }),
  'observed-behaviour §3.9',
  'openapi-2.3.0 /v1/balances.check',
);

export const BalancesCheckRequest = z
  .object({
    customer_id: z.string(),
    feature_id: z.string(),
    entity_id: z.string().optional(),
    required_balance: Amount.default(1),
    send_event: z.boolean().optional(),
    properties: fromReference(JsonObject.optional(), 'observed-behaviour §3.9', 'openapi-2.3.0 /v1/balances.check'),
    lock: LockSettings.optional(),
    with_preview: z.boolean().optional(),
  })
  .meta({ id: 'BalancesCheckRequest' });

/** Upgrade information. interface.md: "Shape of the upgrade information in a check result … not shown". */
export const CheckPreview = fromReference(
  z.object({
    scenario: z.enum(['usage_limit', 'feature_flag']),
    title: z.string(),
    message: z.string(),
    feature_id: z.string(),
    feature_name: z.string(),
    products: z.array(z.looseObject({ id: z.string(), name: z.string().nullable() })),
  }),
  'exchanges/103-balances.check-with-preview-denied.json',
);

export const BalancesCheckResult = z
  .object({
    allowed: z.boolean(),
    customer_id: z.string(),
    // "entity_id string or null"; the reference omits it when no entity was given, read as null.
    entity_id: fromReference(z.string().nullable().optional(), 'exchanges/087-balances.check-consumable-remaining.json'),
    required_balance: z.number(),
    balance: Balance.nullable(),
    flag: Flag.nullable().optional(),
    // A linked credit system the customer holds no balance of reads as null in the reference.
    balances: z.record(z.string(), Balance.nullable()),
    preview: CheckPreview.nullable().optional(),
  })
  .meta({ id: 'BalancesCheckResult' });

export const OverageBehavior = fromReference(z.enum(['cap', 'overflow']), 'observed-behaviour §4');

export const BalancesTrackRequest = fromReference(
  z
    .object({
      customer_id: z.string(),
      feature_id: z.string().optional(),
      event_name: Id.optional(),
      entity_id: z.string().optional(),
      value: Amount.default(1),
      properties: JsonObject.optional(),
      timestamp: Timestamp.optional(),
      overage_behavior: OverageBehavior.optional(),
      lock: LockSettings.optional(),
    })
    .refine((body) => (body.feature_id === undefined) !== (body.event_name === undefined), {
      message: 'Provide exactly one of feature_id or event_name',
      path: ['feature_id'],
    }),
  'observed-behaviour §4',
  'openapi-2.3.0 /v1/balances.track',
);

export const Deduction = z.object({
  balance_id: z.string(),
  feature_id: z.string(),
  plan_id: z.string().nullable(),
  reset: BalanceReset.nullable(),
  value: z.number(),
});

export const BalancesTrackResult = fromReference(
  z.object({
    customer_id: z.string(),
    entity_id: z.string().optional(),
    event_name: z.string().optional(),
    value: z.number(),
    balance: Balance.nullable(),
    balances: z.record(z.string(), Balance.nullable()).optional(),
    deductions: z.array(Deduction).optional(),
  }),
  'exchanges/108-balances.track-once.json',
);

export const BalancesFinalizeRequest = fromReference(
  z.object({
    lock_id: z.string().min(1),
    action: z.enum(['confirm', 'release']),
    override_value: Amount.optional(),
    properties: JsonObject.optional(),
  }),
  'observed-behaviour §3.9',
  'openapi-2.3.0 /v1/balances.finalize',
);

export const BalancesFinalizeResult = fromReference(z.object({ success: z.literal(true) }), 'openapi-2.3.0 /v1/balances.finalize');
