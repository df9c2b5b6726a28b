/** Builders and checks that several balances scenario modules share. */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Balance, BalancesCheckRequest } from '../../../spec/balances.ts';
import type { Feature } from '../../../spec/features.ts';
import type { Plan } from '../../../spec/plans.ts';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, type Ops, type T } from '../../support.ts';

export type CheckBody = z.input<typeof BalancesCheckRequest>;

type CheckResult = z.output<Ops['balances.check']['response']>;

type BalanceView = z.output<typeof Balance>;

/** A check the scenario asserts on: a refusal FAILs `rule`. */
export async function ask(t: T, rule: RuleId, body: CheckBody): Promise<CheckResult> {
  return t.expectOk(await t.client.call('balances.check', body), rule);
}

/**
 * A check made only to read the balance (setup): `required_balance` 0, so it uses nothing even on a
 * target that records usage for plain checks or ignores the amount (EVT-ONLY-WITH-SEND-EVENT,
 * EVT-AMOUNT-IS-REQUIRED-BALANCE are proven by their own checks).
 */
export async function read(t: T, customerId: string, featureId: string, entityId?: string): Promise<CheckResult> {
  const body = { customer_id: customerId, feature_id: featureId, required_balance: 0, ...(entityId !== undefined && { entity_id: entityId }) };
  return t.setup(await t.client.call('balances.check', body));
}

/** A balance by what use and resets change: its usage and what is left (undefined where no balance is shown). */
export function usageAndRemaining(balance: { usage?: number; remaining?: number } | null | undefined) {
  return { usage: balance?.usage, remaining: balance?.remaining };
}

/** The balance a reading check shows (null when it shows none: the check of the rule judges that). */
export async function balanceNow(t: T, customerId: string, featureId: string, entityId?: string): Promise<BalanceView | null> {
  return (await read(t, customerId, featureId, entityId)).balance;
}

/**
 * Premise: what the setup granted the customer (or its entity) of a feature, read through the
 * reference's setup reads customers.get / entities.get, which no balances rule owns: a target whose
 * plans or attach grant something else blocks the scenario, and fails none of its balance rules.
 * Call it before any balances.check since the last check (a precondition rests on the exchanges since).
 */
export async function expectGranted(t: T, customerId: string, featureId: string, granted: number, entityId?: string): Promise<void> {
  const holder =
    entityId === undefined
      ? t.setup(await t.client.call('customers.get', { customer_id: customerId }), ['balances'])
      : t.setup(await t.client.call('entities.get', { customer_id: customerId, entity_id: entityId }), ['balances']);
  t.precondition(`${entityId ?? customerId} is granted ${granted} of ${featureId}`, () => expect(holder.balances[featureId]?.granted).toBe(granted));
}

/** CHECK-BALANCE-ARITHMETIC: remaining is granted less usage, and the breakdown entries add up to the balance, each with the same arithmetic. */
function expectArithmetic(t: T, balance: BalanceView, label: string): void {
  t.check('CHECK-BALANCE-ARITHMETIC', () => {
    const { granted, remaining, usage, breakdown } = balance;
    expect(remaining, `${label}: remaining = granted - usage`).toBe(granted - usage);
    // A missing breakdown sums to undefined: the shape rule's, not judged here.
    const sum = (pick: (entry: BalanceView['breakdown'][number]) => number) => breakdown?.reduce((total, entry) => total + pick(entry), 0);
    expect(
      { granted: sum((e) => e.included_grant + e.prepaid_grant), remaining: sum((e) => e.remaining), usage: sum((e) => e.usage) },
      `${label}: the breakdown entries add up to the balance`,
    ).toEqual({ granted, remaining, usage });
    for (const entry of breakdown ?? []) {
      expect(entry.remaining, `${label}: breakdown entry of ${entry.plan_id}: remaining = included + prepaid - usage`).toBe(entry.included_grant + entry.prepaid_grant - entry.usage);
    }
  });
}

/**
 * A balance after a step that proves `rule`: its arithmetic first (CHECK-BALANCE-ARITHMETIC), then
 * what it shows, charged to `rule`. What the setup granted is a premise shown before (expectGranted),
 * so a balance that is missing or shows another grant here is the step's doing.
 */
export function expectBalance(t: T, rule: RuleId, balance: BalanceView | null, expected: { granted: number; usage: number }, label: string): void {
  if (balance !== null) expectArithmetic(t, balance, label);
  t.check(rule, () =>
    expect(balance && { granted: balance.granted, usage: balance.usage, remaining: balance.remaining }, `${label}: granted, usage and remaining`).toEqual({
      granted: expected.granted,
      usage: expected.usage,
      remaining: expected.granted - expected.usage,
    }),
  );
}

/** Grant sources as [plan_id, included_grant] pairs, sorted by plan, so that their order does not matter. */
export function bySource(pairs: readonly (readonly [string, number])[]): [string, number][] {
  return pairs.map(([planId, included]): [string, number] => [planId, included]).sort(([a], [b]) => a.localeCompare(b));
}

/** The grant sources of a balance's breakdown; undefined when the answer left the breakdown out (the shape rule's). */
export function sources(balance: BalanceView | null): [string, number][] | undefined {
  const breakdown = balance?.breakdown;
  return breakdown === undefined ? undefined : bySource(breakdown.map((entry) => [entry.plan_id, entry.included_grant] as const));
}

interface Consumable {
  readonly feature: Feature;
  readonly mainPlan: Plan;
  /** Present when the setup asked for add-on units. */
  readonly addOnPlan?: Plan;
  readonly customerId: string;
}

/** A consumable feature, a main plan granting `main` units a month, optionally an add-on granting `addOn` more, and a customer holding them. */
export async function consumable(t: T, main: number, addOn = 0): Promise<Consumable> {
  const feature = await createFeature(t, 'consumable');
  const mainPlan = await createPlan(t, { items: [{ feature_id: feature.id, included: main, reset: MONTHLY }] });
  const addOnPlan = addOn > 0 ? await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: addOn, reset: MONTHLY }] }) : undefined;
  const customerId = await customerHolding(t, [mainPlan, addOnPlan]);
  await expectGranted(t, customerId, feature.id, main + addOn);
  return { feature, mainPlan, ...(addOnPlan && { addOnPlan }), customerId };
}

/** A new customer with these plans attached. */
export async function customerHolding(t: T, plans: readonly (Plan | undefined)[]): Promise<string> {
  const customer = await createCustomer(t);
  for (const plan of plans) if (plan !== undefined) await attach(t, customer.id, plan.id);
  return customer.id;
}

/** The rules `spend` checks: a scenario using it declares them (and the denial's, when it spends more than is left). */
export const SPEND_RULES = ['CHECK-SEND-EVENT-RECORDS', 'CHECK-ALLOWED-SUFFICIENT', 'EVT-AMOUNT-IS-REQUIRED-BALANCE'] as const;
export const SPEND_DENIED_RULES = ['CHECK-ALLOWED-BELOW-REQUIRED', 'CHECK-SEND-EVENT-ATOMIC'] as const;

/**
 * A send_event check of `required` units that the scenario builds on, checked as the rules it
 * proves (never a premise: those rules own balances.check): allowed or denied as the balance says
 * (CHECK-ALLOWED-SUFFICIENT / CHECK-ALLOWED-BELOW-REQUIRED), then usage up by exactly `required`
 * (CHECK-SEND-EVENT-RECORDS, EVT-AMOUNT-IS-REQUIRED-BALANCE) or unchanged (CHECK-SEND-EVENT-ATOMIC).
 */
export async function spend(t: T, customerId: string, featureId: string, required: number, allowed: boolean, entityId?: string): Promise<void> {
  const before = (await balanceNow(t, customerId, featureId, entityId))?.usage;
  const body = { customer_id: customerId, feature_id: featureId, required_balance: required, send_event: true, ...(entityId !== undefined && { entity_id: entityId }) };
  const result = await ask(t, 'CHECK-SEND-EVENT-RECORDS', body);
  t.check(allowed ? 'CHECK-ALLOWED-SUFFICIENT' : 'CHECK-ALLOWED-BELOW-REQUIRED', () => expect(result.allowed, `a send_event of ${required} (usage ${String(before)} before)`).toBe(allowed));
  const after = (await balanceNow(t, customerId, featureId, entityId))?.usage;
  if (!allowed) {
    t.check('CHECK-SEND-EVENT-ATOMIC', () => expect(after, `a denied send_event of ${required} uses nothing`).toBe(before));
    return;
  }
  if (required > 0) t.check('CHECK-SEND-EVENT-RECORDS', () => expect(after, `a send_event of ${required} records usage`).toBeGreaterThan(before!));
  t.check('EVT-AMOUNT-IS-REQUIRED-BALANCE', () => expect(after, `a send_event of ${required} uses exactly ${required}`).toBe(before! + required));
}

/**
 * The MUST lock rules rest on the name of the lock-settings field, which interface.md does not show
 * (spec/wire-names.ts): first shown read, on a customer of its own holding `plan`: a check of 2 units
 * with a lock holds them (usage 2), the same check without one uses nothing.
 */
export async function requireLockSettings(t: T, plan: Plan, featureId: string): Promise<void> {
  await t.requireWireName('balances.check.lock_settings', async (send) => {
    const probe = await customerHolding(t, [plan]);
    const body = { customer_id: probe, feature_id: featureId, required_balance: 2, ...(send && { lock: { lock_id: t.ns.id('lock'), enabled: true as const } }) };
    t.setup(await t.client.call('balances.check', body));
    return t.setup(await t.client.call('balances.check', { customer_id: probe, feature_id: featureId, required_balance: 0 })).balance?.usage;
  });
}
