/**
 * `billing.attach` (setup): gives a customer or an entity a plan. Attaching creates the subscription
 * or purchase record, its balances and flags, its license pools, and for a paid recurring plan a
 * simulated payment-processor subscription with its billing periods. No payment is taken.
 */
import type { Plan } from '../../spec/plans.ts';
import { addInterval } from '../clock.ts';
import type { GrantRow, ProcessorSubscriptionRow, RecordRow } from '../store/tenant-store.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { hasPrices, isOneOff, requirePlanVersion } from './plans.ts';
import { requireSubject, type Subject } from './subjects.ts';

export const DEFAULT_CURRENCY = 'usd';

export interface HoldPlanOptions {
  readonly quantity?: number;
  /** Total seats per license plan, included seats counted. */
  readonly licenseQuantities?: ReadonlyMap<string, number>;
  /** Prepaid units per feature. */
  readonly featureQuantities?: ReadonlyMap<string, number>;
  /** For a license seat: the pool it is assigned from. */
  readonly licensePoolId?: string;
}

/** The billing interval of a paid recurring plan, or null when nothing recurs for money. */
function billingInterval(plan: Plan): { interval: string; count: number } | null {
  if (!hasPrices(plan) || isOneOff(plan)) return null;
  if (plan.price !== null && plan.price.interval !== 'one_off') return { interval: plan.price.interval, count: plan.price.interval_count ?? 1 };
  const recurring = plan.items.find((item) => item.price !== null && item.price.interval !== 'one_off');
  return recurring ? { interval: recurring.price!.interval, count: recurring.price!.interval_count ?? 1 } : null;
}

/** Joins the holder's processor subscription on the same cycle, or opens a new one starting now. */
function processorSubscriptionFor(
  ctx: DomainContext,
  subject: Subject,
  cycle: { interval: string; count: number },
  schedule: { anchor: number; periodEnd: number },
): ProcessorSubscriptionRow {
  const { store } = ctx;
  const existing = store
    .processorSubscriptionsOf(subject.customerId)
    .find(
      (sub) =>
        sub.entityId === subject.entityId &&
        sub.interval === cycle.interval &&
        sub.intervalCount === cycle.count &&
        sub.recordIds.some((id) => store.records.get(id)?.status === 'active'),
    );
  if (existing) return existing;
  const created: ProcessorSubscriptionRow = {
    id: ctx.ids.next('sub_sim'),
    customerId: subject.customerId,
    entityId: subject.entityId,
    interval: cycle.interval,
    intervalCount: cycle.count,
    currency: DEFAULT_CURRENCY,
    anchor: schedule.anchor,
    currentPeriodStart: ctx.clock.now(),
    currentPeriodEnd: schedule.periodEnd,
    recordIds: [],
  };
  store.insertProcessorSubscription(created);
  store.due.schedule(schedule.periodEnd, 'billing.period_end', created.id);
  return created;
}

/**
 * Every time attaching a plan now would schedule: the trial end, the end of the first billing
 * period, each item's first reset. Computed before anything is written, so a plan whose times lie
 * beyond the representable range (an absurd trial or interval count) is refused and changes nothing.
 */
function scheduleOf(plan: Plan, now: number): { trialEndsAt: number | null; periodEnd: number | null; resets: (number | null)[] } {
  try {
    const trialEndsAt = plan.free_trial ? addInterval(now, plan.free_trial.duration_type, plan.free_trial.duration_length) : null;
    const cycle = billingInterval(plan);
    const periodEnd = cycle === null ? null : (trialEndsAt ?? addInterval(now, cycle.interval, cycle.count));
    const resets = plan.items.map((item) =>
      resetsOf(item) ? addInterval(now, item.reset!.interval, item.reset!.interval_count ?? 1) : null,
    );
    return { trialEndsAt, periodEnd, resets };
  } catch (error) {
    if (error instanceof RangeError) fail('invalid_request', `Plan ${plan.id} cannot be attached: ${error.message}`);
    throw error;
  }
}

/** An item resets when it has a recurring reset interval and a limit to go back to. */
function resetsOf(item: Plan['items'][number]): boolean {
  return item.reset !== null && item.reset.interval !== 'one_off' && !item.unlimited;
}

/** Reset intervals in use, one frozen object each: a million grants of one plan item share one instead of a copy each. */
const RESETS = new Map<string, NonNullable<GrantRow['reset']>>();
/** Intervals and counts are few in practice; past this many, a grant gets a copy of its own. */
const MAX_SHARED_RESETS = 1000;

function sharedReset(interval: string, intervalCount: number): NonNullable<GrantRow['reset']> {
  const key = `${intervalCount} ${interval}`;
  const shared = RESETS.get(key);
  if (shared !== undefined) return shared;
  const reset = Object.freeze({ interval, intervalCount });
  if (RESETS.size < MAX_SHARED_RESETS) RESETS.set(key, reset);
  return reset;
}

/** Creates the record of a plan held by a subject, with its grants, pools and billing. */
export function holdPlan(ctx: DomainContext, subject: Subject, plan: Plan, options: HoldPlanOptions = {}): RecordRow {
  const { store } = ctx;
  const now = ctx.clock.now();
  const { trialEndsAt, periodEnd, resets } = scheduleOf(plan, now);
  const customer = store.customers.get(subject.customerId)!;
  // The reference creates the processor customer on the first attach, free plans included.
  customer.processorCustomerId ??= ctx.ids.next('cus_sim');
  const cycle = billingInterval(plan);
  const billing = cycle === null || periodEnd === null ? null : processorSubscriptionFor(ctx, subject, cycle, { anchor: trialEndsAt ?? now, periodEnd });
  const record: RecordRow = {
    id: ctx.ids.next('cus_prod'),
    kind: isOneOff(plan) ? 'purchase' : 'subscription',
    customerId: subject.customerId,
    entityId: subject.entityId,
    planId: plan.id,
    planVersion: plan.version,
    status: 'active',
    pastDue: false,
    canceledAt: null,
    expiresAt: null,
    trialEndsAt,
    startedAt: now,
    currentPeriodStart: billing?.currentPeriodStart ?? null,
    currentPeriodEnd: billing?.currentPeriodEnd ?? null,
    quantity: options.quantity ?? 1,
    createdAt: now,
    processorSubscriptionId: billing?.id ?? null,
    licensePoolId: options.licensePoolId ?? null,
  };
  store.insertRecord(record);
  billing?.recordIds.push(record.id);
  if (trialEndsAt !== null) store.due.schedule(trialEndsAt, 'record.trial_end', record.id);

  for (const [i, item] of plan.items.entries()) {
    const feature = store.features.get(item.feature_id)!;
    const nextResetAt = resets[i]!;
    const grant: GrantRow = {
      id: ctx.ids.next('cus_ent'),
      recordId: record.id,
      customerId: subject.customerId,
      entityId: subject.entityId,
      featureId: item.feature_id,
      planId: plan.id,
      isFlag: feature.type === 'boolean',
      included: item.included,
      prepaid: item.price?.billing_method === 'prepaid' ? (options.featureQuantities?.get(item.feature_id) ?? 0) : 0,
      usage: 0,
      unlimited: item.unlimited,
      reset: nextResetAt === null ? null : sharedReset(item.reset!.interval, item.reset!.interval_count ?? 1),
      nextResetAt,
      price: item.price,
      expiresAt: null,
      createdAt: now,
    };
    store.insertGrant(grant);
    if (grant.nextResetAt !== null) store.due.schedule(grant.nextResetAt, 'grant.reset', grant.id);
  }

  for (const link of plan.licenses ?? []) {
    const quantity = options.licenseQuantities?.get(link.license_plan_id);
    const paidQuantity = quantity === undefined ? 0 : Math.max(0, quantity - link.included);
    // As in the reference, a pool exists only when it has seats.
    if (link.included + paidQuantity === 0) continue;
    store.insertPool({
      id: ctx.ids.next('pool'),
      customerId: subject.customerId,
      parentRecordId: record.id,
      parentPlanId: plan.id,
      licensePlanId: link.license_plan_id,
      included: link.included,
      paidQuantity,
    });
  }
  return record;
}

/** Ends a record (now, or at the time it was due): it expires, stops granting, and revokes the seats of the pools it offered. */
export function endRecord(ctx: DomainContext, record: RecordRow, at = ctx.clock.now()): void {
  const { store } = ctx;
  const now = at;
  store.expireRecord(record);
  record.pastDue = false;
  record.canceledAt ??= now;
  record.expiresAt = now;
  for (const pool of store.poolsOf(record.customerId).filter((candidate) => candidate.parentRecordId === record.id)) {
    for (const assignment of store.activeAssignmentsOf(pool.id)) {
      store.endAssignment(assignment, now);
      const seat = store.records.get(assignment.id);
      if (seat !== undefined && seat.status !== 'expired') endRecord(ctx, seat, now);
    }
  }
}

/** The plan version a record holds. */
export function planOfRecord(ctx: DomainContext, record: RecordRow): Plan {
  return requirePlanVersion(ctx.store, record.planId, record.planVersion);
}

/**
 * The seat totals `license_quantities` asks for, by license plan. Each entry must name a license the
 * plan offers, once. Seats beyond a link's `included` are paid seats (`paid_quantity`); the fake takes
 * no payment, so they are granted at once whether or not the parent plan has a price (the reference
 * would bill them through the processor; a free plan's paid seats simply cost nothing here).
 */
function licenseQuantitiesOf(plan: Plan, entries: NonNullable<InputOf<'billing.attach'>['license_quantities']>): Map<string, number> {
  const offered = new Set((plan.licenses ?? []).map((link) => link.license_plan_id));
  const quantities = new Map<string, number>();
  for (const { license_plan_id: licensePlanId, quantity } of entries) {
    if (!offered.has(licensePlanId)) fail('invalid_request', `Plan ${plan.id} does not offer license ${licensePlanId}.`);
    if (quantities.has(licensePlanId)) fail('invalid_request', `Duplicate license ${licensePlanId} in license_quantities.`);
    quantities.set(licensePlanId, quantity);
  }
  return quantities;
}

export function attach(ctx: DomainContext, input: InputOf<'billing.attach'>): OutputOf<'billing.attach'> {
  const { store } = ctx;
  const subject = requireSubject(store, input.customer_id, input.entity_id);
  const plan = requirePlanVersion(store, input.plan_id, input.version);
  if (plan.archived) fail('invalid_request', `Plan ${plan.id} is archived and cannot be attached.`);
  const held = store
    .liveRecordsOf(subject.customerId, subject.entityId)
    // License seats are managed by licenses.attach / release, never replaced by an attach.
    .filter((record) => record.licensePoolId === null);
  if (held.some((record) => record.planId === plan.id && record.planVersion === plan.version)) {
    fail('invalid_request', `The ${subject.entityId === null ? 'customer' : 'entity'} already has plan ${plan.id}.`);
  }
  // Another version of the same plan is an upgrade; a main plan replaces the main plan of its group.
  const replaced = held.filter((record) => {
    if (record.planId === plan.id) return true;
    const other = planOfRecord(ctx, record);
    return !plan.add_on && !other.add_on && other.group === plan.group;
  });
  const licenseQuantities = licenseQuantitiesOf(plan, input.license_quantities ?? []);
  for (const record of replaced) endRecord(ctx, record);
  holdPlan(ctx, subject, plan, {
    licenseQuantities,
    featureQuantities: new Map((input.feature_quantities ?? []).map((entry) => [entry.feature_id, entry.quantity])),
  });
  return { customer_id: subject.customerId, ...(subject.entityId !== null && { entity_id: subject.entityId }), payment_url: null };
}
