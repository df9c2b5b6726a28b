/**
 * Rules of balances: the Balance resource, `balances.check` (CHECK-*) and the balance setup
 * endpoints `balances.track` and `balances.finalize` (BAL-*).
 */
import type { RuleDef } from './rule.ts';

const BALANCE = 'Resources and their fields > Balance';
const RESULT = 'Resources and their fields > Balance check result';
const CHECK = 'Endpoints > POST /v1/balances.check';
const RESOURCES = 'Resources and their fields';
const ENDPOINTS = 'Endpoints';
const OP = ['balances.check'] as const;

export const balancesRules = [
  // --- The Balance resource ---
  {
    // Inferred: the three numbers describe one pool, so what is left is what was granted less what was used.
    id: 'CHECK-BALANCE-ARITHMETIC',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'balances',
    section: BALANCE,
    quote: 'granted … Total granted … remaining … Units left … usage … Units used',
    operations: [...OP, 'balances.track'],
  },
  {
    id: 'CHECK-BREAKDOWN-PER-SOURCE',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: BALANCE,
    quote: 'breakdown … One entry per grant source (below)',
    operations: [...OP],
  },
  {
    id: 'CHECK-BREAKDOWN-PRICE-NULL',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: BALANCE,
    quote: '`price` (null when the grant is not priced)',
    operations: [...OP],
  },
  {
    id: 'CHECK-BREAKDOWN-PRICE-SHAPE',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESOURCES,
    quote: 'Shape of `price` inside a balance breakdown entry other than null: not shown.',
    operations: [...OP],
    excluded: 'A priced grant\'s `price` has no documented shape, so only "object or null" is checked (CHECK-RESULT-SHAPE).',
  },

  // --- The check result ---
  {
    id: 'CHECK-RESULT-SHAPE',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'Response 200: balance check result.',
    operations: [...OP],
  },
  {
    id: 'CHECK-ALLOWED-SUFFICIENT',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: '`allowed` boolean (true when balance suffices',
    operations: [...OP],
  },
  {
    id: 'CHECK-ALLOWED-UNLIMITED',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: 'the feature is unlimited',
    operations: [...OP],
  },
  {
    id: 'CHECK-ALLOWED-BOOLEAN-IN-PLAN',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: 'or it is a boolean feature included in the plan',
    operations: [...OP],
  },
  {
    // The direct converse of the sentence: `allowed` is true in the three listed cases only, so false
    // otherwise (no balance, a boolean feature in none of the customer's plans). MUST (issue 17): the
    // sentence defines when `allowed` is true, and balances.check adds "`allowed` is false when the balance is below it".
    id: 'CHECK-DENIED-OTHERWISE',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: '`allowed` boolean (true when balance suffices, the feature is unlimited, or it is a boolean feature included in the plan)',
    operations: [...OP],
  },
  {
    id: 'CHECK-BALANCE-NULL',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: '`balance` Balance or null (null when the customer has no balance for the feature)',
    operations: [...OP],
  },
  {
    id: 'CHECK-FLAG-OBJECT',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: 'a flag object `{id, plan_id, expires_at, feature_id}` when the check concerns a boolean flag',
    operations: [...OP],
  },
  {
    id: 'CHECK-BALANCES-MAP',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: 'a map of feature_id to Balance covering the checked feature and related features',
    operations: [...OP],
  },
  {
    id: 'CHECK-BALANCES-LINKED-CREDIT-SYSTEM',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: 'related features (for example linked credit systems)',
    operations: [...OP, 'features.create'],
  },
  {
    id: 'CHECK-PREVIEW-ONLY-WHEN-REQUESTED',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: 'upgrade information, present only when `with_preview` was true and `allowed` is false',
    operations: [...OP],
  },

  {
    // The MUST half ("string or null" when present) is the shape rule's (CHECK-RESULT-SHAPE). Sending the key
    // with null rather than leaving it out is a SHOULD: the reference leaves it out (exchange 087).
    id: 'CHECK-ENTITY-ID-NULL',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: '`entity_id` string or null',
    operations: [...OP],
  },
  {
    // Inferred: the result's customer_id and required_balance are those of the check asked for (the credit-system
    // conversion of required_balance aside, which the reference documents).
    id: 'CHECK-RESULT-ECHOES',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'balances',
    section: RESULT,
    quote: '`customer_id` string; `entity_id` string or null; `required_balance` number',
    operations: [...OP],
  },
  {
    // Inferred from the field meanings: an unlimited item gives an unlimited balance (and breakdown entry), an
    // item with included units only allows no use beyond them and has no purchase cap; a priced item's cap is its max_purchase.
    id: 'CHECK-BALANCE-FLAGS',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'balances',
    section: BALANCE,
    quote: 'unlimited … Feature is unlimited … overage_allowed … Use beyond the balance is allowed … max_purchase … Purchase cap',
    operations: [...OP],
  },
  {
    id: 'CHECK-BREAKDOWN-RESET',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: BALANCE,
    quote: '`reset` object `{interval: string, resets_at: timestamp}` (`interval` value `month` occurs)',
    operations: [...OP],
  },

  // --- balances.check request ---
  {
    id: 'CHECK-REQUIRED-FIELDS',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'customer_id … required … feature_id … required',
    operations: [...OP],
  },
  {
    id: 'CHECK-ENTITY-SCOPED',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'entity_id … for entity-scoped balances',
    operations: [...OP, 'billing.attach', 'licenses.attach'],
  },
  {
    // Inferred: an entity is created under one customer (entities.create takes its customer_id), so a check of
    // customer A naming B's entity answers nothing of B's: refused, or denied without a balance.
    id: 'CHECK-ENTITY-OWN-CUSTOMER',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'entity_id … for entity-scoped balances',
    operations: [...OP],
  },
  {
    // Decision (issue 7). The document states no sign for `required_balance` ("minimum balance needed"). A
    // negative minimum is met by any balance, so a plain check of one is allowed (as in the reference,
    // exchange 106). With send_event or a lock it would record a negative usage event, giving units back
    // through a check: nothing in the document describes that, so the safe reading is to refuse it (400)
    // and change nothing. SHOULD, since the document leaves the sign open; the reference gives the units back.
    id: 'CHECK-REQUIRED-BALANCE-NEGATIVE',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'required_balance … minimum balance needed; default 1 … send_event … records a usage event of `required_balance` units',
    operations: [...OP],
  },
  {
    id: 'CHECK-REQUIRED-BALANCE-DEFAULT',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: 'Limits',
    quote: 'balances.check … `required_balance` default 1',
    operations: [...OP],
  },
  {
    id: 'CHECK-ALLOWED-BELOW-REQUIRED',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: '`allowed` is false when the balance is below it',
    operations: [...OP],
  },
  {
    id: 'CHECK-SEND-EVENT-RECORDS',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'records a usage event of `required_balance` units while checking (check and track in one call)',
    operations: [...OP],
  },
  {
    // Stated outright ("atomically"): a denied check records nothing, and concurrent checks never draw more than the balance.
    id: 'CHECK-SEND-EVENT-ATOMIC',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'send_event … when true, atomically records a usage event',
    operations: [...OP],
  },
  {
    id: 'CHECK-EVENT-PROPERTIES',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'extra properties attached to the usage event when `send_event` is true',
    operations: [...OP],
  },
  {
    id: 'CHECK-LOCK-RESERVES',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'reserves units upfront via a `lock_id`',
    operations: [...OP],
  },
  {
    id: 'CHECK-LOCK-CONFIRM',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'the hold is confirmed … by the `balances.finalize` operation',
    operations: [...OP, 'balances.finalize'],
  },
  {
    id: 'CHECK-LOCK-RELEASE',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'the hold is confirmed or released by the `balances.finalize` operation',
    operations: [...OP, 'balances.finalize'],
  },
  {
    id: 'CHECK-PREVIEW-WHEN-DENIED',
    level: 'MUST',
    provenance: 'documented',
    part: 'balances',
    section: CHECK,
    quote: 'with_preview … when true and access is denied, upgrade information is included',
    operations: [...OP],
  },
  {
    id: 'CHECK-OVERAGE-PURCHASE-CAP',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: CHECK,
    quote: 'With a usage-based price, a check is allowed while `remaining` plus the overage still available covers `required_balance`; the available overage is capped by the price\'s `max_purchase` (less the overage already used), and unlimited without a cap.',
    source: 'observed-behaviour §3.9',
    operations: [...OP],
  },
  {
    id: 'CHECK-SEND-EVENT-BOOLEAN',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: CHECK,
    quote: '`send_event: true` on a boolean feature is refused with 400 `invalid_request`.',
    source: 'observed-behaviour §3.9',
    operations: [...OP],
  },

  // --- Reference: names and shapes the Resources part leaves open ---
  {
    id: 'CHECK-PROPERTIES-WIRE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: RESOURCES,
    quote: 'Event properties are sent as `properties` (object) and accepted.',
    source: 'observed-behaviour §3.9',
    operations: [...OP],
  },
  {
    id: 'CHECK-LOCK-WIRE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: RESOURCES,
    quote: 'Lock settings are sent as `lock: {lock_id: string, enabled: true, expires_at?: timestamp}`.',
    source: 'observed-behaviour §3.9',
    operations: [...OP],
  },
  {
    id: 'CHECK-PREVIEW-WIRE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: RESOURCES,
    quote:
      'Upgrade information is `preview: {scenario, title, message, feature_id, feature_name, products}`; on an allowed check with `with_preview` the key may be present with `null`, which counts as absent.',
    source: 'exchanges/103-balances.check-with-preview-denied.json',
    operations: [...OP],
  },

  // --- Setup endpoints balances.track, balances.finalize ---
  {
    id: 'BAL-TRACK-DEDUCTS',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: ENDPOINTS,
    quote: '`balances.track` with `{customer_id, feature_id, value}` records `value` units: later checks show `usage` up and `remaining` down by `value`.',
    source: 'exchanges/109-balances.check-after-track.json',
    operations: ['balances.track', 'balances.check'],
  },
  {
    id: 'BAL-TRACK-OVERAGE-BEHAVIOR',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: ENDPOINTS,
    quote:
      '`balances.track` `overage_behavior`: "cap" (default) deducts only what fits, stopping at zero; "overflow" deducts the full value, so usage goes past the balance (`remaining` stays at its minimum of 0).',
    source: 'openapi-2.3.0 /v1/balances.track',
    operations: ['balances.track', 'balances.check'],
  },
  {
    id: 'BAL-TRACK-SHAPE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: ENDPOINTS,
    quote: '`balances.track` answers `{customer_id, value, balance: Balance or null}`, with optional `entity_id`, `balances` and `deductions`.',
    source: 'exchanges/108-balances.track-once.json',
    operations: ['balances.track'],
  },
  {
    id: 'BAL-FINALIZE-WIRE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: ENDPOINTS,
    quote: '`balances.finalize` takes `{lock_id, action}` with `action` `confirm` (commit the held units) or `release` (return them).',
    source: 'openapi-2.3.0 /v1/balances.finalize',
    operations: ['balances.finalize'],
  },
  {
    id: 'BAL-FINALIZE-SHAPE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'balances',
    section: ENDPOINTS,
    quote: '`balances.finalize` answers `{success: true}`.',
    source: 'openapi-2.3.0 /v1/balances.finalize',
    operations: ['balances.finalize'],
  },
] as const satisfies readonly RuleDef[];
