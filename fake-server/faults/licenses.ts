/** Broken variants of the license rules (pools, attach, release, assignments) and of the States and Errors rules about licenses. */
import type { OperationName } from '../../spec/operations.ts';
import { endRecord, holdPlan, planOfRecord } from '../domain/billing.ts';
import { DomainError, fail, type OutputOf } from '../domain/context.ts';
import {
  activeAssignmentOf,
  assignEntities,
  assignSeat,
  hasCapacity,
  livePoolsOf,
  planAttach,
  poolsView,
  poolView,
  releasableAssignments,
  requireCapacity,
} from '../domain/licenses.ts';
import { requireActivePlan } from '../domain/plans.ts';
import type { PoolRow, TenantStore } from '../store/tenant-store.ts';
import { type Fault, type HandlerOverrides, rewriteOutput } from './fault.ts';

type PoolView = OutputOf<'licenses.list'>['list'][number];

/** Stands in for a required field the body left out, so that validation lets it through. */
const LEFT_OUT = '';

/** An `input` hook that fills a required field left out of one operation's body with LEFT_OUT. */
function acceptMissing(name: OperationName, field: string): NonNullable<Fault['input']> {
  return (operation, body) =>
    operation === name && typeof body === 'object' && body !== null && !(field in body) ? { ...body, [field]: LEFT_OUT } : body;
}

/** Rewrites each pool of a `licenses.list` answer, given the pool row behind it. */
function rewritePools(rewrite: (store: TenantStore, pool: PoolRow, view: PoolView) => PoolView): HandlerOverrides['licenses.list'] {
  return (real) => (ctx, input) => {
    const rows = livePoolsOf(ctx.store, input.customer_id);
    const rowOf = (view: PoolView) => rows.find((row) => row.parentPlanId === view.parent_plan_id && row.licensePlanId === view.license_plan_id)!;
    return { list: real(ctx, input).list.map((view) => rewrite(ctx.store, rowOf(view), view)) };
  };
}

/** Every assignment a pool ever made, released ones included. */
function everAssigned(store: TenantStore, pool: PoolRow): number {
  return store.assignmentsOf(pool.customerId).filter((assignment) => assignment.poolId === pool.id).length;
}

const poolFaults: readonly Fault[] = [
  {
    rule: 'LIC-LIST-SHAPE',
    breaks: 'licenses.list leaves license_plan_name out of each pool',
    output: rewriteOutput('licenses.list', (body) => ({ list: body.list.map(({ license_plan_name: _, ...pool }) => pool) })),
  },
  {
    rule: 'LIC-POOL-GRANTED',
    breaks: 'granted counts only the included seats, not the paid ones',
    output: rewriteOutput('licenses.list', (body) => ({ list: body.list.map((pool) => ({ ...pool, granted: pool.granted - pool.paid_quantity })) })),
  },
  {
    rule: 'LIC-POOL-USAGE',
    breaks: 'usage counts every seat ever assigned, released ones included',
    handlers: { 'licenses.list': rewritePools((store, pool, view) => ({ ...view, usage: everAssigned(store, pool) })) },
  },
  {
    rule: 'LIC-POOL-REMAINING',
    breaks: 'remaining never gets released seats back',
    handlers: { 'licenses.list': rewritePools((store, pool, view) => ({ ...view, remaining: view.granted - everAssigned(store, pool) })) },
  },
  {
    rule: 'LIC-POOL-PAID-QUANTITY',
    breaks: 'paid_quantity is always 0, even when paid seats were bought',
    output: rewriteOutput('licenses.list', (body) => ({ list: body.list.map((pool) => ({ ...pool, paid_quantity: 0 })) })),
  },
  {
    rule: 'LIC-LIST-CUSTOMER-POOLS',
    breaks: 'licenses.list lists the pools of every customer, not only those of the customer asked about',
    handlers: {
      'licenses.list': (real) => (ctx, input) => {
        real(ctx, input);
        return { list: [...ctx.store.customers.keys()].flatMap((customerId) => poolsView(ctx.store, customerId)) };
      },
    },
  },
  {
    rule: 'LIC-LIST-REQUIRED-FIELDS',
    breaks: 'licenses.list without customer_id answers an empty list instead of an error',
    input: acceptMissing('licenses.list', 'customer_id'),
    handlers: { 'licenses.list': (real) => (ctx, input) => (input.customer_id === LEFT_OUT ? { list: [] } : real(ctx, input)) },
  },
  {
    rule: 'LIC-LIST-ENTITY-SAME-POOLS',
    breaks: 'with entity_id, licenses.list lists only the pools whose license that entity holds',
    handlers: {
      'licenses.list': (real) => (ctx, input) => {
        const { list } = real(ctx, input);
        const entityId = input.entity_id;
        if (entityId === undefined) return { list };
        return { list: list.filter((pool) => activeAssignmentOf(ctx.store, input.customer_id, entityId, pool.license_plan_id) !== undefined) };
      },
    },
  },
  {
    rule: 'LIC-LIST-ORDER',
    breaks: 'licenses.list returns the pools in reverse order',
    output: rewriteOutput('licenses.list', (body) => ({ list: [...body.list].reverse() })),
  },
  {
    rule: 'LIC-POOL-NEEDS-SEATS',
    breaks: 'licenses.list shows a pool of 0 seats for a license link with no included seats attached without license_quantities',
    handlers: {
      'licenses.list': (real) => (ctx, input) => {
        const { store } = ctx;
        const pools = store.poolsOf(input.customer_id);
        const parents = store.recordsOf(input.customer_id).filter((record) => record.status === 'active' && record.entityId === null && record.licensePoolId === null);
        const empty = parents.flatMap((record) =>
          (planOfRecord(ctx, record).licenses ?? [])
            .filter((link) => !pools.some((pool) => pool.parentRecordId === record.id && pool.licensePlanId === link.license_plan_id))
            .map((link) => ({
              license_plan_id: link.license_plan_id,
              parent_plan_id: record.planId,
              license_plan_name: requireActivePlan(store, link.license_plan_id).name,
              granted: 0,
              usage: 0,
              remaining: 0,
              paid_quantity: 0,
            })),
        );
        return { list: [...real(ctx, input).list, ...empty] };
      },
    },
  },
];

const attachFaults: readonly Fault[] = [
  {
    rule: 'LIC-ATTACH-BATCH',
    breaks: 'licenses.attach checks the whole batch but assigns only its first new entity',
    handlers: {
      'licenses.attach': () => (ctx, input) => {
        const plan = planAttach(ctx.store, input);
        requireCapacity(ctx.store, plan.pool, plan.unassigned.length);
        assignEntities(ctx, plan.customerId, plan.pool, plan.unassigned.slice(0, 1));
        return { success: true };
      },
    },
  },
  {
    rule: 'LIC-ATTACH-REQUIRED-FIELDS',
    breaks: "licenses.attach without plan_id assigns from the customer's only pool instead of answering an error",
    input: acceptMissing('licenses.attach', 'plan_id'),
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        if (input.plan_id !== LEFT_OUT) return real(ctx, input);
        const [only] = livePoolsOf(ctx.store, input.customer_id);
        return real(ctx, { ...input, plan_id: only?.licensePlanId ?? LEFT_OUT });
      },
    },
  },
  {
    rule: 'LIC-ATTACH-SHAPE',
    breaks: 'licenses.attach answers {status: "success"} instead of {success: true}',
    output: rewriteOutput('licenses.attach', () => ({ status: 'success' })),
  },
  {
    rule: 'LIC-ATTACH-SKIP-ASSIGNED',
    breaks: 'an entity that already holds the license is not skipped: it takes, and consumes, another seat',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const plan = planAttach(ctx.store, input);
        requireCapacity(ctx.store, plan.pool, input.entities.length);
        const result = real(ctx, input);
        for (const entity of input.entities) if (!plan.unassigned.includes(entity)) assignSeat(ctx, plan.pool, entity.entity_id);
        return result;
      },
    },
  },
  {
    rule: 'LIC-ATTACH-MIXED-BATCH',
    breaks: 'a batch with any already-assigned entity is skipped as a whole: its new entities are not assigned either',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const plan = planAttach(ctx.store, input);
        if (plan.unassigned.length === input.entities.length) return real(ctx, input);
        requireCapacity(ctx.store, plan.pool, plan.unassigned.length);
        return { success: true };
      },
    },
  },
  {
    rule: 'LIC-ATTACH-ALL-ASSIGNED-OK',
    breaks: 'a batch of only already-assigned entities is refused with 400',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        if (planAttach(ctx.store, input).unassigned.length === 0) fail('invalid_request', 'Every entity already holds this license.');
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'LIC-ATTACH-DUPLICATE-IDS',
    breaks: 'duplicate entity IDs in a batch are silently merged instead of refused',
    handlers: {
      'licenses.attach': (real) => (ctx, input) =>
        real(ctx, { ...input, entities: input.entities.filter((entity, i, all) => all.findIndex((other) => other.entity_id === entity.entity_id) === i) }),
    },
  },
  {
    rule: 'LIC-ATTACH-CAPACITY',
    breaks: 'licenses.attach never checks capacity: it assigns past the pool size',
    handlers: {
      'licenses.attach': () => (ctx, input) => {
        const plan = planAttach(ctx.store, input);
        assignEntities(ctx, plan.customerId, plan.pool, plan.unassigned);
        return { success: true };
      },
    },
  },
  {
    rule: 'LIC-ATTACH-ALL-OR-NOTHING',
    breaks: 'a batch too big for the pool assigns (and creates) the entities that fit before answering the capacity error',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const plan = planAttach(ctx.store, input);
        const { remaining } = poolView(ctx.store, plan.pool);
        if (plan.unassigned.length > remaining) assignEntities(ctx, plan.customerId, plan.pool, plan.unassigned.slice(0, Math.max(0, remaining)));
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'LIC-ATTACH-CREATES-ENTITY',
    breaks: 'licenses.attach does not create entities: an unknown entity is refused even with feature_id',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const unknown = input.entities.find((entity) => !ctx.store.entities.has(entity.entity_id));
        if (unknown !== undefined) fail('entity_not_found', `Entity ${unknown.entity_id} not found`);
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'LIC-ATTACH-UNKNOWN-ENTITY-NEEDS-FEATURE',
    breaks: 'an unknown entity without feature_id is silently left out of the batch instead of refused',
    handlers: {
      'licenses.attach': (real) => (ctx, input) =>
        real(ctx, { ...input, entities: input.entities.filter((entity) => entity.feature_id !== undefined || ctx.store.entities.has(entity.entity_id)) }),
    },
  },
  {
    rule: 'STATE-SKIP-NO-EXTRA-LICENSE',
    breaks: 'a skipped entity is given the license plan again (a second seat record with its grants), though the pool is not charged',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const plan = planAttach(ctx.store, input);
        const result = real(ctx, input);
        const licensePlan = requireActivePlan(ctx.store, plan.pool.licensePlanId);
        for (const entity of input.entities) {
          if (!plan.unassigned.includes(entity)) holdPlan(ctx, { customerId: plan.customerId, entityId: entity.entity_id }, licensePlan, { licensePoolId: plan.pool.id });
        }
        return result;
      },
    },
  },
  {
    rule: 'ERR-DUPLICATE-ENTITY-CODE',
    breaks: 'duplicate entity IDs in a batch are refused with 409 entity_already_exists instead of 400 invalid_request',
    handlers: {
      // The refusal the real handler makes, where it makes it (after the customer and pool checks), answered with another code.
      'licenses.attach': (real) => (ctx, input) => {
        try {
          return real(ctx, input);
        } catch (error) {
          if (error instanceof DomainError && error.message.startsWith('Duplicate entity')) fail('entity_already_exists', error.message);
          throw error;
        }
      },
    },
  },
  {
    rule: 'ERR-PRECEDENCE',
    breaks: 'licenses.attach refuses duplicate entity IDs before it looks the customer up: an unknown customer with a duplicated entity answers 400 invalid_request, not 404 customer_not_found',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const ids = input.entities.map((entity) => entity.entity_id);
        if (new Set(ids).size !== ids.length) fail('invalid_request', 'An entity appears twice in entities.');
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'ERR-CAPACITY-CODE',
    breaks: 'insufficient capacity is refused with code invalid_inputs instead of invalid_request',
    handlers: {
      'licenses.attach': (real) => (ctx, input) => {
        const plan = planAttach(ctx.store, input);
        if (!hasCapacity(ctx.store, plan.pool, plan.unassigned.length)) fail('invalid_inputs', 'Not enough licenses left in the pool.');
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'LIC-PARENT-END-REVOKES-SEATS',
    breaks: 'a parent plan ended by billing.attach (replaced) leaves the seats of its pools assigned',
    handlers: {
      'billing.attach': (real) => (ctx, input) => {
        const seats = ctx.store.poolsOf(input.customer_id).flatMap((pool) => ctx.store.activeAssignmentsOf(pool.id).map((assignment) => ({ pool, assignment })));
        const result = real(ctx, input);
        for (const { pool, assignment } of seats) if (assignment.endedAt !== null) assignSeat(ctx, pool, assignment.entityId);
        return result;
      },
    },
  },
];

const releaseFaults: readonly Fault[] = [
  {
    rule: 'LIC-RELEASE-FREES-SEAT',
    breaks: 'licenses.release takes the license plan from the entity but keeps the assignment, so the seat never returns to the pool',
    handlers: {
      'licenses.release': () => (ctx, input) => {
        for (const assignment of releasableAssignments(ctx.store, input)) endRecord(ctx, ctx.store.records.get(assignment.id)!);
        return { success: true };
      },
    },
  },
  {
    rule: 'STATE-LICENSE-ATTACH-RELEASE',
    breaks: 'licenses.release frees the seat in the pool, but the entity keeps holding the license plan',
    handlers: {
      'licenses.release': () => (ctx, input) => {
        for (const assignment of releasableAssignments(ctx.store, input)) ctx.store.endAssignment(assignment, ctx.clock.now());
        return { success: true };
      },
    },
  },
  {
    rule: 'LIC-RELEASE-REQUIRED-FIELDS',
    breaks: 'licenses.release without license_plan_id releases the license the first entity holds instead of answering an error (as the 2.3.0 reference does)',
    input: acceptMissing('licenses.release', 'license_plan_id'),
    handlers: {
      'licenses.release': (real) => (ctx, input) => {
        if (input.license_plan_id !== LEFT_OUT) return real(ctx, input);
        const held = ctx.store.assignmentsOf(input.customer_id).find((assignment) => assignment.entityId === input.entity_ids[0] && assignment.endedAt === null);
        return real(ctx, { ...input, license_plan_id: held?.licensePlanId ?? LEFT_OUT });
      },
    },
  },
  {
    rule: 'LIC-RELEASE-SHAPE',
    breaks: 'licenses.release answers {released: true} instead of {success: true}',
    output: rewriteOutput('licenses.release', () => ({ released: true })),
  },
  {
    rule: 'LIC-RELEASE-UNASSIGNED',
    breaks: 'releasing an entity that holds no license of the plan is silently accepted',
    handlers: {
      'licenses.release': (real) => (ctx, input) => {
        const held = input.entity_ids.filter((id) => activeAssignmentOf(ctx.store, input.customer_id, id, input.license_plan_id) !== undefined);
        return held.length === 0 ? { success: true } : real(ctx, { ...input, entity_ids: held });
      },
    },
  },
  {
    rule: 'LIC-RELEASE-DUPLICATE-IDS',
    breaks: 'duplicate entity IDs in a release are silently merged instead of refused',
    handlers: { 'licenses.release': (real) => (ctx, input) => real(ctx, { ...input, entity_ids: [...new Set(input.entity_ids)] }) },
  },
];

const assignmentFaults: readonly Fault[] = [
  {
    rule: 'LIC-ASSIGNMENTS-LIST',
    breaks: 'licenses.list_assignments also lists released assignments',
    handlers: {
      'licenses.list_assignments': (real) => (ctx, input) => ({ list: [...real(ctx, input).list, ...real(ctx, { ...input, active: !input.active }).list] }),
    },
  },
  {
    rule: 'LIC-ASSIGNMENTS-SHAPE',
    breaks: 'licenses.list_assignments leaves ended_at out while an assignment is active',
    output: rewriteOutput('licenses.list_assignments', (body) => ({
      list: body.list.map(({ ended_at, ...assignment }) => (ended_at === null ? assignment : { ...assignment, ended_at })),
    })),
  },
];

export const licenseFaults: readonly Fault[] = [...poolFaults, ...attachFaults, ...releaseFaults, ...assignmentFaults];
