/** Features: `features.create` (documented), `features.get` and `features.list` (setup). */
import type { Feature } from '../../spec/features.ts';
import type { TenantStore } from '../store/tenant-store.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';

export function requireFeature(store: TenantStore, featureId: string): Feature {
  return store.features.get(featureId) ?? fail('feature_not_found', `Feature ${featureId} not found`);
}

export function createFeature(ctx: DomainContext, input: InputOf<'features.create'>): OutputOf<'features.create'> {
  const { store } = ctx;
  if (store.features.has(input.feature_id)) fail('duplicate_feature_id', `Feature ${input.feature_id} already exists`);
  for (const [i, entry] of (input.credit_schema ?? []).entries()) {
    if (input.credit_schema!.findIndex((other) => other.metered_feature_id === entry.metered_feature_id) !== i) {
      fail('invalid_feature', `Feature ${entry.metered_feature_id} appears twice in the credit schema`);
    }
    const metered = store.features.get(entry.metered_feature_id);
    // An unknown feature is tolerated, as in the reference; a known one must be a consumable metered feature.
    if (metered !== undefined && (metered.type !== 'metered' || !metered.consumable)) {
      fail('invalid_feature', `Credit schemas take consumable metered features; ${metered.id} is not one`);
    }
  }
  const isCreditSystem = input.type === 'credit_system' || input.type === 'ai_credit_system';
  const feature: Feature = {
    id: input.feature_id,
    name: input.name,
    type: input.type,
    consumable: isCreditSystem || (input.type === 'metered' && input.consumable === true),
    archived: false,
    display: input.display ?? { singular: input.name, plural: input.name },
    event_names: input.event_names ?? [],
    ...(input.credit_schema !== undefined && { credit_schema: input.credit_schema }),
    ...(input.invoice_credits !== undefined && { invoice_credits: input.invoice_credits }),
    ...(input.model_markups !== undefined && { model_markups: input.model_markups }),
    ...(input.default_markup !== undefined && { default_markup: input.default_markup }),
    ...(input.provider_markups !== undefined && { provider_markups: input.provider_markups }),
  };
  store.features.set(feature.id, feature);
  return feature;
}

export function getFeature(ctx: DomainContext, input: InputOf<'features.get'>): OutputOf<'features.get'> {
  return requireFeature(ctx.store, input.feature_id);
}

export function listFeatures(ctx: DomainContext): OutputOf<'features.list'> {
  return { list: [...ctx.store.features.values()] };
}

/** The credit systems whose schema prices this metered feature, in creation order. */
export function creditSystemsCovering(store: TenantStore, featureId: string): Feature[] {
  return [...store.features.values()].filter(
    (feature) => feature.type === 'credit_system' && (feature.credit_schema ?? []).some((entry) => entry.metered_feature_id === featureId),
  );
}
