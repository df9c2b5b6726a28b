/**
 * Entities: `entities.list` (documented) and `entities.create`, `entities.get`, `entities.delete`
 * (setup). An entity shows its own plans and those it inherits from its customer, with the
 * balances those plans grant.
 */
import type { z } from 'zod';
import type { Flag } from '../../spec/balances.ts';
import type { Entity, EntityDetail, EntityPlanFilter } from '../../spec/entities.ts';
import type { RecordStatus } from '../../spec/listings.ts';
import type { EntityRow, RecordRow, TenantStore } from '../store/tenant-store.ts';
import { balancesAndFlags, deduct } from './balances.ts';
import { endRecord } from './billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { createCustomer } from './customers.ts';
import { createEntityRow } from './entity-rows.ts';
import { embeddedPurchaseView, embeddedSubscriptionView, heldSubscriptionView } from './listings.ts';
import { grantsHeldBy, recordsHeldBy } from './subjects.ts';

/** The records an entity holds (its own first, then inherited ones, as in the reference) and what they grant. */
function holdings(store: TenantStore, row: EntityRow, statuses: readonly RecordStatus[]) {
  const subject = { customerId: row.customerId, entityId: row.id };
  const records = recordsHeldBy(store, subject, statuses);
  const ordered = [...records.filter((r) => r.entityId !== null), ...records.filter((r) => r.entityId === null)];
  const { balances, flags } = balancesAndFlags(grantsHeldBy(store, subject, statuses.filter((status) => status === 'active')));
  return { subscriptions: ordered.filter((r) => r.kind === 'subscription'), purchases: ordered.filter((r) => r.kind === 'purchase'), balances, flags };
}

/**
 * An entity as entities.list shows it (interface.md's Entity). Its embedded subscriptions carry the
 * documented fields "only"; `flags` is an extra the reference and its client also send.
 */
export function entityView(store: TenantStore, row: EntityRow, statuses: readonly RecordStatus[] = ['active', 'scheduled']): z.input<typeof Entity> & { flags: Record<string, z.input<typeof Flag>> } {
  const held = holdings(store, row, statuses);
  return {
    id: row.id,
    name: row.name,
    customer_id: row.customerId,
    feature_id: row.featureId,
    created_at: row.createdAt,
    env: store.env,
    subscriptions: held.subscriptions.map((r) => embeddedSubscriptionView(store, r)),
    purchases: held.purchases.map(embeddedPurchaseView),
    balances: held.balances,
    flags: held.flags,
    invoices: [],
  };
}

/** An entity as the setup calls entities.create and entities.get answer it, in the reference's shape: subscriptions with their record id and scope. */
function entityDetailView(store: TenantStore, row: EntityRow): z.input<typeof EntityDetail> {
  const held = holdings(store, row, ['active', 'scheduled']);
  return {
    ...entityView(store, row),
    subscriptions: held.subscriptions.map((r) => heldSubscriptionView(store, r)),
    billing_controls: row.billingControls,
  };
}

/** An entity uses one unit of its feature on its customer's balance while it exists (an allocated seat). */
function allocate(ctx: DomainContext, row: EntityRow): void {
  const grants = grantsHeldBy(ctx.store, { customerId: row.customerId, entityId: null }).filter((grant) => grant.featureId === row.featureId);
  row.allocation = deduct(grants, 1, 'overflow') ?? [];
}

/** Gives back the unit an entity took, to the grants it came from (those that still exist). */
function deallocate(ctx: DomainContext, row: EntityRow): void {
  for (const { grantId, value } of row.allocation) {
    const grant = ctx.store.grants.get(grantId);
    if (grant !== undefined) grant.usage = Math.max(0, grant.usage - value);
  }
  row.allocation = [];
}

export function createEntity(ctx: DomainContext, input: InputOf<'entities.create'>): OutputOf<'entities.create'> {
  const { store } = ctx;
  const row = createEntityRow(ctx, { customerId: input.customer_id, entityId: input.entity_id, featureId: input.feature_id, name: input.name });
  // The reference creates a missing customer on the way; only once the entity is known to be valid, so a refused call creates nothing.
  if (!store.customers.has(input.customer_id)) createCustomer(ctx, { id: input.customer_id });
  if (input.billing_controls !== undefined) row.billingControls = input.billing_controls;
  store.insertEntity(row);
  allocate(ctx, row);
  return entityDetailView(store, row);
}

function requireEntity(store: TenantStore, entityId: string, customerId?: string): EntityRow {
  const row = store.entities.get(entityId);
  if (row === undefined || (customerId !== undefined && row.customerId !== customerId)) fail('entity_not_found', `Entity ${entityId} not found`);
  return row;
}

export function getEntity(ctx: DomainContext, input: InputOf<'entities.get'>): OutputOf<'entities.get'> {
  return entityDetailView(ctx.store, requireEntity(ctx.store, input.entity_id, input.customer_id));
}

export function deleteEntity(ctx: DomainContext, input: InputOf<'entities.delete'>): OutputOf<'entities.delete'> {
  const { store } = ctx;
  const row = requireEntity(store, input.entity_id, input.customer_id);
  // Deleting an entity ends what it holds: its own plans, license seats included (the seat returns to its pool).
  const now = ctx.clock.now();
  for (const assignment of store.assignmentsOf(row.customerId).filter((a) => a.entityId === row.id && a.endedAt === null)) {
    store.endAssignment(assignment, now);
  }
  for (const record of store.recordsOf(row.customerId).filter((r) => r.entityId === row.id && r.status !== 'expired')) endRecord(ctx, record);
  deallocate(ctx, row);
  store.removeEntity(row);
  return { success: true };
}

type ListInput = InputOf<'entities.list'>;
type PlanFilter = z.output<typeof EntityPlanFilter>;

/** The records plan matching looks at: the entity's own and those it inherits from its customer, in the selected statuses. */
export function recordsForPlanMatching(store: TenantStore, row: EntityRow, statuses: readonly RecordStatus[]): RecordRow[] {
  return recordsHeldBy(store, { customerId: row.customerId, entityId: row.id }, statuses);
}

/** Whether any record holds one of the plans (in one of its versions, when given); the plans are OR-ed. */
export function holdsAnyPlan(records: readonly RecordRow[], filter: PlanFilter): boolean {
  return filter.some((plan) => records.some((record) => record.planId === plan.id && (plan.versions === undefined || plan.versions.includes(record.planVersion))));
}

/** Case-insensitive substring of the entity id or name; a blank search matches everything (as in the reference). */
function matchesSearch(row: EntityRow, search: string): boolean {
  const needle = search.trim().toLowerCase();
  return needle.length === 0 || row.id.toLowerCase().includes(needle) || (row.name ?? '').toLowerCase().includes(needle);
}

/** The fake simulates one processor, Stripe: a customer has it from its first attach on. */
function customerUses(store: TenantStore, customerId: string, processor: string): boolean {
  return processor === 'stripe' && (store.customers.get(customerId)?.processorCustomerId ?? null) !== null;
}

/** The filters of entities.list other than customer_id (which picks the index), as one predicate. */
export function listFilter(store: TenantStore, input: ListInput): (row: EntityRow) => boolean {
  const { search, plans, processors, statuses } = input;
  return (row) =>
    (search === undefined || matchesSearch(row, search)) &&
    (plans === undefined || holdsAnyPlan(recordsForPlanMatching(store, row, statuses), plans)) &&
    (processors === undefined || processors.some((processor) => customerUses(store, row.customerId, processor)));
}

export function listEntities(ctx: DomainContext, input: ListInput): OutputOf<'entities.list'> {
  return listEntitiesMatching(ctx, input, listFilter(ctx.store, input));
}

/**
 * One page of the entities `accepts` lets through, newest first (created_at DESC, id DESC), from
 * the position `start_cursor` names. Pages are filled up to `limit`, and `next_cursor` is null
 * exactly when no further entity would be accepted, as in the reference (which fetches limit + 1).
 */
export function listEntitiesMatching(ctx: DomainContext, input: ListInput, accepts: (row: EntityRow) => boolean): OutputOf<'entities.list'> {
  const { store } = ctx;
  const index = input.customer_id === undefined ? store.entityIndex : store.entitiesOf(input.customer_id);
  const page: EntityRow[] = [];
  let more = false;
  for (const key of index.newestFirst(decodeCursor(input.start_cursor))) {
    const row = store.entities.get(key.id)!;
    if (!accepts(row)) continue;
    if (page.length === input.limit) {
      more = true;
      break;
    }
    page.push(row);
  }
  const last = page.at(-1);
  return {
    // `active` also hydrates past-due records, which read as active (States rule 1).
    list: page.map((row) => entityView(store, row, input.statuses)),
    next_cursor: more && last !== undefined ? encodeCursor({ t: last.createdAt, id: last.id }) : null,
  };
}
