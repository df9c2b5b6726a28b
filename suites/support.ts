/**
 * What every scenario module shares: the scenario constructor bound to the operation table, the
 * target factory with its cleanup actions, and builders that create state through the public
 * setup endpoints under the run's namespace (recording what can be undone in the ledger).
 */
import fc from 'fast-check';
import { Client as UndiciClient, type Dispatcher } from 'undici';
import { expect } from 'vitest';
import type { z } from 'zod';
import { hashSeed, person, seededFaker } from '../fixtures/factories.ts';
import { ErrorBody } from '../spec/common.ts';
import type { Customer } from '../spec/customers.ts';
import type { EntityDetail } from '../spec/entities.ts';
import type { Feature } from '../spec/features.ts';
import { operations } from '../spec/operations.ts';
import type { Plan, PlansCreateRequest } from '../spec/plans.ts';
import type { RuleId } from '../spec/rules/catalogue.ts';
import type { FakeServer } from '../fake-server/index.ts';
import { testSeed } from '../fixtures/random.ts';
import { LEDGER, PROBES, PUBLISHED_CLIENT_CALLER } from './target-setup.ts';
import { createTarget, loadConfig, SetupNotServed, defineScenario, type Scenario, type ScenarioContext, type ScenarioDef, type Target } from './framework/index.ts';

export type Ops = typeof operations;
/** A scenario's context; `R`: the rules its checks may name (a scenario's body gets its declared rules). */
export type T<R extends RuleId = RuleId> = ScenarioContext<Ops, typeof ErrorBody, R>;
export type ConformanceTarget = Target<Ops, typeof ErrorBody>;

/**
 * `scenario({ id, title, rules, needs?, uses?, mutates? }, async (t) => …)`, typed by the operation
 * table; `rules` must be IDs of the rule catalogue, and `t.check(rule, …)` / `expectOk(result, rule)`
 * / `expectError(result, { rule })` must name one of them, both checked by the compiler.
 */
export function scenario<const R extends RuleId>(def: ScenarioDef<R>, run: (t: T<R>) => Promise<void>): Scenario<Ops, typeof ErrorBody, R> {
  return defineScenario<Ops, typeof ErrorBody, R>(def, run);
}

export { LEDGER, PROBES } from './target-setup.ts';

/**
 * A target for an in-process fake a meta-test started itself (can-fail, mutation testing): default
 * configuration, the test seed, no retries; cleanup and probes as for any target. With `dispatcher`,
 * requests go to it instead of `fake.url`'s socket.
 */
export function inProcessTarget(fake: Pick<FakeServer, 'url' | 'apiKey' | 'otherTenantApiKey'>, dispatcher?: Dispatcher): Promise<ConformanceTarget> {
  return createTarget({
    ...(dispatcher && { dispatcher }),
    operations,
    errorBody: ErrorBody,
    config: loadConfig({ env: {} }),
    run: { baseUrl: fake.url, apiKey: fake.apiKey, ...(fake.otherTenantApiKey && { otherTenantApiKey: fake.otherTenantApiKey }), seed: testSeed(), salt: '', kind: 'fake' },
    retry: false,
    ...LEDGER,
    probes: PROBES,
    mixedCaller: PUBLISHED_CLIENT_CALLER,
  });
}

/** The target of a scenario file (cleanup through LEDGER, capabilities probed through PROBES). */
export function conformanceTarget(): Promise<ConformanceTarget> {
  return createTarget({ operations, errorBody: ErrorBody, ...LEDGER, probes: PROBES, mixedCaller: PUBLISHED_CLIENT_CALLER });
}

// ── Builders ─────────────────────────────────────────────────────────────────
// Setup steps: each goes through `t.setup`, so a refusal BLOCKS the scenario (never FAILs a rule)
// and a route the target does not serve SKIPS it. What any call creates is recorded in the ledger
// (LEDGER.creates) as soon as the answer is a 200, whatever its shape. A scenario whose subject is one of these calls makes
// it itself, with its checks attributed.

/**
 * How many independent setup calls a scenario sends at once (`inBatches` of the framework), when it
 * builds many holders: rounds of calls rather than one call after another, so a scenario about many
 * of a thing costs a few round trips at a remote target's latency.
 */
export const SETUP_WIDTH = 8;

export type FeatureKind = 'boolean' | 'consumable' | 'allocated';

/** Creates a feature: a boolean flag, a consumable (resetting) metered feature, or an allocated (persistent) one. */
export async function createFeature(t: T, kind: FeatureKind, extra: Partial<z.input<Ops['features.create']['request']>> = {}): Promise<Feature> {
  const featureId = t.ns.id(`feat${kind}`);
  const body: z.input<Ops['features.create']['request']> =
    kind === 'boolean'
      ? { feature_id: featureId, name: `Flag ${featureId}`, type: 'boolean' }
      : { feature_id: featureId, name: `Units ${featureId}`, type: 'metered', consumable: kind === 'consumable', display: { singular: 'unit', plural: 'units' } };
  const feature = t.setup(await t.client.call('features.create', { ...body, ...extra }), ['id']);
  if (kind !== 'boolean' && extra.consumable === undefined) {
    // A metered feature of the wrong kind would change what every scenario using it sees (FEAT-CONSUMABLE-METERED is proven in scenarios/features/create.ts).
    t.precondition(`the ${kind} feature ${featureId} is ${kind}`, () => expect(feature.consumable, 'consumable').toBe(kind === 'consumable'));
  }
  return feature;
}

/** Creates a plan with a namespaced id (`plan_id`, when given, must be one: `t.ns.id(kind)`); cleanup deletes it (archives it where it cannot). */
export async function createPlan(t: T, body: Omit<z.input<typeof PlansCreateRequest>, 'plan_id' | 'name'> & { name?: string; plan_id?: string } = {}): Promise<Plan> {
  const planId = body.plan_id ?? t.ns.id('plan');
  return t.setup(await t.client.call('plans.create', { name: `Plan ${planId}`, ...body, plan_id: planId }), ['id']);
}

/** The `reset` of a plan item whose balance resets every month. */
export const MONTHLY = { interval: 'month' } as const;

type CustomerBody = z.input<Ops['customers.get_or_create']['request']>;

/** The body that creates a new customer: a namespaced id, a seeded name and email, and `extra`. */
export function newCustomerBody(t: T, extra: Partial<CustomerBody> = {}): CustomerBody & { customer_id: string } {
  const customerId = t.ns.id('cus');
  const who = person(seededFaker(t.seed, customerId));
  return { customer_id: customerId, name: who.name, email: who.email, ...extra };
}

/** Creates a customer with a seeded name and email; cleanup deletes it where the target serves customers.delete. */
export async function createCustomer(t: T, extra: Partial<CustomerBody> = {}): Promise<Customer> {
  return t.setup(await t.client.call('customers.get_or_create', newCustomerBody(t, extra)), ['id']);
}

/**
 * Attaches a plan; requires that it takes effect at once (free plans, or a target that attaches paid
 * plans without checkout). A checkout URL instead skips the scenario: the target cannot be asked.
 */
export async function attach(t: T, customerId: string, planId: string, extra: Partial<z.input<Ops['billing.attach']['request']>> = {}): Promise<void> {
  const result = t.setup(await t.client.call('billing.attach', { customer_id: customerId, plan_id: planId, ...extra }));
  if (typeof result.payment_url === 'string') {
    throw new SetupNotServed(`billing.attach of ${planId} asked for a payment (a checkout URL); this scenario needs the plan attached at once (capability paid-attach)`);
  }
}

/** Creates an entity of a customer, tied to an allocated feature; it is deleted at cleanup. */
export async function createEntity(t: T, customerId: string, featureId: string, name?: string): Promise<z.output<typeof EntityDetail>> {
  const entityId = t.ns.id('ent');
  return t.setup(await t.client.call('entities.create', { customer_id: customerId, entity_id: entityId, feature_id: featureId, name: name ?? `Entity ${entityId}` }), ['id']);
}

export interface LicenseSetup {
  readonly customerId: string;
  readonly licensePlan: Plan;
  readonly parentPlan: Plan;
  /** The allocated feature new license entities are created with. */
  readonly seatFeature: Feature;
  /** A boolean feature the license plan grants. */
  readonly flag: Feature;
  /** A second license plan the parent offers (createLicensePool's `secondLicense`). */
  readonly otherLicensePlan?: Plan;
}

/**
 * The reference's recipe for a license pool without a payment processor: a free license plan, a free
 * parent plan offering it with `seats` included, a customer, and the parent attached. With
 * `totalSeats`, the attach buys seats beyond the included ones (`license_quantities`, included seats
 * counted).
 */
export async function createLicensePool(t: T, seats: number, options: { totalSeats?: number; secondLicense?: boolean } = {}): Promise<LicenseSetup> {
  const seatFeature = await createFeature(t, 'allocated');
  const flag = await createFeature(t, 'boolean');
  const licensePlan = await createPlan(t, { items: [{ feature_id: flag.id }] });
  // `secondLicense`: the parent offers a second license plan (its own flag), as many seats.
  const otherLicensePlan = options.secondLicense ? await createPlan(t, { items: [{ feature_id: (await createFeature(t, 'boolean')).id }] }) : undefined;
  const offered = [licensePlan, ...(otherLicensePlan ? [otherLicensePlan] : [])];
  const parentPlan = await createPlan(t, { group: t.ns.id('grp'), licenses: offered.map((plan) => ({ license_plan_id: plan.id, included: seats })) });
  requireLicenseLinks(t, parentPlan, offered.map((plan) => plan.id));
  const customer = await createCustomer(t);
  const quantities = options.totalSeats === undefined ? {} : { license_quantities: offered.map((plan) => ({ license_plan_id: plan.id, quantity: options.totalSeats! })) };
  await attach(t, customer.id, parentPlan.id, quantities);
  return { customerId: customer.id, licensePlan, parentPlan, seatFeature, flag, ...(otherLicensePlan ? { otherLicensePlan } : {}) };
}

/**
 * A subject's balance of a feature, read through balances.check with required_balance 0, which uses
 * and requires nothing (setup read; undefined when the target shows none).
 */
export async function readBalance(t: T, customerId: string, featureId: string) {
  const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0 }), ['balance']);
  return balance ?? undefined;
}

/** A customer on a plan of 5 included units a month and a usage price capped at 10 more (max_purchase). */
export async function cappedUsagePrice(t: T) {
  const feature = await createFeature(t, 'consumable');
  const price = { amount: 0.1, interval: 'month', billing_method: 'usage_based', max_purchase: 10 } as const;
  const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY, price }] });
  const customer = await createCustomer(t);
  await attach(t, customer.id, plan.id);
  return { feature, customer };
}

/** The plan IDs of the setup's license plan an entity holds, active, as entities.list (documented) shows them (setup read). */
export async function activeLicensePlansOf(t: T, setup: LicenseSetup, entityId: string): Promise<string[]> {
  const { list } = t.setup(await t.client.call('entities.list', { customer_id: setup.customerId, limit: 200 }), ['list']);
  const entity = list.find((candidate) => candidate.id === entityId);
  return (entity?.subscriptions ?? []).filter((record) => record.plan_id === setup.licensePlan.id && record.status === 'active').map((record) => record.plan_id);
}

/** A license pool of `seats` seats and an entity of the customer assigned one of them (setup; that it holds the seat is a premise). */
export async function createSeatHolder(t: T, seats: number): Promise<LicenseSetup & { readonly member: z.output<typeof EntityDetail> }> {
  const setup = await createLicensePool(t, seats);
  const member = await createEntity(t, setup.customerId, setup.seatFeature.id);
  t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [{ entity_id: member.id, name: member.name ?? member.id }] }));
  const held = await activeLicensePlansOf(t, setup, member.id);
  // LIC-ATTACH-BATCH's: a check where the scenario carries it (one owning licenses.attach must), a premise elsewhere.
  const holdsSeat = () => expect(held, 'the entity holds the license plan through its seat').toEqual([setup.licensePlan.id]);
  if (t.scenario.rules.includes('LIC-ATTACH-BATCH')) t.check('LIC-ATTACH-BATCH', holdsSeat);
  else t.precondition('the entity holds the license plan through its seat', holdsSeat);
  return { ...setup, member };
}

/**
 * Precondition: the answer of plans.create of a parent plan carries the license links sent, so a
 * target that drops them (PLAN-LICENSE-LINKS-OFFER, proven in scenarios/plans/license-links.ts) blocks the license
 * scenarios rather than failing their rules.
 */
export function requireLicenseLinks(t: T, parentPlan: Plan, licensePlanIds: readonly string[]): void {
  t.precondition(`plan ${parentPlan.id} carries its license links`, () =>
    expect((parentPlan.licenses ?? []).map((link) => link.license_plan_id).sort()).toEqual([...licensePlanIds].sort()),
  );
}

/** Entity items for licenses.attach; new ones carry the feature so the target creates them. */
export function licenseEntities(t: T, setup: LicenseSetup, count: number): { entity_id: string; name: string; feature_id: string }[] {
  return Array.from({ length: count }, () => {
    const entityId = t.ns.id('seat');
    t.ledger.record({ kind: 'entity', id: entityId, customer_id: setup.customerId });
    return { entity_id: entityId, name: `Seat ${entityId}`, feature_id: setup.seatFeature.id };
  });
}

/**
 * Runs `run` with the target's clock frozen (control plane), so that "now" stays put between calls
 * (holders attached meanwhile share one instant), and gives the clock back running if it was.
 */
export async function withFrozenClock<V>(t: T, run: () => Promise<V>): Promise<V> {
  const before = await t.control.call('clock.get', {});
  await t.control.call('clock.set', { frozen: true });
  try {
    return await run();
  } finally {
    if (!before.frozen) await t.control.call('clock.set', { frozen: false });
  }
}

// ── Properties ───────────────────────────────────────────────────────────────

/**
 * Runs an async fast-check property against the target, without shrinking (every run costs
 * requests). Its seed comes from the run seed and the scenario, so CONFORMANCE_SEED replays it and
 * each nightly run explores other cases. A counterexample stops the scenario with the property's
 * own error (so its verdict stays: a check's FAIL, a setup's BLOCKED…), fast-check's report (seed,
 * path, values) prepended to its message.
 */
export async function checkProperty<Ts>(t: T, property: fc.IAsyncProperty<Ts>, numRuns: number): Promise<void> {
  const details = await fc.check(property, { seed: hashSeed(t.seed, t.scenario.id), numRuns, endOnFailure: true });
  if (!details.failed) return;
  const report = fc.defaultReportMessage(details) ?? 'property failed';
  if (details.errorInstance instanceof Error) {
    details.errorInstance.message = `${report}\n${details.errorInstance.message}`;
    throw details.errorInstance;
  }
  throw new Error(report, { cause: details.errorInstance });
}

type Answer = Parameters<T['expectOk']>[0];

/** The headers the published client (autumn-js) sends: a caller interface.md does not tell apart from a plain one. */
export const PUBLISHED_CLIENT_HEADERS = PUBLISHED_CLIENT_CALLER.headers;

/** A kind's delete, and the read that shows whether a record of it is there (answering 404 with `code` when not). */
export interface Deletion {
  readonly kind: string;
  readonly remove: (id: string) => Promise<Answer>;
  readonly read: (id: string) => Promise<Answer>;
  readonly code?: string;
}

/**
 * The deletes of the interface that name one record by its ID, each with the read that then answers
 * 404 (and the code the document gives that read: a feature's and a plan's are ERR- rules of their
 * own, so their deletes are judged by the status alone).
 */
export function deletionsOf(t: T) {
  return {
    feature: { kind: 'feature', remove: (id) => t.client.call('features.delete', { feature_id: id }), read: (id) => t.client.call('features.get', { feature_id: id }) },
    plan: { kind: 'plan', remove: (id) => t.client.call('plans.delete', { plan_id: id }), read: (id) => t.client.call('plans.get', { plan_id: id }) },
    customer: { kind: 'customer', remove: (id) => t.client.call('customers.delete', { customer_id: id }), read: (id) => t.client.call('customers.get', { customer_id: id }), code: 'customer_not_found' },
    program: {
      kind: 'referral program',
      remove: (id) => t.client.call('referral_programs.delete', { referral_program_id: id }),
      read: (id) => t.client.call('referral_programs.get', { referral_program_id: id }),
      code: 'reward_program_not_found',
    },
  } satisfies Record<string, Deletion>;
}

/**
 * The delete of `id` is accepted and the record is gone: a read of it then answers as a read of an
 * ID never created does (404, with the kind's code). That a never-created ID reads so is the read's
 * own rule, a precondition here: a target whose reads answer unknown IDs otherwise blocks this check,
 * never fails it.
 */
export async function expectDeleted(t: T, rule: RuleId, deletion: Deletion, id: string): Promise<void> {
  const never = await deletion.read(t.ns.id('never'));
  t.precondition(`a read of a ${deletion.kind} never created answers 404${deletion.code === undefined ? '' : ` ${deletion.code}`}`, () => {
    expect(never.status).toBe(404);
    if (deletion.code !== undefined) expect((never.body as { code?: unknown } | null)?.code).toBe(deletion.code);
  });
  t.expectOk(await deletion.remove(id), rule);
  t.expectError(await deletion.read(id), { status: 404, ...(deletion.code === undefined ? {} : { code: deletion.code }), rule });
}

/** Precondition: a read of what a setup delete removed answers 404 (the delete's own rule proves it elsewhere). */
export function requireGone(t: T, what: string, result: { readonly status: number }): void {
  t.precondition(`${what} is gone after its delete`, () => expect(result.status, `${what} is still read`).toBe(404));
}

/**
 * Precondition: a read of what a setup delete removed no longer answers 200. How an unknown ID is
 * refused is the read's own rule (ERR-…-NOT-FOUND), so a target refusing it otherwise still lets a
 * scenario about what the delete left behind run.
 */
export function requireNotRead(t: T, what: string, result: { readonly status: number }): void {
  t.precondition(`${what} is gone after its delete`, () => expect(result.status, `${what} is still read`).not.toBe(200));
}

/**
 * A reward granting units of a metered feature (the reference refuses `included` on a boolean grant:
 * exchange 155), with one promo code of letters and digits only (the reference refuses others).
 */
export async function createReward(t: T, featureId: string): Promise<string> {
  const id = t.ns.id('reward');
  t.setup(await t.client.call('rewards.create', { feature_grant: { id, name: `Reward ${id}`, grants: [{ feature_id: featureId, included: 5, expiry: null }], promo_codes: [{ code: t.ns.code('PROMO'), max_uses: null }] } }), ['feature_grant']);
  return id;
}

/** A referral program of that reward, redeemed at customer creation by the referrer. */
export async function createReferralProgram(t: T, rewardId: string): Promise<string> {
  return t.setup(await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer' }), ['id']).id;
}

/**
 * One keep-alive connection to the target (the one the scenario's last call went to), and how many
 * times it connected: requests sent with it as their `dispatcher` share a socket. A target reached
 * in this process (a host under .invalid, RFC 2606) has no socket to share: the scenario is skipped.
 */
export function oneConnection(t: T): { readonly dispatcher: UndiciClient; readonly connects: () => number } {
  const url = new URL(t.evidence.at(-1)!.request.url);
  if (url.hostname.endsWith('.invalid')) throw new SetupNotServed(`the target at ${url.origin} is reached in-process, without a connection requests could share`);
  const dispatcher = new UndiciClient(url.origin, { keepAliveTimeout: 30_000 });
  let connects = 0;
  dispatcher.on('connect', () => connects++);
  return { dispatcher, connects: () => connects };
}
