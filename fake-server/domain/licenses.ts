/**
 * License pools and assignments: `licenses.list`, `licenses.attach`, `licenses.release`
 * (documented) and `licenses.list_assignments` (setup). A pool is offered by a live parent record
 * of the customer; an assignment gives an entity its own record of the license plan.
 */
import type { z } from 'zod';
import type { LicensePool } from '../../spec/licenses.ts';
import type { AssignmentRow, PoolRow, TenantStore } from '../store/tenant-store.ts';
import { endRecord, holdPlan } from './billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { createEntityRow } from './entity-rows.ts';
import { requireActivePlan } from './plans.ts';
import { requireSubject } from './subjects.ts';

/** Pools whose parent record is live (active, past due included) at customer level. */
export function livePoolsOf(store: TenantStore, customerId: string): PoolRow[] {
  return store.poolsOf(customerId).filter((pool) => {
    const parent = store.records.get(pool.parentRecordId)!;
    return parent.status === 'active' && parent.entityId === null;
  });
}

export function poolView(store: TenantStore, pool: PoolRow): z.input<typeof LicensePool> {
  const granted = pool.included + pool.paidQuantity;
  const usage = store.activeAssignmentsOf(pool.id).length;
  return {
    license_plan_id: pool.licensePlanId,
    parent_plan_id: pool.parentPlanId,
    license_plan_name: requireActivePlan(store, pool.licensePlanId).name,
    granted,
    usage,
    remaining: granted - usage,
    paid_quantity: pool.paidQuantity,
  };
}

/** The customer's pools as `licenses.list` and `customers.get` show them: by parent plan, then license plan. */
export function poolsView(store: TenantStore, customerId: string): z.input<typeof LicensePool>[] {
  return livePoolsOf(store, customerId)
    .map((pool) => poolView(store, pool))
    .sort((a, b) => a.parent_plan_id.localeCompare(b.parent_plan_id) || a.license_plan_id.localeCompare(b.license_plan_id));
}

export function listLicenses(ctx: DomainContext, input: InputOf<'licenses.list'>): OutputOf<'licenses.list'> {
  // An entity_id is only checked to exist: pools belong to the customer, as in the reference.
  const subject = requireSubject(ctx.store, input.customer_id, input.entity_id);
  return { list: poolsView(ctx.store, subject.customerId) };
}

/** Looked up among the live seats of the customer's pools, not its whole assignment history, so attach and release cost the same after a million of them. */
export function activeAssignmentOf(store: TenantStore, customerId: string, entityId: string, licensePlanId: string) {
  for (const pool of store.poolsOf(customerId)) {
    if (pool.licensePlanId !== licensePlanId) continue;
    const found = store.activeAssignmentsOf(pool.id).find((assignment) => assignment.entityId === entityId);
    if (found !== undefined) return found;
  }
  return undefined;
}

function firstDuplicate(ids: readonly string[]): string | undefined {
  return ids.find((id, i) => ids.indexOf(id) !== i);
}

/** The one live pool of the customer that offers this license plan, as `licenses.attach` requires. */
export function poolOffering(store: TenantStore, customerId: string, licensePlanId: string): PoolRow {
  const pools = livePoolsOf(store, customerId).filter((pool) => pool.licensePlanId === licensePlanId);
  if (pools.length === 0) fail('invalid_request', `No plan on this customer offers license ${licensePlanId}.`);
  if (pools.length > 1) fail('invalid_request', `Multiple plans offer license ${licensePlanId}.`);
  if (requireActivePlan(store, licensePlanId).archived) fail('invalid_request', `License plan ${licensePlanId} is archived and cannot be assigned.`);
  return pools[0]!;
}

export type AttachItem = InputOf<'licenses.attach'>['entities'][number];

/** A `licenses.attach` that passed every check but capacity: its pool and the entities that need a seat. */
export interface AttachPlan {
  readonly customerId: string;
  readonly pool: PoolRow;
  /** The requested entities without an active assignment of the license plan (skip-on-reassign). */
  readonly unassigned: readonly AttachItem[];
}

/** Runs the checks of `licenses.attach` except capacity, in the reference's order, and splits the batch. */
export function planAttach(store: TenantStore, input: InputOf<'licenses.attach'>): AttachPlan {
  const { customerId } = requireSubject(store, input.customer_id);
  const pool = poolOffering(store, customerId, input.plan_id);
  // Duplicates are checked over the whole batch, already-assigned entities included.
  const duplicate = firstDuplicate(input.entities.map((entity) => entity.entity_id));
  if (duplicate !== undefined) fail('invalid_request', `Duplicate entity ${duplicate} in entities.`);
  const unassigned = input.entities.filter((requested) => activeAssignmentOf(store, customerId, requested.entity_id, input.plan_id) === undefined);
  for (const requested of unassigned) {
    const existing = store.entities.get(requested.entity_id);
    if (existing !== undefined && existing.customerId !== customerId) fail('entity_not_found', `Entity ${requested.entity_id} not found`);
    if (existing === undefined && requested.feature_id === undefined) {
      fail('invalid_request', `Entity ${requested.entity_id} does not exist. Pass feature_id to create it.`);
    }
  }
  return { customerId, pool, unassigned };
}

/** Whether the pool can still give this many seats. */
export function hasCapacity(store: TenantStore, pool: PoolRow, seats: number): boolean {
  return seats <= poolView(store, pool).remaining;
}

/** A batch needing more seats than the pool has left is refused as a whole. */
export function requireCapacity(store: TenantStore, pool: PoolRow, seats: number): void {
  if (!hasCapacity(store, pool, seats)) fail('invalid_request', 'No available licenses for this plan.');
}

export function attachLicenses(ctx: DomainContext, input: InputOf<'licenses.attach'>): OutputOf<'licenses.attach'> {
  const plan = planAttach(ctx.store, input);
  requireCapacity(ctx.store, plan.pool, plan.unassigned.length);
  assignEntities(ctx, plan.customerId, plan.pool, plan.unassigned);
  return { success: true };
}

/**
 * The writes of an attach, once every check passed (so a refused batch changes nothing): creates the
 * entities that do not exist yet (without allocating their feature, as in the reference) and gives
 * each entity a seat.
 */
export function assignEntities(ctx: DomainContext, customerId: string, pool: PoolRow, entities: readonly AttachItem[]): void {
  const { store } = ctx;
  const created = entities
    .filter((requested) => !store.entities.has(requested.entity_id))
    .map((requested) => createEntityRow(ctx, { customerId, entityId: requested.entity_id, featureId: requested.feature_id!, name: requested.name }));
  created.forEach((row) => store.insertEntity(row));
  for (const requested of entities) assignSeat(ctx, pool, requested.entity_id);
}

/** Gives an entity a seat of a pool: its own record of the license plan, and the assignment. */
export function assignSeat(ctx: DomainContext, pool: PoolRow, entityId: string): void {
  const licensePlan = requireActivePlan(ctx.store, pool.licensePlanId);
  const seat = holdPlan(ctx, { customerId: pool.customerId, entityId }, licensePlan, { licensePoolId: pool.id });
  ctx.store.insertAssignment({
    id: seat.id,
    poolId: pool.id,
    customerId: pool.customerId,
    entityId,
    licensePlanId: pool.licensePlanId,
    startedAt: seat.startedAt,
    endedAt: null,
  });
}

/** Runs the checks of `licenses.release` (all before any write) and returns the assignments it ends. */
export function releasableAssignments(store: TenantStore, input: InputOf<'licenses.release'>): AssignmentRow[] {
  const { customerId } = requireSubject(store, input.customer_id);
  const assignments = input.entity_ids.map((entityId) => {
    requireSubject(store, customerId, entityId);
    return (
      activeAssignmentOf(store, customerId, entityId, input.license_plan_id) ??
      fail('invalid_request', `Entity ${entityId} has no license ${input.license_plan_id} to release.`)
    );
  });
  const duplicate = firstDuplicate(input.entity_ids);
  if (duplicate !== undefined) fail('invalid_request', `Duplicate entity ${duplicate} in entity_ids.`);
  return assignments;
}

export function releaseLicenses(ctx: DomainContext, input: InputOf<'licenses.release'>): OutputOf<'licenses.release'> {
  const now = ctx.clock.now();
  for (const assignment of releasableAssignments(ctx.store, input)) {
    // The seat returns to the pool, and the entity no longer holds the license plan.
    ctx.store.endAssignment(assignment, now);
    endRecord(ctx, ctx.store.records.get(assignment.id)!);
  }
  return { success: true };
}

export function listAssignments(ctx: DomainContext, input: InputOf<'licenses.list_assignments'>): OutputOf<'licenses.list_assignments'> {
  const { store } = ctx;
  const { customerId } = requireSubject(store, input.customer_id, input.entity_id);
  const list = store
    .assignmentsOf(customerId)
    .filter((assignment) => (assignment.endedAt === null) === input.active)
    .filter((assignment) => input.entity_id === undefined || assignment.entityId === input.entity_id)
    .filter((assignment) => input.plan_id === undefined || assignment.licensePlanId === input.plan_id)
    .reverse()
    .map((assignment) => ({
      id: assignment.id,
      entity_id: assignment.entityId,
      license_plan_id: assignment.licensePlanId,
      started_at: assignment.startedAt,
      ended_at: assignment.endedAt,
    }));
  return { list };
}
