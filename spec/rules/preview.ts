/** Rules of `billing.preview_multi_update` and its result. */
import type { RuleDef } from './rule.ts';

const PREVIEW = 'Endpoints > POST /v1/billing.preview_multi_update';
const RESULT = 'Resources and their fields > Multi-update preview result';
const ENDPOINTS = 'Endpoints';
const PLAN = 'Resources and their fields > Plan';
const OP = ['billing.preview_multi_update'] as const;

export const previewRules = [
  // --- The result ---
  {
    id: 'PREV-RESULT-SHAPE',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: 'Response 200: multi-update preview result (Resources part).',
    operations: [...OP],
  },
  {
    id: 'PREV-CURRENCY-ISO',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: RESULT,
    quote: '`currency` string (three-letter ISO code)',
    operations: [...OP],
  },
  {
    id: 'PREV-TOTAL-SUM',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: RESULT,
    quote: '`total` number (sum of `subscriptions[].total`, the amount due today)',
    operations: [...OP],
  },
  {
    id: 'PREV-ONE-ENTRY-PER-SUBSCRIPTION',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: RESULT,
    quote: '`subscriptions` array, one entry per affected payment-processor subscription',
    operations: [...OP],
  },
  {
    id: 'PREV-FREE-PLANS-NO-ENTRY',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: RESULT,
    quote: '(updates to plans without a subscription, such as free plans, produce no entry)',
    operations: [...OP],
  },

  {
    // Inferred, so SHOULD: the price applies to usage beyond `included` (Plan, item semantics), the
    // preview reports "the billing effect of cancelling" and its `total` is "the amount due today";
    // the document never says when overage is billed, so that cancelling now bills the overage used
    // so far is not stated outright. Tier and billing-unit arithmetic is not stated either, so the
    // check prices units that lie in the first tier at one unit per package. The reference (2.3.0)
    // bills no usage on an update (buildAutumnLineItems: "update subscription doesn't charge for
    // existing usage"), so it fails this rule.
    id: 'PREV-USAGE-OVERAGE-BILLED',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'preview',
    section: PLAN,
    quote: 'an optional price applies to usage beyond the included amount',
    operations: [...OP],
  },

  // --- The request ---
  {
    id: 'PREV-NO-CHANGES',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: 'Previews the billing changes of a multi-plan update without making changes.',
    operations: [...OP, 'customers.get', 'subscriptions.list', 'balances.check'],
  },
  {
    id: 'PREV-REQUIRED-FIELDS',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: 'customer_id … required … updates … required',
    operations: [...OP],
  },
  {
    // Inferred: each update "has" both fields; an update without `cancel_action` is refused.
    id: 'PREV-UPDATE-FIELDS',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: 'each has `plan_id` string and `cancel_action` string (`cancel_immediately` occurs)',
    operations: [...OP],
  },
  {
    id: 'PREV-UPDATES-MIN-ONE',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: 'Limits',
    quote: 'billing.preview_multi_update … `updates` at least 1 item',
    operations: [...OP],
  },
  {
    id: 'PREV-PER-UPDATE-ENTITY',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: "an update may override the request's entity with its own `entity_id`",
    operations: [...OP],
  },
  {
    // Inferred from "override the request's entity": the top-level entity_id applies to updates without their own.
    id: 'PREV-REQUEST-ENTITY',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: 'entity_id … string … optional',
    operations: [...OP],
  },
  {
    id: 'PREV-REFUND-MODE',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: 'for immediate cancellation: `prorated` refunds the unused portion, `full` refunds the entire last payment',
    operations: [...OP],
  },
  {
    id: 'PREV-REFUND-MODE-ENUM',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: 'refund mode … enum `prorated`, `full`',
    operations: [...OP],
  },
  {
    id: 'PREV-PROCESSOR-PARAMETERS',
    level: 'MUST',
    provenance: 'documented',
    part: 'preview',
    section: PREVIEW,
    quote: "extra parameters passed to the payment processor's subscription update or cancel call",
    operations: [...OP],
    excluded:
      "Their effect is on the service's outbound call to the payment processor, which no response shows; that the field is accepted is PREV-SUBSCRIPTION-PARAMS-WIRE.",
  },

  // --- Reference: wire names and values the Endpoints part leaves open ---
  {
    id: 'PREV-REFUND-WIRE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'preview',
    section: ENDPOINTS,
    quote: 'The refund mode of the preview is sent as `refund_last_payment`: `prorated` or `full`.',
    source: 'observed-behaviour §3.6',
    operations: [...OP],
  },
  {
    id: 'PREV-SUBSCRIPTION-PARAMS-WIRE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'preview',
    section: ENDPOINTS,
    quote: 'The processor parameters of the preview are sent as `subscription_params` (object) and accepted.',
    source: 'observed-behaviour §3.6',
    operations: [...OP],
  },
  {
    id: 'PREV-CANCEL-ACTION-ENUM',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'preview',
    section: ENDPOINTS,
    quote: '`cancel_action` takes `cancel_immediately`, `cancel_end_of_cycle` or `uncancel`; any other value is refused with 400 `invalid_inputs`.',
    source: 'exchanges/139-billing.preview_multi_update-bad-cancel-action.json',
    operations: [...OP],
  },
  {
    id: 'PREV-TARGET-HELD',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'preview',
    section: PREVIEW,
    quote: 'An update naming a plan the customer does not hold (never attached, or replaced since) is refused with 404 `cus_product_not_found`.',
    source: 'observed-behaviour §3.6',
    operations: [...OP],
  },
  {
    id: 'PREV-END-OF-CYCLE-NEEDS-CYCLE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'preview',
    section: PREVIEW,
    quote: '`cancel_end_of_cycle` of a free or a one-off plan, which has no billing cycle, is refused with 400.',
    source: 'observed-behaviour §3.6',
    operations: [...OP],
  },
  {
    id: 'PREV-ONE-UPDATE-PER-PLAN',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'preview',
    section: PREVIEW,
    quote:
      'Two updates of one request that target the same plan are refused: 400 `invalid_request` by the source, 404 `cus_product_not_found` as the running reference answers (it applies the updates in order, and the second finds the plan gone).',
    source: 'observed-behaviour §3.6; exchanges/179-billing.preview_multi_update-same-free-plan-twice.json',
    operations: [...OP],
  },
] as const satisfies readonly RuleDef[];
