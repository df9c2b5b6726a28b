/**
 * Entities: `entities.list` (documented) and the setup calls `entities.create`, `entities.get`,
 * `entities.delete` (reference).
 */
import { z } from 'zod';
import { Balance, Flag } from './balances.ts';
import { BillingControls, Env, Id, JsonObject, StartCursor, Timestamp } from './common.ts';
import { CustomerId } from './customers.ts';
import { EmbeddedPurchase, EmbeddedSubscription } from './listings.ts';
import { fromReference } from './meta.ts';

/** interface.md: "Invoice record fields: not shown". */
export const Invoice = fromReference(JsonObject, 'openapi-2.3.0 /v1/customers.get');

export const Entity = z
  .object({
    id: z.string(),
    // The reference answers null for an entity created without a name.
    name: fromReference(z.string().nullable(), 'observed-behaviour §3.5'),
    customer_id: z.string(),
    feature_id: z.string(),
    created_at: Timestamp,
    env: Env,
    subscriptions: z.array(EmbeddedSubscription),
    purchases: z.array(EmbeddedPurchase),
    balances: z.record(z.string(), Balance),
    invoices: z.array(Invoice),
  })
  .meta({ id: 'Entity' });
export type Entity = z.infer<typeof Entity>;

/** The payment processors of the processor filter ("<processor_1>, <processor_2>, <processor_3>"). */
export const Processor = fromReference(z.enum(['stripe', 'revenuecat', 'vercel']), 'openapi-2.3.0 /v1/entities.list');

/**
 * "plan filter": the reference's wire form is an array of plans, each with optional versions. The
 * reference types a version here as a plain number (no integer or safe-integer cap, no minimum): a
 * version no plan has matches nothing, it is not refused.
 */
export const EntityPlanFilter = fromReference(
  z.array(z.object({ id: z.string(), versions: z.array(z.number()).optional() })),
  'exchanges/052-entities.list-plan-filter-inherited.json',
  'exchanges/053-entities.list-plan-filter-version.json',
);

/** Entity plan hydration filter (States table): `active`, `scheduled`. */
export const EntityStatusFilter = z.enum(['active', 'scheduled']);

export const EntitiesListRequest = z
  .object({
    start_cursor: StartCursor,
    limit: z.int().min(1).max(5000).default(50),
    customer_id: z.string().min(1).optional(),
    plans: EntityPlanFilter.optional(),
    statuses: z.array(EntityStatusFilter).default(['active', 'scheduled']),
    search: fromReference(z.string().optional(), 'exchanges/051-entities.list-search-filter.json'),
    processors: fromReference(z.array(Processor).optional(), 'exchanges/058-entities.list-processors-filter.json'),
  })
  .meta({ id: 'EntitiesListRequest' });

export const EntitiesListResponse = z
  .object({ list: z.array(Entity), next_cursor: z.string().nullable() })
  .meta({ id: 'EntitiesListResponse' });

/** What `entities.create` and `entities.get` return in the reference: the entity plus flags and billing controls. */
export const EntityDetail = fromReference(
  Entity.extend({
    feature_id: z.string().optional(),
    invoices: z.array(Invoice).optional(),
    flags: z.record(z.string(), Flag),
    billing_controls: JsonObject,
  }),
  'exchanges/044-entities.get-basic.json',
);

export const EntitiesCreateRequest = fromReference(
  z.object({
    // The customer it creates when missing follows customers.get_or_create's rule: one ID rule for both.
    customer_id: CustomerId,
    entity_id: Id,
    feature_id: Id,
    name: z.string().nullable().optional(),
    billing_controls: BillingControls.optional(),
  }),
  'exchanges/037-entities.create-allocated-feature.json',
  'observed-behaviour §4',
);

export const EntitiesGetRequest = fromReference(
  z.object({ customer_id: z.string().optional(), entity_id: z.string() }),
  'exchanges/044-entities.get-basic.json',
);

export const EntitiesDeleteRequest = fromReference(
  z.object({ customer_id: z.string().optional(), entity_id: z.string() }),
  'openapi-2.3.0 /v1/entities.delete',
);
