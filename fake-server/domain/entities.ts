/**
 * Entities: `entities.list` (documented) and `entities.create`, `entities.get`, `entities.delete`
 * (setup). An entity shows its own plans and those it inherits from its customer, with the
 * balances those plans grant.
 */
import type { z } from 'zod';
import type { Flag } from '../../spec/balances.ts';
import type { Entity, EntityDetail, EntityPlanFilter } from '../../spec/entities.ts';
import type { RecordStatus } from '../../spec/listings.ts';
import type { EntityRow, GrantRow, RecordRow, TenantStore } from '../store/tenant-store.ts';
import { balancesAndFlags, type Deduction, deduct } from './balances.ts';
import { endRecord } from './billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { createCustomer } from './customers.ts';
import { createEntityRow } from './entity-rows.ts';
import { embeddedPurchaseView, embeddedSubscriptionView, heldSubscriptionView } from './listings.ts';
import { grantsHeldBy, grantsOfRecords, recordsHeldBy, recordsHeldDirectly } from './subjects.ts';
import type { ViewTexts } from './view-texts.ts';

type EntityView = z.input<typeof Entity> & { flags: Record<string, z.input<typeof Flag>> };

/** The statuses an entity's plans are shown in unless a listing asks for others. */
const SHOWN_STATUSES: readonly RecordStatus[] = ['active', 'scheduled'];

/** The records one holder holds directly in some statuses, and the grants of those that are active (only active records grant). */
interface Holding {
  readonly records: readonly RecordRow[];
  readonly grants: readonly GrantRow[];
}

function holdingOf(store: TenantStore, customerId: string, entityId: string | null, statuses: readonly RecordStatus[]): Holding {
  const records = recordsHeldDirectly(store, customerId, entityId, statuses);
  return { records, grants: grantsOfRecords(store, records.filter((record) => record.status === 'active')) };
}

/** A holding as an entity shows it: its subscriptions and purchases, and the balances and flags its grants add up to. */
interface HoldingView {
  readonly holding: Holding;
  readonly subscriptions: EntityView['subscriptions'];
  readonly purchases: EntityView['purchases'];
  readonly totals: Pick<EntityView, 'balances' | 'flags'>;
}

function holdingView(store: TenantStore, holding: Holding): HoldingView {
  return {
    holding,
    subscriptions: holding.records.filter((r) => r.kind === 'subscription').map((r) => embeddedSubscriptionView(store, r)),
    purchases: holding.records.filter((r) => r.kind === 'purchase').map(embeddedPurchaseView),
    totals: balancesAndFlags(holding.grants),
  };
}

/** What every entity of a customer inherits from it: the same for all of them, so a listing computes it once per customer, not once per entity. */
function inheritedView(store: TenantStore, customerId: string, statuses: readonly RecordStatus[]): HoldingView {
  return holdingView(store, holdingOf(store, customerId, null, statuses));
}

/**
 * An entity as entities.list shows it (interface.md's Entity): its own plans first, then those it
 * inherits (as in the reference), and the balances they grant together. Its embedded subscriptions
 * carry the documented fields "only"; `flags` is an extra the reference and its client also send.
 * An entity holding nothing of its own shows its customer's part as it is.
 */
export function entityView(store: TenantStore, row: EntityRow, statuses = SHOWN_STATUSES, inherited = inheritedView(store, row.customerId, statuses)): EntityView {
  const own = holdingOf(store, row.customerId, row.id, statuses);
  const ownView = own.records.length === 0 ? undefined : holdingView(store, own);
  const totals = own.grants.length === 0 ? inherited.totals : balancesAndFlags([...own.grants, ...inherited.holding.grants]);
  return {
    id: row.id,
    name: row.name,
    customer_id: row.customerId,
    feature_id: row.featureId,
    created_at: row.createdAt,
    env: store.env,
    subscriptions: ownView === undefined ? inherited.subscriptions : [...ownView.subscriptions, ...inherited.subscriptions],
    purchases: ownView === undefined ? inherited.purchases : [...ownView.purchases, ...inherited.purchases],
    balances: totals.balances,
    flags: totals.flags,
    invoices: [],
  };
}

/** An entity as the setup calls entities.create and entities.get answer it, in the reference's shape: subscriptions with their record id and scope. */
function entityDetailView(store: TenantStore, row: EntityRow): z.input<typeof EntityDetail> {
  const subscriptions = recordsHeldBy(store, { customerId: row.customerId, entityId: row.id }, SHOWN_STATUSES).filter((r) => r.kind === 'subscription');
  return {
    ...entityView(store, row),
    subscriptions: subscriptions.map((r) => heldSubscriptionView(store, r)),
    billing_controls: row.billingControls,
  };
}

/** An entity uses one unit of its feature on its customer's balance while it exists (an allocated seat). */
function allocate(ctx: DomainContext, row: EntityRow): void {
  const grants = grantsHeldBy(ctx.store, { customerId: row.customerId, entityId: null }).filter((grant) => grant.featureId === row.featureId);
  row.allocation = shareable(ctx.store, row, deduct(grants, 1, 'overflow') ?? []);
}

/**
 * An allocation as the entity keeps it. The entities of a customer mostly take their unit from the
 * same grant: one equal to that of the customer's newest other entity shares its (frozen) list, so
 * a million entities do not keep a million copies of the same few bytes.
 */
function shareable(store: TenantStore, row: EntityRow, taken: readonly Deduction[]): EntityRow['allocation'] {
  for (const key of store.entitiesOf(row.customerId).newestFirst()) {
    if (key.id === row.id) continue;
    const sibling = store.entities.get(key.id)!.allocation;
    if (sibling.length === taken.length && sibling.every((step, i) => step.grantId === taken[i]!.grantId && step.value === taken[i]!.value)) return sibling;
    break;
  }
  return Object.freeze(taken.map((step) => Object.freeze({ grantId: step.grantId, value: step.value })));
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
  for (const record of store.liveRecordsOf(row.customerId, row.id)) endRecord(ctx, record);
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
 * The same answer as `listEntities`, as JSON text: the page's text is taken from `texts` when the
 * same request was answered since the data last changed (a dashboard polling a page), and each
 * entity's text likewise, so a page read again is neither rebuilt nor serialised. The answer is
 * `JSON.stringify(listEntities(ctx, input))`, character for character.
 */
export function listEntitiesText(ctx: DomainContext, input: ListInput, texts: ViewTexts): string {
  return texts.textOf('entities.list page', JSON.stringify(input), () => pageText(ctx.store, input, texts));
}

function pageText(store: TenantStore, input: ListInput, texts: ViewTexts): string {
  const page = pageOf(store, input, listFilter(store, input));
  const inheritedFrom = inheritedViews(store, input.statuses);
  // Views differ only by which statuses they show (and the listed entity): that is the group.
  const group = `entities.list ${(['active', 'scheduled'] as const).filter((status) => input.statuses.includes(status)).join()}`;
  // One join builds the answer in one piece: no string of pieces for the socket to flatten again.
  const parts = ['{"list":['];
  for (const [i, row] of page.rows.entries()) {
    if (i > 0) parts.push(',');
    parts.push(texts.textOf(group, row.id, () => JSON.stringify(entityView(store, row, input.statuses, inheritedFrom(row.customerId)))));
  }
  parts.push('],"next_cursor":', JSON.stringify(page.nextCursor), '}');
  return parts.join('');
}

interface EntityPage {
  readonly rows: readonly EntityRow[];
  readonly nextCursor: string | null;
}

/**
 * One page of the entities `accepts` lets through, newest first (created_at DESC, id DESC), from
 * the position `start_cursor` names. Pages are filled up to `limit`, and `next_cursor` is null
 * exactly when no further entity would be accepted, as in the reference (which fetches limit + 1).
 */
function pageOf(store: TenantStore, input: ListInput, accepts: (row: EntityRow) => boolean): EntityPage {
  const index = input.customer_id === undefined ? store.entityIndex : store.entitiesOf(input.customer_id);
  const rows: EntityRow[] = [];
  let more = false;
  for (const key of index.newestFirst(decodeCursor(input.start_cursor))) {
    const row = store.entities.get(key.id)!;
    if (!accepts(row)) continue;
    if (rows.length === input.limit) {
      more = true;
      break;
    }
    rows.push(row);
  }
  const last = rows.at(-1);
  return { rows, nextCursor: more && last !== undefined ? encodeCursor({ t: last.createdAt, id: last.id }) : null };
}

/** What the entities of each customer inherit, computed on first need and then shared by all of them. */
function inheritedViews(store: TenantStore, statuses: readonly RecordStatus[]): (customerId: string) => HoldingView {
  const views = new Map<string, HoldingView>();
  return (customerId) => {
    let view = views.get(customerId);
    if (view === undefined) views.set(customerId, (view = inheritedView(store, customerId, statuses)));
    return view;
  };
}

/** entities.list with `accepts` deciding which entities are listed (see `pageOf`). */
export function listEntitiesMatching(ctx: DomainContext, input: ListInput, accepts: (row: EntityRow) => boolean): OutputOf<'entities.list'> {
  const { store } = ctx;
  const page = pageOf(store, input, accepts);
  const inheritedFrom = inheritedViews(store, input.statuses);
  return {
    // `active` also hydrates past-due records, which read as active (States rule 1).
    list: page.rows.map((row) => entityView(store, row, input.statuses, inheritedFrom(row.customerId))),
    next_cursor: page.nextCursor,
  };
}
