/**
 * Plans: `plans.create`, `plans.get` (documented) and the setup calls `plans.list`, `plans.update`
 * (reference). Responses are in the snake_case wire form (decision 2); the document's camelCase
 * spellings are listed in `PLAN_DOCUMENTED_SPELLINGS` and accepted by the suite.
 */
import { z } from 'zod';
import { Amount, BillingControls, Display, Env, ID_MAX_LENGTH, JsonObject, Money, MoneyInput, Timestamp } from './common.ts';
import { fromReference } from './meta.ts';

/** "`plan_id` matches `^[a-zA-Z0-9_-]+$`, minimum length 1"; at most ID_MAX_LENGTH long (this project's bound). */
export const PLAN_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
export const PlanId = z.string().min(1).max(ID_MAX_LENGTH).regex(PLAN_ID_PATTERN);

/** Billing intervals of a price; interface.md shows `month`, the reference accepts these. */
export const PriceInterval = fromReference(
  z.enum(['one_off', 'week', 'month', 'quarter', 'semi_annual', 'year']),
  'openapi-2.3.0 /v1/plans.create',
);
/** Reset intervals of an item; interface.md shows `month`, the reference accepts these. */
export const ResetInterval = fromReference(
  z.enum(['one_off', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'semi_annual', 'year']),
  'openapi-2.3.0 /v1/plans.create',
);

/** A three-letter ISO 4217 code; the reference answers in lower case (`usd`). */
export const CurrencyCode = z.string().regex(/^[A-Za-z]{3}$/);

/** "Amounts are explicit per currency, no exchange rates are applied." */
export const AdditionalCurrency = z.object({ currency: CurrencyCode, amount: MoneyInput });
const AdditionalCurrencies = z
  .array(AdditionalCurrency)
  .refine((list) => new Set(list.map((c) => c.currency.toLowerCase())).size === list.length, 'each currency at most once');

export const BasePriceInput = z.object({
  amount: MoneyInput.nonnegative(),
  interval: PriceInterval,
  interval_count: z.int().positive().optional(),
  additional_currencies: AdditionalCurrencies.optional(),
});

/** Base price: "`amount` number; `interval` string (`month` occurs); `display` `{primaryText: string, secondaryText: string}`". */
export const BasePrice = z.object({
  amount: Money,
  interval: PriceInterval,
  interval_count: z.int().positive().optional(),
  additional_currencies: z.array(AdditionalCurrency).optional(),
  display: Display.extend({ secondary_text: z.string() }),
});

/** "`tiers` array of `{to: number or the string inf, amount: number}`"; a tier may carry its own currencies. */
export const PriceTier = z.object({
  to: z.union([Amount.positive(), z.literal('inf')]),
  amount: MoneyInput,
  additional_currencies: AdditionalCurrencies.optional(),
});

export const BillingMethod = z.enum(['usage_based', 'prepaid']);

export const ItemPriceInput = z
  .object({
    amount: MoneyInput.nonnegative().optional(),
    tiers: z.array(PriceTier).min(1).optional(),
    tier_behavior: fromReference(z.enum(['graduated', 'volume']).optional(), 'openapi-2.3.0 /v1/plans.create'),
    interval: PriceInterval,
    interval_count: z.int().positive().optional(),
    billing_units: Amount.positive().default(1),
    billing_method: BillingMethod,
    max_purchase: Amount.nonnegative().nullable().optional(),
    additional_currencies: AdditionalCurrencies.optional(),
  })
  .refine((price) => (price.amount === undefined) !== (price.tiers === undefined), {
    message: 'a price has either amount or tiers',
    path: ['amount'],
  })
  .refine((price) => price.tiers === undefined || price.tiers.at(-1)?.to === 'inf', {
    message: 'the last tier must reach "inf"',
    path: ['tiers'],
  })
  .refine(
    (price) => (price.tiers ?? []).every((tier, i, all) => i === 0 || numericTo(all[i - 1]!.to) < numericTo(tier.to)),
    { message: 'tier boundaries must increase', path: ['tiers'] },
  );

function numericTo(to: number | 'inf'): number {
  return to === 'inf' ? Number.POSITIVE_INFINITY : to;
}

/** Item price: "`amount` number, or `tiers` …; `interval` string; `billingUnits` number; `billingMethod` …; `maxPurchase` number or null". */
export const ItemPrice = z.object({
  amount: Money.optional(),
  tiers: z.array(PriceTier).optional(),
  tier_behavior: z.enum(['graduated', 'volume']).optional(),
  interval: PriceInterval,
  interval_count: z.int().positive().optional(),
  billing_units: z.number(),
  billing_method: BillingMethod,
  max_purchase: z.number().nullable(),
  additional_currencies: z.array(AdditionalCurrency).optional(),
});

export type ItemPrice = z.infer<typeof ItemPrice>;

export const ItemReset = z.object({ interval: ResetInterval, interval_count: z.int().positive().optional() });

/** Plan item, request form: "uses snake_case: `feature_id`, `included`, `reset`, `price`". */
export const PlanItemInput = z.object({
  feature_id: z.string().min(1),
  // The reference rejects more than 10 trillion: "use unlimited usage instead".
  included: z.number().nonnegative().max(10_000_000_000_000).optional(),
  unlimited: z.boolean().optional(),
  reset: ItemReset.optional(),
  price: ItemPriceInput.optional(),
});

/** Plan item: "`featureId` string; `included` number; `unlimited` boolean; `reset` object `{interval}` or null; `price` object or null; `display`". */
export const PlanItem = z.object({
  feature_id: z.string(),
  included: z.number(),
  unlimited: z.boolean(),
  reset: ItemReset.nullable(),
  price: ItemPrice.nullable(),
  display: Display,
});

/** "Free trial (as spelled in the request)": the request form's wire names are snake_case. */
export const FreeTrialInput = z.object({
  duration_length: z.int().positive(),
  duration_type: z.enum(['day', 'month', 'year']).default('month'),
  card_required: z.boolean().default(true),
});

export const FreeTrial = z.object({
  duration_length: z.number(),
  duration_type: z.enum(['day', 'month', 'year']),
  card_required: z.boolean(),
  on_end: fromReference(z.enum(['bill', 'revert']).nullable().optional(), 'exchanges/016-plans.create-free-trial.json'),
});

/** "license links": plans offered as assignable licenses. interface.md: wire name not shown. */
export const LicenseLinkInput = fromReference(
  z.object({
    license_plan_id: z.string().min(1),
    included: z.int().nonnegative().default(0),
    prepaid_only: z.boolean().optional(),
  }),
  'exchanges/018-plans.create-license-parent.json',
  'observed-behaviour §3.7',
);

export const LicenseLink = fromReference(
  z.object({ license_plan_id: z.string(), version: z.int(), included: z.number(), prepaid_only: z.boolean() }),
  'exchanges/026-plans.get-license-parent.json',
);

/** `config`: "Plan flags; contains `ignore_past_due` (boolean)". */
export const PlanConfig = z.object({ ignore_past_due: z.boolean() });

const PlanItemInputs = z
  .array(PlanItemInput)
  .refine((items) => new Set(items.map((i) => i.feature_id)).size === items.length, 'each feature at most once');

export const PlansCreateRequest = z
  .object({
    plan_id: PlanId,
    name: z.string().min(1),
    group: z.string().optional(),
    description: z.string().nullable().optional(),
    add_on: z.boolean().default(false),
    auto_enable: z.boolean().default(false),
    price: BasePriceInput.optional(),
    items: PlanItemInputs.default([]),
    licenses: fromReference(z.array(LicenseLinkInput).optional(), 'exchanges/018-plans.create-license-parent.json'),
    free_trial: fromReference(FreeTrialInput.optional(), 'exchanges/016-plans.create-free-trial.json'),
    config: fromReference(PlanConfig.partial().optional(), 'observed-behaviour §3.7'),
    billing_controls: fromReference(BillingControls.optional(), 'observed-behaviour §3.7'),
    metadata: fromReference(JsonObject.optional(), 'observed-behaviour §3.7'),
    create_in_stripe: fromReference(z.boolean().optional(), 'observed-behaviour §3.7'),
  })
  .meta({ id: 'PlansCreateRequest' });

export const Plan = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    group: z.string().nullable(),
    version: z.int().positive(),
    version_slug: z.string(),
    active: z.boolean(),
    add_on: z.boolean(),
    auto_enable: z.boolean(),
    price: BasePrice.nullable(),
    items: z.array(PlanItem),
    created_at: Timestamp,
    env: Env,
    archived: z.boolean(),
    base_variant_id: z.string().nullable(),
    config: PlanConfig,
    billing_controls: JsonObject,
    metadata: JsonObject,
    variant_details: z.looseObject({ base_plan_id: z.string() }).optional(),
    processors: JsonObject.optional(),
    free_trial: FreeTrial.optional(),
    licenses: fromReference(z.array(LicenseLink).optional(), 'exchanges/026-plans.get-license-parent.json'),
  })
  .meta({ id: 'Plan' });
export type Plan = z.infer<typeof Plan>;

export const PlansGetRequest = z
  .object({ plan_id: z.string(), version: z.int().optional() })
  .meta({ id: 'PlansGetRequest' });

export const PlansListRequest = fromReference(
  z.object({ customer_id: z.string().optional(), include_archived: z.boolean().optional(), all_versions: z.boolean().optional() }),
  'observed-behaviour §4',
);
export const PlansListResponse = z.object({ list: z.array(Plan) });

/**
 * `plans.delete` (reference): removes the latest version of a plan, or every version with
 * `all_versions`; a plan some customer holds (or held) is refused.
 */
export const PlansDeleteRequest = fromReference(
  z.object({ plan_id: z.string().min(1), all_versions: z.boolean().optional() }),
  'exchanges/170-plans.delete-unused-plan.json',
  'openapi-2.3.0 /v1/plans.delete',
);

/**
 * `plans.update` (reference): the create fields, all optional, plus `archived`. A change of items,
 * price, free trial, licenses or billing controls creates a new version; the rest changes in place.
 */
export const PlansUpdateRequest = fromReference(
  PlansCreateRequest.omit({ add_on: true, auto_enable: true, items: true, create_in_stripe: true })
    .partial()
    .extend({
      plan_id: z.string(),
      add_on: z.boolean().optional(),
      auto_enable: z.boolean().optional(),
      items: PlanItemInputs.optional(),
      price: BasePriceInput.nullable().optional(),
      free_trial: FreeTrialInput.nullable().optional(),
      archived: z.boolean().optional(),
    }),
  'exchanges/032-plans.update-new-version.json',
  'observed-behaviour §3.7',
);
