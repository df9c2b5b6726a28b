/**
 * `billing.preview_multi_update` (documented): what cancelling or un-cancelling several plans would
 * bill, per simulated processor subscription, without changing anything. Free plans have no
 * processor subscription and so produce no entry. Amounts are in the currency's major unit.
 */
import type { z } from 'zod';
import type { PreviewSubscription } from '../../spec/preview.ts';
import type { ProcessorSubscriptionRow, RecordRow } from '../store/tenant-store.ts';
import { DEFAULT_CURRENCY, planOfRecord } from './billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { isOneOff } from './plans.ts';
import { requireSubject } from './subjects.ts';

type Update = InputOf<'billing.preview_multi_update'>['updates'][number];
type LineItem = z.input<typeof PreviewSubscription>['line_items'][number];

function roundMoney(amount: number): number {
  return Math.round(amount * 100) / 100 || 0;
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

/** What the holder paid for the current period of a record: the base price plus prepaid item units. */
function periodCharge(ctx: DomainContext, record: RecordRow): number {
  const plan = planOfRecord(ctx, record);
  const prepaid = ctx.store
    .grantsOfRecord(record.id)
    .filter((grant) => grant.price?.billing_method === 'prepaid' && grant.price.amount !== undefined)
    .reduce((sum, grant) => sum + Math.ceil(grant.prepaid / grant.price!.billing_units) * grant.price!.amount!, 0);
  return (plan.price?.amount ?? 0) * record.quantity + prepaid;
}

/** The credit for cancelling now: the unused share of the period (`prorated`) or the whole last payment (`full`). */
function refundLine(ctx: DomainContext, record: RecordRow, billing: ProcessorSubscriptionRow, mode: 'prorated' | 'full'): LineItem | null {
  const now = ctx.clock.now();
  // Nothing has been paid during a free trial, so nothing is refunded.
  if (record.trialEndsAt !== null && record.trialEndsAt > now) return null;
  const plan = planOfRecord(ctx, record);
  const period = billing.currentPeriodEnd - billing.currentPeriodStart;
  const unusedShare = mode === 'full' || period <= 0 ? 1 : Math.min(1, Math.max(0, (billing.currentPeriodEnd - now) / period));
  const amount = roundMoney(-periodCharge(ctx, record) * unusedShare);
  if (amount === 0) return null;
  return {
    display_name: plan.name,
    description: mode === 'full' ? `Refund of the last payment for ${plan.name}` : `Unused time on ${plan.name}`,
    subtotal: amount,
    total: amount,
    discounts: [],
  };
}

export function previewMultiUpdate(ctx: DomainContext, input: InputOf<'billing.preview_multi_update'>): OutputOf<'billing.preview_multi_update'> {
  const { store } = ctx;
  const { customerId } = requireSubject(store, input.customer_id, input.entity_id);
  const refundMode = input.refund_last_payment ?? 'prorated';
  const targets = input.updates.map((update) => {
    // An update may name its own entity, overriding the request's.
    const entityId = requireSubject(store, customerId, update.entity_id ?? input.entity_id).entityId;
    const record = findTarget(ctx, customerId, entityId, update);
    const plan = planOfRecord(ctx, record);
    if (update.cancel_action === 'cancel_end_of_cycle' && record.processorSubscriptionId === null) {
      fail('invalid_request', isOneOff(plan) ? 'One-off products do not have billing cycles.' : "Free products do not have billing cycles; use cancel: 'immediately' instead.");
    }
    return { update, record };
  });
  const seen = new Set<string>();
  for (const { record } of targets) {
    if (seen.has(record.id)) fail('invalid_request', `Multiple updates target the same plan (${record.planId}). Combine them into a single update.`);
    seen.add(record.id);
  }

  const entries = new Map<string, { billing: ProcessorSubscriptionRow; lines: LineItem[]; planIds: string[] }>();
  for (const { update, record } of targets) {
    if (record.processorSubscriptionId === null) continue;
    const billing = store.processorSubscriptions.get(record.processorSubscriptionId)!;
    const entry = entries.get(billing.id) ?? { billing, lines: [], planIds: [] };
    entries.set(billing.id, entry);
    entry.planIds.push(record.planId);
    if (update.cancel_action === 'cancel_immediately' && update.proration_behavior !== 'none') {
      const line = refundLine(ctx, record, billing, refundMode);
      if (line !== null) entry.lines.push(line);
    }
  }
  const subscriptions = [...entries.values()].map(({ billing, lines, planIds }) => {
    const total = roundMoney(lines.reduce((sum, line) => sum + line.total, 0));
    return { customer_id: customerId, line_items: lines, subtotal: total, total, currency: billing.currency, plan_ids: planIds };
  });
  return {
    customer_id: customerId,
    currency: DEFAULT_CURRENCY,
    total: roundMoney(subscriptions.reduce((sum, entry) => sum + entry.total, 0)),
    subscriptions,
  };
}
