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

/** The balance a reading check shows; that there is one is a premise (the grant is setup). */
export async function balanceNow(t: T, customerId: string, featureId: string, entityId?: string): Promise<BalanceView> {
  const { balance } = await read(t, customerId, featureId, entityId);
  t.precondition(`${customerId}${entityId ? `/${entityId}` : ''} has a balance of ${featureId}`, () => expect(balance).not.toBeNull());
  return balance!;
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
 * A balance after a step that proves `rule`: its arithmetic first (CHECK-BALANCE-ARITHMETIC), what was
 * granted as a premise (the plans are setup), then the usage the step left, charged to `rule`.
 */
export function expectBalance(t: T, rule: RuleId, balance: BalanceView | null, expected: { granted: number; usage: number }, label: string): void {
  t.precondition(`${label}: a balance`, () => expect(balance).not.toBeNull());
  expectArithmetic(t, balance!, label);
  t.precondition(`${label}: granted ${expected.granted}`, () => expect(balance!.granted).toBe(expected.granted));
  t.check(rule, () => expect({ usage: balance!.usage, remaining: balance!.remaining }, `${label}: usage and remaining`).toEqual({ usage: expected.usage, remaining: expected.granted - expected.usage }));
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
  return { feature, mainPlan, ...(addOnPlan && { addOnPlan }), customerId };
}

/** A new customer with these plans attached. */
export async function customerHolding(t: T, plans: readonly (Plan | undefined)[]): Promise<string> {
  const customer = await createCustomer(t);
  for (const plan of plans) if (plan !== undefined) await attach(t, customer.id, plan.id);
  return customer.id;
}

/**
 * Setup: a send_event check of `required` units, with, as premises, whether it was allowed and the
 * usage it left (what send_event does is proven in balances.check-send-event).
 */
export async function spend(t: T, customerId: string, featureId: string, required: number, allowed: boolean, entityId?: string): Promise<void> {
  const before = await balanceNow(t, customerId, featureId, entityId);
  const body = { customer_id: customerId, feature_id: featureId, required_balance: required, send_event: true, ...(entityId !== undefined && { entity_id: entityId }) };
  const result = t.setup(await t.client.call('balances.check', body));
  const after = await balanceNow(t, customerId, featureId, entityId);
  t.precondition(`a send_event of ${required} is ${allowed ? 'allowed and uses them' : 'denied and uses nothing'}`, () => {
    expect(result.allowed).toBe(allowed);
    expect(after.usage).toBe(before.usage + (allowed ? required : 0));
  });
}
