/**
 * Request bodies for fuzzing the fake, as raw text (so that `1e999`, malformed JSON and duplicate
 * keys can be sent). Each is derived from a body generated valid from the OpenAPI export
 * (fixtures/bodies.ts), its IDs mostly swapped for IDs the seeded state holds, and then kept valid,
 * broken in one stated constraint (a mutant), or made hostile: nesting past the bound, numbers that
 * overflow, prototype keys, overlong strings, lone surrogates, the wrong root, broken text.
 * Deterministic for a seed.
 */
import { mutantsOf, requestSchema } from '../../fixtures/bodies.ts';
import type { OperationName } from '../../spec/operations.ts';
import { MAX_JSON_DEPTH } from '../http/json.ts';

/** A small seeded generator (mulberry32): the same seed gives the same bodies. */
export function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    below: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
export type Random = ReturnType<typeof randomSource>;

/** IDs the seeded state holds, by what they name. */
export type KnownIds = Readonly<Record<'customer' | 'entity' | 'plan' | 'feature' | 'reward' | 'referralProgram' | 'lock', readonly string[]>>;

const ID_KINDS: Readonly<Record<string, keyof KnownIds>> = {
  customer_id: 'customer',
  entity_id: 'entity',
  entity_ids: 'entity',
  plan_id: 'plan',
  license_plan_id: 'plan',
  plan_ids: 'plan',
  new_plan_id: 'plan',
  feature_id: 'feature',
  metered_feature_id: 'feature',
  reward_id: 'reward',
  referral_program_id: 'referralProgram',
  lock_id: 'lock',
  subscription_id: 'plan',
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `body` with most ID fields naming something the seeded state holds, so bodies reach past the lookups. */
export function withKnownIds(body: unknown, known: KnownIds, random: Random): unknown {
  const swap = (key: string, value: unknown): unknown => {
    const kind = ID_KINDS[key];
    if (kind === undefined || !random.chance(0.85)) return walk(value);
    if (typeof value === 'string') return random.pick(known[kind]);
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.map(() => random.pick(known[kind]));
    return walk(value);
  };
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isObject(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, swap(key, inner)]));
  };
  return walk(body);
}

/** Every place in a body a value sits, as a path. */
function pathsOf(value: unknown, path: readonly (string | number)[] = []): (readonly (string | number)[])[] {
  if (Array.isArray(value)) return [path, ...value.flatMap((item, i) => pathsOf(item, [...path, i]))];
  if (isObject(value)) return [path, ...Object.entries(value).flatMap(([key, inner]) => pathsOf(inner, [...path, key]))];
  return [path];
}

/** A marker string that survives JSON.stringify, replaced afterwards by raw JSON text. */
const RAW = '\u0001raw\u0001';

function setAt(body: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let parent = copy;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<string | number, unknown>;
  parent[path.at(-1)!] = value;
  return copy;
}

/** `body` as JSON text with `raw` (JSON text) in place at `path`. */
function withRawAt(body: unknown, path: readonly (string | number)[], raw: string): string {
  return JSON.stringify(setAt(body, path, RAW)).replace(JSON.stringify(RAW), raw);
}

const nested = (depth: number) => '{"n":'.repeat(depth) + '1' + '}'.repeat(depth);
const HUGE_NUMBERS = ['1e308', '1.7976931348623157e308', '-1.7976931348623157e308', '1e999', '-1e999', '9007199254740993', '5e-324', '-0', '1e-400'];
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];
const ODD_STRINGS = ['', ' ', '\ud800', '\udfff\ud800', 'a\u0000b', '💳'.repeat(50), 'x'.repeat(257), 'y'.repeat(20_000), '../../_fake/reset', '%00', '{"json":1}'];
const ODD_VALUES = [null, [], {}, '', -1, 0, 0.5, -0.0001, true, false, 'x', [null], [[]], { '': '' }];
const BROKEN_TEXTS = ['{', '{"a":1,}', '\uFEFF{}', '{"a": NaN}', '{"a": Infinity}', "{'a':1}", '{"a":1}{"b":2}', '{"a":"\\x00"}', '{"a":1 /* c */}', '\u0000', 'nul'];
const WRONG_ROOTS = ['[]', 'null', '"text"', '42', 'true', '[{"customer_id":"cus_a"}]', '""', '-1e999'];

/** One hostile variant of a valid body (a hostile JSON text). */
function hostile(body: unknown, random: Random): string {
  const paths = pathsOf(body);
  const objects = paths.filter((path) => isObject(path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], body)));
  const anyPath = () => random.pick(paths.filter((path) => path.length > 0).concat(paths.length === 1 ? [['extra']] : []));
  switch (random.below(10)) {
    case 0: {
      // Nesting just under, at and past the bound, and far past it; under a new key or in place of a value.
      const depth = random.pick([MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 500, 5_000]);
      const path = random.chance(0.5) ? [...random.pick(objects), random.pick(['metadata', 'properties', 'deep'])] : anyPath();
      return withRawAt(body, path, nested(depth));
    }
    case 1:
      return withRawAt(body, anyPath(), random.pick(HUGE_NUMBERS));
    case 2: {
      // A prototype key inside an object (metadata included), or as an ID.
      const path = random.pick(objects);
      const key = random.pick(PROTOTYPE_KEYS);
      if (random.chance(0.5)) return withRawAt(body, [...path, key], '{"polluted":true}');
      return withRawAt(body, anyPath(), JSON.stringify(key));
    }
    case 3:
      return withRawAt(body, anyPath(), JSON.stringify(random.pick(ODD_STRINGS)));
    case 4:
      return withRawAt(body, anyPath(), JSON.stringify(random.pick(ODD_VALUES)));
    case 5:
      return random.pick(WRONG_ROOTS);
    case 6:
      return random.pick(BROKEN_TEXTS);
    case 7: {
      // A key given twice with different values: JSON.parse keeps the last.
      const text = JSON.stringify(body);
      const first = Object.keys(isObject(body) ? body : {})[0];
      return first === undefined || !text.startsWith('{') ? text : `{${JSON.stringify(first)}:${JSON.stringify(random.pick(ODD_VALUES))},${text.slice(1)}`;
    }
    case 8:
      // Many unknown keys, and an array of many items where one is expected.
      return withRawAt(body, anyPath(), JSON.stringify(Array.from({ length: 2_000 }, (_, i) => ({ [`k${i}`]: i }))));
    default:
      return withRawAt(body, anyPath(), random.pick(HUGE_NUMBERS.concat(JSON.stringify(random.pick(ODD_STRINGS)))));
  }
}

/**
 * Bodies the seeded state (fuzz.test.ts) accepts, per operation: the bases that reach furthest into
 * the domain, so their mutants and hostile variants do too. Generated bodies alone mostly stop at a
 * cross-field rule or a lookup.
 */
export const ACCEPTED_BODIES: Readonly<Record<OperationName, readonly unknown[]>> = {
  'licenses.list': [{ customer_id: 'cus_a' }, { customer_id: 'cus_a', entity_id: 'ent_a' }],
  'licenses.attach': [{ customer_id: 'cus_a', plan_id: 'seat', entities: [{ entity_id: 'ent_new', name: 'New', feature_id: 'seats' }] }],
  'licenses.release': [{ customer_id: 'cus_a', license_plan_id: 'seat', entity_ids: ['ent_a'] }],
  'licenses.list_assignments': [{ customer_id: 'cus_a' }, { customer_id: 'cus_a', entity_id: 'ent_a', plan_id: 'seat', active: false }],
  'subscriptions.list': [{}, { customer_id: 'cus_a', statuses: ['active', 'expired'], limit: 2 }],
  'purchases.list': [{}, { customer_id: 'cus_b', limit: 1 }],
  'entities.list': [{}, { customer_id: 'cus_b', limit: 1 }],
  'entities.create': [{ customer_id: 'cus_b', entity_id: 'ent_new', feature_id: 'seats', name: 'New', billing_controls: {} }],
  'entities.get': [{ entity_id: 'ent_b' }, { customer_id: 'cus_a', entity_id: 'ent_a' }],
  'entities.delete': [{ entity_id: 'ent_b' }, { customer_id: 'cus_a', entity_id: 'ent_a' }],
  'billing.preview_multi_update': [{ customer_id: 'cus_b', updates: [{ plan_id: 'pro', cancel_action: 'cancel_end_of_cycle' }] }],
  'billing.attach': [{ customer_id: 'cus_b', plan_id: 'addon' }, { customer_id: 'cus_a', plan_id: 'pro', feature_quantities: [{ feature_id: 'messages', quantity: 3 }] }],
  'plans.create': [
    { plan_id: 'plan_new', name: 'New', group: 'g', metadata: { a: { b: [1, 2] } }, items: [{ feature_id: 'messages', included: 10, reset: { interval: 'hour' }, price: { amount: 1, interval: 'month', billing_method: 'usage_based', max_purchase: 100 } }] },
  ],
  'plans.get': [{ plan_id: 'pro' }, { plan_id: 'free', version: 1 }],
  'plans.list': [{}, { customer_id: 'cus_a', include_archived: true, all_versions: true }],
  'plans.update': [{ plan_id: 'free', name: 'Renamed', metadata: { k: 'v' } }, { plan_id: 'addon', items: [{ feature_id: 'credits', included: 60, reset: { interval: 'day' } }] }],
  'balances.check': [
    { customer_id: 'cus_a', feature_id: 'messages', required_balance: 2, send_event: true, properties: { source: 'fuzz' } },
    { customer_id: 'cus_b', feature_id: 'messages', required_balance: 1, with_preview: true, lock: { lock_id: 'lock_new', enabled: true, expires_at: 1_900_000_000_000 } },
  ],
  'balances.track': [{ customer_id: 'cus_a', feature_id: 'messages', value: 3, properties: { k: 1 } }, { customer_id: 'cus_b', feature_id: 'messages', value: 1, overage_behavior: 'overflow' }],
  'balances.finalize': [{ lock_id: 'lock_a', action: 'confirm', override_value: 2, properties: { done: true } }, { lock_id: 'lock_a', action: 'release' }],
  'features.create': [{ feature_id: 'feature_new', name: 'New', type: 'metered', consumable: true, event_names: ['evt'] }, { feature_id: 'flag_new', name: 'Flag', type: 'boolean' }],
  'features.get': [{ feature_id: 'messages' }],
  'features.list': [{}],
  'referral_programs.create': [{ id: 'program_new', reward_id: 'reward_a', redeem_on: 'customer_creation', received_by: 'referrer', max_redemptions: 5 }],
  'referral_programs.get': [{ referral_program_id: 'program_a' }],
  'referral_programs.update': [{ referral_program_id: 'program_a', max_redemptions: 10 }, { referral_program_id: 'program_a', redeem_on: 'checkout', plan_ids: ['pro', 'addon'] }],
  'rewards.create': [{ feature_grant: { id: 'reward_new', name: 'New', grants: [{ feature_id: 'messages', included: 5, expiry: { type: 'day', length: 3 } }], promo_codes: [{ code: 'NEW', max_uses: 3 }] } }],
  'customers.get_or_create': [{ customer_id: 'cus_new', name: 'New', email: 'new@example.com', metadata: { plan: { tier: 1 } }, send_email_receipts: true }],
  'customers.get': [{ customer_id: 'cus_a' }, { customer_id: 'cus_b' }],
  'customers.delete': [{ customer_id: 'cus_a' }, { customer_id: 'cus_b', delete_in_stripe: false }],
  'plans.delete': [{ plan_id: 'legacy' }, { plan_id: 'legacy', all_versions: true }],
  'features.delete': [{ feature_id: 'unused' }],
  'referral_programs.delete': [{ referral_program_id: 'program_a' }],
  'rewards.delete': [{ reward_id: 'reward_b' }],
};

/** Where a creating call names what it creates: given a fresh ID half of the time, so creates keep succeeding. */
const CREATED_ID_PATHS: Partial<Record<OperationName, readonly string[]>> = {
  'plans.create': ['plan_id'],
  'features.create': ['feature_id'],
  'customers.get_or_create': ['customer_id'],
  'entities.create': ['entity_id'],
  'referral_programs.create': ['id'],
  'rewards.create': ['feature_grant', 'id'],
};

function withFreshId(operation: OperationName, body: unknown, random: Random): unknown {
  const path = CREATED_ID_PATHS[operation];
  if (path === undefined || !random.chance(0.5)) return body;
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), body);
  return isObject(parent) ? setAt(body, path, `fresh_${random.below(1_000_000)}`) : body;
}

export type BodyKind = 'valid' | 'mutant' | 'hostile';

export interface FuzzBody {
  readonly kind: BodyKind;
  readonly text: string;
}

/**
 * `count` fuzz bodies for an operation, from a pool of generated valid bases and accepted ones. The
 * pool and its mutants are built at once; each body is made as it is taken, so a run never holds
 * them all (some are tens of kilobytes).
 */
export function fuzzBodies(operation: OperationName, generated: readonly unknown[], known: KnownIds, count: number, random: Random): Iterable<FuzzBody> {
  const schema = requestSchema(operation);
  const accepted = ACCEPTED_BODIES[operation];
  // As many accepted bodies in the pool as generated ones, so about half the bases reach deep.
  const bases = [...generated, ...Array.from({ length: generated.length }, (_, i) => accepted[i % accepted.length])];
  const mutants = bases.map((base) => mutantsOf(schema, base));
  const next = (): FuzzBody => {
    const at = random.below(bases.length);
    const base = withFreshId(operation, at < generated.length ? withKnownIds(bases[at], known, random) : bases[at], random);
    const roll = random.next();
    if (roll < 0.3) return { kind: 'valid', text: JSON.stringify(base) };
    if (roll < 0.6 && mutants[at]!.length > 0) return { kind: 'mutant', text: JSON.stringify(withKnownIds(random.pick(mutants[at]!).body, known, random)) };
    return { kind: 'hostile', text: hostile(base, random) };
  };
  return {
    *[Symbol.iterator]() {
      for (let i = 0; i < count; i++) yield next();
    },
  };
}
