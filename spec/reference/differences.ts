/**
 * Known differences between the reference recording (API 2.3.0) and the spec (interface.md, API
 * 2.4.0). The exchange test requires every mismatch it finds to be listed here, and every entry
 * here to be found, so nothing stays unexplained and nothing stale stays listed.
 */
import { type OperationName, operations } from '../operations.ts';
import type { SchemaMismatch } from './exchanges.ts';

export interface KnownDifference {
  readonly id: string;
  /** The rule of the catalogue the difference concerns. */
  readonly rule: string;
  readonly direction: SchemaMismatch['direction'];
  /** Dotted path of the mismatch (array indices as `*`); '' for the whole body. */
  readonly path: string;
  /** The exchange files that show it. */
  readonly exchanges: readonly string[];
  /** Request differences: only requests holding these values (a field the document requires only alongside another). */
  readonly requestHolds?: Readonly<Record<string, unknown>>;
  readonly explanation: string;
}

const PLAN_RESPONSES = [
  '010-plans.create-free-consumable-item.json',
  '011-plans.create-unlimited-item.json',
  '012-plans.create-boolean-item.json',
  '013-plans.create-add-on.json',
  '014-plans.create-base-price.json',
  '015-plans.create-usage-tiers.json',
  '016-plans.create-free-trial.json',
  '017-plans.create-license-child.json',
  '018-plans.create-license-parent.json',
  '022-plans.get-latest.json',
  '023-plans.get-version-1.json',
  '026-plans.get-license-parent.json',
  '032-plans.update-new-version.json',
  '033-plans.get-after-update-version-1.json',
  '034-plans.get-after-update-version-2.json',
  '035-plans.get-after-update-latest.json',
];

const ENTITY_LIST_RESPONSES = [
  '046-entities.list-default.json',
  '047-entities.list-limit-1-page-1.json',
  '048-entities.list-limit-1-page-2.json',
  '049-entities.list-limit-1-page-3.json',
  '050-entities.list-customer-id-filter.json',
  '051-entities.list-search-filter.json',
  '052-entities.list-plan-filter-inherited.json',
  '053-entities.list-plan-filter-version.json',
  '055-entities.list-subscription-status-active.json',
  '056-entities.list-subscription-status-scheduled.json',
  '057-entities.list-statuses-array-ignored.json',
  '058-entities.list-processors-filter.json',
  '079-entities.list-plan-filter-license-plan.json',
  '085-entities.list-plan-filter-license-plan-after-release.json',
  '149-entities.list-api-version-2.2.0.json',
];

const PLAIN_CHECK_RESPONSES = [
  '087-balances.check-consumable-remaining.json',
  '088-balances.check-required-above-remaining.json',
  '090-balances.check-after-send-event.json',
  '091-balances.check-boolean-in-plan.json',
  '094-balances.check-boolean-not-in-plan.json',
  '095-balances.check-unlimited.json',
  '096-balances.check-feature-not-in-any-plan.json',
  '099-balances.check-entity-boolean.json',
  '100-balances.check-customer-boolean-without-entity.json',
  '101-balances.check-entity-consumable.json',
  '103-balances.check-with-preview-denied.json',
  '104-balances.check-with-preview-allowed.json',
  '105-balances.check-required-balance-0.json',
  '106-balances.check-required-balance-negative.json',
  '109-balances.check-after-track.json',
  '113-balances.check-after-negative-send-event.json',
];

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    id: 'DIFF-FEATURE-DISPLAY-OMITTED',
    rule: 'FEAT-SHAPE',
    direction: 'response',
    path: 'display',
    exchanges: [
      '001-features.create-boolean.json',
      '003-features.create-metered-non-consumable.json',
      '004-features.create-credit-system.json',
      '005-features.create-ai-credit-system.json',
      '009-features.create-metered-missing-consumable.json',
    ],
    explanation:
      'interface.md lists `display` among the Feature fields. The reference omits it from the features.create answer when the request gave none, and generates one later, asynchronously.',
  },
  {
    id: 'DIFF-PLAN-VERSION-SLUG-MISSING',
    rule: 'PLAN-SHAPE',
    direction: 'response',
    path: 'version_slug',
    exchanges: PLAN_RESPONSES,
    explanation: '`version_slug` is a 2.4.0 field (interface.md: "defaults to `v{n}`"); the 2.3.0 recording has no such field.',
  },
  {
    id: 'DIFF-PLAN-ACTIVE-MISSING',
    rule: 'PLAN-SHAPE',
    direction: 'response',
    path: 'active',
    exchanges: PLAN_RESPONSES,
    explanation: '`active` is a 2.4.0 field (interface.md: "at most one version is active"); the 2.3.0 recording has no such field.',
  },
  {
    id: 'DIFF-ENTITY-INVOICES-MISSING',
    rule: 'ENT-LIST-SHAPE',
    direction: 'response',
    path: 'list.*.invoices',
    exchanges: ENTITY_LIST_RESPONSES,
    explanation: 'interface.md lists `invoices` among the Entity fields; the reference never returns it from entities.list.',
  },
  {
    id: 'DIFF-CHECK-BALANCES-MAP-MISSING',
    rule: 'CHECK-RESULT-SHAPE',
    direction: 'response',
    path: 'balances',
    exchanges: PLAIN_CHECK_RESPONSES,
    explanation:
      'interface.md lists the map of feature_id to Balance as a field of every check result; the reference sends it only with send_event or a lock, because it comes from the track that those perform.',
  },
  {
    id: 'DIFF-LICENSE-ATTACH-NAME-OPTIONAL',
    rule: 'LIC-ATTACH-SHAPE',
    direction: 'request',
    path: 'entities.*.name',
    exchanges: [
      '064-licenses.attach-two-entities.json',
      '069-licenses.attach-skip-already-assigned.json',
      '071-licenses.attach-only-already-assigned.json',
    ],
    explanation:
      'interface.md makes `entities[].name` part of every licenses.attach item; the reference accepts items without it. The suite always sends a name.',
  },
  {
    id: 'DIFF-REFERRAL-UPDATE-NULL-REJECTED',
    rule: 'REF-UPDATE-NULL-REMOVES',
    direction: 'request',
    path: '',
    exchanges: ['119-referral_programs.update-plan-ids-null.json', '120-referral_programs.update-max-redemptions-null.json'],
    explanation:
      'interface.md (2.4.0) lets referral_programs.update take null to remove `plan_ids`, `max_redemptions` and `exclude_trial`; the 2.3.0 reference rejects null. The document wins.',
  },
  {
    id: 'DIFF-REFERRAL-CHECKOUT-WITHOUT-PLAN-IDS',
    rule: 'REF-UPDATE-CHECKOUT-NEEDS-PLANS',
    direction: 'request',
    path: 'plan_ids',
    exchanges: ['122-referral_programs.update-redeem-on-checkout-without-plan-ids.json'],
    requestHolds: { redeem_on: 'checkout' },
    explanation:
      'interface.md: `plan_ids` is "required when `redeem_on` is `checkout`". The reference accepted a switch to checkout without plan_ids because the stored program held `[""]`, an artefact of creating it with `plan_ids: null` (exchange 116).',
  },
  {
    id: 'DIFF-OLD-VERSION-CUSTOMER-SHAPE',
    rule: 'VER-OTHER-VERSIONS',
    direction: 'response',
    path: '*',
    exchanges: ['148-customers.get-api-version-2025-05-05.json'],
    explanation:
      'An old CalVer x-api-version makes the reference answer with its legacy customer shape; interface.md describes 2.4.0 only ("Other API versions and their differences: not shown").',
  },
  {
    id: 'DIFF-OLD-VERSION-ENTITY-LIST-SHAPE',
    rule: 'VER-OTHER-VERSIONS',
    direction: 'response',
    path: 'next_cursor',
    exchanges: ['149-entities.list-api-version-2.2.0.json'],
    explanation: 'With x-api-version 2.2.0 the reference pages entities.list by offset, without `next_cursor`; interface.md describes 2.4.0 only.',
  },
];

/** A mismatch is explained when an entry names its file, direction and path (`*` as the path explains every path). */
export function explains(difference: KnownDifference, mismatch: SchemaMismatch): boolean {
  return (
    difference.direction === mismatch.direction &&
    difference.exchanges.includes(mismatch.file) &&
    (difference.path === '*' || difference.path === mismatch.path)
  );
}

// ── The published client ─────────────────────────────────────────────────────

/**
 * Where the published client, autumn-js 1.3.13 (generated from an OpenAPI document of API 2.4.0),
 * disagrees with interface.md on a documented endpoint. interface.md wins; the fake follows it. The
 * client test (fake-server/autumn-js.test.ts) drives the fake through the client and checks that
 * each entry still holds, so nothing stale stays listed.
 */
export interface KnownClientDifference {
  readonly id: string;
  /** The rule of the catalogue the difference concerns. */
  readonly rule: string;
  readonly operation: OperationName;
  /** The client's schema (type) name that differs, as the package exports it. */
  readonly sdkSchema: string;
  /** `missing`: the client has no call for the operation; `request`/`response`: its schema of that body differs. */
  readonly kind: 'missing' | 'request' | 'response';
  /** Response differences: the dotted paths (array indices as `*`) at which the client refuses the fake's answer. */
  readonly paths?: readonly string[];
  readonly explanation: string;
}

export const KNOWN_CLIENT_DIFFERENCES: readonly KnownClientDifference[] = [
  {
    id: 'CLIENT-LICENSES-LIST-MISSING',
    rule: 'LIC-LIST-CUSTOMER-POOLS',
    operation: 'licenses.list',
    sdkSchema: 'Licenses',
    kind: 'missing',
    explanation: 'The client offers licenses.attach and licenses.release only; interface.md documents POST /v1/licenses.list.',
  },
  {
    id: 'CLIENT-SUBSCRIPTIONS-LIST-MISSING',
    rule: 'LIST-SUBSCRIPTIONS-RECURRING',
    operation: 'subscriptions.list',
    sdkSchema: 'Autumn',
    kind: 'missing',
    explanation: 'The client has no call for POST /v1/subscriptions.list, which interface.md documents (nor has the reference; observed-behaviour §0).',
  },
  {
    id: 'CLIENT-PURCHASES-LIST-MISSING',
    rule: 'LIST-PURCHASES-ONE-OFF',
    operation: 'purchases.list',
    sdkSchema: 'Autumn',
    kind: 'missing',
    explanation: 'The client has no call for POST /v1/purchases.list, which interface.md documents (nor has the reference; observed-behaviour §0).',
  },
  {
    id: 'CLIENT-ENTITIES-LIST-STATUS-FILTER',
    rule: 'ENT-STATUSES-FILTER',
    operation: 'entities.list',
    sdkSchema: 'ListEntitiesParams',
    kind: 'request',
    explanation:
      'The client sends the reference\'s single `subscription_status` (`active` or `scheduled`); interface.md takes `statuses`, an array of those values. The fake follows the document and ignores `subscription_status`.',
  },
  {
    id: 'CLIENT-ENTITY-SUBSCRIPTION-ID',
    rule: 'ENT-EMBEDDED-SUBSCRIPTION-FIELDS',
    operation: 'entities.list',
    sdkSchema: 'ListEntitiesResponse',
    kind: 'response',
    paths: ['list.*.subscriptions.*.id'],
    explanation:
      'The client requires an `id` on every subscription embedded in a listed entity (as in the reference). interface.md says an embedded subscription carries its twelve fields "only"; the fake follows the document, so the client refuses its entities.list answers. (entities.create and entities.get are reference setup calls and answer in the reference shape, which the client accepts.)',
  },
  {
    id: 'CLIENT-LICENSE-ATTACH-NAME-OPTIONAL',
    rule: 'LIC-ATTACH-REQUIRED-FIELDS',
    operation: 'licenses.attach',
    sdkSchema: 'AttachLicenseEntity',
    kind: 'request',
    explanation: 'The client lets `entities[].name` be omitted or null; interface.md makes it a required string. The fake refuses an item without a name.',
  },
  {
    id: 'CLIENT-LICENSE-RELEASE-PLAN-OPTIONAL',
    rule: 'LIC-RELEASE-REQUIRED-FIELDS',
    operation: 'licenses.release',
    sdkSchema: 'ReleaseLicenseParams',
    kind: 'request',
    explanation: 'The client lets `license_plan_id` be omitted; interface.md makes it required. The fake refuses a release without it.',
  },
  {
    id: 'CLIENT-PREVIEW-PLAN-ID-OPTIONAL',
    rule: 'PREV-UPDATE-FIELDS',
    operation: 'billing.preview_multi_update',
    sdkSchema: 'PreviewMultiUpdateUpdate',
    kind: 'request',
    explanation:
      'The client lets `updates[].plan_id` be omitted (the reference then picks a plan, observed-behaviour §3.6); interface.md says each update has `plan_id`. The fake refuses an update without it.',
  },
];

/** The User-Agent the published client (autumn-js 1.3.13) sends outside browsers; the fake's `auto` mode knows the client by it. */
export const PUBLISHED_CLIENT_AGENT = 'speakeasy-sdk/typescript 0.10.18 2.882.0 2.4.0 @useautumn/sdk';

const CLIENT_TAKES_OTHERWISE = new Set<OperationName>(KNOWN_CLIENT_DIFFERENCES.filter((known) => known.kind === 'request').map((known) => known.operation));
const CLIENT_ANSWERED_OTHERWISE = new Set<OperationName>(KNOWN_CLIENT_DIFFERENCES.filter((known) => known.kind === 'response').map((known) => known.operation));

/**
 * Whether the published client may send this request and be taken as the document says: the
 * client's mode takes it as the document does. Where that mode takes what the document refuses
 * (an entity without a name, a release without its plan), the document decides nothing for it.
 */
export function clientTakesAsDocumented(operation: OperationName, body: unknown): boolean {
  return !CLIENT_TAKES_OTHERWISE.has(operation) || operations[operation].request.safeParse(body).success;
}

/** Whether the document decides the whole answer to this request when the published client sends it: taken as documented, and no answer the client reads otherwise. */
export function clientAnsweredAsDocumented(operation: OperationName, body: unknown): boolean {
  return !CLIENT_ANSWERED_OTHERWISE.has(operation) && clientTakesAsDocumented(operation, body);
}
