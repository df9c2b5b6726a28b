/**
 * Entity rows as entities.create and licenses.attach make them: the checks every new entity passes
 * (a unique id, a known non-consumable feature), in one place both operations call.
 */
import type { EntityRow } from '../store/tenant-store.ts';
import { type DomainContext, fail } from './context.ts';
import { requireFeature } from './features.ts';

/** Builds (without storing) a new entity, after the checks entities.create makes. */
export function createEntityRow(
  ctx: DomainContext,
  fields: { customerId: string; entityId: string; featureId: string; name?: string | null | undefined },
): EntityRow {
  const { store } = ctx;
  if (store.entities.has(fields.entityId)) fail('entity_already_exists', `Entity ${fields.entityId} already exists`);
  const feature = requireFeature(store, fields.featureId);
  if (feature.consumable) {
    fail(
      'invalid_request',
      `Feature '${feature.id}' is consumable (e.g. credits, API calls). Entities can only be created for non-consumable features (e.g. seats).`,
    );
  }
  return {
    id: fields.entityId,
    customerId: fields.customerId,
    name: fields.name ?? null,
    featureId: feature.id,
    createdAt: ctx.clock.now(),
    billingControls: {},
    allocation: [],
  };
}
