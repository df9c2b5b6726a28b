/**
 * Scenarios with generated request bodies, for every operation of the operation table: bodies
 * generated valid from the OpenAPI export (json-schema-faker, seeded by the run), and mutants of
 * valid ones that break one stated constraint each (fixtures/bodies.ts). A few bodies per operation.
 *
 * Every ID in a generated body is replaced before it is sent: where the operation creates (or
 * deletes) the object it names, by a fresh namespaced ID; where it refers to an object, by one the
 * scenario created, or else a fresh namespaced ID that names nothing. Other names that could meet
 * real data (promo codes, event names) are namespaced too, plans are never auto-enabled (that would
 * reach every new customer), a cursor is the first page's, and a lock expires within the hour. So no
 * generated call can touch data outside the run's namespace.
 */
import { expect } from 'vitest';
import { BOUND_OR_ENUM_KINDS, generateBody, type Mutant, mutantsOf, type OptionalFields, requestSchema } from '../../../fixtures/bodies.ts';
import { hashSeed } from '../../../fixtures/factories.ts';
import type { ErrorBody } from '../../../spec/common.ts';
import { constraintProvenance, ownBoundRule, statedBound } from '../../../spec/constraint-provenance.ts';
import { OPERATION_NAMES, type OperationName, operations } from '../../../spec/operations.ts';
import { type CallResult, isRouteNotServed, TargetFault } from '../../framework/index.ts';
import { createFeature, scenario, type T } from '../../support.ts';
import { createCustomerWithEntity } from './support.ts';

const BODIES_PER_OPERATION = 2;

const MUTANTS_PER_OPERATION = 3;

/** Generation attempts for a body that also passes the spec's cross-field rules (the base of the mutants)… */
const BASE_ATTEMPTS = 9;

/** …with all optional fields (the most to break), some, or none (the fewest cross-field rules to meet). */
const BASE_OPTIONALS: readonly OptionalFields[] = ['all', 'some', 'none'];

/** How far ahead a generated lock expires: within the day the reference allows. */
const LOCK_EXPIRY_MS = 60 * 60 * 1000;

type KnownKind = 'customer' | 'entity' | 'plan' | 'feature' | 'reward' | 'referralProgram';

type KnownIds = Partial<Record<KnownKind, string>>;

/** Where an operation names the object it creates or deletes: always a fresh ID there, never one the scenario relies on. */
const OWN_ID_PATHS: Partial<Record<OperationName, readonly string[]>> = {
  'plans.create': ['plan_id'],
  'features.create': ['feature_id'],
  'customers.get_or_create': ['customer_id'],
  'entities.create': ['entity_id'],
  'entities.delete': ['entity_id'],
  'referral_programs.create': ['id'],
  'rewards.create': ['feature_grant.id'],
};

/** Which created object an ID field refers to, by its dotted path (array levels left out) or else its key. */
const REFERS_TO: Readonly<Record<string, KnownKind>> = {
  customer_id: 'customer',
  entity_id: 'entity',
  plan_id: 'plan',
  license_plan_id: 'plan',
  'plans.id': 'plan',
  feature_id: 'feature',
  metered_feature_id: 'feature',
  reward_id: 'reward',
  referral_program_id: 'referralProgram',
};

/** Names that are not IDs of the objects above but could still meet real data: always fresh. */
const NAMESPACED_NAMES: ReadonlySet<string> = new Set(['code', 'event_name']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Fields whose value could reach data outside the namespace: IDs and other names, and
 * `auto_enable`. A mutant never breaks their value in a mutating call, since a lenient target
 * might take the broken value (`12345`, `"yes"`) as it came.
 */
function guardedField(key: string): boolean {
  return key === 'id' || key.endsWith('_id') || key.endsWith('_ids') || NAMESPACED_NAMES.has(key) || key === 'event_names' || key === 'auto_enable';
}

/**
 * A plan item's `included` rounded down to a multiple of its price's `billing_units`: the reference
 * refuses any other ("divisible by the billing units"), and generated bodies keep to what every
 * implementation accepts.
 */
function includedInBillingUnits(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(includedInBillingUnits);
  if (!isRecord(value)) return value;
  const out = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === 'metadata' ? inner : includedInBillingUnits(inner)]));
  const units = isRecord(out['price']) ? out['price']['billing_units'] : undefined;
  if (typeof out['included'] === 'number' && typeof units === 'number' && units > 0) out['included'] = Math.floor(out['included'] / units) * units;
  return out;
}

/** `body` with every ID field replaced as the module comment says. `metadata` is user data and left alone. */
function withScenarioIds(t: T, operation: OperationName, body: unknown, known: KnownIds): unknown {
  const own = OWN_ID_PATHS[operation] ?? [];
  const fresh = (key: string) => t.ns.id(`gen${key.replace(/[^a-zA-Z]/g, '')}`);
  const walk = (value: unknown, path: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, path));
    if (!isRecord(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => {
        const dotted = [...path, key].join('.');
        if (key === 'metadata') return [key, inner];
        if (key === 'start_cursor') return [key, ''];
        // The reference refuses a lock expiring more than a day ahead (exchange 178); the generator draws any timestamp.
        if (dotted === 'lock.expires_at' && typeof inner === 'number') return [key, Date.now() + LOCK_EXPIRY_MS];
        // An auto-enabled plan would be attached to every new customer of the tenant, in the namespace or not.
        if (key === 'auto_enable') return [key, false];
        if (typeof inner === 'string' && NAMESPACED_NAMES.has(key)) return [key, fresh(key)];
        if (typeof inner === 'string' && (key === 'id' || key.endsWith('_id'))) {
          const kind = REFERS_TO[dotted] ?? REFERS_TO[key];
          return [key, own.includes(dotted) || kind === undefined ? fresh(key) : (known[kind] ?? fresh(key))];
        }
        if (Array.isArray(inner) && (key.endsWith('_ids') || key === 'event_names')) return [key, inner.map(() => fresh(key))];
        return [key, walk(inner, [...path, key])];
      }),
    );
  };
  return includedInBillingUnits(walk(body, []));
}

/** A customer with a plan and an entity, and a referral program with its reward, for generated bodies to refer to. */
async function createKnownIds(t: T): Promise<KnownIds> {
  const { feature, plan, customer, entity } = await createCustomerWithEntity(t);
  const grant = { id: t.ns.id('reward'), name: 'Generated-body reward', grants: [{ feature_id: feature.id, included: 1, expiry: null }], promo_codes: [{ code: t.ns.code('CODE'), max_uses: 1 }] };
  const reward = t.setup(await t.client.call('rewards.create', { feature_grant: grant }), ['feature_grant']).feature_grant;
  const program = t.setup(
    await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), reward_id: reward.id, redeem_on: 'customer_creation', received_by: 'referrer' }),
    ['id'],
  );
  return { customer: customer.id, entity: entity.id, plan: plan.id, feature: feature.id, reward: reward.id, referralProgram: program.id };
}

/** Which mutants a scenario sends. */
type MutantFilter = (operation: OperationName, mutant: Mutant) => boolean;

/**
 * Up to MUTANTS_PER_OPERATION mutants, those `wanted`, of a generated body that passes the
 * spec's own schema (cross-field rules included), each refused by that schema and none breaking a
 * guarded field of a mutating call: one of each kind first, in an order fixed by the run seed. Of
 * several generated bases, the one with the most such mutants is used.
 */
async function mutantsFor(t: T, operation: OperationName, known: KnownIds, wanted: MutantFilter): Promise<{ base: unknown; mutants: Mutant[] }> {
  const { request, mutates } = operations[operation];
  let candidates: Mutant[] = [];
  let chosen: unknown;
  for (let attempt = 0; attempt < BASE_ATTEMPTS; attempt++) {
    const generated = await generateBody(operation, hashSeed(t.seed, `${operation}#base${attempt}`), BASE_OPTIONALS[attempt % BASE_OPTIONALS.length]);
    const base = withScenarioIds(t, operation, generated, known);
    if (!request.safeParse(base).success) continue;
    const found = mutantsOf(requestSchema(operation), base).filter(
      (m) =>
        wanted(operation, m) &&
        !(mutates && m.kind !== 'missing-required' && guardedField(String(m.path.findLast((segment) => typeof segment === 'string')))) &&
        !request.safeParse(m.body).success,
    );
    if (found.length > candidates.length) [candidates, chosen] = [found, base];
  }
  const rank = (m: Mutant) => hashSeed(t.seed, `${operation}:${m.kind}:${m.path.join('.')}`);
  const ranked = candidates.sort((a, b) => rank(a) - rank(b));
  const firstOfKind = ranked.filter((m, i) => ranked.findIndex((other) => other.kind === m.kind) === i);
  return { base: chosen, mutants: [...firstOfKind, ...ranked.filter((m) => !firstOfKind.includes(m))].slice(0, MUTANTS_PER_OPERATION) };
}

/** The value a mutant put at its path (undefined for a removed field). */
function brokenValue(mutant: Mutant): unknown {
  return mutant.path.reduce<unknown>((inner, segment) => (inner as Record<string | number, unknown> | undefined)?.[segment], mutant.body);
}

/** `operation` `path` = value (kind), then the body: the field and the value first, whatever the body's length. */
function describeMutant(operation: OperationName, mutant: Mutant): string {
  const value = mutant.kind === 'missing-required' ? '(left out)' : JSON.stringify(brokenValue(mutant));
  return `${operation} ${mutant.path.join('.')} = ${value} (${mutant.kind}; body ${JSON.stringify(mutant.body).slice(0, 300)})`;
}

/** The read that shows whether a create went through, for the operations that create something by a given ID: the read's operation and its body. */
const READ_BACK: Partial<Record<OperationName, (body: Record<string, unknown>) => readonly [OperationName, Record<string, unknown>] | undefined>> = {
  'plans.create': (body) => (typeof body['plan_id'] === 'string' ? ['plans.get', { plan_id: body['plan_id'] }] : undefined),
  'features.create': (body) => (typeof body['feature_id'] === 'string' ? ['features.get', { feature_id: body['feature_id'] }] : undefined),
  'entities.create': (body) => (typeof body['entity_id'] === 'string' ? ['entities.get', { entity_id: body['entity_id'] }] : undefined),
  'referral_programs.create': (body) => (typeof body['id'] === 'string' ? ['referral_programs.get', { referral_program_id: body['id'] }] : undefined),
};

type AnyCallResult = CallResult<(typeof operations)[OperationName], typeof ErrorBody>;

/**
 * Sends each operation's mutants (those `wanted`) and hands every answer to `check`; returns how
 * many it sent. A 5xx is charged as a server fault (t.serverFault) and the next mutant is sent. With
 * `validBaseFirst`, the valid body the mutants were made from is sent first, and an operation whose
 * valid body is refused for any reason but a record not found or already there (pastValidation: the
 * IDs name nothing here) is left out: the target takes the base for invalid (a lock `expires_at` too
 * far ahead, exchange 178), so its refusals of mutants say nothing of the constraint each breaks.
 */
async function sendMutants(
  t: T,
  known: KnownIds,
  wanted: MutantFilter,
  check: (operation: OperationName, mutant: Mutant, result: AnyCallResult) => Promise<void> | void,
  validBaseFirst = false,
): Promise<number> {
  let sent = 0;
  for (const operation of OPERATION_NAMES) {
    const { base, mutants } = await mutantsFor(t, operation, known, wanted);
    if (validBaseFirst && mutants.length > 0) {
      const control = await t.client.call(operation, base as never);
      if (t.serverFault(control) || (!control.ok && !pastValidation(control))) continue;
    }
    for (const mutant of mutants) {
      const result = await t.client.call(operation, mutant.body as never);
      if (t.serverFault(result)) continue;
      // An operation the target does not serve refuses every body alike: its refusals say nothing of validation.
      if (!result.ok && isRouteNotServed(result.status, result.body)) break;
      await check(operation, mutant, result);
      sent++;
    }
  }
  return sent;
}

/** The rule a generated probe of `operation` counts against: the document's for documented operations and fields, else the reference's. */
function successRule(operation: OperationName): 'ERR-SUCCESS-200' | 'ERR-SUCCESS-200-SETUP' {
  return operations[operation].provenance === 'documented' ? 'ERR-SUCCESS-200' : 'ERR-SUCCESS-200-SETUP';
}

/** Whether interface.md states the bound or enumeration a mutant breaks (statedBound), on a documented operation and field. */
function statedBy(operation: OperationName, mutant: Mutant): boolean {
  return (
    BOUND_OR_ENUM_KINDS.has(mutant.kind) &&
    statedBound(operation, mutant.path) !== undefined &&
    operations[operation].provenance === 'documented' &&
    constraintProvenance(operation, mutant.path) === 'documented'
  );
}

/**
 * A value beyond ±2^53 - 1 breaks only the safe-integer cap of the schemas' integers (zod's), which
 * neither the document nor the reference (plain numbers) states: no implementation has to refuse it.
 */
function beyondSafeIntegers(mutant: Mutant): boolean {
  const value = brokenValue(mutant);
  return (mutant.kind === 'above-maximum' || mutant.kind === 'below-minimum') && typeof value === 'number' && Math.abs(value) > Number.MAX_SAFE_INTEGER;
}

/** A bound or enumeration with no rule of its own part (LIST-LIMIT-BOUNDS, FEAT-TYPE-ENUM, … are proven by their rules' scenarios). */
const umbrellaBound: MutantFilter = (operation, mutant) => BOUND_OR_ENUM_KINDS.has(mutant.kind) && ownBoundRule(operation, mutant.path) === undefined && !beyondSafeIntegers(mutant);

/**
 * Sends the mutants `wanted` as refusals of `rule`: each must be refused (its message names the
 * field and the value), and a create refused must have created nothing. A MUST verdict rests on
 * documented operations only: a create read back through a reference read is left out of it.
 */
async function boundsRefused(t: T, rule: 'ERR-OUT-OF-BOUNDS-OR-ENUM' | 'ERR-OUT-OF-BOUNDS-REFERENCE', wanted: MutantFilter): Promise<number> {
  return sendMutants(t, await createKnownIds(t), wanted, async (operation, mutant, result) => {
    t.check(rule, () => expect(result.ok, `${describeMutant(operation, mutant)} must be refused`).toBe(false));
    t.expectError(result, { rule });
    const readBack = isRecord(mutant.body) ? READ_BACK[operation]?.(mutant.body) : undefined;
    if (readBack !== undefined && (rule === 'ERR-OUT-OF-BOUNDS-REFERENCE' || operations[readBack[0]].provenance === 'documented')) {
      const created = (await t.client.call(readBack[0], readBack[1] as never)).ok;
      t.check(rule, () => expect(created, `${describeMutant(operation, mutant)} was refused, so nothing was created`).toBe(false));
    }
  });
}

/** A refusal that comes after validation: a record the body names does not exist (404, `…_not_found`) or already does (409, `…_already_exists`, `duplicate_…`). */
function pastValidation(result: { status: number; body: unknown }): boolean {
  const code = (result.body as { code?: unknown } | null)?.code;
  return result.status === 404 || result.status === 409 || (typeof code === 'string' && /_not_found$|_already_exists$|^duplicate_/.test(code));
}

export const generatedBodiesScenarios = [
  scenario(
    {
      id: 'envelope.generated-valid-bodies',
      title: 'bodies generated valid from the OpenAPI export are answered, for every operation, 200 with the documented body or a 4xx, never another success status',
      rules: ['ERR-SUCCESS-200', 'ERR-SUCCESS-200-SETUP'],
    },
    async (t) => {
      const known = await createKnownIds(t);
      for (const operation of OPERATION_NAMES) {
        for (let n = 0; n < BODIES_PER_OPERATION; n++) {
          const body = withScenarioIds(t, operation, await generateBody(operation, hashSeed(t.seed, `${operation}#${n}`)), known);
          // A 200 is checked against the spec by the client; a 404 (an ID that names nothing) or a 400 (a cross-field rule) is fine.
          const result = await t.client.call(operation, body as never);
          if (result.ok || t.serverFault(result)) continue;
          if (result.status === 429) throw new TargetFault(`${operation}: the target kept answering 429 beyond the retry budget`, result.exchange);
          const what = `${operation} with the valid body ${JSON.stringify(body).slice(0, 300)}: expected 200 or a 4xx, got ${result.status} ${JSON.stringify(result.body).slice(0, 200)}`;
          t.check(successRule(operation), () => {
            expect(result.status, what).toBeGreaterThanOrEqual(400);
            expect(result.status, what).toBeLessThan(500);
          });
        }
      }
    },
  ),
  scenario(
    {
      id: 'envelope.generated-bounds-refused',
      title: 'values outside a bound or enumeration interface.md states, in generated bodies and in the nearest valid body by hand, are refused by documented operations, and create nothing',
      rules: ['ERR-OUT-OF-BOUNDS-OR-ENUM'],
    },
    async (t) => {
      // By hand first, so the stated bounds are sent whatever the generator draws: a tiered item price whose `to` is neither a number nor "inf".
      const units = await createFeature(t, 'allocated');
      const tiered = (to: unknown) => ({
        plan_id: t.ns.id('plan'),
        name: 'Tiered plan',
        items: [{ feature_id: units.id, included: 0, price: { tiers: [{ to: 10, amount: 3 }, { to, amount: 2 }], interval: 'month', billing_method: 'prepaid' } }],
      });
      // The nearest valid request is accepted.
      t.setup(await t.client.call('plans.create', tiered('inf') as never));
      for (const to of ['infinity', 'INF', '10']) {
        const body = tiered(to);
        const result = await t.client.call('plans.create', body as never);
        const what = `plans.create items.0.price.tiers.1.to = ${JSON.stringify(to)} (neither a number nor the string inf)`;
        t.check('ERR-OUT-OF-BOUNDS-OR-ENUM', () => expect(result.ok, `${what} must be refused`).toBe(false));
        t.expectError(result, { rule: 'ERR-OUT-OF-BOUNDS-OR-ENUM' });
        const created = (await t.client.call('plans.get', { plan_id: body.plan_id })).ok;
        t.check('ERR-OUT-OF-BOUNDS-OR-ENUM', () => expect(created, `${what} was refused, so nothing was created`).toBe(false));
      }
      await boundsRefused(t, 'ERR-OUT-OF-BOUNDS-OR-ENUM', (operation, mutant) => umbrellaBound(operation, mutant) && statedBy(operation, mutant));
    },
  ),
  scenario(
    {
      id: 'envelope.generated-bounds-refused-reference',
      title: "generated bodies with a value outside a bound, length, pattern or enumeration of the reference's schemas, which interface.md does not state, are refused by every operation, and create nothing",
      rules: ['ERR-OUT-OF-BOUNDS-REFERENCE'],
    },
    async (t) => {
      const sent = await boundsRefused(t, 'ERR-OUT-OF-BOUNDS-REFERENCE', (operation, mutant) => umbrellaBound(operation, mutant) && !statedBy(operation, mutant));
      t.precondition('the schemas state bounds and enumerations (other than those with rules of their own) to break', () => expect(sent).toBeGreaterThanOrEqual(OPERATION_NAMES.length / 2));
    },
  ),
  scenario(
    {
      id: 'envelope.generated-error-bodies',
      title: 'every error answer to an invalid generated body is {message, code, env} with a snake_case code',
      rules: ['ERR-BODY-SHAPE'],
    },
    async (t) => {
      let refused = 0;
      // A mutant the target accepts is another rule's deviation; only the bodies of its refusals are this rule's.
      await sendMutants(t, {}, () => true, (operation, mutant, result) => {
        if (result.ok) return;
        refused++;
        const failure = t.expectError(result, { rule: 'ERR-BODY-SHAPE' });
        const issues = failure.errorBodyIssues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`);
        t.check('ERR-BODY-SHAPE', () => expect(issues, `${describeMutant(operation, mutant)}: the error body ${JSON.stringify(failure.body)} is {message, code, env}`).toEqual([]));
      }, true);
      t.precondition('the target refused invalid bodies', () => expect(refused).toBeGreaterThan(OPERATION_NAMES.length));
    },
  ),
  scenario(
    {
      id: 'envelope.generated-validation-code',
      title: 'an invalid generated body is refused with 400 invalid_inputs and a message naming the offending field',
      rules: ['ERR-VALIDATION-CODE'],
    },
    async (t) => {
      let refused = 0;
      // As above: whether a mutant is refused at all is another rule's; how it is refused is this one's. A
      // refusal for a record not found (the IDs name nothing) or already there says the body passed
      // validation: that too is another rule's deviation, not a validation answer. The base of the mutants
      // must be taken as valid first (sendMutants): a base refused for its own reason has no mutant judged.
      await sendMutants(t, {}, () => true, (operation, mutant, result) => {
        if (result.ok || pastValidation(result)) return;
        const field = String(mutant.path.findLast((segment) => typeof segment === 'string'));
        // Neither the validation code nor the field named: refused for another reason, the body taken as
        // valid (a field the target does not require, licenses.release's license_plan_id on the reference):
        // whether it should have been refused is the constraint's own rule's.
        const { code, message } = (result.body ?? {}) as { code?: unknown; message?: unknown };
        if (code !== 'invalid_inputs' && !String(message ?? '').includes(field)) return;
        refused++;
        const failure = t.expectError(result, { status: 400, code: 'invalid_inputs', rule: 'ERR-VALIDATION-CODE' });
        t.check('ERR-VALIDATION-CODE', () => expect(String((failure.body as { message?: unknown }).message), `${describeMutant(operation, mutant)}: the message names ${field}`).toContain(field));
      }, true);
      t.precondition('the target refused invalid bodies', () => expect(refused).toBeGreaterThan(OPERATION_NAMES.length));
    },
  ),
];
