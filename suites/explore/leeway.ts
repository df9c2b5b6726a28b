/**
 * Where interface.md leaves an answer open and the 2.3.0 reference (or a published client's mode of
 * the fake, which answers as the reference does) is known to answer otherwise than the model: a
 * difference there is no deviation, so it is not compared; after a call that changed state the
 * program ends there without a finding (a known stop, counted in the run's summary). The generators
 * never send the requests marked `avoided` (parts/*): for those this list is what still holds when a
 * target differs in a way the generators cannot see coming (a checkout answer where the run's probe
 * found none). The others are sent on purpose (a refusal the document decides, whose code it leaves
 * open; a read whose answer it leaves open in some worlds; a variant HTTP allows).
 *
 * Each entry names where the behaviour was recorded (shared/reference/exchanges, or a passage of
 * observed-behaviour.md). Differences the reference's answers show in their shape are in
 * spec/reference/differences.ts and handled by compare.ts.
 */
import type { OperationName } from '../../spec/operations.ts';
import type { Answer } from './compare.ts';
import type { WorldState } from './world.ts';

export interface LeewayCall {
  readonly operation: OperationName;
  readonly request: Readonly<Record<string, unknown>>;
  readonly model: Answer;
  readonly target: Answer;
  /** What the program knows of its world (feature types, plans) before this call. */
  readonly world: WorldState;
  /** The envelope variant the call was sent in (command.ts VARIANTS), if any. */
  readonly variant?: string;
}

export interface Leeway {
  readonly id: string;
  /** What the document leaves open there, and what the reference does. */
  readonly why: string;
  /** The recorded exchanges, or the passage of observed-behaviour.md. */
  readonly source: string;
  /** The operation it concerns; undefined: any. */
  readonly operation?: OperationName;
  /** An envelope variant the target refuses where the document leaves it open: the exploration sends it no more. */
  readonly variant?: string;
  /** The generators never send such a request (parts/*): met, it is a generator's defect. */
  readonly avoided?: true;
  /** Whether the two answers differ in exactly this way. */
  readonly applies: (call: LeewayCall) => boolean;
}

const ok = (answer: Answer) => answer.status >= 200 && answer.status < 300;
const refused = (answer: Answer) => answer.status >= 400 && answer.status < 500;
const codeOf = (answer: Answer) => (answer.body as { code?: unknown } | null)?.code;
const field = (answer: Answer, name: string) => (answer.body as Record<string, unknown> | null)?.[name];
/** The target took the request the model refused as invalid, or refused it for another reason (it read the body otherwise). */
const readOtherwise = (model: Answer, target: Answer) => ok(target) || codeOf(target) !== codeOf(model);
const DAY_MS = 86_400_000;
const items = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : []);

/** Whether a plan the customer holds offers licenses whose license plan grants the feature: its seats are the entities' grants. */
function seatsGrant(world: WorldState, customerId: string, featureId: string): boolean {
  const offered = world.holdings.filter((h) => h.customerId === customerId && h.entityId === undefined).flatMap((h) => world.plans.find((p) => p.id === h.planId)?.licenses ?? []);
  return offered.some((link) => world.plans.find((p) => p.id === link.licensePlanId)?.items.some((item) => item.featureId === featureId) ?? false);
}

export const LEEWAY: readonly Leeway[] = [
  {
    id: 'BEARER-SCHEME-CASE',
    why: 'the key sent as `bearer <key>`: the document shows `Authorization: Bearer <API_KEY>` and an HTTP bearer scheme (whose name HTTP takes in any case); the reference takes `Bearer ` only and answers 401 no_secret_key',
    source: 'observed-behaviour.md §2 (Header)',
    variant: 'scheme-case',
    applies: ({ variant, model, target }) => variant === 'scheme-case' && model.status !== 401 && target.status === 401,
  },
  {
    id: 'PAID-ATTACH-CHECKOUT',
    avoided: true,
    why: 'a paid plan is attached at once or only after a checkout (payment_url): billing.attach is not documented, and the reference asks for a checkout until the customer has a payment method on file',
    source: 'observed-behaviour.md §4 (billing.attach) and §8.5',
    operation: 'billing.attach',
    // A free plan is attached at once (BILL-ATTACH-FREE): only a plan some version of which has a price may ask for a checkout.
    applies: ({ request, model, target, world }) =>
      ok(model) && ok(target) && field(model, 'payment_url') == null && typeof field(target, 'payment_url') === 'string' && !world.plans.some((plan) => plan.id === request['plan_id'] && !plan.paid),
  },
  {
    id: 'REATTACH-REFUSED',
    avoided: true,
    why: 'attaching a plan the subject already holds: the document says nothing of it; the reference refuses with 409 plan_already_attached, even after the plan got a new version',
    source: 'exchanges/160-billing.attach-reattach-after-new-version.json',
    operation: 'billing.attach',
    applies: ({ target }) => refused(target) && codeOf(target) === 'plan_already_attached',
  },
  {
    id: 'PREPAID-INCLUDED-DIVISIBLE',
    avoided: true,
    why: 'a prepaid item whose included amount is not a multiple of its billing_units: the document states no such bound; the reference refuses the plan (and stores it all the same)',
    source: 'exchanges/157-plans.create-prepaid-included-not-multiple-of-billing-units.json',
    operation: 'plans.create',
    applies: ({ request, model, target }) =>
      ok(model) &&
      refused(target) &&
      items(request['items']).some((item) => {
        const price = item['price'] as { billing_method?: unknown; billing_units?: unknown } | undefined;
        const units = typeof price?.billing_units === 'number' ? price.billing_units : 1;
        return price?.billing_method === 'prepaid' && typeof item['included'] === 'number' && item['included'] % units !== 0;
      }),
  },
  {
    id: 'REWARD-BOOLEAN-GRANT-INCLUDED',
    avoided: true,
    why: 'a reward granting a boolean feature with an included amount: the document does not describe rewards.create; the reference refuses any included but null (400 invalid_reward)',
    source: 'exchanges/155-rewards.create-boolean-grant-included-1.json, 156-rewards.create-boolean-grant-included-null.json',
    operation: 'rewards.create',
    applies: ({ request, model, target, world }) => {
      const grants = items((request['feature_grant'] as { grants?: unknown } | undefined)?.grants);
      const boolean = (id: unknown) => world.features.some((f) => f.id === id && f.type === 'boolean');
      return ok(model) && refused(target) && grants.some((grant) => boolean(grant['feature_id']) && grant['included'] !== null);
    },
  },
  {
    id: 'CREDIT-SCHEMA-BOOLEAN',
    avoided: true,
    why: 'a credit schema naming a boolean feature: the document does not say; the reference accepts it (it refuses a feature named twice, an allocated one and another credit system)',
    source: 'exchanges/161-features.create-credit-schema-boolean-feature.json',
    operation: 'features.create',
    applies: ({ request, model, target, world }) => {
      const boolean = (id: unknown) => world.features.some((f) => f.id === id && f.type === 'boolean');
      return refused(model) && ok(target) && items(request['credit_schema']).some((entry) => boolean(entry['metered_feature_id']));
    },
  },
  {
    id: 'NEGATIVE-REQUIRED-BALANCE-RECORDED',
    avoided: true,
    why: 'a negative required_balance with send_event or a lock: the document gives no lower bound; the reference accepts it and records the negative usage (units given back)',
    source: 'exchanges/106-balances.check-required-balance-negative.json, 112-balances.check-negative-send-event.json, 113-balances.check-after-negative-send-event.json',
    operation: 'balances.check',
    applies: ({ request, model, target }) => refused(model) && ok(target) && typeof request['required_balance'] === 'number' && request['required_balance'] < 0,
  },
  {
    id: 'LOCK-EXPIRES-WITHIN-A-DAY',
    avoided: true,
    why: 'a lock whose expires_at is more than a day ahead: the document gives no bound; the reference refuses it (400 invalid_request)',
    source: 'exchanges/178-balances.check-lock-expires-in-2-days.json',
    operation: 'balances.check',
    applies: ({ request, model, target, world }) => {
      const expiresAt = (request['lock'] as { expires_at?: unknown } | undefined)?.expires_at;
      return ok(model) && refused(target) && typeof expiresAt === 'number' && expiresAt > world.now + DAY_MS;
    },
  },
  {
    id: 'CUSTOMER-CHECK-ENTITY-GRANTS',
    why: "a customer-level check of a feature only the customer's entities are granted (a plan of their own, or the seats of the customer's pool): whether the customer \"has a balance\" then is not said; the reference shows the entities' grants summed, allowed false",
    source: 'exchanges/182-balances.check-customer-level-entity-add-on-grant.json (observed-behaviour.md §8.10)',
    operation: 'balances.check',
    applies: ({ request, model, target, world }) =>
      ok(model) &&
      ok(target) &&
      request['entity_id'] === undefined &&
      field(model, 'balance') === null &&
      field(target, 'balance') != null &&
      (world.holdings.some((h) => h.customerId === request['customer_id'] && h.entityId !== undefined && h.featureIds.includes(request['feature_id'] as string)) ||
        seatsGrant(world, request['customer_id'] as string, request['feature_id'] as string)),
  },
  {
    id: 'PREVIEW-LICENSE-BACKED',
    avoided: true,
    why: 'a preview of a plan that offers licenses: the document says nothing against it; the reference does not support it yet (400 invalid_request)',
    source: 'exchanges/138-billing.preview_multi_update-license-backed-plan.json',
    operation: 'billing.preview_multi_update',
    applies: ({ request, model, target, world }) => ok(model) && refused(target) && items(request['updates']).some((update) => (world.plans.find((p) => p.id === update['plan_id'])?.licenses.length ?? 0) > 0),
  },
  {
    id: 'PREVIEW-SAME-PLAN-TWICE',
    why: "a preview updating one plan twice is refused (PREV-ONE-UPDATE-PER-PLAN); which refusal is the implementation's: the reference applies the updates in order and the second finds nothing (404 cus_product_not_found)",
    source: 'exchanges/179-billing.preview_multi_update-same-free-plan-twice.json',
    operation: 'billing.preview_multi_update',
    applies: ({ request, model, target }) => {
      const keys = items(request['updates']).map((update) => `${String(update['entity_id'] ?? request['entity_id'] ?? '')} ${String(update['plan_id'])}`);
      return refused(model) && refused(target) && codeOf(target) === 'cus_product_not_found' && new Set(keys).size < keys.length;
    },
  },
  {
    id: 'RELEASE-WITHOUT-LICENSE-PLAN',
    why: 'licenses.release without license_plan_id: interface.md requires it, but the reference (and the fake in autumn-js mode) picks the license the entities hold (spec/reference/differences.ts CLIENT-LICENSE-RELEASE-PLAN-OPTIONAL); the scenarios decide LIC-RELEASE-REQUIRED-FIELDS',
    source: 'observed-behaviour.md §3.3 and §8.9',
    operation: 'licenses.release',
    applies: ({ request, model, target }) => refused(model) && readOtherwise(model, target) && request['license_plan_id'] === undefined,
  },
  {
    id: 'PREVIEW-UPDATE-WITHOUT-PLAN',
    why: 'a preview update without plan_id: interface.md requires it, but the reference (and the fake in autumn-js mode) picks the plan (spec/reference/differences.ts CLIENT-PREVIEW-PLAN-ID-OPTIONAL); the scenarios decide PREV-UPDATE-FIELDS',
    source: 'observed-behaviour.md §3.6',
    operation: 'billing.preview_multi_update',
    applies: ({ request, model, target }) => refused(model) && readOtherwise(model, target) && items(request['updates']).some((update) => update['plan_id'] === undefined),
  },
];

/** The entry that explains how the two answers of a call differ, if any. */
export function leewayFor(call: LeewayCall): Leeway | undefined {
  return LEEWAY.find((leeway) => (leeway.operation === undefined || leeway.operation === call.operation) && leeway.applies(call));
}
