/**
 * License pools and assignments: `licenses.list`, `licenses.attach`, `licenses.release`
 * (documented) and `licenses.list_assignments` (setup). A pool is offered by a live parent record
 * of the customer; an assignment gives an entity its own record of the license plan.
 */
import type { z } from 'zod';
import type { LicensePool } from '../../spec/licenses.ts';
import type { PoolRow, TenantStore } from '../store/tenant-store.ts';
import { endRecord, holdPlan } from './billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { createEntityRow } from './entities.ts';
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

export function activeAssignmentOf(store: TenantStore, customerId: string, entityId: string, licensePlanId: string) {
  return store
    .assignmentsOf(customerId)
    .find((assignment) => assignment.entityId === entityId && assignment.licensePlanId === licensePlanId && assignment.endedAt === null);
}

function firstDuplicate(ids: readonly string[]): string | undefined {
  return ids.find((id, i) => ids.indexOf(id) !== i);
}

export function attachLicenses(ctx: DomainContext, input: InputOf<'licenses.attach'>): OutputOf<'licenses.attach'> {
  const { store } = ctx;
  const { customerId } = requireSubject(store, input.customer_id);
  const pools = livePoolsOf(store, customerId).filter((pool) => pool.licensePlanId === input.plan_id);
  if (pools.length === 0) fail('invalid_request', `No plan on this customer offers license ${input.plan_id}.`);
  if (pools.length > 1) fail('invalid_request', `Multiple plans offer license ${input.plan_id}.`);
  const pool = pools[0]!;
  const licensePlan = requireActivePlan(store, input.plan_id);
  if (licensePlan.archived) fail('invalid_request', `License plan ${input.plan_id} is archived and cannot be assigned.`);

  const duplicate = firstDuplicate(input.entities.map((entity) => entity.entity_id));
  if (duplicate !== undefined) fail('invalid_request', `Duplicate entity ${duplicate} in entities.`);

  // Skip-on-reassign: an entity that already holds an active assignment of this license plan is left alone.
  const unassigned = input.entities.filter((requested) => activeAssignmentOf(store, customerId, requested.entity_id, input.plan_id) === undefined);
  for (const requested of unassigned) {
    const existing = store.entities.get(requested.entity_id);
    if (existing !== undefined && existing.customerId !== customerId) fail('entity_not_found', `Entity ${requested.entity_id} not found`);
    if (existing === undefined && requested.feature_id === undefined) {
      fail('invalid_request', `Entity ${requested.entity_id} does not exist. Pass feature_id to create it.`);
    }
  }
  const remaining = poolView(store, pool).remaining;
  if (unassigned.length > remaining) fail('invalid_request', 'No available licenses for this plan.');

  // All checks passed: only now is anything written, so a refused batch changes nothing.
  const toCreate = unassigned.filter((requested) => !store.entities.has(requested.entity_id));
  const created = toCreate.map((requested) =>
    createEntityRow(ctx, { customerId, entityId: requested.entity_id, featureId: requested.feature_id!, name: requested.name }),
  );
  created.forEach((row) => store.insertEntity(row));
  for (const requested of unassigned) assignSeat(ctx, pool, requested.entity_id);
  return { success: true };
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

export function releaseLicenses(ctx: DomainContext, input: InputOf<'licenses.release'>): OutputOf<'licenses.release'> {
  const { store } = ctx;
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
  const now = ctx.clock.now();
  for (const assignment of assignments) {
    store.endAssignment(assignment, now);
    endRecord(ctx, store.records.get(assignment.id)!);
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
