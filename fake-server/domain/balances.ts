/**
 * Balances: how grants add up to the Balance resource, `balances.check` (documented), and
 * `balances.track` and `balances.finalize` (setup). Every deduction runs to completion inside one
 * synchronous call, so concurrent checks can never spend the same units twice.
 */
import type { z } from 'zod';
import type { Balance, BreakdownEntry, Flag, LockSettings } from '../../spec/balances.ts';
import type { JsonObject as Json } from '../../spec/common.ts';
import type { Feature } from '../../spec/features.ts';
import type { GrantRow, LockRow, TenantStore } from '../store/tenant-store.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { creditSystemsCovering, requireFeature } from './features.ts';
import { requireActivePlan } from './plans.ts';
import { grantsHeldBy, recordsHeldBy, requireSubject, type Subject } from './subjects.ts';
import type { ViewTexts } from './view-texts.ts';

type BalanceView = z.input<typeof Balance>;
type FlagView = z.input<typeof Flag>;

/** Units a grant still has: included plus prepaid, minus usage, never below zero. */
export function grantRemaining(grant: GrantRow): number {
  return grant.unlimited ? 0 : Math.max(0, grant.included + grant.prepaid - grant.usage);
}

function breakdownEntry(grant: GrantRow): z.input<typeof BreakdownEntry> {
  return {
    id: grant.id,
    plan_id: grant.planId,
    included_grant: grant.unlimited ? 0 : grant.included,
    prepaid_grant: grant.prepaid,
    remaining: grantRemaining(grant),
    usage: grant.usage,
    unlimited: grant.unlimited,
    reset:
      grant.reset === null || grant.nextResetAt === null
        ? null
        : {
            interval: grant.reset.interval,
            ...(grant.reset.intervalCount !== 1 && { interval_count: grant.reset.intervalCount }),
            resets_at: grant.nextResetAt,
          },
    price:
      grant.price === null
        ? null
        : {
            ...(grant.price.amount !== undefined && { amount: grant.price.amount }),
            ...(grant.price.tiers !== undefined && { tiers: grant.price.tiers.map(({ to, amount }) => ({ to, amount })) }),
            ...(grant.price.tier_behavior !== undefined && { tier_behavior: grant.price.tier_behavior }),
            billing_units: grant.price.billing_units,
            billing_method: grant.price.billing_method,
            max_purchase: grant.price.max_purchase,
          },
    expires_at: grant.expiresAt,
  };
}

/** A usage-based price lets usage run past the balance (it is billed as overage). */
export function allowsOverage(grant: GrantRow): boolean {
  return grant.price?.billing_method === 'usage_based';
}

/** Sums the metered grants of one feature into a Balance; null when there are none. */
export function balanceOf(grants: readonly GrantRow[], featureId: string): BalanceView | null {
  const metered = grants.filter((grant) => grant.featureId === featureId && !grant.isFlag);
  if (metered.length === 0) return null;
  const resets = metered.map((grant) => grant.nextResetAt).filter((at): at is number => at !== null);
  return {
    feature_id: featureId,
    granted: metered.reduce((sum, grant) => sum + (grant.unlimited ? 0 : grant.included + grant.prepaid), 0),
    remaining: metered.reduce((sum, grant) => sum + grantRemaining(grant), 0),
    usage: metered.reduce((sum, grant) => sum + grant.usage, 0),
    unlimited: metered.some((grant) => grant.unlimited),
    overage_allowed: metered.some(allowsOverage),
    max_purchase: metered.find((grant) => grant.price !== null && grant.price.max_purchase !== null)?.price?.max_purchase ?? null,
    next_reset_at: resets.length === 0 ? null : Math.min(...resets),
    breakdown: metered.map(breakdownEntry),
  };
}

/** The flag of a boolean feature a subject holds; the first grant wins. */
export function flagOf(grants: readonly GrantRow[], featureId: string): FlagView | null {
  const grant = grants.find((candidate) => candidate.featureId === featureId && candidate.isFlag);
  return grant === undefined ? null : { id: grant.id, plan_id: grant.planId, expires_at: grant.expiresAt, feature_id: featureId };
}

/**
 * Every metered balance and every flag a subject holds, keyed by feature id. Maps keyed by the
 * caller's IDs are built with Object.fromEntries (own properties), never by assignment, so an ID
 * such as `__proto__` stays a key.
 */
export function balancesAndFlags(grants: readonly GrantRow[]): { balances: Record<string, BalanceView>; flags: Record<string, FlagView> } {
  const featureIds = [...new Set(grants.map((grant) => grant.featureId))];
  return {
    balances: Object.fromEntries(featureIds.flatMap((featureId) => presentEntry(featureId, balanceOf(grants, featureId)))),
    flags: Object.fromEntries(featureIds.flatMap((featureId) => presentEntry(featureId, flagOf(grants, featureId)))),
  };
}

function presentEntry<V>(key: string, value: V | null): [string, V][] {
  return value === null ? [] : [[key, value]];
}

/** How far past its balance a grant may be used: unbounded for usage-based prices without a cap. */
function overageRoom(grant: GrantRow): number {
  if (!allowsOverage(grant)) return 0;
  const cap = grant.price?.max_purchase ?? null;
  if (cap === null) return Number.POSITIVE_INFINITY;
  const overageSoFar = Math.max(0, grant.usage - grant.included - grant.prepaid);
  return Math.max(0, cap - overageSoFar);
}

export type OverageMode = 'reject' | 'cap' | 'overflow';

export interface Deduction {
  readonly grantId: string;
  readonly value: number;
}

/**
 * Uses `value` units of a feature across its grants, in order, all or nothing: each grant gives up to
 * what it has left, then grants whose price allows overage take the rest up to their cap. What is
 * still left is refused (`reject`: nothing is deducted, null is returned), dropped (`cap`) or put on
 * the last grant anyway (`overflow`). A negative value gives units back, newest grant first.
 * Unlimited grants absorb any amount.
 */
export function deduct(grants: readonly GrantRow[], value: number, mode: OverageMode): Deduction[] | null {
  const metered = grants.filter((grant) => !grant.isFlag);
  if (metered.length === 0) return value > 0 && mode === 'reject' ? null : [];
  const plan: Deduction[] = [];
  if (value < 0) {
    let left = -value;
    for (const grant of [...metered].reverse()) {
      const back = Math.min(grant.usage, left);
      if (back > 0) plan.push({ grantId: grant.id, value: -back });
      left -= back;
    }
  } else {
    const unlimited = metered.find((grant) => grant.unlimited);
    if (unlimited !== undefined) {
      plan.push({ grantId: unlimited.id, value });
    } else {
      let left = value;
      for (const grant of metered) {
        const take = Math.min(grantRemaining(grant), left);
        if (take > 0) plan.push({ grantId: grant.id, value: take });
        left -= take;
      }
      for (const grant of metered) {
        if (left <= 0) break;
        const take = Math.min(overageRoom(grant), left);
        if (take > 0) plan.push({ grantId: grant.id, value: take });
        left -= take;
      }
      if (left > 0) {
        if (mode === 'reject') return null;
        if (mode === 'overflow') plan.push({ grantId: metered.at(-1)!.id, value: left });
      }
    }
  }
  for (const step of plan) metered.find((grant) => grant.id === step.grantId)!.usage += step.value;
  return plan;
}

// ── Operations ──────────────────────────────────────────────────────────────

type BalanceMap = Record<string, BalanceView | null>;

/** The checked feature and the credit systems that price it: interface.md's "map of feature_id to Balance". */
function relatedBalances(store: TenantStore, grants: readonly GrantRow[], featureId: string): BalanceMap {
  const ids = [featureId, ...creditSystemsCovering(store, featureId).map((system) => system.id)];
  return Object.fromEntries(ids.map((id) => [id, balanceOf(grants, id)]));
}

/** Credits one unit of a metered feature costs in a credit system (its flat `credit_cost`). */
function creditCost(system: Feature, featureId: string): number {
  return system.credit_schema!.find((entry) => entry.metered_feature_id === featureId)!.credit_cost;
}

/**
 * interface.md: `allowed` is true "when balance suffices, the feature is unlimited", and false when
 * the balance is below `required_balance`. No balance at all never suffices; a required balance of
 * zero or less is always met by an existing one (as in the reference).
 */
function balanceAllows(grants: readonly GrantRow[], featureId: string, required: number): boolean {
  const balance = balanceOf(grants, featureId);
  if (balance === null) return false;
  if (balance.unlimited || required <= 0) return true;
  const room = grants.filter((grant) => grant.featureId === featureId && !grant.isFlag).reduce((sum, grant) => sum + overageRoom(grant), 0);
  return balance.remaining + room >= required;
}

/** The balance that pays for a feature's units, and how many of its units one feature unit costs. */
interface BalanceChoice {
  readonly featureId: string;
  readonly rate: number;
}

/**
 * Which balance a check or track uses: the feature's own when it suffices, otherwise the first
 * credit system pricing the feature that suffices, otherwise the first one the subject holds,
 * otherwise the feature's own (which then denies).
 */
function chooseBalance(store: TenantStore, grants: readonly GrantRow[], featureId: string, required: number): BalanceChoice {
  if (balanceAllows(grants, featureId, required)) return { featureId, rate: 1 };
  const held = creditSystemsCovering(store, featureId)
    .map((system) => ({ featureId: system.id, rate: creditCost(system, featureId) }))
    .filter((choice) => balanceOf(grants, choice.featureId) !== null);
  return held.find((choice) => balanceAllows(grants, choice.featureId, required * choice.rate)) ?? held[0] ?? { featureId, rate: 1 };
}

interface UsageEvent {
  readonly featureId: string;
  readonly value: number;
  readonly properties: Json;
  readonly eventName: string | null;
  readonly timestamp?: number | undefined;
}

function recordEvent(ctx: DomainContext, subject: Subject, event: UsageEvent): void {
  ctx.store.events.push({
    id: ctx.ids.next('evt'),
    customerId: subject.customerId,
    entityId: subject.entityId,
    featureId: event.featureId,
    eventName: event.eventName,
    value: event.value,
    properties: event.properties,
    timestamp: event.timestamp ?? ctx.clock.now(),
  });
}

type Lock = z.output<typeof LockSettings>;

/** A lock holds units of a resetting feature, under an id not already holding any. */
function requireLockable(store: TenantStore, feature: Feature, lockId: string): void {
  if (!feature.consumable) fail('invalid_request', 'Lock is not supported for allocated features');
  if (store.locks.has(lockId)) fail('invalid_request', `Lock ${lockId} already exists`);
}

/**
 * Uses `event.value` units of a feature from the chosen balance (in its units), all at once: records
 * the usage event, or with a lock holds the units until `balances.finalize` or the lock's expiry.
 * Null when `reject` refused it; then nothing changed.
 */
function useUnits(ctx: DomainContext, subject: Subject, grants: readonly GrantRow[], choice: BalanceChoice, mode: OverageMode, event: UsageEvent, lock?: Lock): Deduction[] | null {
  const { store } = ctx;
  const deductions = deduct(grants.filter((grant) => grant.featureId === choice.featureId), event.value * choice.rate, mode);
  if (deductions === null) return null;
  if (lock === undefined) {
    recordEvent(ctx, subject, event);
    return deductions;
  }
  store.locks.set(lock.lock_id, {
    lockId: lock.lock_id,
    customerId: subject.customerId,
    entityId: subject.entityId,
    featureId: event.featureId,
    value: event.value,
    balanceFeatureId: choice.featureId,
    rate: choice.rate,
    deductions,
    properties: event.properties,
    expiresAt: lock.expires_at ?? null,
  });
  if (lock.expires_at !== undefined) store.due.schedule(lock.expires_at, 'lock.expire', lock.lock_id);
  return deductions;
}

/** A boolean feature: a flag a plan grants or not, with no balance to use. */
function isFlagFeature(feature: Feature): boolean {
  return feature.type === 'boolean';
}

const LIMIT_TEXT = { feature_flag: 'You do not have access to', usage_limit: 'You have reached the usage limit for' } as const;

/** Upgrade information for a denied check: the plans the subject does not hold that grant the feature. */
function upgradePreview(ctx: DomainContext, subject: Subject, featureId: string): NonNullable<OutputOf<'balances.check'>['preview']> {
  const { store } = ctx;
  const feature = requireFeature(store, featureId);
  const held = new Set(recordsHeldBy(store, subject).map((record) => record.planId));
  const products = [...store.plans.keys()]
    .map((planId) => requireActivePlan(store, planId))
    .filter((plan) => !plan.archived && !held.has(plan.id) && plan.items.some((item) => item.feature_id === featureId))
    .map((plan) => ({ id: plan.id, name: plan.name, group: plan.group, add_on: plan.add_on, version: plan.version }));
  const target = products[0]?.name ?? 'a plan that includes it';
  const scenario = isFlagFeature(feature) ? 'feature_flag' : 'usage_limit';
  return {
    scenario,
    title: `Upgrade to ${target}`,
    message: `${LIMIT_TEXT[scenario]} ${feature.name}. Please upgrade to ${target} to continue using this feature.`,
    feature_id: featureId,
    feature_name: feature.name,
    products,
  };
}

export function check(ctx: DomainContext, input: InputOf<'balances.check'>): OutputOf<'balances.check'> {
  const { store } = ctx;
  // As in the reference, an unknown feature is reported before an unknown customer.
  const feature = requireFeature(store, input.feature_id);
  const subject = requireSubject(store, input.customer_id, input.entity_id);
  const grants = grantsHeldBy(store, subject);
  const base = { customer_id: subject.customerId, entity_id: subject.entityId };
  const withPreview = (allowed: boolean) => (input.with_preview ? { preview: allowed ? null : upgradePreview(ctx, subject, feature.id) } : {});

  if (isFlagFeature(feature)) {
    if (input.send_event || input.lock) fail('invalid_request', 'send_event cannot be used with boolean features; use it with metered features.');
    const flag = flagOf(grants, feature.id);
    return { allowed: flag !== null, ...base, required_balance: input.required_balance, balance: null, flag, balances: { [feature.id]: null }, ...withPreview(flag !== null) };
  }
  if (input.lock) requireLockable(store, feature, input.lock.lock_id);
  // CHECK-REQUIRED-BALANCE-NEGATIVE: a negative usage event would give units back through a check.
  if ((input.send_event || input.lock) && input.required_balance < 0) fail('invalid_request', 'required_balance must not be negative with send_event or a lock');

  const choice = chooseBalance(store, grants, feature.id, input.required_balance);
  // As in the reference, a check paid by a credit system states its amount and balance in credits.
  const required = input.required_balance * choice.rate;
  let allowed = balanceAllows(grants, choice.featureId, required);
  if (allowed && (input.send_event || input.lock)) {
    // interface.md: send_event "atomically records a usage event of `required_balance` units".
    const event = { featureId: feature.id, value: input.required_balance, properties: input.properties ?? {}, eventName: null };
    allowed = useUnits(ctx, subject, grants, choice, 'reject', event, input.lock) !== null;
  }
  return {
    allowed,
    ...base,
    required_balance: required,
    balance: balanceOf(grants, choice.featureId),
    flag: null,
    balances: relatedBalances(store, grants, feature.id),
    ...withPreview(allowed),
  };
}

/**
 * The same answer as `check`, as JSON text. A check that uses no units (no send_event, no lock)
 * only reads: its answer is a view of the subject's balances, taken from `texts` while the data is
 * unchanged. One that uses units changes the data, and is computed every time.
 */
export function checkText(ctx: DomainContext, input: InputOf<'balances.check'>, texts: ViewTexts): string {
  if (input.send_event || input.lock) return JSON.stringify(check(ctx, input));
  return texts.textOf('balances.check', JSON.stringify(input), () => JSON.stringify(check(ctx, input)));
}

function deductionView(store: TenantStore, deduction: Deduction) {
  const grant = store.grants.get(deduction.grantId)!;
  const reset = grant.reset === null || grant.nextResetAt === null ? null : { interval: grant.reset.interval, resets_at: grant.nextResetAt };
  return { balance_id: grant.id, feature_id: grant.featureId, plan_id: grant.planId, reset, value: deduction.value };
}

/** The features a track names: the one feature, or every feature declaring the event name. */
export function trackedFeatures(store: TenantStore, input: Pick<InputOf<'balances.track'>, 'feature_id' | 'event_name'>): Feature[] {
  if (input.feature_id !== undefined) return [requireFeature(store, input.feature_id)];
  const features = [...store.features.values()].filter((feature) => feature.event_names?.includes(input.event_name!) ?? false);
  if (features.length === 0) fail('feature_not_found', `No feature is triggered by event ${input.event_name}`);
  return features;
}

export function track(ctx: DomainContext, input: InputOf<'balances.track'>): OutputOf<'balances.track'> {
  const { store } = ctx;
  const subject = requireSubject(store, input.customer_id, input.entity_id);
  const features = trackedFeatures(store, input);
  const flagFeature = features.find(isFlagFeature);
  if (flagFeature !== undefined) fail('invalid_request', `Feature ${flagFeature.id} is a boolean feature; usage cannot be tracked for it.`);
  if (input.lock) {
    if (features.length > 1) fail('invalid_request', `A lock holds units of one feature; event ${input.event_name} drives ${features.length}.`);
    requireLockable(store, features[0]!, input.lock.lock_id);
  }
  const grants = grantsHeldBy(store, subject);
  const deductions = features.flatMap((feature) => {
    const event = { featureId: feature.id, value: input.value, properties: input.properties ?? {}, eventName: input.event_name ?? null, timestamp: input.timestamp };
    // `cap` and `overflow` never refuse, so there is always a list.
    return useUnits(ctx, subject, grants, chooseBalance(store, grants, feature.id, input.value), input.overage_behavior ?? 'cap', event, input.lock)!;
  });
  return {
    customer_id: subject.customerId,
    ...(subject.entityId !== null && { entity_id: subject.entityId }),
    ...(input.event_name !== undefined && { event_name: input.event_name }),
    value: input.value,
    balance: balanceOf(grants, features[0]!.id),
    balances: Object.fromEntries(features.flatMap((feature) => Object.entries(relatedBalances(store, grants, feature.id)))),
    deductions: deductions.map((deduction) => deductionView(store, deduction)),
  };
}

/** Gives back what a lock held (never below zero usage: a reset may have cleared it meanwhile). */
export function releaseLock(store: TenantStore, lock: LockRow): void {
  for (const deduction of lock.deductions) {
    const grant = store.grants.get(deduction.grantId);
    if (grant !== undefined) grant.usage = Math.max(0, grant.usage - deduction.value);
  }
  store.locks.delete(lock.lockId);
}

/** Commits what a lock held, adjusted to `override_value` when given, and records the usage event. */
function confirmLock(ctx: DomainContext, lock: LockRow, overrideValue?: number, properties: Json = {}): void {
  const { store } = ctx;
  const subject = { customerId: lock.customerId, entityId: lock.entityId };
  const value = overrideValue ?? lock.value;
  if (value !== lock.value) {
    const grants = grantsHeldBy(store, subject).filter((grant) => grant.featureId === lock.balanceFeatureId);
    deduct(grants, (value - lock.value) * lock.rate, 'overflow');
  }
  store.locks.delete(lock.lockId);
  recordEvent(ctx, subject, { featureId: lock.featureId, value, properties: { ...lock.properties, ...properties }, eventName: null });
}

export function finalize(ctx: DomainContext, input: InputOf<'balances.finalize'>): OutputOf<'balances.finalize'> {
  const lock = ctx.store.locks.get(input.lock_id) ?? fail('lock_not_found', `Lock ${input.lock_id} not found`);
  if (input.action === 'release') releaseLock(ctx.store, lock);
  else confirmLock(ctx, lock, input.override_value, input.properties);
  return { success: true };
}
