/**
 * Where interface.md leaves an answer open and the 2.3.0 reference (or a published client's mode of
 * the fake, which answers as the reference does) is known to answer otherwise than the model: a
 * difference there is no deviation, so it ends the program without a finding (a known stop, counted
 * in the run's summary). The generators avoid sending these requests in the first place (parts/*);
 * this list is what still holds when a program reaches one anyway, or a target differs in a way the
 * generators cannot see coming (a checkout answer where the run's probe found none).
 *
 * Each entry names where the behaviour was recorded (shared/reference/exchanges, or a passage of
 * observed-behaviour.md). Differences the reference's answers show in their shape are in
 * spec/reference/differences.ts and handled by compare.ts.
 */
import type { OperationName } from '../../spec/operations.ts';
import type { Answer } from './compare.ts';
import type { WorldState } from './lockstep.ts';

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
  /** Whether the two answers differ in exactly this way. */
  readonly applies: (call: LeewayCall) => boolean;
}

const ok = (answer: Answer) => answer.status >= 200 && answer.status < 300;
const refused = (answer: Answer) => answer.status >= 400 && answer.status < 500;
const codeOf = (answer: Answer) => (answer.body as { code?: unknown } | null)?.code;
const field = (answer: Answer, name: string) => (answer.body as Record<string, unknown> | null)?.[name];
/** The target took the request the model refused as invalid, or refused it for another reason (it read the body otherwise). */
const readOtherwise = (model: Answer, target: Answer) => ok(target) || codeOf(target) !== codeOf(model);
const items = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : []);

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
    why: 'a paid plan is attached at once or only after a checkout (payment_url): billing.attach is not documented, and the reference asks for a checkout until the customer has a payment method on file',
    source: 'observed-behaviour.md §4 (billing.attach) and §8.5',
    operation: 'billing.attach',
    applies: ({ model, target }) => ok(model) && ok(target) && field(model, 'payment_url') == null && typeof field(target, 'payment_url') === 'string',
  },
  {
    id: 'REATTACH-REFUSED',
    why: 'attaching a plan the subject already holds: the document says nothing of it; the reference refuses with 409 plan_already_attached, even after the plan got a new version',
    source: 'exchanges/160-billing.attach-reattach-after-new-version.json',
    operation: 'billing.attach',
    applies: ({ target }) => refused(target) && codeOf(target) === 'plan_already_attached',
  },
  {
    id: 'PREPAID-INCLUDED-DIVISIBLE',
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
    why: 'a negative required_balance with send_event or a lock: the document gives no lower bound; the reference accepts it and records the negative usage (units given back)',
    source: 'exchanges/106-balances.check-required-balance-negative.json, 112-balances.check-negative-send-event.json, 113-balances.check-after-negative-send-event.json',
    operation: 'balances.check',
    applies: ({ request, model, target }) => refused(model) && ok(target) && typeof request['required_balance'] === 'number' && request['required_balance'] < 0,
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
