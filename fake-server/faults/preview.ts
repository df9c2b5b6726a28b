/** Broken variants of the preview rules. */
import type { OperationName } from '../../spec/operations.ts';
import { endRecord } from '../domain/billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from '../domain/context.ts';
import { resolveTargets, roundMoney } from '../domain/preview.ts';
import type { RecordRow } from '../store/tenant-store.ts';
import type { Fault } from './fault.ts';

type Body = Record<string, unknown>;
type Result = OutputOf<'billing.preview_multi_update'>;
type Input = InputOf<'billing.preview_multi_update'>;

const OPERATION: OperationName = 'billing.preview_multi_update';
const CANCEL_ACTIONS: readonly unknown[] = ['cancel_immediately', 'cancel_end_of_cycle', 'uncancel'];
const REFUND_MODES: readonly unknown[] = ['prorated', 'full'];

/** Rewrites a preview body before validation. */
function previewBody(rewrite: (body: Body) => Body): NonNullable<Fault['input']> {
  return (operation, body) => (operation === OPERATION && typeof body === 'object' && body !== null ? rewrite(body as Body) : body);
}

/** Rewrites every update of a preview body before validation. */
function eachUpdate(rewrite: (update: Body) => Body): NonNullable<Fault['input']> {
  return previewBody((body) => (Array.isArray(body['updates']) ? { ...body, updates: body['updates'].map((update: Body) => rewrite(update)) } : body));
}

/** Rewrites a preview result before it is sent. */
function previewResult(rewrite: (result: Result) => unknown): NonNullable<Fault['output']> {
  return (operation, body) => (operation === OPERATION ? rewrite(body as Result) : body);
}

/**
 * Lets a body whose updates are missing or empty (by `applies`) through validation, and answers it
 * with an empty preview instead of refusing it.
 */
function emptyPreviewWhen(applies: (updates: unknown) => boolean): Pick<Fault, 'input' | 'handlers'> {
  const marker = '\u0000no-updates';
  return {
    input: previewBody((body) => (applies(body['updates']) ? { ...body, updates: [{ plan_id: marker, cancel_action: 'uncancel' }] } : body)),
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) =>
        input.updates[0]?.plan_id === marker ? { customer_id: input.customer_id, currency: 'usd', total: 0, subscriptions: [] } : real(ctx, input),
    },
  };
}

function withoutEntity<U extends { entity_id?: string }>({ entity_id: _entityId, ...rest }: U): Omit<U, 'entity_id'> {
  return rest;
}

/** The records of the plan an update names, held by its subject (the update's entity, else the request's, else the customer). */
function recordsOfUpdate(ctx: DomainContext, input: Input, update: Input['updates'][number]): RecordRow[] {
  const entityId = update.entity_id ?? input.entity_id ?? null;
  return ctx.store.recordsOf(input.customer_id).filter((record) => record.planId === update.plan_id && record.entityId === entityId);
}

export const previewFaults: readonly Fault[] = [
  {
    rule: 'PREV-RESULT-SHAPE',
    breaks: 'the result leaves out customer_id',
    output: previewResult(({ customer_id: _customerId, ...rest }) => rest),
  },
  {
    rule: 'PREV-CURRENCY-ISO',
    breaks: 'the currency is a three-letter abbreviation that is not an ISO 4217 code (dlr)',
    output: previewResult((result) => ({ ...result, currency: 'dlr', subscriptions: result.subscriptions.map((entry) => ({ ...entry, currency: 'dlr' })) })),
  },
  {
    rule: 'PREV-TOTAL-SUM',
    breaks: "the total is only the first entry's total",
    output: previewResult((result) => ({ ...result, total: result.subscriptions[0]?.total ?? 0 })),
  },
  {
    rule: 'PREV-ONE-ENTRY-PER-SUBSCRIPTION',
    breaks: 'every affected processor subscription is folded into one entry',
    output: previewResult((result) => {
      const [first, ...others] = result.subscriptions;
      if (first === undefined) return result;
      const merged = others.reduce(
        (into, entry) => ({
          ...into,
          line_items: [...into.line_items, ...entry.line_items],
          subtotal: into.subtotal + entry.subtotal,
          total: into.total + entry.total,
          plan_ids: [...into.plan_ids, ...entry.plan_ids],
        }),
        first,
      );
      return { ...result, subscriptions: [merged] };
    }),
  },
  {
    rule: 'PREV-FREE-PLANS-NO-ENTRY',
    breaks: 'each free plan gets an entry of its own, with total 0',
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) => {
        const result = real(ctx, input);
        const free = resolveTargets(ctx, input).targets.filter(({ record }) => record.processorSubscriptionId === null);
        const entries = free.map(({ record }) => ({ customer_id: record.customerId, line_items: [], subtotal: 0, total: 0, currency: result.currency, plan_ids: [record.planId] }));
        return { ...result, subscriptions: [...result.subscriptions, ...entries] };
      },
    },
  },
  {
    rule: 'PREV-USAGE-OVERAGE-BILLED',
    breaks: 'cancelling now bills nothing for the usage beyond the included amount (its lines are dropped, the totals follow)',
    output: previewResult((result) => {
      const subscriptions = result.subscriptions.map((entry) => {
        const dropped = entry.line_items.filter((line) => typeof line.feature_id === 'string').reduce((sum, line) => sum + line.total, 0);
        const line_items = entry.line_items.filter((line) => typeof line.feature_id !== 'string');
        return { ...entry, line_items, subtotal: roundMoney(entry.subtotal - dropped), total: roundMoney(entry.total - dropped) };
      });
      return { ...result, subscriptions, total: roundMoney(subscriptions.reduce((sum, entry) => sum + entry.total, 0)) };
    }),
  },
  {
    rule: 'PREV-NO-CHANGES',
    breaks: 'the preview carries out the immediate cancellations it previews',
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) => {
        const result = real(ctx, input);
        for (const { update, record } of resolveTargets(ctx, input).targets) {
          if (update.cancel_action === 'cancel_immediately') endRecord(ctx, record);
        }
        return result;
      },
    },
  },
  {
    rule: 'PREV-REQUIRED-FIELDS',
    breaks: 'a body without updates is answered with an empty preview',
    ...emptyPreviewWhen((updates) => updates === undefined),
  },
  {
    rule: 'PREV-UPDATE-FIELDS',
    breaks: 'an update without cancel_action is taken as cancel_immediately',
    input: eachUpdate((update) => (update['cancel_action'] === undefined ? { ...update, cancel_action: 'cancel_immediately' } : update)),
  },
  {
    rule: 'PREV-UPDATES-MIN-ONE',
    breaks: 'an empty updates list is answered with an empty preview',
    ...emptyPreviewWhen((updates) => Array.isArray(updates) && updates.length === 0),
  },
  {
    rule: 'PREV-PER-UPDATE-ENTITY',
    breaks: "an update's own entity_id is ignored",
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) => real(ctx, { ...input, updates: input.updates.map((update) => withoutEntity(update)) }),
    },
  },
  {
    rule: 'PREV-REQUEST-ENTITY',
    breaks: "the request's entity_id is ignored: updates without their own entity target the customer's plans",
    handlers: { 'billing.preview_multi_update': (real) => (ctx, input) => real(ctx, withoutEntity(input)) },
  },
  {
    rule: 'PREV-REFUND-MODE',
    breaks: 'an immediate cancellation always refunds the whole last payment, prorated or not',
    handlers: { 'billing.preview_multi_update': (real) => (ctx, input) => real(ctx, { ...input, refund_last_payment: 'full' }) },
  },
  {
    rule: 'PREV-REFUND-MODE-ENUM',
    breaks: 'a refund mode outside the enum is taken as prorated',
    input: previewBody((body) => ('refund_last_payment' in body && !REFUND_MODES.includes(body['refund_last_payment']) ? { ...body, refund_last_payment: 'prorated' } : body)),
  },
  {
    rule: 'PREV-REFUND-WIRE',
    breaks: 'refund_last_payment is not read, so every refund is prorated',
    input: previewBody(({ refund_last_payment: _mode, ...rest }) => rest),
  },
  {
    rule: 'PREV-SUBSCRIPTION-PARAMS-WIRE',
    breaks: 'subscription_params is refused as an unknown key',
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) =>
        input.subscription_params === undefined ? real(ctx, input) : fail('invalid_inputs', 'input: Unrecognized key: "subscription_params"'),
    },
  },
  {
    rule: 'PREV-CANCEL-ACTION-ENUM',
    breaks: 'a cancel_action outside the enum is taken as cancel_immediately',
    input: eachUpdate((update) => ('cancel_action' in update && !CANCEL_ACTIONS.includes(update['cancel_action']) ? { ...update, cancel_action: 'cancel_immediately' } : update)),
  },
  {
    rule: 'PREV-TARGET-HELD',
    breaks: 'an update naming a plan the customer no longer holds previews the cancellation of its last, expired record',
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) => {
        const revived = input.updates.flatMap((update) => {
          const records = recordsOfUpdate(ctx, input, update);
          const last = records.at(-1);
          return records.some((record) => record.status === 'active') || last === undefined ? [] : [{ record: last, status: last.status }];
        });
        for (const { record } of revived) record.status = 'active';
        try {
          return real(ctx, input);
        } finally {
          for (const { record, status } of revived) record.status = status;
        }
      },
    },
  },
  {
    rule: 'PREV-END-OF-CYCLE-NEEDS-CYCLE',
    breaks: 'cancel_end_of_cycle of a plan without a billing cycle is previewed as an immediate cancellation (no entry)',
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) => {
        const withoutCycle = (update: Input['updates'][number]) =>
          update.cancel_action === 'cancel_end_of_cycle' && recordsOfUpdate(ctx, input, update).some((record) => record.status === 'active' && record.processorSubscriptionId === null);
        return real(ctx, { ...input, updates: input.updates.map((update) => (withoutCycle(update) ? { ...update, cancel_action: 'cancel_immediately' as const } : update)) });
      },
    },
  },
  {
    rule: 'PREV-ONE-UPDATE-PER-PLAN',
    breaks: 'a second update of the same plan is dropped instead of refused',
    handlers: {
      'billing.preview_multi_update': (real) => (ctx, input) => {
        const seen = new Set<string>();
        const updates = input.updates.filter((update) => {
          const key = JSON.stringify([update.plan_id, update.entity_id ?? input.entity_id ?? null]);
          const first = !seen.has(key);
          seen.add(key);
          return first;
        });
        return real(ctx, { ...input, updates });
      },
    },
  },
];
