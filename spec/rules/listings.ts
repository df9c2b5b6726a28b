/**
 * Rules of `subscriptions.list` and `purchases.list`. The document makes the two identical in body
 * fields, defaults, bounds, pagination and envelope, so each rule constrains both unless it is about
 * one record kind.
 */
import type { RuleDef } from './rule.ts';

const SUBSCRIPTION = 'Resources and their fields > Subscription record (item of `list` in `subscriptions.list`)';
const PURCHASE = 'Resources and their fields > Purchase record (item of `list` in `purchases.list`)';
const SUBSCRIPTIONS_LIST = 'Endpoints > POST /v1/subscriptions.list';
const PURCHASES_LIST = 'Endpoints > POST /v1/purchases.list';
const BOTH = ['subscriptions.list', 'purchases.list'] as const;

export const listingsRules = [
  // --- Shapes and record meanings ---
  {
    id: 'LIST-SUBSCRIPTION-SHAPE',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'Response 200: `{list: [Subscription record], has_more: boolean, next_cursor: string or null}`.',
    operations: ['subscriptions.list'],
  },
  {
    id: 'LIST-PURCHASE-SHAPE',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: PURCHASE,
    quote: 'Purchase record (item of `list` in `purchases.list`)',
    operations: ['purchases.list'],
  },
  {
    id: 'LIST-SUB-PLAN-FLAGS',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTION,
    quote: 'auto_enable … Plan is attached automatically on customer creation … add_on … Plan is an add-on',
    operations: ['subscriptions.list'],
  },
  {
    id: 'LIST-RECORD-OWNER',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTION,
    quote: 'customer_id … Owning customer … entity_id … string or null … Owning entity',
    operations: [...BOTH],
  },
  {
    // Inferred: `customer` is the one value shown, and a record the customer holds itself (entity_id null) is the customer's.
    id: 'LIST-RECORD-SCOPE',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTION,
    quote: 'scope … Scope of the record (`customer` occurs)',
    operations: [...BOTH],
  },
  {
    // Inferred: a record of a plan without a trial has no trial to end.
    id: 'LIST-TRIAL-ENDS-NULL',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTION,
    quote: 'trial_ends_at … timestamp or null … End of trial',
    operations: ['subscriptions.list'],
  },
  {
    // Inferred: the period a record reports is the one the clock is in, however many have passed.
    id: 'LIST-CURRENT-PERIOD',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTION,
    quote: 'current_period_start … timestamp or null … Start of current period',
    operations: ['subscriptions.list'],
  },
  {
    id: 'LIST-TRIAL-ENDS-WHILE-TRIALING',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'listings',
    section: SUBSCRIPTION,
    quote: '`trial_ends_at` is set only while the record is trialing: once the trial is over it reads null.',
    source: 'observed-behaviour §3.4',
    operations: ['subscriptions.list'],
  },
  {
    id: 'LIST-SUBSCRIPTIONS-RECURRING',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'Lists recurring plans (including add-ons) across customers, live or expired.',
    operations: ['subscriptions.list'],
  },
  {
    id: 'LIST-PURCHASES-ONE-OFF',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: PURCHASES_LIST,
    quote: 'Lists one-off plan purchases across customers, live or expired.',
    operations: ['purchases.list'],
  },

  // --- Filters ---
  {
    id: 'LIST-ACROSS-CUSTOMERS',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'customer_id … optional; omitted lists across every customer',
    operations: [...BOTH],
  },
  {
    // Inferred: the document names customer_id as an optional field; restricting to it is the consequence.
    id: 'LIST-CUSTOMER-FILTER',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'customer_id … string … optional',
    operations: [...BOTH],
  },
  {
    id: 'LIST-ENTITY-FILTER',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'entity_id … optional; requires customer_id',
    operations: [...BOTH],
  },
  {
    id: 'LIST-ENTITY-REQUIRES-CUSTOMER',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: 'Errors',
    quote: '`entity_id` given without `customer_id` on the list operations (required together)',
    operations: [...BOTH],
  },
  {
    id: 'LIST-PLAN-FILTER',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'plan_id … optional filter',
    operations: [...BOTH],
  },
  {
    id: 'LIST-STATUSES-FILTER',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: 'States and transitions',
    quote: 'Purchase / list filters … statuses filter … `active`, `scheduled`, `past_due`, `expired`',
    operations: [...BOTH],
  },
  {
    id: 'LIST-STATUSES-ENUM',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'statuses … array of enum `active`, `scheduled`, `past_due`, `expired`',
    operations: [...BOTH],
  },
  {
    id: 'LIST-STATUSES-PAST-DUE',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: '`past_due` matches overdue plans',
    operations: [...BOTH],
  },

  // --- Pagination ---
  {
    id: 'LIST-START-CURSOR-DEFAULT',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'start_cursor … default empty string = first page',
    operations: [...BOTH],
  },
  {
    id: 'LIST-CURSOR-CONTINUES',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'otherwise the `next_cursor` of a prior response',
    operations: [...BOTH],
  },
  {
    id: 'LIST-NEXT-CURSOR-NULL',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: '`next_cursor` is null when `has_more` is false.',
    operations: [...BOTH],
  },
  {
    // What a server can get wrong here: deriving has_more from a full page, which ends a walk early.
    id: 'LIST-SHORT-PAGES',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: SUBSCRIPTIONS_LIST,
    quote: 'A page may hold fewer than `limit` rows, even zero, while `has_more` is true; clients paginate until `has_more` is false.',
    operations: [...BOTH],
  },
  {
    // The document tells clients to walk until has_more is false to have the listing: the walk lists
    // every matching record, once. MUST (issue 17): a walk that skips or repeats a row is not the listing.
    id: 'LIST-WALK-EVERY-MATCH-ONCE',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: 'Limits',
    quote: 'continue until `has_more` is false',
    operations: [...BOTH],
  },
  {
    // Inferred: a walk must be complete even while the service takes writes; records created between two page
    // calls may or may not appear, but none that existed before the first page is missed or listed twice.
    id: 'LIST-WALK-CONCURRENT-INSERTS',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'listings',
    section: 'Limits',
    quote: 'continue until `has_more` is false',
    operations: [...BOTH],
  },

  // --- Limits ---
  {
    id: 'LIST-LIMIT-BOUNDS',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: 'Limits',
    quote: 'subscriptions.list, purchases.list … `limit` 1 to 200',
    operations: [...BOTH],
  },
  {
    id: 'LIST-LIMIT-DEFAULT',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: 'Limits',
    quote: 'subscriptions.list, purchases.list … default 50',
    operations: [...BOTH],
  },
  {
    id: 'LIST-STATUSES-MIN-ONE',
    level: 'MUST',
    provenance: 'documented',
    part: 'listings',
    section: 'Limits',
    quote: 'subscriptions.list, purchases.list … `statuses` at least 1 item',
    operations: [...BOTH],
  },
] as const satisfies readonly RuleDef[];
