/**
 * `billing.preview_multi_update` (documented): what cancelling or un-cancelling several plans would
 * bill, per simulated processor subscription, without changing anything. Free plans have no
 * processor subscription and so produce no entry. Amounts are in the currency's major unit.
 */
import type { z } from 'zod';
import type { ItemPrice } from '../../spec/plans.ts';
import type { PreviewSubscription } from '../../spec/preview.ts';
import type { GrantRow, ProcessorSubscriptionRow, RecordRow } from '../store/tenant-store.ts';
import { DEFAULT_CURRENCY, planOfRecord } from './billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { isOneOff } from './plans.ts';
import { requireSubject } from './subjects.ts';

type Update = InputOf<'billing.preview_multi_update'>['updates'][number];
type LineItem = z.input<typeof PreviewSubscription>['line_items'][number];
type PlanChange = NonNullable<z.input<typeof PreviewSubscription>['outgoing']>[number];

export interface PreviewTarget {
  readonly update: Update;
  readonly record: RecordRow;
}

/**
 * Rounds to cents, half away from zero, so that a credit rounds like the charge it returns. The
 * product is cut to 12 significant digits first, so binary noise (1.005 * 100 = 100.49999…) does
 * not decide the rounding.
 */
export function roundMoney(amount: number): number {
  const cents = Math.round(Number((Math.abs(amount) * 100).toPrecision(12)));
  return (Math.sign(amount) * cents) / 100 || 0;
}

function share(part: number, whole: number): number {
  return whole <= 0 ? 1 : Math.min(1, Math.max(0, part / whole));
}

function findTarget(ctx: DomainContext, customerId: string, entityId: string | null, update: Update): RecordRow {
  const record = ctx.store
    .recordsOf(customerId)
    .find(
      (candidate) =>
        candidate.entityId === entityId &&
        candidate.status === 'active' &&
        candidate.planId === update.plan_id &&
        (update.subscription_id === undefined || candidate.id === update.subscription_id),
    );
  return record ?? fail('cus_product_not_found', `No active subscription found for plan '${update.plan_id}' on customer '${customerId}'`);
}

/**
 * The record each update targets, refusing what the update itself would refuse: an unknown
 * customer, entity or plan, a billing-cycle action on a plan without a cycle, two updates of one plan.
 */
export function resolveTargets(ctx: DomainContext, input: InputOf<'billing.preview_multi_update'>): { customerId: string; targets: PreviewTarget[] } {
  const { store } = ctx;
  const { customerId } = requireSubject(store, input.customer_id, input.entity_id);
  const targets = input.updates.map((update) => {
    // An update may name its own entity, overriding the request's.
    const entityId = requireSubject(store, customerId, update.entity_id ?? input.entity_id).entityId;
    const record = findTarget(ctx, customerId, entityId, update);
    if (update.cancel_action === 'cancel_end_of_cycle' && record.processorSubscriptionId === null) {
      const plan = planOfRecord(ctx, record);
      fail('invalid_request', isOneOff(plan) ? 'One-off products do not have billing cycles.' : "Free products do not have billing cycles; use cancel: 'immediately' instead.");
    }
    return { update, record };
  });
  const seen = new Set<string>();
  for (const { record } of targets) {
    if (seen.has(record.id)) fail('invalid_request', `Multiple updates target the same plan (${record.planId}). Combine them into a single update.`);
    seen.add(record.id);
  }
  return { customerId, targets };
}

/** What the holder is charged for a whole period of a record: the base price plus prepaid item units. */
function periodCharge(ctx: DomainContext, record: RecordRow): number {
  const plan = planOfRecord(ctx, record);
  const prepaid = ctx.store
    .grantsOfRecord(record.id)
    .filter((grant) => grant.price?.billing_method === 'prepaid' && grant.price.amount !== undefined)
    .reduce((sum, grant) => sum + Math.ceil(grant.prepaid / grant.price!.billing_units) * grant.price!.amount!, 0);
  return (plan.price?.amount ?? 0) * record.quantity + prepaid;
}

/**
 * What the holder paid for the current period: nothing during a free trial; a record that joined
 * the subscription mid-period paid only for the rest of that period.
 */
function lastPayment(ctx: DomainContext, record: RecordRow, billing: ProcessorSubscriptionRow): number {
  if (record.trialEndsAt !== null && record.trialEndsAt > ctx.clock.now()) return 0;
  const period = billing.currentPeriodEnd - billing.currentPeriodStart;
  const paidFrom = Math.max(billing.currentPeriodStart, record.startedAt);
  return periodCharge(ctx, record) * share(billing.currentPeriodEnd - paidFrom, period);
}

/**
 * The credit for cancelling now, as a negative amount: the unused share of the period's charge
 * (`prorated`), or the whole last payment (`full`).
 */
function refundAmount(ctx: DomainContext, record: RecordRow, billing: ProcessorSubscriptionRow, mode: 'prorated' | 'full'): number {
  const paid = lastPayment(ctx, record, billing);
  if (mode === 'full') return roundMoney(-paid);
  const unused = periodCharge(ctx, record) * share(billing.currentPeriodEnd - ctx.clock.now(), billing.currentPeriodEnd - billing.currentPeriodStart);
  return roundMoney(-Math.min(paid, unused));
}

function refundLine(ctx: DomainContext, record: RecordRow, billing: ProcessorSubscriptionRow, mode: 'prorated' | 'full'): LineItem | null {
  const amount = refundAmount(ctx, record, billing, mode);
  if (amount === 0) return null;
  const plan = planOfRecord(ctx, record);
  return {
    display_name: plan.name,
    description: mode === 'full' ? `Refund of the last payment for ${plan.name}` : `Unused time on ${plan.name}`,
    subtotal: amount,
    total: amount,
    discounts: [],
    plan_id: plan.id,
    feature_id: null,
    quantity: record.quantity,
  };
}

/**
 * What a usage price charges for `overage` units used beyond the included amount ("an optional
 * price applies to usage beyond the included amount"). How it is charged is the reference's, the
 * document states none of it: the units are rounded up to whole `billing_units` packages and each
 * package costs the price's amount; tier bounds count units beyond the included amount; graduated
 * tiers (the default) charge each band at its own rate, volume tiers charge every unit at the rate
 * of the band the last unit falls in.
 */
export function usageCharge(price: Pick<ItemPrice, 'amount' | 'tiers' | 'tier_behavior' | 'billing_units'>, overage: number): number {
  const units = Math.ceil(Number((overage / price.billing_units).toPrecision(12))) * price.billing_units;
  if (units <= 0) return 0;
  const perUnit = (amount: number | undefined) => (amount ?? 0) / price.billing_units;
  if (price.tiers === undefined) return units * perUnit(price.amount);
  const bound = (to: number | 'inf') => (to === 'inf' ? Number.POSITIVE_INFINITY : to);
  if (price.tier_behavior === 'volume') {
    const band = price.tiers.find((tier) => units <= bound(tier.to)) ?? price.tiers.at(-1)!;
    return units * perUnit(band.amount);
  }
  let charge = 0;
  let from = 0;
  for (const tier of price.tiers) {
    const to = Math.min(units, bound(tier.to));
    if (to > from) charge += (to - from) * perUnit(tier.amount);
    from = Math.max(from, to);
    if (from >= units) break;
  }
  return charge;
}

/** Units a usage-priced grant was used beyond what it included and what was bought upfront. */
function overageOf(grant: GrantRow): number {
  return grant.price?.billing_method === 'usage_based' && !grant.unlimited ? Math.max(0, grant.usage - grant.included - grant.prepaid) : 0;
}

/**
 * The charge for the usage beyond the included amount of a record's usage-priced items: ending the
 * plan now ends its period, so the overage used so far is due today.
 */
function overageLines(ctx: DomainContext, record: RecordRow): LineItem[] {
  return ctx.store.grantsOfRecord(record.id).flatMap((grant) => {
    const overage = overageOf(grant);
    const amount = overage > 0 ? roundMoney(usageCharge(grant.price!, overage)) : 0;
    if (amount === 0) return [];
    const name = ctx.store.features.get(grant.featureId)?.name ?? grant.featureId;
    return [
      {
        display_name: name,
        description: `${overage} ${name} beyond the ${grant.included} included`,
        subtotal: amount,
        total: amount,
        discounts: [],
        plan_id: record.planId,
        feature_id: grant.featureId,
        quantity: overage,
      },
    ];
  });
}

/** The plan an update takes out of the subscription (a cancel) or brings back into it (an uncancel), as the reference lists them. */
function planChange(ctx: DomainContext, update: Update, record: RecordRow, billing: ProcessorSubscriptionRow): { side: 'incoming' | 'outgoing'; change: PlanChange } {
  const now = ctx.clock.now();
  const featureQuantities = ctx.store
    .grantsOfRecord(record.id)
    .filter((grant) => grant.prepaid > 0)
    .map((grant) => ({ feature_id: grant.featureId, quantity: grant.prepaid }));
  const base = { plan_id: record.planId, feature_quantities: featureQuantities };
  if (update.cancel_action === 'uncancel') return { side: 'incoming', change: { ...base, effective_at: now, canceled_at: null, expires_at: null } };
  const endsAt = update.cancel_action === 'cancel_immediately' ? now : billing.currentPeriodEnd;
  return { side: 'outgoing', change: { ...base, effective_at: endsAt, canceled_at: now, expires_at: endsAt } };
}

export function previewMultiUpdate(ctx: DomainContext, input: InputOf<'billing.preview_multi_update'>): OutputOf<'billing.preview_multi_update'> {
  const { store } = ctx;
  const { customerId, targets } = resolveTargets(ctx, input);
  const refundMode = input.refund_last_payment ?? 'prorated';
  const entries = new Map<string, { billing: ProcessorSubscriptionRow; lines: LineItem[]; planIds: string[]; incoming: PlanChange[]; outgoing: PlanChange[] }>();
  for (const { update, record } of targets) {
    if (record.processorSubscriptionId === null) continue;
    const billing = store.processorSubscriptions.get(record.processorSubscriptionId)!;
    const entry = entries.get(billing.id) ?? { billing, lines: [], planIds: [], incoming: [], outgoing: [] };
    entries.set(billing.id, entry);
    entry.planIds.push(record.planId);
    const { side, change } = planChange(ctx, update, record, billing);
    entry[side].push(change);
    if (update.cancel_action === 'cancel_immediately') {
      // Proration decides the refund only; the usage already consumed is owed either way.
      const line = update.proration_behavior === 'none' ? null : refundLine(ctx, record, billing, refundMode);
      if (line !== null) entry.lines.push(line);
      entry.lines.push(...overageLines(ctx, record));
    }
  }
  const subscriptions = [...entries.values()].map(({ billing, lines, planIds, incoming, outgoing }) => {
    const total = roundMoney(lines.reduce((sum, line) => sum + line.total, 0));
    return { customer_id: customerId, line_items: lines, subtotal: total, total, currency: billing.currency, plan_ids: planIds, incoming, outgoing };
  });
  return {
    customer_id: customerId,
    currency: DEFAULT_CURRENCY,
    total: roundMoney(subscriptions.reduce((sum, entry) => sum + entry.total, 0)),
    subscriptions,
  };
}
