/**
 * Features: `features.create` (documented) and the setup calls `features.get`, `features.list`
 * (reference).
 */
import { z } from 'zod';
import { Amount, ID_MAX_LENGTH } from './common.ts';
import { fromReference, projectChoice } from './meta.ts';

export const FeatureType = z.enum(['boolean', 'metered', 'credit_system', 'ai_credit_system']);
export type FeatureType = z.infer<typeof FeatureType>;

export const FeatureDisplay = z.object({ singular: z.string(), plural: z.string() });

/** "default markup … minimum -100; -100 makes usage free". */
export const Markup = Amount.min(-100);

/** One graduated step of a credit cost: usage up to `to` costs `credit_cost` credits per unit. */
const CreditTier = z.object({ to: z.union([Amount.positive(), z.literal('inf')]), credit_cost: Amount.nonnegative() });

/**
 * One entry of a credit schema: "maps metered feature ids to flat or graduated credit costs".
 * interface.md: "Names and inner shapes of a feature's credit-schema … fields: not shown".
 */
export const CreditSchemaEntry = fromReference(
  z
    .object({
      metered_feature_id: z.string().min(1),
      credit_cost: Amount.nonnegative(),
      billing_units: Amount.positive().optional(),
      tier_behavior: z.literal('graduated').optional(),
      tiers: z.array(CreditTier).min(1).optional(),
    })
    .refine((entry) => (entry.tiers === undefined) === (entry.tier_behavior === undefined), {
      message: 'graduated credit costs need both tier_behavior and tiers',
      path: ['tiers'],
    }),
  'exchanges/004-features.create-credit-system.json',
  'autumn-js CreateFeatureCreditSchemaRequestBody1',
);

export const ModelMarkup = fromReference(
  z.object({ markup: Markup.optional(), input_cost: Amount.nonnegative().optional(), output_cost: Amount.nonnegative().optional() }),
  'observed-behaviour §3.8',
);
export const ProviderMarkup = fromReference(z.object({ markup: Markup }), 'observed-behaviour §3.8');

export const FeaturesCreateRequest = z
  .object({
    // No bound in the document; an empty id could never be checked or tracked, so it is refused (the reference answers 500).
    feature_id: z.string().min(1).max(ID_MAX_LENGTH),
    name: z.string().min(1),
    type: FeatureType,
    consumable: z.boolean().optional(),
    display: FeatureDisplay.optional(),
    credit_schema: z.array(CreditSchemaEntry).optional(),
    invoice_credits: projectChoice(
      z.boolean().optional(),
      'interface.md names an "invoice-credit flag" for classic credit systems but shows no wire name, and the reference has none',
    ),
    model_markups: fromReference(z.record(z.string(), ModelMarkup).optional(), 'observed-behaviour §3.8'),
    default_markup: fromReference(Markup.optional(), 'exchanges/005-features.create-ai-credit-system.json'),
    provider_markups: fromReference(z.record(z.string(), ProviderMarkup).optional(), 'observed-behaviour §3.8'),
    event_names: fromReference(z.array(z.string().min(1)).optional(), 'observed-behaviour §3.8'),
  })
  .superRefine((body, ctx) => {
    const isCreditSystem = body.type === 'credit_system';
    const isAiCreditSystem = body.type === 'ai_credit_system';
    // "applicable only to metered features": ignored for boolean ones, as the reference does; credit systems always reset.
    if (body.consumable === false && (isCreditSystem || isAiCreditSystem)) {
      ctx.addIssue({ code: 'custom', path: ['consumable'], message: 'credit systems are always consumable' });
    }
    if (isCreditSystem && (body.credit_schema === undefined || body.credit_schema.length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['credit_schema'], message: 'a credit system needs a credit schema' });
    }
    if (!isCreditSystem && body.credit_schema !== undefined && body.credit_schema.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['credit_schema'], message: 'credit_schema applies only to classic credit systems' });
    }
    if (!isCreditSystem && body.invoice_credits !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['invoice_credits'], message: 'invoice_credits applies only to classic credit systems' });
    }
    for (const field of ['model_markups', 'default_markup', 'provider_markups'] as const) {
      if (!isAiCreditSystem && body[field] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} applies only to AI credit systems` });
      }
    }
  })
  .meta({ id: 'FeaturesCreateRequest' });

export const Feature = z
  .object({
    id: z.string(),
    name: z.string(),
    type: FeatureType,
    consumable: z.boolean(),
    archived: z.boolean(),
    display: FeatureDisplay,
    event_names: fromReference(z.array(z.string()).optional(), 'exchanges/001-features.create-boolean.json'),
    credit_schema: z.array(CreditSchemaEntry).optional(),
    invoice_credits: z.boolean().optional(),
    model_markups: z.record(z.string(), ModelMarkup).optional(),
    default_markup: z.number().optional(),
    provider_markups: z.record(z.string(), ProviderMarkup).optional(),
    processors: fromReference(
      z.object({ stripe: z.object({ product_id: z.string().optional(), meter_id: z.string().optional() }).optional() }).optional(),
      'autumn-js CreateFeatureResponse',
    ),
  })
  .meta({ id: 'Feature' });
export type Feature = z.infer<typeof Feature>;

export const FeaturesGetRequest = fromReference(z.object({ feature_id: z.string() }), 'observed-behaviour §4');
export const FeaturesListRequest = fromReference(z.object({}), 'observed-behaviour §4');
export const FeaturesListResponse = z.object({ list: z.array(Feature) });

/** `features.delete` (reference): removes a feature no plan and no credit system uses. */
export const FeaturesDeleteRequest = fromReference(
  z.object({ feature_id: z.string().min(1) }),
  'exchanges/168-features.delete-unused-feature.json',
  'openapi-2.3.0 /v1/features.delete',
);
