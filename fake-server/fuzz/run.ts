/**
 * Fuzzing operations through the real HTTP adapter: FUZZ_RUNS bodies per operation (default 2,000;
 * valid, mutants and hostile ones, see bodies.ts), seeded by TEST_SEED. Every body is made before
 * the first is sent. Each operation gets its own fake (the same seeded state) and sends its bodies
 * one after another on a keep-alive connection; the operations run side by side. Proven for every
 * body, by `fuzzTest`:
 *
 * - no answer is 5xx, and every one is JSON;
 * - no request stalls: each is answered within REQUEST_TIMEOUT_MS;
 * - a rejected request changes nothing: the accepted requests alone, replayed in the same order on
 *   a fresh fake, leave exactly the state (the tenant's snapshot, `/_fake/state.export`) that the whole sequence
 *   left. For an operation that only reads, nothing is replayed: even accepted requests change nothing.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { generateBody } from '../../fixtures/bodies.ts';
import { hashSeed } from '../../fixtures/factories.ts';
import { testSeed } from '../../fixtures/random.ts';
import type { OperationName } from '../../spec/operations.ts';
import { createFakeServer, type FakeServer, type SeedCall } from '../index.ts';
import { type FuzzBody, fuzzBodies, type KnownIds, randomSource } from './bodies.ts';

export const SEED = testSeed();
export const RUNS = Number(process.env['FUZZ_RUNS'] ?? 2_000);
/** Valid bases generated per operation; every body derives from one. */
const BASES = 24;
/**
 * How long an answer may take before the request counts as stalled. The fake answers in about a
 * millisecond, but this is wall time on a shared machine, where the test process can wait seconds
 * for a core; a stalled connection never answers at all.
 */
const REQUEST_TIMEOUT_MS = 30_000;
export const T0 = Date.parse('2026-03-01T00:00:00Z');

const KNOWN: KnownIds = {
  customer: ['cus_a', 'cus_b', 'cus_new'],
  entity: ['ent_a', 'ent_b', 'ent_new'],
  plan: ['free', 'pro', 'seat', 'team', 'addon', 'legacy', 'no_such_plan'],
  feature: ['messages', 'seats', 'sso', 'credits', 'unused', '__proto__'],
  reward: ['reward_a', 'reward_b', 'reward_new'],
  referralProgram: ['program_a', 'program_new'],
  lock: ['lock_a', 'lock_new'],
};

/** The state every operation's fake starts from: each kind of feature, free, paid, license and add-on plans held by customers and an entity, a reward, a program and a lock, and a feature, a plan and a reward nothing uses. */
export const SEED_CALLS: SeedCall[] = [
  { operation: 'features.create', body: { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true } },
  { operation: 'features.create', body: { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false } },
  { operation: 'features.create', body: { feature_id: 'sso', name: 'SSO', type: 'boolean' } },
  { operation: 'features.create', body: { feature_id: 'credits', name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: 'messages', credit_cost: 2 }] } },
  { operation: 'features.create', body: { feature_id: '__proto__', name: 'Proto', type: 'metered', consumable: true } },
  {
    operation: 'plans.create',
    body: { plan_id: 'free', name: 'Free', group: 'main', items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }, { feature_id: '__proto__', included: 5, reset: { interval: 'minute' } }] },
  },
  {
    operation: 'plans.create',
    body: {
      plan_id: 'pro',
      name: 'Pro',
      group: 'main',
      price: { amount: 20, interval: 'month' },
      items: [
        { feature_id: 'messages', included: 1_000, reset: { interval: 'month' }, price: { amount: 0.01, interval: 'month', billing_method: 'usage_based' } },
        { feature_id: 'sso' },
        { feature_id: 'seats', included: 5 },
      ],
    },
  },
  { operation: 'plans.create', body: { plan_id: 'seat', name: 'Seat', items: [{ feature_id: 'sso' }] } },
  { operation: 'plans.create', body: { plan_id: 'team', name: 'Team', group: 'team', licenses: [{ license_plan_id: 'seat', included: 3 }] } },
  { operation: 'plans.create', body: { plan_id: 'addon', name: 'Add-on', add_on: true, items: [{ feature_id: 'credits', included: 50, reset: { interval: 'day' } }] } },
  { operation: 'customers.get_or_create', body: { customer_id: 'cus_a', name: 'A', metadata: { tier: 'gold' } } },
  { operation: 'customers.get_or_create', body: { customer_id: 'cus_b' } },
  { operation: 'billing.attach', body: { customer_id: 'cus_a', plan_id: 'free' } },
  { operation: 'billing.attach', body: { customer_id: 'cus_a', plan_id: 'team' } },
  { operation: 'billing.attach', body: { customer_id: 'cus_a', plan_id: 'addon' } },
  { operation: 'billing.attach', body: { customer_id: 'cus_b', plan_id: 'pro' } },
  { operation: 'entities.create', body: { customer_id: 'cus_b', entity_id: 'ent_b', feature_id: 'seats', name: 'B' } },
  { operation: 'licenses.attach', body: { customer_id: 'cus_a', plan_id: 'seat', entities: [{ entity_id: 'ent_a', name: 'A', feature_id: 'seats' }] } },
  { operation: 'balances.track', body: { customer_id: 'cus_a', feature_id: 'messages', value: 7 } },
  { operation: 'balances.check', body: { customer_id: 'cus_b', feature_id: 'messages', required_balance: 3, lock: { lock_id: 'lock_a', enabled: true } } },
  {
    operation: 'rewards.create',
    body: { feature_grant: { id: 'reward_a', name: 'Reward', grants: [{ feature_id: 'messages', included: 10, expiry: null }], promo_codes: [{ code: 'WELCOME', max_uses: null }] } },
  },
  { operation: 'referral_programs.create', body: { id: 'program_a', reward_id: 'reward_a', redeem_on: 'checkout', received_by: 'all', plan_ids: ['pro'] } },
  // What nothing uses, so each delete has something it may delete.
  { operation: 'features.create', body: { feature_id: 'unused', name: 'Unused', type: 'boolean' } },
  { operation: 'plans.create', body: { plan_id: 'legacy', name: 'Legacy', items: [{ feature_id: 'sso' }] } },
  {
    operation: 'rewards.create',
    body: { feature_grant: { id: 'reward_b', name: 'Unlinked', grants: [{ feature_id: 'sso', included: null, expiry: null }], promo_codes: [{ code: 'SPARE', max_uses: 1 }] } },
  },
];

interface Fake {
  readonly server: FakeServer;
  readonly pool: Pool;
  readonly internalErrors: unknown[];
  post(path: string, text: string): Promise<{ status: number; body: unknown; ms: number }>;
}

async function startFake(): Promise<Fake> {
  const internalErrors: unknown[] = [];
  // Answers are not checked against the spec here (the domain tests and bad-input.test.ts do): it would cost a third of the time.
  const server = await createFakeServer({ now: T0, frozen: true, seed: SEED_CALLS, onInternalError: (error) => internalErrors.push(error) });
  const pool = new Pool(server.url, { connections: 1, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
  return {
    server,
    pool,
    internalErrors,
    async post(path, text) {
      const started = performance.now();
      const response = await pool.request({ method: 'POST', path, headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' }, body: text });
      const raw = await response.body.text();
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = { notJson: raw.slice(0, 200) };
      }
      return { status: response.statusCode, body, ms: performance.now() - started };
    },
  };
}

async function stopFake(fake: Fake): Promise<void> {
  await fake.pool.close();
  await fake.server.close();
}

/** The tenant's state as its snapshot (`/_fake/state.export`) gives it: everything a later request could observe, and the ID generator. */
async function stateOf(fake: Fake): Promise<string> {
  const { status, body } = await fake.post('/_fake/state.export', '{}');
  if (status !== 200) throw new Error(`state.export answered ${status}: ${JSON.stringify(body)}`);
  return JSON.stringify(body);
}

interface OperationOutcome {
  readonly operation: OperationName;
  readonly sent: number;
  readonly accepted: number;
  readonly serverErrors: string[];
  readonly notJson: string[];
  readonly stalls: string[];
  readonly slowestMs: number;
  readonly stateMismatch: string | null;
  readonly internalErrors: unknown[];
}

/** Operations that only read: accepted or not, they must leave the seeded state as it was. */
export const READ_ONLY: ReadonlySet<OperationName> = new Set([
  'licenses.list',
  'licenses.list_assignments',
  'subscriptions.list',
  'purchases.list',
  'entities.list',
  'entities.get',
  'billing.preview_multi_update',
  'plans.get',
  'plans.list',
  'features.get',
  'features.list',
  'referral_programs.get',
  'customers.get',
]);

async function bodiesFor(operation: OperationName, seed: number): Promise<Iterable<FuzzBody>> {
  const generated = await Promise.all(Array.from({ length: BASES }, (_, i) => generateBody(operation, seed + i)));
  return fuzzBodies(operation, generated, KNOWN, RUNS, randomSource(seed));
}

async function fuzzOperation(operation: OperationName, bodies: Iterable<FuzzBody>): Promise<OperationOutcome> {
  const path = `/v1/${operation}`;
  const fake = await startFake();
  const acceptedTexts: string[] = [];
  const serverErrors: string[] = [];
  const notJson: string[] = [];
  const stalls: string[] = [];
  let sent = 0;
  let slowestMs = 0;
  try {
    for (const body of bodies) {
      sent++;
      const answer = await fake.post(path, body.text).catch((error: unknown) => {
        stalls.push(`${String(error)} for a ${body.kind} body ${body.text.slice(0, 300)}`);
        return undefined;
      });
      if (answer === undefined) continue;
      slowestMs = Math.max(slowestMs, answer.ms);
      if (answer.status >= 500) serverErrors.push(`${answer.status} to a ${body.kind} body ${body.text.slice(0, 300)}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      if (typeof answer.body === 'object' && answer.body !== null && 'notJson' in answer.body) notJson.push(`${answer.status} to ${body.text.slice(0, 200)}`);
      if (answer.status === 200) acceptedTexts.push(body.text);
    }
    const afterAll = await stateOf(fake);

    const replay = await startFake();
    try {
      for (const text of READ_ONLY.has(operation) ? [] : acceptedTexts) await replay.post(path, text);
      const afterAccepted = await stateOf(replay);
      return {
        operation,
        sent,
        accepted: acceptedTexts.length,
        serverErrors,
        notJson,
        stalls,
        slowestMs,
        stateMismatch: afterAll === afterAccepted ? null : firstDifference(afterAll, afterAccepted),
        internalErrors: [...fake.internalErrors, ...replay.internalErrors],
      };
    } finally {
      await stopFake(replay);
    }
  } finally {
    await stopFake(fake);
  }
}

/** Where two dumps first differ, with some context: what a rejected request left behind. */
function firstDifference(all: string, acceptedOnly: string): string {
  let at = 0;
  while (at < all.length && all[at] === acceptedOnly[at]) at++;
  return `all bodies: …${all.slice(Math.max(0, at - 150), at + 150)}…\naccepted only: …${acceptedOnly.slice(Math.max(0, at - 150), at + 150)}…`;
}

/** Registers the fuzz test of these operations, each seeded from TEST_SEED and its name (so a file's share is the same whatever else runs). */
export function fuzzTest(operations: readonly OperationName[]): void {
  describe(`fuzzing over HTTP (TEST_SEED=${SEED}, FUZZ_RUNS=${RUNS})`, () => {
    it(`answers ${RUNS} generated bodies to each of ${operations.length} operations without a 5xx or a stall, and a rejected body changes nothing`, { timeout: 900_000 }, async () => {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      // How long the event loop went unserved: what a slow answer waited for besides the fake.
      const loopDelay = monitorEventLoopDelay({ resolution: 20 });
      loopDelay.enable();
      const bodies = await Promise.all(operations.map((operation) => bodiesFor(operation, hashSeed(SEED, operation))));
      const outcomes = await Promise.all(operations.map((operation, i) => fuzzOperation(operation, bodies[i]!)));
      loopDelay.disable();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const cpu = process.cpuUsage(cpuBefore);
      const cpuSeconds = ((cpu.user + cpu.system) / 1e6).toFixed(1);
      const serverErrors = outcomes.reduce((sum, outcome) => sum + outcome.serverErrors.length, 0);
      const slowest = Math.max(...outcomes.map((outcome) => outcome.slowestMs));
      console.log(
        `fuzz: TEST_SEED=${SEED} FUZZ_RUNS=${RUNS}: ${RUNS} bodies × ${outcomes.length} operations in ${seconds} s (${cpuSeconds} s of CPU); 5xx: ${serverErrors}; slowest answer ${slowest.toFixed(1)} ms, longest event-loop delay ${(loopDelay.max / 1e6).toFixed(1)} ms; accepted: ${outcomes.map((outcome) => `${outcome.operation} ${outcome.accepted}`).join(', ')}`,
      );
      for (const outcome of outcomes) {
        const context = `${outcome.operation} (TEST_SEED=${SEED})`;
        expect(outcome.sent, context).toBe(RUNS);
        expect(outcome.serverErrors.slice(0, 5), `${context}: 5xx answers (${outcome.serverErrors.length}); internal errors: ${outcome.internalErrors.slice(0, 3).map(String).join(' | ')}`).toEqual([]);
        expect(outcome.notJson.slice(0, 5), `${context}: answers that are not JSON`).toEqual([]);
        expect(outcome.stalls.slice(0, 5), `${context}: requests not answered within ${REQUEST_TIMEOUT_MS} ms`).toEqual([]);
        expect(outcome.stateMismatch, `${context}: the accepted bodies alone leave another state than all bodies, so a rejected one changed something`).toBeNull();
      }
    });
  });
}
