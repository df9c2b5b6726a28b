/**
 * Reference behaviours: where the 2.3.0 reference implementation answers differently from the fake
 * (which follows interface.md), each one named, with the recorded exchanges that show it. The
 * reference-like target (target.ts) is the fake with these applied; the suite's own tests run the
 * conformance scenarios against it to check, not assume, their verdicts against the reference.
 *
 * Two kinds:
 * - domain behaviours change what an operation does (`handlers`, `input`, `output`: the fake's
 *   fault hook points, fault.ts), and reach the fake through its `faults` option;
 * - HTTP behaviours (routes, versions, the control plane) are answered by the target's wrapper
 *   before the fake sees the request (`http`).
 *
 * Where spec/reference/differences.ts already lists a difference, the behaviour names it
 * (`difference`) and takes its exchanges and explanation from there: one source of truth.
 */
import { DomainError } from '../../../fake-server/domain/context.ts';
import type { ErrorCode } from '../../../spec/common.ts';
import { track } from '../../../fake-server/domain/balances.ts';
import { holdPlan, planOfRecord } from '../../../fake-server/domain/billing.ts';
import { requirePlanVersion } from '../../../fake-server/domain/plans.ts';
import type { Fault } from '../../../fake-server/faults/fault.ts';
import type { Plan } from '../../../spec/plans.ts';
import { KNOWN_DIFFERENCES } from '../../../spec/reference/differences.ts';
import { operationForPath, type OperationName } from '../../../spec/operations.ts';
import type { RuleId } from '../../../spec/rules/catalogue.ts';

export interface ReferenceBehaviour {
  readonly id: string;
  /** The rule of the catalogue whose verdict it bears on most directly. */
  readonly rule: RuleId;
  /** What the reference does, in one or two sentences. */
  readonly does: string;
  /** The recorded exchanges that show it (file names under fixtures/reference-exchanges or fixtures/reference-divergences). */
  readonly exchanges: readonly string[];
  /** Where no exchange shows it: the passage of shared/reference/observed-behaviour.md. */
  readonly observed?: string;
  /** The entry of spec/reference/differences.ts it models, when there is one. */
  readonly difference?: string;
  /** Domain hooks (the fake's fault hook points). */
  readonly hooks?: Pick<Fault, 'handlers' | 'input' | 'output'>;
  /** Answered by the target's wrapper: a reply replaces the fake's, a forward sends the fake another body, undefined lets the request through. */
  readonly http?: (request: HttpRequest) => HttpReply | HttpForward | undefined;
  /** The fake's client-compatibility mode (fake-server/client-compat.ts) whose leniencies the reference shares. */
  readonly clientCompat?: 'autumn-js';
}

/** What the wrapper knows of a request when it asks an HTTP behaviour. */
export interface HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly header: (name: string) => string | null;
  /** Whether the bearer key opens a tenant of the target (the reference checks the key first). */
  readonly keyAccepted: boolean;
  /** The body as sent, and parsed (undefined when it is no JSON). */
  readonly text: string;
  readonly body: unknown;
  /** Whether `what` was remembered before (by an earlier request to the same app); remembers it. */
  readonly remember: (what: string) => boolean;
}

export interface HttpReply {
  readonly status: number;
  readonly body: unknown;
}

/** The request goes on to the fake with this body instead. */
export interface HttpForward {
  readonly forwardBody: string;
}

/** An error answer, with the code the reference uses (some are not in the spec's table, which lists interface.md's). */
function refuse(code: string, message: string, status: number): never {
  throw new DomainError(code as ErrorCode, message, status);
}

/** The reference's error body: `{message, code, env}`; before a key is read, env says sandbox. */
function errorBody(code: string, message: string): unknown {
  return { message, code, env: 'sandbox' };
}

function fromDifference(id: string): Pick<ReferenceBehaviour, 'difference' | 'exchanges'> {
  const difference = KNOWN_DIFFERENCES.find((d) => d.id === id);
  if (difference === undefined) throw new Error(`spec/reference/differences.ts has no ${id}`);
  return { difference: id, exchanges: difference.exchanges };
}

// ── HTTP ─────────────────────────────────────────────────────────────────────

/** The operations interface.md documents that the 2.3.0 reference does not have (observed-behaviour §0). */
export const NOT_IN_REFERENCE: readonly OperationName[] = ['subscriptions.list', 'purchases.list'];

/** The reference's routes: the fake's operation table less NOT_IN_REFERENCE (the fake answers the rest 404 `route_not_found`). */
function servedByReference(path: string): boolean {
  return !NOT_IN_REFERENCE.some((name) => path === `/v1/${name}`);
}

/**
 * The versions the 2.3.0 reference parses (observed-behaviour §6): semver up to 2.3.0 (partial forms
 * padded), its CalVer aliases, `beta`. 2.4.0, the version interface.md describes, is refused.
 */
const KNOWN_CALVER = new Set(['2026-05-13', '2026-03-18', '2026-03-17', '2026-03-16', '2025-05-05', '2025-04-17', '2025-04-01', '2025-02-01']);
function referenceParsesVersion(header: string | null): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value === 'beta' || KNOWN_CALVER.has(value.replace(/\.clover$/, ''))) return true;
  const match = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(value);
  if (match === null) return false;
  const [major, minor, patch] = [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
  return (major === 2 && minor <= 3 && patch === 0) || (major === 1 && patch === 0 && minor <= 2) || (major === 0 && minor <= 2 && patch === 0);
}

const UNKNOWN_ROUTE: HttpReply = { status: 401, body: errorBody('no_auth_header', 'Unauthorized - no session found') };

/** The reference's order (observed-behaviour §1.6): the key, then the version; the fake checks them in the same order for routes it serves. */
function keyThenVersion(request: HttpRequest): HttpReply | undefined {
  const authorization = request.header('authorization');
  if (authorization === null || !/^Bearer /.test(authorization)) return { status: 401, body: errorBody('no_secret_key', 'Secret key not found in Authorization header') };
  if (!request.keyAccepted) return undefined; // the fake's 401 invalid_secret_key, as the reference's
  const version = request.header('x-api-version');
  if (!referenceParsesVersion(version)) return { status: 400, body: errorBody('invalid_api_version', `"${version}" is not a valid API version`) };
  return undefined;
}

// ── The behaviours ───────────────────────────────────────────────────────────

export const REFERENCE_BEHAVIOURS: readonly ReferenceBehaviour[] = [
  {
    id: 'REF-UNKNOWN-ROUTE-401',
    rule: 'LIST-SUBSCRIPTIONS-RECURRING',
    does:
      'subscriptions.list and purchases.list do not exist in 2.3.0. An unknown /v1 path, or a method other than POST on a known one, falls through to the dashboard session gate once the key is accepted: 401 `no_auth_header` "Unauthorized - no session found" (not 404).',
    exchanges: ['150-unknown.route-post.json', '151-customers.get-get-method.json', '153-subscriptions.list-not-in-this-version.json', '154-purchases.list-not-in-this-version.json'],
    http: (request) => {
      if (!request.path.startsWith('/v1/')) return undefined;
      if (request.method === 'POST' && servedByReference(request.path) && operationForPath(request.path) !== undefined) return undefined;
      return keyThenVersion(request) ?? (request.keyAccepted ? UNKNOWN_ROUTE : undefined);
    },
  },
  {
    id: 'REF-NO-CONTROL-PLANE',
    rule: 'AUTH-SERVER-ADDRESS',
    does: 'The reference has no /_fake control plane: POST /_fake/health is an unknown path like any other (so scenarios needing the control plane are SKIP, as in a vendor run).',
    exchanges: ['150-unknown.route-post.json'],
    http: (request) => (request.path.startsWith('/_fake/') ? (keyThenVersion(request) ?? UNKNOWN_ROUTE) : undefined),
  },
  {
    id: 'REF-API-VERSION-2.3.0',
    rule: 'VER-2-4-0-ACCEPTED',
    does: 'x-api-version 2.4.0 (the version interface.md describes) is refused with 400 `invalid_api_version`; 2.3.0 and older versions are served, and a request without the header is served too.',
    exchanges: ['145-customers.get-missing-api-version.json', '146-customers.get-api-version-9.9.9.json', '147-customers.get-api-version-2.4.0.json'],
    http: (request) => (request.path.startsWith('/v1/') ? keyThenVersion(request) : undefined),
  },

  {
    id: 'REF-IDEMPOTENCY-KEY-409',
    rule: 'BAL-TRACK-DEDUCTS',
    does: 'balances.track with an Idempotency-Key header already received is refused: 409 `duplicate_idempotency_key` "Another request with idempotency key {key} has already been received".',
    exchanges: ['110-balances.track-idempotency-first.json', '111-balances.track-idempotency-repeat.json'],
    http: (request) => {
      const idempotencyKey = request.header('idempotency-key');
      if (request.path !== '/v1/balances.track' || idempotencyKey === null || !request.keyAccepted) return undefined;
      if (!request.remember(`${request.header('authorization')}\n${idempotencyKey}`)) return undefined;
      return { status: 409, body: errorBody('duplicate_idempotency_key', `Another request with idempotency key ${idempotencyKey} has already been received`) };
    },
  },
  {
    id: 'REF-MALFORMED-JSON-AS-EMPTY',
    rule: 'ERR-VALIDATION-CODE',
    does: 'A body that is not JSON is read as an empty one: the refusal is the validation error of the first required field (400 `invalid_inputs`), not a parse error.',
    exchanges: ['142-customers.get-malformed-json.json'],
    http: (request) => (request.path.startsWith('/v1/') && request.text.trim() !== '' && request.body === undefined ? { forwardBody: '{}' } : undefined),
  },
  {
    id: 'REF-FEATURE-EMPTY-NAME-500',
    rule: 'ERR-VALIDATION-CODE',
    does: 'features.create with `name: ""` answers 500 with code `invalid_inputs` "name: Features must have a name" (a validation error with a server-error status), creating nothing.',
    exchanges: ['176-features.create-empty-name.json'],
    http: (request) => {
      if (request.path !== '/v1/features.create' || !request.keyAccepted || !isRecord(request.body) || request.body['name'] !== '') return undefined;
      return { status: 500, body: errorBody('invalid_inputs', 'name: Features must have a name') };
    },
  },

  // ── Answers that leave out fields (spec/reference/differences.ts) ──
  {
    id: 'REF-PLAN-NO-VERSION-SLUG-ACTIVE',
    rule: 'PLAN-SHAPE',
    does: 'Plans are answered without `version_slug` and `active` (2.4.0 fields).',
    ...fromDifference('DIFF-PLAN-VERSION-SLUG-MISSING'),
    hooks: { output: (operation, body) => (PLAN_ANSWERS.has(operation) ? withoutPlanFields(operation, body) : body) },
  },
  {
    id: 'REF-FEATURE-DISPLAY-LATER',
    rule: 'FEAT-SHAPE',
    does: 'features.create answers without `display` when the request gave none (the reference generates one later; features.get then shows it).',
    ...fromDifference('DIFF-FEATURE-DISPLAY-OMITTED'),
    hooks: {
      handlers: {
        'features.create': (real) => (ctx, input) => {
          const created = real(ctx, input);
          if (input.display !== undefined) return created;
          const { display: _generatedLater, ...answer } = created;
          return answer as typeof created;
        },
      },
    },
  },
  {
    id: 'REF-ENTITY-LIST-NO-INVOICES',
    rule: 'ENT-LIST-SHAPE',
    does: 'entities.list answers entities without `invoices`.',
    ...fromDifference('DIFF-ENTITY-INVOICES-MISSING'),
    hooks: {
      output: (operation, body) => {
        if (operation !== 'entities.list') return body;
        const answer = body as { list: Record<string, unknown>[] };
        return { ...answer, list: answer.list.map(({ invoices: _notReturned, ...entity }) => entity) };
      },
    },
  },
  {
    id: 'REF-CHECK-BALANCES-ONLY-WHEN-TRACKED',
    rule: 'CHECK-BALANCES-MAP',
    does: 'balances.check answers the `balances` map only with send_event or a lock (it comes from the track those perform).',
    ...fromDifference('DIFF-CHECK-BALANCES-MAP-MISSING'),
    hooks: {
      handlers: {
        'balances.check': (real) => (ctx, input) => {
          const result = real(ctx, input);
          if (input.send_event === true || input.lock !== undefined) return result;
          const { balances: _fromTrackOnly, ...answer } = result;
          return answer as typeof result;
        },
      },
    },
  },
  {
    id: 'REF-CHECK-ENTITY-ID-OMITTED',
    rule: 'CHECK-ENTITY-ID-NULL',
    does: 'balances.check leaves `entity_id` out (rather than null) when the request named no entity.',
    exchanges: ['087-balances.check-consumable-remaining.json', '105-balances.check-required-balance-0.json'],
    hooks: {
      handlers: {
        'balances.check': (real) => (ctx, input) => {
          const result = real(ctx, input);
          if (input.entity_id !== undefined) return result;
          const { entity_id: _notGiven, ...answer } = result;
          return answer as typeof result;
        },
      },
    },
  },
  {
    id: 'REF-REFERRAL-UPDATE-NULL-REFUSED',
    rule: 'REF-UPDATE-NULL-REMOVES',
    does: 'referral_programs.update refuses null for `plan_ids`, `max_redemptions` and `exclude_trial` (400 `invalid_inputs`); 2.4.0 takes null to remove them.',
    ...fromDifference('DIFF-REFERRAL-UPDATE-NULL-REJECTED'),
    hooks: {
      handlers: {
        'referral_programs.update': (real) => (ctx, input) => {
          const nulls = (['plan_ids', 'max_redemptions', 'exclude_trial'] as const).filter((field) => input[field] === null);
          if (nulls.length > 0) {
            const messages = { plan_ids: 'plan_ids: Invalid input: expected array, received null', max_redemptions: 'max_redemptions: must be a number (received null)', exclude_trial: 'exclude_trial: must be a boolean (received null)' };
            const parts = nulls.map((field) => messages[field]);
            refuse('invalid_inputs', parts.length === 1 ? parts[0]! : `[Validation Errors] ${parts.join('; ')}`, 400);
          }
          return real(ctx, input);
        },
      },
    },
  },

  // ── Refusals and acceptances of the reference that the fake does not share ──
  {
    id: 'REF-REWARD-BOOLEAN-GRANT-INCLUDED-NULL',
    rule: 'AUTH-BEARER-REQUIRED',
    does: 'rewards.create refuses a grant of a boolean feature whose `included` is not null: 400 `invalid_reward` "Feature {id} must have included set to null"; the same grant with `included: null` is accepted.',
    exchanges: ['155-rewards.create-boolean-grant-included-1.json', '156-rewards.create-boolean-grant-included-null.json'],
    hooks: {
      handlers: {
        'rewards.create': (real) => (ctx, input) => {
          for (const grant of input.feature_grant.grants) {
            if (ctx.store.features.get(grant.feature_id)?.type === 'boolean' && grant.included !== null) {
              refuse('invalid_reward', `Feature ${grant.feature_id} must have included set to null`, 400);
            }
          }
          return real(ctx, input);
        },
      },
    },
  },
  {
    id: 'REF-PREPAID-INCLUDED-DIVISIBLE',
    rule: 'PLAN-ITEMS-ROUND-TRIP',
    does:
      'plans.create refuses a prepaid item whose `included` is not a multiple of its `billing_units`: 400 `invalid_request` "If you have a plan feature with both an included usage and a price, the included usage must be an amount that is divisible by the billing units." — and creates the plan all the same (plans.get then finds it).',
    exchanges: ['157-plans.create-prepaid-included-not-multiple-of-billing-units.json', '158-plans.get-after-refused-prepaid-create.json', '159-plans.create-prepaid-included-multiple-of-billing-units.json'],
    hooks: {
      handlers: {
        'plans.create': (real) => (ctx, input) => {
          const indivisible = (input.items ?? []).some((item) => item.price?.billing_method === 'prepaid' && (item.included ?? 0) % (item.price.billing_units ?? 1) !== 0);
          const created = real(ctx, input);
          if (indivisible) refuse('invalid_request', 'If you have a plan feature with both an included usage and a price, the included usage must be an amount that is divisible by the billing units.', 400);
          return created;
        },
      },
    },
  },
  {
    id: 'REF-REATTACH-409',
    rule: 'ENT-STATUSES-DEFAULT',
    does:
      "billing.attach of a plan the customer (or entity) already holds is refused, even after the plan got a new version: 409 `plan_already_attached` \"Cannot attach because the customer's current product '{name}' is the same as the product being attached\"; attach does not move a customer to a new version.",
    exchanges: ['160-billing.attach-reattach-after-new-version.json'],
    hooks: {
      handlers: {
        'billing.attach': (real) => (ctx, input) => {
          const entityId = input.entity_id ?? null;
          const held = ctx.store
            .recordsOf(input.customer_id)
            .find((record) => record.planId === input.plan_id && record.entityId === entityId && record.status !== 'expired' && record.licensePoolId === null);
          // The exchange attaches without `version`; an explicit other version is left to the fake.
          if (held !== undefined && (input.version === undefined || input.version === held.planVersion)) {
            refuse('plan_already_attached', `Cannot attach because the customer's current product '${planOfRecord(ctx, held).name}' is the same as the product being attached`, 409);
          }
          return real(ctx, input);
        },
      },
    },
  },
  {
    id: 'REF-PAID-ATTACH-CHECKOUT',
    rule: 'BILL-ATTACH-FREE',
    does:
      'billing.attach of a paid plan (a base price, a priced item, or a trial that needs a card) answers 200 with a checkout `payment_url` and attaches nothing until checkout completes: without a payment method on file a run cannot hold a paid plan (capability paid-attach absent).',
    exchanges: [],
    observed: 'observed-behaviour §4 (billing.attach) and §8.5',
    hooks: {
      handlers: {
        'billing.attach': (real) => (ctx, input) => {
          const plan = requirePlanVersion(ctx.store, input.plan_id, input.version);
          if (!needsPayment(plan)) return real(ctx, input);
          return { customer_id: input.customer_id, ...(input.entity_id !== undefined && { entity_id: input.entity_id }), payment_url: `https://checkout.stripe.invalid/c/pay/${encodeURIComponent(plan.id)}` };
        },
      },
    },
  },
  {
    id: 'REF-PLAIN-NUMBER-VERSIONS',
    rule: 'ERR-OUT-OF-BOUNDS-REFERENCE',
    does:
      'entities.list `plans[].versions[]` and plans.get `version` are plain numbers to the reference (OpenAPI `type: number`, no safe-integer cap): an integer beyond 2^53 is accepted and names no version.',
    exchanges: ['053-entities.list-plan-filter-version.json', '025-plans.get-unknown-version.json'],
    hooks: {
      input: (operation, body) => {
        if (!isRecord(body)) return body;
        if (operation === 'plans.get' && typeof body['version'] === 'number') return { ...body, version: safe(body['version']) };
        if (operation === 'entities.list' && Array.isArray(body['plans'])) {
          return { ...body, plans: body['plans'].map((plan) => (isRecord(plan) && Array.isArray(plan['versions']) ? { ...plan, versions: plan['versions'].map((v) => (typeof v === 'number' ? safe(v) : v)) } : plan)) };
        }
        return body;
      },
    },
  },
  {
    id: 'REF-CREDIT-SCHEMA-BOOLEAN-ACCEPTED',
    rule: 'FEAT-CREDIT-SCHEMA-VALID',
    does: 'features.create accepts a credit system whose schema names a boolean feature; it refuses only a feature named twice, another credit system and an allocated (non-consumable) metered feature.',
    exchanges: ['161-features.create-credit-schema-boolean-feature.json'],
    hooks: {
      handlers: {
        'features.create': (real) => (ctx, input) => {
          const schema = input.credit_schema ?? [];
          const isBoolean = (id: string) => ctx.store.features.get(id)?.type === 'boolean';
          if (!schema.some((entry) => isBoolean(entry.metered_feature_id))) return real(ctx, input);
          const named = schema.map((entry) => entry.metered_feature_id);
          if (new Set(named).size !== named.length) return real(ctx, input); // the fake's own duplicate refusal
          const others = schema.filter((entry) => !isBoolean(entry.metered_feature_id));
          const created = real(ctx, { ...input, credit_schema: others.length > 0 ? others : [] });
          const stored = { ...ctx.store.features.get(created.id)!, credit_schema: schema };
          ctx.store.features.set(stored.id, stored);
          return { ...created, credit_schema: schema };
        },
      },
    },
  },
  {
    id: 'REF-NEGATIVE-REQUIRED-BALANCE',
    rule: 'CHECK-REQUIRED-BALANCE-NEGATIVE',
    does: 'balances.check accepts a negative `required_balance`, allowed; with send_event it records the negative usage, giving the units back.',
    exchanges: ['106-balances.check-required-balance-negative.json', '112-balances.check-negative-send-event.json', '113-balances.check-after-negative-send-event.json'],
    hooks: {
      handlers: {
        'balances.check': (real) => (ctx, input) => {
          if (!(input.required_balance < 0 && input.send_event === true && input.lock === undefined)) return real(ctx, input);
          track(ctx, { customer_id: input.customer_id, feature_id: input.feature_id, ...(input.entity_id !== undefined && { entity_id: input.entity_id }), value: input.required_balance, properties: input.properties ?? {} });
          return real(ctx, { ...input, send_event: false });
        },
      },
    },
  },
  {
    id: 'REF-ENTITY-DELETE-KEEPS-PLAN',
    rule: 'ENT-DELETE',
    does:
      "entities.delete removes the entity, but a plan the entity held stays active at customer level: every sibling entity now inherits it, so the plan filter of entities.list matches them.",
    exchanges: ['162-billing.attach-attach-to-entity.json', '163-entities.list-plan-filter-before-delete.json', '164-entities.delete-delete-entity-holding-plan.json', '165-entities.list-plan-filter-after-delete.json'],
    hooks: {
      handlers: {
        'entities.delete': (real) => (ctx, input) => {
          const row = ctx.store.entities.get(input.entity_id);
          const held = row === undefined ? [] : ctx.store.recordsOf(row.customerId).filter((r) => r.entityId === row.id && r.status !== 'expired' && r.licensePoolId === null);
          const plans = held.map((record) => planOfRecord(ctx, record));
          const answer = real(ctx, input);
          for (const plan of plans) holdPlan(ctx, { customerId: row!.customerId, entityId: null }, plan);
          return answer;
        },
      },
    },
  },
  {
    id: 'REF-CLIENT-LENIENCIES',
    rule: 'LIC-ATTACH-BATCH',
    does:
      "Requests interface.md requires more of are taken as the published client sends them (fake-server/client-compat.ts, autumn-js): licenses.attach entities without `name`, licenses.release without `license_plan_id`, preview updates without `plan_id`, entities.list's `subscription_status`; entities.list embeds each subscription's `id`.",
    exchanges: ['064-licenses.attach-two-entities.json', '069-licenses.attach-skip-already-assigned.json', '071-licenses.attach-only-already-assigned.json', '055-entities.list-subscription-status-active.json', '181-entities.list-statuses-scheduled-active-plan-only.json'],
    clientCompat: 'autumn-js',
  },
  {
    id: 'REF-STATUSES-IGNORED',
    rule: 'ENT-STATUSES-FILTER',
    does: "entities.list does not read `statuses` (2.3.0 filters by `subscription_status`): `statuses: [\"scheduled\"]` still hydrates and matches active plans.",
    exchanges: ['057-entities.list-statuses-array-ignored.json', '181-entities.list-statuses-scheduled-active-plan-only.json'],
    hooks: {
      input: (operation, body) => {
        if (operation !== 'entities.list' || !isRecord(body) || !('statuses' in body)) return body;
        const { statuses: _notRead, ...rest } = body;
        return rest;
      },
    },
  },
  {
    id: 'REF-PREVIEW-LICENSE-BACKED-REFUSED',
    rule: 'PREV-TARGET-HELD',
    does: 'billing.preview_multi_update of a plan that offers licenses (a license pool parent) is refused: 400 `invalid_request` "billing.multi_update does not support license-backed plans yet."',
    exchanges: ['138-billing.preview_multi_update-license-backed-plan.json'],
    hooks: {
      handlers: {
        'billing.preview_multi_update': (real) => (ctx, input) => {
          const licenseBacked = input.updates.some((update) => (ctx.store.plans.get(update.plan_id ?? '') ?? []).some((version) => (version.licenses ?? []).length > 0));
          if (licenseBacked) refuse('invalid_request', 'billing.multi_update does not support license-backed plans yet.', 400);
          return real(ctx, input);
        },
      },
    },
  },
  {
    id: 'REF-PREVIEW-UPDATES-FOLD',
    rule: 'PREV-ONE-UPDATE-PER-PLAN',
    does:
      "billing.preview_multi_update applies its updates in order: a second update of a plan the first already cancelled finds nothing, 404 `cus_product_not_found` \"No active subscription found for plan '{plan}' on customer '{customer}'\" (not 400).",
    exchanges: ['179-billing.preview_multi_update-same-free-plan-twice.json', '180-billing.preview_multi_update-same-free-plan-once.json'],
    hooks: {
      handlers: {
        'billing.preview_multi_update': (real) => (ctx, input) => {
          const seen = new Set<string>();
          for (const update of input.updates) {
            const key = `${update.entity_id ?? input.entity_id ?? ''}\n${update.plan_id}`;
            if (seen.has(key)) refuse('cus_product_not_found', `No active subscription found for plan '${update.plan_id}' on customer '${input.customer_id}'`, 404);
            seen.add(key);
          }
          return real(ctx, input);
        },
      },
    },
  },
  {
    id: 'REF-MAX-PURCHASE-ZERO-NULL',
    rule: 'PLAN-ITEMS-ROUND-TRIP',
    does: 'A price whose `max_purchase` is 0 is stored as null: the plan answers and reads back `max_purchase: null`, so a cap of zero becomes no cap.',
    exchanges: ['174-plans.create-usage-price-max-purchase-0.json', '175-plans.get-max-purchase-0-read-back.json'],
    hooks: {
      input: (operation, body) => {
        if ((operation !== 'plans.create' && operation !== 'plans.update') || !isRecord(body) || !Array.isArray(body['items'])) return body;
        const uncapped = (item: unknown) => (isRecord(item) && isRecord(item['price']) && item['price']['max_purchase'] === 0 ? { ...item, price: { ...item['price'], max_purchase: null } } : item);
        return { ...body, items: body['items'].map(uncapped) };
      },
    },
  },
  {
    id: 'REF-ENTITY-DELETE-UNKNOWN-500',
    rule: 'ERR-SUCCESS-200-SETUP',
    does: 'entities.delete of an entity that does not exist, without `customer_id`, answers 500 `internal_error` "No entities found for entityId {id}" (not 404).',
    exchanges: ['177-entities.delete-unknown-entity-without-customer-id.json'],
    observed: 'observed-behaviour §8.8',
    hooks: {
      handlers: {
        'entities.delete': (real) => (ctx, input) => {
          if (input.customer_id === undefined && !ctx.store.entities.has(input.entity_id)) refuse('internal_error', `No entities found for entityId ${input.entity_id}`, 500);
          return real(ctx, input);
        },
      },
    },
  },
  {
    id: 'REF-LOCK-EXPIRES-WITHIN-A-DAY',
    rule: 'CHECK-LOCK-RESERVES',
    does: 'balances.check refuses a lock whose `expires_at` is more than a day ahead: 400 `invalid_request` "Lock expires_at cannot be more than 1 day from now".',
    exchanges: ['178-balances.check-lock-expires-in-2-days.json'],
    hooks: {
      handlers: {
        'balances.check': (real) => (ctx, input) => {
          const expiresAt = input.lock?.expires_at;
          if (typeof expiresAt === 'number' && expiresAt > ctx.clock.now() + DAY_MS) refuse('invalid_request', 'Lock expires_at cannot be more than 1 day from now', 400);
          return real(ctx, input);
        },
      },
    },
  },
  {
    id: 'REF-CUSTOMER-CHECK-SHOWS-ENTITY-GRANTS',
    rule: 'CHECK-ENTITY-SCOPED',
    does:
      "A customer-level balances.check (no entity_id) of a feature only the customer's entities are granted shows their grants summed as the balance (granted, remaining, usage; no breakdown), and answers `allowed: false`.",
    exchanges: ['182-balances.check-customer-level-entity-add-on-grant.json'],
    observed: 'observed-behaviour §8.10',
    hooks: {
      handlers: {
        'balances.check': (real) => (ctx, input) => {
          const result = real(ctx, input);
          if (input.entity_id !== undefined || result.balance !== null || input.send_event === true || input.lock !== undefined) return result;
          const entities = [...ctx.store.entities.values()].filter((entity) => entity.customerId === input.customer_id);
          const held = entities.flatMap((entity) => {
            const balance = real(ctx, { ...input, entity_id: entity.id, required_balance: 0 }).balance;
            return balance === null || balance === undefined || balance.unlimited ? [] : [balance];
          });
          if (held.length === 0) return result;
          const sum = (field: 'granted' | 'remaining' | 'usage') => held.reduce((total, balance) => total + balance[field], 0);
          const balance = { ...held[0]!, granted: sum('granted'), remaining: sum('remaining'), usage: sum('usage'), overage_allowed: false, max_purchase: null, breakdown: [] };
          return { ...result, allowed: false, balance };
        },
      },
    },
  },
];

// ── Helpers ──────────────────────────────────────────────────────────────────

const PLAN_ANSWERS: ReadonlySet<OperationName> = new Set(['plans.create', 'plans.get', 'plans.update', 'plans.list']);

function withoutPlanFields(operation: OperationName, body: unknown): unknown {
  const strip = (plan: unknown) => {
    if (!isRecord(plan)) return plan;
    const { version_slug: _slug, active: _active, ...rest } = plan;
    return rest;
  };
  if (operation === 'plans.list' && isRecord(body) && Array.isArray(body['list'])) return { ...body, list: body['list'].map(strip) };
  return strip(body);
}

function needsPayment(plan: Plan): boolean {
  const priced = plan.price !== null || plan.items.some((item) => item.price !== null);
  return priced && !(plan.free_trial !== undefined && plan.free_trial !== null && plan.free_trial.card_required === false);
}

const DAY_MS = 24 * 60 * 60 * 1000;

function safe(value: number): number {
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The behaviours' domain hooks as faults of the fake (each under the rule it bears on). */
export function domainHooks(behaviours: readonly ReferenceBehaviour[] = REFERENCE_BEHAVIOURS): Fault[] {
  return behaviours.flatMap((b) => (b.hooks === undefined ? [] : [{ rule: b.rule, breaks: `reference behaviour ${b.id}: ${b.does}`, ...b.hooks }]));
}
