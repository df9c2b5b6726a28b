/** Builders and checks that several plans scenario modules share. */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Plan, PlanItemInput, PlansCreateRequest, PlansUpdateRequest } from '../../../spec/plans.ts';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import type { WireNameKey } from '../../../spec/wire-names.ts';
import { attach, createCustomer, createFeature, createPlan, type T } from '../../support.ts';

/** A plans.create body without its id and name. */
export type PlanBody = Omit<z.input<typeof PlansCreateRequest>, 'plan_id' | 'name'>;

export const DAY_MS = 86_400_000;

/** plans.get as a read (setup); the rule using it checks what it answers. */
export async function readPlan(t: T, planId: string, version?: number): Promise<Plan> {
  return t.setup(await t.client.call('plans.get', { plan_id: planId, ...(version !== undefined && { version }) }));
}

/** plans.get as the subject of `rule`: a refusal FAILs it. */
export async function getPlan(t: T, rule: RuleId, planId: string, version?: number): Promise<Plan> {
  return t.expectOk(await t.client.call('plans.get', { plan_id: planId, ...(version !== undefined && { version }) }), rule);
}

export async function updatePlan(t: T, body: z.input<typeof PlansUpdateRequest>): Promise<Plan> {
  return t.setup(await t.client.call('plans.update', body));
}

/**
 * The plan ids of a customer's active subscriptions, sorted, through the setup read customers.get
 * (the reference's call: only for SHOULD rules, or rules that own it; a MUST rule observes through
 * `holdsPlans`). subscriptions.list is not used: it is the listings rules' subject, and the 2.3.0
 * reference does not serve it.
 */
export async function heldPlanIds(t: T, customerId: string): Promise<string[]> {
  const { subscriptions } = t.setup(await t.client.call('customers.get', { customer_id: customerId }), ['subscriptions']);
  return subscriptions.filter((sub) => sub.status === 'active').map((sub) => sub.plan_id).sort();
}

/** A plan with a boolean feature of its own: whether a customer holds the plan shows in balances.check of that feature (`holdsPlans`). */
export interface FlaggedPlan {
  readonly plan: Plan;
  readonly flagId: string;
}

/** Creates a boolean feature and a plan (setup) whose only item is that feature, so that no other plan includes it. */
export async function createFlaggedPlan(t: T, body: PlanBody = {}): Promise<FlaggedPlan> {
  const flag = await createFeature(t, 'boolean');
  return { plan: await createPlan(t, { ...body, items: [{ feature_id: flag.id }] }), flagId: flag.id };
}

/** Whether balances.check allows a customer a boolean feature (required_balance 1 sent, not left to its default: a read). */
async function flagAllowed(t: T, customerId: string, flagId: string): Promise<boolean> {
  return t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: flagId, required_balance: 1 }), ['allowed']).allowed;
}

/** The balances rules `holdsPlans` reads through; a scenario relying on it declares them. */
export type FlagRules = 'CHECK-ALLOWED-BOOLEAN-IN-PLAN' | 'CHECK-DENIED-OTHERWISE';
export const FLAG_RULES = ['CHECK-ALLOWED-BOOLEAN-IN-PLAN', 'CHECK-DENIED-OTHERWISE'] as const satisfies readonly FlagRules[];

/**
 * Before a scenario reads held plans through `holdsPlans`, the balances rules it reads through are
 * checked as themselves, first, on a plan of their own: its boolean feature is allowed to a customer
 * holding it (CHECK-ALLOWED-BOOLEAN-IN-PLAN) and denied to one who does not (CHECK-DENIED-OTHERWISE).
 * A target deviating there FAILs those rules, and the plans rule observed through them is BLOCKED by
 * them, not FAILed.
 */
export async function checkFlagsShowPlans(t: T<FlagRules>): Promise<void> {
  const flagged = await createFlaggedPlan(t, { group: t.ns.id('grp') });
  const [holder, other] = [await createCustomer(t), await createCustomer(t)];
  await attach(t, holder.id, flagged.plan.id);
  const held = await flagAllowed(t, holder.id, flagged.flagId);
  t.check('CHECK-ALLOWED-BOOLEAN-IN-PLAN', () => expect(held, 'the boolean feature of a plan the customer holds is allowed').toBe(true));
  const notHeld = await flagAllowed(t, other.id, flagged.flagId);
  t.check('CHECK-DENIED-OTHERWISE', () => expect(notHeld, 'the boolean feature of a plan the customer does not hold is denied').toBe(false));
}

/**
 * The ids of the plans among `plans` that a customer holds, sorted, seen through the documented
 * balances.check of each plan's own boolean feature: `allowed` is "true when … it is a boolean
 * feature included in the plan", and no other plan includes it (a read, after checkFlagsShowPlans;
 * the rule using it checks what it answers).
 */
export async function holdsPlans(t: T, customerId: string, plans: readonly FlaggedPlan[]): Promise<string[]> {
  const held: string[] = [];
  for (const { plan, flagId } of plans) if (await flagAllowed(t, customerId, flagId)) held.push(plan.id);
  return held.sort();
}

export async function track(t: T, customerId: string, featureId: string, value: number): Promise<void> {
  t.setup(await t.client.call('balances.track', { customer_id: customerId, feature_id: featureId, value }));
}

/** A consumable item: `included` units returning every month. */
export function monthly(featureId: string, included: number): z.input<typeof PlanItemInput> {
  return { feature_id: featureId, included, reset: { interval: 'month' } };
}

/** Moves the target's clock (control plane) just past `at`; what falls due by then runs. */
export async function advancePast(t: T, at: number): Promise<void> {
  const { now } = await t.control.call('clock.get', {});
  t.precondition('the reset time lies ahead of the clock', () => expect(at).toBeGreaterThan(now));
  await t.control.call('clock.advance', { ms: at - now + 1_000 });
}

/** "now" of the target: the fake's clock where there is one, else this machine's. */
export async function targetNow(t: T): Promise<number> {
  return t.has('control-plane') ? (await t.control.call('clock.get', {})).now : Date.now();
}

/**
 * CONV-TIMESTAMPS-MS of every timestamp given that the answer carried (a missing one is the shape
 * rule's): an integer number of milliseconds (above 10^12) between `from` and `to`.
 */
export function expectMilliseconds(t: T, [from, to]: readonly [number, number], stamps: Record<string, unknown>): void {
  t.check('CONV-TIMESTAMPS-MS', () => {
    for (const [what, stamp] of Object.entries(stamps)) {
      if (stamp === undefined || stamp === null) continue;
      expect(Number.isInteger(stamp), `${what} ${String(stamp)} is an integer`).toBe(true);
      expect(stamp as number, `${what} is in milliseconds`).toBeGreaterThan(1e12);
      expect(stamp as number, `${what} is a time in milliseconds after ${from}`).toBeGreaterThanOrEqual(from);
      expect(stamp as number, `${what} is a time in milliseconds before ${to}`).toBeLessThanOrEqual(to);
    }
  });
}

/**
 * Before a rule relies on a plans.create field interface.md does not show (free trial, config,
 * metadata): the target reads it under its configured name (t.requireWireName), seen on the plan
 * answered for `base` with `field` and without it. A target that does not is SKIP, naming the profile key.
 */
export async function requirePlanField(t: T, key: WireNameKey, base: PlanBody, field: PlanBody, read: (plan: Plan) => unknown): Promise<void> {
  await t.requireWireName(key, async (send) => read(await createPlan(t, send ? { ...base, ...field } : base)));
}

/**
 * Before a rule relies on the license links of plans.create: the target reads them, seen where the
 * document shows their effect (licenses.list of a customer on the parent plan), not on the plan
 * answer, whose fields the document does not list links among.
 */
export async function requireLicenseLinksRead(t: T, licensePlanId: string): Promise<void> {
  await t.requireWireName('plans.create.license_links', async (send) => {
    const parent = await createPlan(t, { group: t.ns.id('grp'), ...(send && { licenses: [{ license_plan_id: licensePlanId, included: 1 }] }) });
    const customer = await createCustomer(t);
    await attach(t, customer.id, parent.id);
    const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customer.id }), ['list']);
    return list.filter((pool) => pool.parent_plan_id === parent.id).map((pool) => pool.license_plan_id);
  });
}
