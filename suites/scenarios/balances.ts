/**
 * Conformance scenarios of balances: `balances.check` (documented), the setup calls `balances.track`
 * and `balances.finalize`, and the Events part (usage events recorded by checks, event names).
 *
 * Balances are read back through checks that consume nothing. Usage events have no read call in the
 * interface, so what they record is proven through the balance they move; the fake's control plane
 * (`events.list`) shows the events themselves where a scenario needs them.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Balance, BalancesCheckRequest } from '../../spec/balances.ts';
import type { Feature } from '../../spec/features.ts';
import type { Plan } from '../../spec/plans.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';
import {
  attach,
  checkProperty,
  createCustomer,
  createEntity,
  createFeature,
  createLicensePool,
  createPlan,
  scenario,
  type Ops,
  type T,
} from '../support.ts';

type CheckBody = z.input<typeof BalancesCheckRequest>;
type CheckResult = z.output<Ops['balances.check']['response']>;
type BalanceView = z.output<typeof Balance>;

const MONTHLY = { interval: 'month' } as const;

/** A check the scenario asserts on: a refusal FAILs `rule`. */
async function ask(t: T, rule: RuleId, body: CheckBody): Promise<CheckResult> {
  return t.expectOk(await t.client.call('balances.check', body), rule);
}

/**
 * A check made only to read the balance (setup): `required_balance` 0, so it uses nothing even on a
 * target that records usage for plain checks or ignores the amount (EVT-ONLY-WITH-SEND-EVENT,
 * EVT-AMOUNT-IS-REQUIRED-BALANCE are proven by their own checks).
 */
async function read(t: T, customerId: string, featureId: string, entityId?: string): Promise<CheckResult> {
  const body = { customer_id: customerId, feature_id: featureId, required_balance: 0, ...(entityId !== undefined && { entity_id: entityId }) };
  return t.setup(await t.client.call('balances.check', body));
}

/** The balance a reading check shows; that there is one is a premise (the grant is setup). */
async function balanceNow(t: T, customerId: string, featureId: string, entityId?: string): Promise<BalanceView> {
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
function expectBalance(t: T, rule: RuleId, balance: BalanceView | null, expected: { granted: number; usage: number }, label: string): void {
  t.precondition(`${label}: a balance`, () => expect(balance).not.toBeNull());
  expectArithmetic(t, balance!, label);
  t.precondition(`${label}: granted ${expected.granted}`, () => expect(balance!.granted).toBe(expected.granted));
  t.check(rule, () => expect({ usage: balance!.usage, remaining: balance!.remaining }, `${label}: usage and remaining`).toEqual({ usage: expected.usage, remaining: expected.granted - expected.usage }));
}

/** Grant sources as [plan_id, included_grant] pairs, sorted by plan, so that their order does not matter. */
function bySource(pairs: readonly (readonly [string, number])[]): [string, number][] {
  return pairs.map(([planId, included]): [string, number] => [planId, included]).sort(([a], [b]) => a.localeCompare(b));
}

/** The grant sources of a balance's breakdown; undefined when the answer left the breakdown out (the shape rule's). */
function sources(balance: BalanceView | null): [string, number][] | undefined {
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
async function consumable(t: T, main: number, addOn = 0): Promise<Consumable> {
  const feature = await createFeature(t, 'consumable');
  const mainPlan = await createPlan(t, { items: [{ feature_id: feature.id, included: main, reset: MONTHLY }] });
  const addOnPlan = addOn > 0 ? await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: addOn, reset: MONTHLY }] }) : undefined;
  const customerId = await customerHolding(t, [mainPlan, addOnPlan]);
  return { feature, mainPlan, ...(addOnPlan && { addOnPlan }), customerId };
}

/** A new customer with these plans attached. */
async function customerHolding(t: T, plans: readonly (Plan | undefined)[]): Promise<string> {
  const customer = await createCustomer(t);
  for (const plan of plans) if (plan !== undefined) await attach(t, customer.id, plan.id);
  return customer.id;
}

/**
 * Setup: a send_event check of `required` units, with, as premises, whether it was allowed and the
 * usage it left (what send_event does is proven in balances.check-send-event).
 */
async function spend(t: T, customerId: string, featureId: string, required: number, allowed: boolean, entityId?: string): Promise<void> {
  const before = await balanceNow(t, customerId, featureId, entityId);
  const body = { customer_id: customerId, feature_id: featureId, required_balance: required, send_event: true, ...(entityId !== undefined && { entity_id: entityId }) };
  const result = t.setup(await t.client.call('balances.check', body));
  const after = await balanceNow(t, customerId, featureId, entityId);
  t.precondition(`a send_event of ${required} is ${allowed ? 'allowed and uses them' : 'denied and uses nothing'}`, () => {
    expect(result.allowed).toBe(allowed);
    expect(after.usage).toBe(before.usage + (allowed ? required : 0));
  });
}

/**
 * A send_event check of `required` units that the balance covers, proven: usage moves at all
 * (CHECK-SEND-EVENT-RECORDS, for a positive amount), then by exactly `required` (EVT-AMOUNT-IS-REQUIRED-BALANCE).
 */
async function expectSendEventUses(t: T, customerId: string, featureId: string, required: number, granted: number, extra: Partial<CheckBody> = {}, askRule: RuleId = 'CHECK-SEND-EVENT-RECORDS'): Promise<void> {
  const before = (await balanceNow(t, customerId, featureId)).usage;
  const result = await ask(t, askRule, { customer_id: customerId, feature_id: featureId, required_balance: required, send_event: true, ...extra });
  t.precondition(`a send_event of ${required} with ${granted - before} left is allowed`, () => expect(result.allowed).toBe(true));
  const after = await balanceNow(t, customerId, featureId);
  if (required > 0) t.check('CHECK-SEND-EVENT-RECORDS', () => expect(after.usage, `a send_event of ${required} records usage`).toBeGreaterThan(before));
  expectBalance(t, 'EVT-AMOUNT-IS-REQUIRED-BALANCE', after, { granted, usage: before + required }, `a send_event of ${required} uses exactly ${required}`);
}

/** A denied send_event check: it uses nothing (CHECK-SEND-EVENT-ATOMIC). */
async function expectDeniedUsesNothing(t: T, customerId: string, featureId: string, required: number | undefined, granted: number): Promise<void> {
  const before = (await balanceNow(t, customerId, featureId)).usage;
  const body = { customer_id: customerId, feature_id: featureId, send_event: true, ...(required !== undefined && { required_balance: required }) };
  const result = await ask(t, 'CHECK-SEND-EVENT-ATOMIC', body);
  t.precondition(`a send_event of ${required ?? 'the default 1'} with ${granted - before} left is denied`, () => expect(result.allowed).toBe(false));
  expectBalance(t, 'CHECK-SEND-EVENT-ATOMIC', await balanceNow(t, customerId, featureId), { granted, usage: before }, `a denied send_event of ${required ?? 1} used nothing`);
}

/**
 * A small independent model of one consumable balance fed by two grant sources (a main plan and an
 * add-on). Checks allow up to what remains; send_event and track use units; track never takes more
 * than what remains (`overage_behavior: cap`). Which source a unit comes from is left to the target,
 * so the model keeps totals only.
 */
class ConsumableModel {
  usage = 0;
  constructor(readonly granted: number) {}

  get remaining(): number {
    return this.granted - this.usage;
  }

  check(required: number, sendEvent: boolean): boolean {
    const allowed = required <= this.remaining;
    if (allowed && sendEvent) this.usage += required;
    return allowed;
  }

  track(value: number): void {
    this.usage += Math.min(value, this.remaining);
  }
}

type Step = { readonly kind: 'check'; readonly required: number; readonly sendEvent: boolean } | { readonly kind: 'track'; readonly value: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('check' as const), required: fc.integer({ min: 0, max: 12 }), sendEvent: fc.boolean() }),
  fc.record({ kind: fc.constant('track' as const), value: fc.integer({ min: 1, max: 6 }) }),
);

/** The rule a model step's effect on usage proves, decided from the model before the step is applied. */
function usageRuleOf(step: Step, allowed: boolean): RuleId {
  if (step.kind === 'track') return 'BAL-TRACK-DEDUCTS';
  if (!step.sendEvent) return 'EVT-ONLY-WITH-SEND-EVENT';
  return allowed ? 'EVT-AMOUNT-IS-REQUIRED-BALANCE' : 'CHECK-SEND-EVENT-ATOMIC';
}

export const balancesScenarios = [
  // ── The Balance and the check result ────────────────────────────────────────
  scenario(
    {
      id: 'balances.check-consumable',
      title: 'a check sums a consumable feature over its grant sources, one breakdown entry each, and allows up to exactly what remains',
      rules: [
        'CHECK-RESULT-SHAPE',
        'CHECK-BALANCE-ARITHMETIC',
        'CHECK-BREAKDOWN-PER-SOURCE',
        'CHECK-BREAKDOWN-PRICE-NULL',
        'CHECK-BALANCES-MAP',
        'CHECK-ALLOWED-SUFFICIENT',
        'CHECK-ALLOWED-BELOW-REQUIRED',
        'CHECK-REQUIRED-BALANCE-DEFAULT',
        'CHECK-ENTITY-ID-NULL',
        'CHECK-RESULT-ECHOES',
        'EVT-ONLY-WITH-SEND-EVENT',
      ],
    },
    async (t) => {
      const { feature, mainPlan, addOnPlan, customerId } = await consumable(t, 10, 5);
      const body = (extra: Partial<CheckBody> = {}): CheckBody => ({ customer_id: customerId, feature_id: feature.id, ...extra });

      const first = await ask(t, 'CHECK-REQUIRED-BALANCE-DEFAULT', body());
      // required_balance missing from the answer is CHECK-RESULT-SHAPE's: compared only when present.
      if (first.required_balance !== undefined) t.check('CHECK-REQUIRED-BALANCE-DEFAULT', () => expect(first.required_balance, 'an omitted required_balance is 1').toBe(1));
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(first.allowed, '15 units suffice for the default 1').toBe(true));
      // A plain check records nothing: the read-back (which itself asks for 0 units) shows no usage.
      expectBalance(t, 'EVT-ONLY-WITH-SEND-EVENT', await balanceNow(t, customerId, feature.id), { granted: 15, usage: 0 }, 'a plain check used nothing');
      t.check('CHECK-ENTITY-ID-NULL', () => expect(first, 'no entity was named: entity_id is present, and null').toHaveProperty('entity_id', null));
      expectBalance(t, 'CHECK-ALLOWED-SUFFICIENT', first.balance, { granted: 15, usage: 0 }, 'main 10 + add-on 5');
      t.check('CHECK-BREAKDOWN-PER-SOURCE', () => expect(sources(first.balance), 'one breakdown entry per plan granting the feature').toEqual(bySource([[mainPlan.id, 10], [addOnPlan!.id, 5]])));
      t.check('CHECK-BREAKDOWN-PRICE-NULL', () => {
        for (const entry of first.balance!.breakdown ?? []) expect(entry.price, `the unpriced grant of ${entry.plan_id} has price null`).toBeNull();
      });
      t.check('CHECK-BALANCES-MAP', () => {
        expect(first.balance!.feature_id, 'the balance is of the checked feature').toBe(feature.id);
        expect(first.balances?.[feature.id], 'the balances map carries the checked feature, as the balance').toEqual(first.balance);
      });

      const fifteen = await ask(t, 'CHECK-ALLOWED-SUFFICIENT', body({ required_balance: 15 }));
      t.check('CHECK-RESULT-ECHOES', () => {
        expect(fifteen.customer_id, 'the result names the customer asked for').toBe(customerId);
        if (fifteen.required_balance !== undefined) expect(fifteen.required_balance, 'and the required_balance asked for').toBe(15);
      });
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(fifteen.allowed, 'exactly the 15 remaining units suffice').toBe(true));
      const over = await ask(t, 'CHECK-ALLOWED-BELOW-REQUIRED', body({ required_balance: 16 }));
      t.check('CHECK-ALLOWED-BELOW-REQUIRED', () => expect(over.allowed, '16 units are more than the 15 remaining').toBe(false));
      expectBalance(t, 'CHECK-ALLOWED-BELOW-REQUIRED', over.balance, { granted: 15, usage: 0 }, 'a denied check still shows the balance');
      const zero = await ask(t, 'CHECK-ALLOWED-SUFFICIENT', body({ required_balance: 0 }));
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(zero.allowed, 'a required balance of 0 is always met').toBe(true));
      expectBalance(t, 'EVT-ONLY-WITH-SEND-EVENT', await balanceNow(t, customerId, feature.id), { granted: 15, usage: 0 }, 'plain checks used nothing');

      await spend(t, customerId, feature.id, 12, true);
      const three = await ask(t, 'CHECK-ALLOWED-SUFFICIENT', body({ required_balance: 3 }));
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(three.allowed, 'exactly the 3 remaining units suffice').toBe(true));
      const four = await ask(t, 'CHECK-ALLOWED-BELOW-REQUIRED', body({ required_balance: 4 }));
      t.check('CHECK-ALLOWED-BELOW-REQUIRED', () => expect(four.allowed, '4 units are more than the 3 remaining').toBe(false));

      await spend(t, customerId, feature.id, 3, true);
      const empty = await ask(t, 'CHECK-REQUIRED-BALANCE-DEFAULT', body());
      t.check('CHECK-REQUIRED-BALANCE-DEFAULT', () => expect(empty.allowed, 'with nothing left, the default required_balance of 1 is denied').toBe(false));
    },
  ),

  scenario(
    {
      id: 'balances.check-send-event',
      title: 'send_event uses exactly required_balance when allowed and nothing when denied, and a following check shows it',
      rules: ['CHECK-SEND-EVENT-RECORDS', 'CHECK-SEND-EVENT-ATOMIC', 'EVT-AMOUNT-IS-REQUIRED-BALANCE', 'CHECK-PROPERTIES-WIRE', 'CHECK-BALANCE-ARITHMETIC'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);

      await expectSendEventUses(t, customerId, feature.id, 3, 10, { properties: { source: 'conformance', attempt: 1 } }, 'CHECK-PROPERTIES-WIRE');
      await expectDeniedUsesNothing(t, customerId, feature.id, 8, 10);
      await expectSendEventUses(t, customerId, feature.id, 0, 10);
      await expectSendEventUses(t, customerId, feature.id, 7, 10);
      await expectDeniedUsesNothing(t, customerId, feature.id, undefined, 10);
    },
  ),

  scenario(
    {
      id: 'balances.check-send-event-concurrent',
      title: 'N concurrent send_event checks against a balance of M allow exactly min(N, M), and usage ends at exactly that',
      rules: ['CHECK-SEND-EVENT-ATOMIC', 'CHECK-SEND-EVENT-RECORDS', 'CHECK-BALANCE-ARITHMETIC'],
    },
    async (t) => {
      const { feature, mainPlan, customerId: warmUp } = await consumable(t, 6);
      // Premises, one check at a time: an amount that fits is used, one that does not is denied, exactly what remains fits.
      await spend(t, warmUp, feature.id, 4, true);
      await spend(t, warmUp, feature.id, 3, false);
      await spend(t, warmUp, feature.id, 2, true);

      const [crowded, spare, coarse] = [await customerHolding(t, [mainPlan]), await customerHolding(t, [mainPlan]), await customerHolding(t, [mainPlan])];
      const race = async (customerId: string, checks: number, required: number, label: string) => {
        const body = { customer_id: customerId, feature_id: feature.id, required_balance: required, send_event: true };
        const results = await Promise.all(Array.from({ length: checks }, async () => t.setup(await t.client.call('balances.check', body))));
        const allowed = results.filter((result) => result.allowed).length;
        const balance = await balanceNow(t, customerId, feature.id);
        t.check('CHECK-SEND-EVENT-RECORDS', () => expect(balance.usage, `${label}: the allowed checks recorded usage`).toBeGreaterThan(0));
        return { allowed, balance };
      };

      const ten = await race(crowded, 10, 1, '10 checks of 1 against 6');
      t.check('CHECK-SEND-EVENT-ATOMIC', () => expect(ten.allowed, '10 concurrent checks of 1 against 6 units: exactly 6 allowed').toBe(6));
      expectBalance(t, 'CHECK-SEND-EVENT-ATOMIC', ten.balance, { granted: 6, usage: 6 }, '10 checks against 6');

      const four = await race(spare, 4, 1, '4 checks of 1 against 6');
      t.check('CHECK-SEND-EVENT-ATOMIC', () => expect(four.allowed, '4 concurrent checks of 1 against 6 units: all 4 allowed').toBe(4));
      expectBalance(t, 'CHECK-SEND-EVENT-ATOMIC', four.balance, { granted: 6, usage: 4 }, '4 checks against 6');

      const three = await race(coarse, 3, 4, '3 checks of 4 against 6');
      t.check('CHECK-SEND-EVENT-ATOMIC', () => expect(three.allowed, '3 concurrent checks of 4 against 6 units: exactly 1 allowed').toBe(1));
      expectBalance(t, 'CHECK-SEND-EVENT-ATOMIC', three.balance, { granted: 6, usage: 4 }, '3 checks of 4 against 6: the denied ones took nothing');
    },
  ),

  scenario(
    {
      id: 'balances.check-model',
      title: 'random sequences of checks (with and without send_event) and tracks agree with a model of one balance fed by a plan and an add-on',
      rules: [
        'CHECK-BALANCE-ARITHMETIC',
        'CHECK-BREAKDOWN-PER-SOURCE',
        'CHECK-ALLOWED-SUFFICIENT',
        'CHECK-ALLOWED-BELOW-REQUIRED',
        'CHECK-SEND-EVENT-RECORDS',
        'CHECK-SEND-EVENT-ATOMIC',
        'EVT-ONLY-WITH-SEND-EVENT',
        'EVT-AMOUNT-IS-REQUIRED-BALANCE',
        'BAL-TRACK-DEDUCTS',
      ],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      // Premise: a send_event uses the amount asked for (EVT-AMOUNT-IS-REQUIRED-BALANCE), on which the model's allow decisions rest.
      const warmUp = await customerHolding(t, [await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] })]);
      await spend(t, warmUp, feature.id, 4, true);
      const property = fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }), async (main, addOn, steps) => {
        const mainPlan = await createPlan(t, { items: [{ feature_id: feature.id, included: main, reset: MONTHLY }] });
        const addOnPlan = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: addOn, reset: MONTHLY }] });
        const customerId = await customerHolding(t, [mainPlan, addOnPlan]);
        const model = new ConsumableModel(main + addOn);
        for (const [i, step] of steps.entries()) {
          const label = `step ${i} (${JSON.stringify(step)}) on main ${main} + add-on ${addOn}`;
          const before = model.usage;
          let usageRule: RuleId;
          if (step.kind === 'check') {
            const allowed = model.check(step.required, step.sendEvent);
            const allowRule = allowed ? 'CHECK-ALLOWED-SUFFICIENT' : 'CHECK-ALLOWED-BELOW-REQUIRED';
            const result = await ask(t, allowRule, { customer_id: customerId, feature_id: feature.id, required_balance: step.required, send_event: step.sendEvent });
            t.check(allowRule, () => expect(result.allowed, `${label}: allowed`).toBe(allowed));
            usageRule = usageRuleOf(step, allowed);
          } else {
            t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: step.value, overage_behavior: 'cap' }), 'BAL-TRACK-DEDUCTS');
            model.track(step.value);
            usageRule = usageRuleOf(step, true);
          }
          const after = await balanceNow(t, customerId, feature.id);
          if (usageRule === 'EVT-AMOUNT-IS-REQUIRED-BALANCE' && model.usage > before) {
            t.check('CHECK-SEND-EVENT-RECORDS', () => expect(after.usage, `${label}: the send_event recorded usage`).toBeGreaterThan(before));
          }
          expectBalance(t, usageRule, after, { granted: model.granted, usage: model.usage }, label);
          t.check('CHECK-BREAKDOWN-PER-SOURCE', () => expect(sources(after), `${label}: one breakdown entry per source`).toEqual(bySource([[mainPlan.id, main], [addOnPlan.id, addOn]])));
        }
      });
      await checkProperty(t, property, 15);
    },
  ),

  scenario(
    {
      id: 'balances.check-unlimited',
      title: 'an unlimited feature allows any amount, however large, with or without send_event, and its balance says unlimited',
      rules: ['CHECK-ALLOWED-UNLIMITED', 'CHECK-BALANCE-FLAGS'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, unlimited: true }] });
      const customerId = await customerHolding(t, [plan]);
      const body = (required: number, sendEvent = false): CheckBody => ({ customer_id: customerId, feature_id: feature.id, required_balance: required, send_event: sendEvent });
      const first = await ask(t, 'CHECK-ALLOWED-UNLIMITED', body(1_000_000));
      t.check('CHECK-ALLOWED-UNLIMITED', () => expect(first.allowed, 'an unlimited feature allows 1,000,000 units').toBe(true));
      t.check('CHECK-BALANCE-FLAGS', () => {
        expect(first.balance?.unlimited, 'the balance says unlimited').toBe(true);
        expect(first.balance?.breakdown?.map((entry) => [entry.plan_id, entry.unlimited]), 'its breakdown entry too').toEqual([[plan.id, true]]);
      });
      // Any amount: a few huge ones and random ones up to the largest safe integer, not one fixed value.
      const amounts = [1e12, 1e12 + 1, 2 ** 40 + 3, 1e15, Number.MAX_SAFE_INTEGER, ...fc.sample(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { numRuns: 5, seed: t.seed })];
      for (const [i, required] of amounts.entries()) {
        const result = await ask(t, 'CHECK-ALLOWED-UNLIMITED', body(required, i % 2 === 1));
        t.check('CHECK-ALLOWED-UNLIMITED', () => expect(result.allowed, `an unlimited feature allows ${required} units${i % 2 === 1 ? ' with send_event' : ''}`).toBe(true));
      }
      const after = await ask(t, 'CHECK-ALLOWED-UNLIMITED', body(1e12));
      t.check('CHECK-ALLOWED-UNLIMITED', () => expect(after.allowed, 'still allowed after using huge amounts').toBe(true));
    },
  ),

  scenario(
    {
      id: 'balances.check-balance-fields',
      title: "a balance's flags, cap and reset follow its plan item: an included-only item allows no overage and has no purchase cap, a priced one its max_purchase; breakdown entries name their reset",
      rules: ['CHECK-BALANCE-FLAGS', 'CHECK-BREAKDOWN-RESET'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const included = await createFeature(t, 'consumable');
      const priced = await createFeature(t, 'consumable');
      const plan = await createPlan(t, {
        items: [
          { feature_id: included.id, included: 10, reset: MONTHLY },
          { feature_id: priced.id, included: 5, reset: MONTHLY, price: { amount: 0.5, interval: 'month', billing_units: 1, billing_method: 'usage_based', max_purchase: 40 } },
        ],
      });
      const customerId = await customerHolding(t, [plan]);
      const own = await balanceNow(t, customerId, included.id);
      t.check('CHECK-BALANCE-FLAGS', () => {
        expect({ unlimited: own.unlimited, overage_allowed: own.overage_allowed, max_purchase: own.max_purchase }, 'an included-only item: limited, no overage, no purchase cap').toEqual({
          unlimited: false,
          overage_allowed: false,
          max_purchase: null,
        });
        expect(own.breakdown?.map((entry) => entry.unlimited), 'its breakdown entry is limited too').toEqual([false]);
      });
      const paid = await balanceNow(t, customerId, priced.id);
      t.precondition('the priced grant kept its price (PLAN-USAGE-PRICE-OVERAGE)', () => expect(paid.breakdown?.[0]?.price ?? null).not.toBeNull());
      t.check('CHECK-BALANCE-FLAGS', () => expect(paid.max_purchase, "a priced item's balance carries the item's max_purchase").toBe(40));
      t.precondition('both monthly grants reset (PLAN-CONSUMABLE-RESET)', () => {
        expect([own.next_reset_at, paid.next_reset_at]).toEqual([expect.any(Number), expect.any(Number)]);
        expect([...(own.breakdown ?? []), ...(paid.breakdown ?? [])].map((entry) => entry.reset ?? null)).not.toContain(null);
      });
      t.check('CHECK-BREAKDOWN-RESET', () => {
        for (const balance of [own, paid]) {
          const entries = balance.breakdown;
          expect(entries?.length, `${balance.feature_id}: one grant source`).toBe(1);
          expect(entries![0]!.reset?.interval, `${balance.feature_id}: the monthly item resets every month`).toBe('month');
          expect(entries![0]!.reset?.resets_at, `${balance.feature_id}: the only source resets when the balance does`).toBe(balance.next_reset_at);
        }
      });
    },
  ),

  scenario(
    {
      id: 'balances.check-boolean',
      title: 'a boolean feature in a plan is allowed with its flag and no balance; one the customer lacks is denied, as is a metered feature without a grant, which carries no flag',
      rules: ['CHECK-RESULT-SHAPE', 'CHECK-ALLOWED-BOOLEAN-IN-PLAN', 'CHECK-FLAG-OBJECT', 'CHECK-DENIED-OTHERWISE', 'CHECK-BALANCE-NULL', 'CHECK-SEND-EVENT-BOOLEAN'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const metered = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const holder = await customerHolding(t, [plan]);
      const stranger = await customerHolding(t, []);

      const granted = await ask(t, 'CHECK-ALLOWED-BOOLEAN-IN-PLAN', { customer_id: holder, feature_id: flag.id });
      t.check('CHECK-ALLOWED-BOOLEAN-IN-PLAN', () => expect(granted.allowed, 'a boolean feature included in the plan is allowed').toBe(true));
      t.check('CHECK-FLAG-OBJECT', () => {
        expect(granted.flag, 'the flag object names the feature and the plan').toMatchObject({ feature_id: flag.id, plan_id: plan.id, expires_at: null });
        expect(granted.flag!.id, 'the flag has an id').toEqual(expect.any(String));
      });
      t.check('CHECK-BALANCE-NULL', () => expect(granted.balance, 'a boolean feature has no balance').toBeNull());

      const lacking = await ask(t, 'CHECK-DENIED-OTHERWISE', { customer_id: stranger, feature_id: flag.id });
      t.check('CHECK-DENIED-OTHERWISE', () => expect(lacking.allowed, "a boolean feature in none of the customer's plans is denied").toBe(false));
      t.check('CHECK-FLAG-OBJECT', () => expect(lacking.flag ?? null, 'no flag').toBeNull());
      t.check('CHECK-BALANCE-NULL', () => expect(lacking.balance, 'no balance').toBeNull());

      for (const required of [1, 0]) {
        const ungranted = await ask(t, 'CHECK-DENIED-OTHERWISE', { customer_id: holder, feature_id: metered.id, required_balance: required });
        t.check('CHECK-DENIED-OTHERWISE', () => expect(ungranted.allowed, `a metered feature the customer holds no grant of is denied (required ${required})`).toBe(false));
        t.check('CHECK-BALANCE-NULL', () => expect(ungranted.balance, 'and its balance is null').toBeNull());
        t.check('CHECK-FLAG-OBJECT', () => expect(ungranted.flag ?? null, 'a metered feature carries no flag object').toBeNull());
      }

      t.expectError(await t.client.call('balances.check', { customer_id: holder, feature_id: flag.id, send_event: true }), { status: 400, code: 'invalid_request', rule: 'CHECK-SEND-EVENT-BOOLEAN' });
      const after = await read(t, holder, flag.id);
      t.check('CHECK-SEND-EVENT-BOOLEAN', () => expect(after.allowed, 'the refused send_event changed nothing').toBe(true));
    },
  ),

  scenario(
    {
      id: 'balances.check-credit-system',
      title: 'a check of a feature priced by a credit system carries the credit system in its balances map, as a check of the credit system shows it, before and after credits are drawn',
      rules: ['CHECK-BALANCES-LINKED-CREDIT-SYSTEM', 'CHECK-BALANCES-MAP'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const credits = await createFeature(t, 'consumable', { type: 'credit_system', credit_schema: [{ metered_feature_id: feature.id, credit_cost: 2 }] });
      const plan = await createPlan(t, {
        items: [
          { feature_id: feature.id, included: 3, reset: MONTHLY },
          { feature_id: credits.id, included: 20, reset: MONTHLY },
        ],
      });
      const customerId = await customerHolding(t, [plan]);
      const maps = async (label: string) => {
        const own = await read(t, customerId, feature.id);
        const direct = await balanceNow(t, customerId, credits.id);
        const { balances } = await ask(t, 'CHECK-BALANCES-MAP', { customer_id: customerId, feature_id: feature.id, required_balance: 0 });
        t.check('CHECK-BALANCES-MAP', () => expect(balances?.[feature.id], `${label}: the map carries the checked feature, as its own check shows it`).toEqual(own.balance));
        t.check('CHECK-BALANCES-LINKED-CREDIT-SYSTEM', () => {
          expect(Object.keys(balances ?? {}).sort(), `${label}: the balances map covers the feature and its credit system`).toEqual([credits.id, feature.id].sort());
          expect(balances![credits.id], `${label}: the credit system's balance, as a check of it shows it`).toEqual(direct);
        });
      };

      await maps('unused');
      // Drawing credits is FEAT-CREDIT-SYSTEM's (features.ts): here only premises.
      await spend(t, customerId, feature.id, 3, true);
      await t.precondition('2 units beyond the own balance are allowed and draw credits', async () => {
        const drawn = t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: feature.id, required_balance: 2, send_event: true }));
        expect(drawn.allowed).toBe(true);
        expect((await read(t, customerId, credits.id)).balance?.usage).toBeGreaterThan(0);
      });
      await maps('after credits were drawn');
    },
  ),

  scenario(
    {
      id: 'balances.check-entity-scoped',
      title: "with entity_id a check answers for that entity: its own plans and seats count, not a sibling's, and not at customer level",
      rules: ['CHECK-ENTITY-SCOPED'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: MONTHLY }] });
      const customerId = await customerHolding(t, []);
      const [holder, sibling] = [await createEntity(t, customerId, seats.id), await createEntity(t, customerId, seats.id)];
      await attach(t, customerId, plan.id, { entity_id: holder.id });
      // Premise (BILL-ATTACH-ENTITY's): the attach gave the plan to the holder, not to the customer or the sibling.
      const { list: records } = t.setup(await t.client.call('subscriptions.list', { customer_id: customerId, plan_id: plan.id }), ['list']);
      t.precondition(`${plan.id} is held by ${holder.id} only`, () => expect(records.map((record) => record.entity_id)).toEqual([holder.id]));

      // Checks of 0 units (they use nothing), judged on the grant they show: whether `allowed` follows it is other rules'.
      const scoped = (entityId?: string) => ask(t, 'CHECK-ENTITY-SCOPED', { customer_id: customerId, feature_id: units.id, required_balance: 0, ...(entityId !== undefined && { entity_id: entityId }) });
      const own = await scoped(holder.id);
      t.check('CHECK-ENTITY-SCOPED', () => {
        expect(own.entity_id, 'the result names the entity').toBe(holder.id);
        expect(own.balance, "the entity's own grant").toMatchObject({ granted: 5, usage: 0 });
      });
      for (const [who, entityId] of [['a sibling entity', sibling.id], ['the customer', undefined]] as const) {
        const other = await scoped(entityId);
        t.check('CHECK-ENTITY-SCOPED', () => expect(other.balance?.granted ?? 0, `${who} holds no grant of the entity's plan`).toBe(0));
      }
      await spend(t, customerId, units.id, 2, true, holder.id);
      const customerLevel = await scoped();
      t.check('CHECK-ENTITY-SCOPED', () => expect(customerLevel.balance?.usage ?? 0, "the entity's usage stays the entity's").toBe(0));
      t.expectError(await t.client.call('balances.check', { customer_id: customerId, entity_id: t.ns.id('nobody'), feature_id: units.id }), { rule: 'CHECK-ENTITY-SCOPED' });

      // A license seat grants its entity, not the customer. The seat entity is created with
      // entities.create and attached without feature_id (licenses.attach creating it is another rule's).
      const pool = await createLicensePool(t, 1);
      const seat = await createEntity(t, pool.customerId, pool.seatFeature.id);
      t.setup(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: [{ entity_id: seat.id, name: seat.name ?? seat.id }] }));
      const { list: pools } = t.setup(await t.client.call('licenses.list', { customer_id: pool.customerId }), ['list']);
      t.precondition('the seat entity took the one seat', () => expect(pools.find((p) => p.license_plan_id === pool.licensePlan.id)?.usage).toBe(1));
      const seated = await ask(t, 'CHECK-ENTITY-SCOPED', { customer_id: pool.customerId, entity_id: seat.id, feature_id: pool.flag.id });
      // The flag shows as allowed or as its flag object (either alone is another rule's fault).
      t.check('CHECK-ENTITY-SCOPED', () => expect(seated.allowed || seated.flag != null, "the licensed entity has the seat plan's flag").toBe(true));
      const unseated = await ask(t, 'CHECK-ENTITY-SCOPED', { customer_id: pool.customerId, feature_id: pool.flag.id });
      t.check('CHECK-ENTITY-SCOPED', () => expect(unseated.flag ?? null, 'the customer itself does not').toBeNull());
    },
  ),

  scenario(
    {
      id: 'balances.check-entity-of-another-customer',
      title: "a check of customer A naming an entity of customer B neither shows B's balance nor allows on it, and a send_event through it uses nothing of B's",
      rules: ['CHECK-ENTITY-OWN-CUSTOMER'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: MONTHLY }] });
      const a = await customerHolding(t, []);
      const b = await customerHolding(t, []);
      const entity = await createEntity(t, b, seats.id);
      await attach(t, b, plan.id, { entity_id: entity.id });
      // The positive control: B's own check of its entity sees the balance.
      await t.precondition("B's entity has its 5 units", async () => expect((await balanceNow(t, b, units.id, entity.id)).remaining).toBe(5));

      for (const sendEvent of [false, true]) {
        const result = await t.client.call('balances.check', { customer_id: a, entity_id: entity.id, feature_id: units.id, required_balance: 2, send_event: sendEvent });
        t.check('CHECK-ENTITY-OWN-CUSTOMER', () => {
          if (!result.ok) return expect(result.status, "refusing A's check of B's entity is fine: a 4xx").toBeLessThan(500);
          expect(result.body.allowed, `A's check${sendEvent ? ' with send_event' : ''} of B's entity is not allowed`).toBe(false);
          expect(result.body.balance ?? null, "and does not show B's balance").toBeNull();
          expect(Object.values(result.body.balances ?? {}).filter((balance) => balance !== null), 'nor any balance in the map').toEqual([]);
        });
      }
      const after = await balanceNow(t, b, units.id, entity.id);
      t.check('CHECK-ENTITY-OWN-CUSTOMER', () => expect(after.usage, "nothing of B's entity was used").toBe(0));
    },
  ),

  scenario(
    {
      id: 'balances.check-negative-required-balance',
      title: 'send_event or a lock with a negative required_balance is refused with 400 and gives no units back; the same check without them is allowed, and the same amount positive accepted',
      rules: ['CHECK-REQUIRED-BALANCE-NEGATIVE'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      await spend(t, customerId, feature.id, 4, true);
      const base = { customer_id: customerId, feature_id: feature.id, required_balance: -3 };
      t.expectError(await t.client.call('balances.check', { ...base, send_event: true }), { status: 400, rule: 'CHECK-REQUIRED-BALANCE-NEGATIVE' });
      t.expectError(await t.client.call('balances.check', { ...base, lock: { lock_id: t.ns.id('lock'), enabled: true } }), { status: 400, rule: 'CHECK-REQUIRED-BALANCE-NEGATIVE' });
      // The nearest valid requests: the same check without send_event or a lock (a balance meets a
      // required balance of zero or less, as in the reference), and the same amount positive.
      const plain = t.expectOk(await t.client.call('balances.check', base), 'CHECK-REQUIRED-BALANCE-NEGATIVE');
      t.check('CHECK-REQUIRED-BALANCE-NEGATIVE', () => expect(plain.allowed, 'a plain check of -3 is allowed').toBe(true));
      const after = await balanceNow(t, customerId, feature.id);
      t.check('CHECK-REQUIRED-BALANCE-NEGATIVE', () => expect(after.usage, 'none of the three checks gave anything back').toBe(4));
      await spend(t, customerId, feature.id, 3, true);
    },
  ),

  scenario(
    {
      id: 'balances.check-preview',
      title: 'with_preview adds upgrade information to a denied check only: the feature and the plans that grant it',
      rules: ['CHECK-PREVIEW-WHEN-DENIED', 'CHECK-PREVIEW-ONLY-WHEN-REQUESTED', 'CHECK-PREVIEW-WIRE'],
    },
    async (t) => {
      const units = await createFeature(t, 'consumable');
      const flag = await createFeature(t, 'boolean');
      const small = await createPlan(t, { items: [{ feature_id: units.id, included: 2, reset: MONTHLY }] });
      const big = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 100, reset: MONTHLY }, { feature_id: flag.id }] });
      const customerId = await customerHolding(t, [small]);

      const denied = await ask(t, 'CHECK-PREVIEW-WHEN-DENIED', { customer_id: customerId, feature_id: units.id, required_balance: 5, with_preview: true });
      t.precondition('5 units are more than the 2 granted', () => expect(denied.allowed).toBe(false));
      t.check('CHECK-PREVIEW-WHEN-DENIED', () => expect(denied.preview, 'a denied check with with_preview carries upgrade information').toBeTruthy());
      t.check('CHECK-PREVIEW-WIRE', () => {
        expect(denied.preview, 'about the usage limit of the checked feature').toMatchObject({ scenario: 'usage_limit', feature_id: units.id, feature_name: units.name });
        expect(denied.preview!.products.map((product) => product.id), 'offering the plan that grants more').toContain(big.id);
      });

      const flagged = await ask(t, 'CHECK-PREVIEW-WHEN-DENIED', { customer_id: customerId, feature_id: flag.id, with_preview: true });
      t.precondition('the customer does not hold the flag', () => expect(flagged.allowed).toBe(false));
      t.check('CHECK-PREVIEW-WHEN-DENIED', () => expect(flagged.preview, 'a denied boolean check with with_preview carries upgrade information').toBeTruthy());
      t.check('CHECK-PREVIEW-WIRE', () => {
        expect(flagged.preview, 'a missing boolean feature is a feature_flag preview').toMatchObject({ scenario: 'feature_flag', feature_id: flag.id, feature_name: flag.name });
        expect(flagged.preview!.products.map((product) => product.id)).toContain(big.id);
      });

      const allowed = await ask(t, 'CHECK-PREVIEW-ONLY-WHEN-REQUESTED', { customer_id: customerId, feature_id: units.id, with_preview: true });
      t.precondition('1 unit of 2 is allowed', () => expect(allowed.allowed).toBe(true));
      t.check('CHECK-PREVIEW-ONLY-WHEN-REQUESTED', () => expect(allowed.preview ?? null, 'an allowed check carries no upgrade information').toBeNull());
      for (const withPreview of [undefined, false]) {
        const unasked = await ask(t, 'CHECK-PREVIEW-ONLY-WHEN-REQUESTED', { customer_id: customerId, feature_id: units.id, required_balance: 5, ...(withPreview !== undefined && { with_preview: withPreview }) });
        t.precondition('5 units are more than the 2 granted', () => expect(unasked.allowed).toBe(false));
        t.check('CHECK-PREVIEW-ONLY-WHEN-REQUESTED', () => expect(unasked.preview ?? null, `a denied check with with_preview ${String(withPreview)} carries no upgrade information`).toBeNull());
      }
    },
  ),

  scenario(
    {
      id: 'balances.check-required-fields',
      title: 'a check without customer_id or feature_id is refused and uses nothing',
      rules: ['CHECK-REQUIRED-FIELDS'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const incomplete = (body: Record<string, unknown>) => t.client.call('balances.check', body as CheckBody);
      t.expectError(await incomplete({ customer_id: customerId, required_balance: 4, send_event: true }), { rule: 'CHECK-REQUIRED-FIELDS' });
      t.expectError(await incomplete({ feature_id: feature.id, required_balance: 4, send_event: true }), { rule: 'CHECK-REQUIRED-FIELDS' });
      // The nearest valid request (both fields) is the read-back, which must be accepted.
      const after = await balanceNow(t, customerId, feature.id);
      t.check('CHECK-REQUIRED-FIELDS', () => expect(after.usage, 'the refused checks used nothing').toBe(0));
    },
  ),

  // ── Locks ───────────────────────────────────────────────────────────────────
  scenario(
    {
      id: 'balances.check-lock',
      title: 'a check with lock settings holds the units; balances.finalize confirm keeps them (or override_value instead), release gives them back',
      rules: ['CHECK-LOCK-RESERVES', 'CHECK-LOCK-CONFIRM', 'CHECK-LOCK-RELEASE', 'CHECK-LOCK-WIRE', 'BAL-FINALIZE-WIRE', 'BAL-FINALIZE-SHAPE', 'CHECK-BALANCE-ARITHMETIC'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const hold = async (required: number, allowed: boolean) => {
        const lockId = t.ns.id('lock');
        const result = await ask(t, 'CHECK-LOCK-WIRE', { customer_id: customerId, feature_id: feature.id, required_balance: required, lock: { lock_id: lockId, enabled: true } });
        t.precondition(`a lock of ${required} is ${allowed ? 'allowed' : 'denied'}`, () => expect(result.allowed).toBe(allowed));
        return lockId;
      };
      // The answer's shape is BAL-FINALIZE-SHAPE's (checked by the client); that the call is taken, BAL-FINALIZE-WIRE's.
      const finalize = async (body: z.input<Ops['balances.finalize']['request']>) => t.expectOk(await t.client.call('balances.finalize', body), 'BAL-FINALIZE-WIRE');
      const balance = () => balanceNow(t, customerId, feature.id);

      const confirmed = await hold(4, true);
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balance(), { granted: 10, usage: 4 }, 'a lock of 4 holds 4');
      await finalize({ lock_id: confirmed, action: 'confirm' });
      expectBalance(t, 'CHECK-LOCK-CONFIRM', await balance(), { granted: 10, usage: 4 }, 'confirm keeps the 4');

      const released = await hold(3, true);
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balance(), { granted: 10, usage: 7 }, 'a lock of 3 holds 3');
      await finalize({ lock_id: released, action: 'release' });
      expectBalance(t, 'CHECK-LOCK-RELEASE', await balance(), { granted: 10, usage: 4 }, 'release gives the 3 back');

      const overridden = await hold(2, true);
      await finalize({ lock_id: overridden, action: 'confirm', override_value: 1 });
      expectBalance(t, 'CHECK-LOCK-CONFIRM', await balance(), { granted: 10, usage: 5 }, 'confirm with override_value 1 keeps 1 of the 2 held');

      await hold(9, false);
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balance(), { granted: 10, usage: 5 }, 'a denied lock holds nothing');
    },
  ),

  scenario(
    {
      id: 'balances.check-lock-expiry',
      title: 'a lock with expires_at holds its units until the clock passes expires_at, then gives them back',
      rules: ['CHECK-LOCK-WIRE', 'CHECK-LOCK-RESERVES', 'CHECK-BALANCE-ARITHMETIC'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const { now } = await t.control.call('clock.get', {});
      const locked = await ask(t, 'CHECK-LOCK-WIRE', { customer_id: customerId, feature_id: feature.id, required_balance: 4, lock: { lock_id: t.ns.id('lock'), enabled: true, expires_at: now + 60_000 } });
      t.precondition('a lock of 4 out of 10 is allowed', () => expect(locked.allowed).toBe(true));
      expectBalance(t, 'CHECK-LOCK-RESERVES', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 4 }, 'the lock holds 4');
      await t.control.call('clock.advance', { ms: 30_000 });
      expectBalance(t, 'CHECK-LOCK-WIRE', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 4 }, 'halfway to expires_at, the lock still holds 4');
      await t.control.call('clock.advance', { ms: 31_000 });
      expectBalance(t, 'CHECK-LOCK-WIRE', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 0 }, 'past expires_at, the 4 are back');
    },
  ),

  // ── balances.track and events ───────────────────────────────────────────────
  scenario(
    {
      id: 'balances.track',
      title: 'balances.track records value units: later checks show usage up and remaining down by value',
      rules: ['BAL-TRACK-DEDUCTS', 'BAL-TRACK-SHAPE', 'CHECK-BALANCE-ARITHMETIC'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10, 5);
      // The answer's shape is BAL-TRACK-SHAPE's (checked by the client).
      t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: 5 }), 'BAL-TRACK-DEDUCTS');
      expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 15, usage: 5 }, 'after tracking 5');
      t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: 7 }), 'BAL-TRACK-DEDUCTS');
      expectBalance(t, 'BAL-TRACK-DEDUCTS', await balanceNow(t, customerId, feature.id), { granted: 15, usage: 12 }, 'after tracking 7 more, across both sources');
    },
  ),

  scenario(
    {
      id: 'balances.event-names',
      title: 'an event name declared by several features drives each of their balances, and only theirs',
      rules: ['EVT-EVENT-NAMES', 'CHECK-BALANCE-ARITHMETIC'],
    },
    async (t) => {
      const eventName = t.ns.id('evt');
      const [first, second] = [await createFeature(t, 'consumable', { event_names: [eventName] }), await createFeature(t, 'consumable', { event_names: [eventName] })];
      const bystander = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [first, second, bystander].map((feature) => ({ feature_id: feature.id, included: 10, reset: MONTHLY })) });
      const customerId = await customerHolding(t, [plan]);
      // balances.track is the reference's call (setup): the documented balances.check shows what it drove.
      t.setup(await t.client.call('balances.track', { customer_id: customerId, event_name: eventName, value: 3 }));
      for (const feature of [first, second]) {
        expectBalance(t, 'EVT-EVENT-NAMES', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 3 }, `${feature.id} declares ${eventName}`);
      }
      expectBalance(t, 'EVT-EVENT-NAMES', await balanceNow(t, customerId, bystander.id), { granted: 10, usage: 0 }, `${bystander.id} does not declare ${eventName}`);
    },
  ),

  scenario(
    {
      id: 'balances.events-recorded',
      title: 'send_event records one usage event of required_balance with its properties; plain and denied checks record none',
      rules: ['CHECK-EVENT-PROPERTIES', 'CHECK-PROPERTIES-WIRE', 'EVT-AMOUNT-IS-REQUIRED-BALANCE', 'EVT-ONLY-WITH-SEND-EVENT', 'CHECK-SEND-EVENT-RECORDS', 'CHECK-SEND-EVENT-ATOMIC'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const events = async () => (await t.control.call('events.list', { customer_id: customerId })).list;

      await ask(t, 'EVT-ONLY-WITH-SEND-EVENT', { customer_id: customerId, feature_id: feature.id, required_balance: 2 });
      const none = await events();
      t.check('EVT-ONLY-WITH-SEND-EVENT', () => expect(none, 'a plain check records no event').toEqual([]));

      const properties = { source: 'conformance', attempt: 1, tags: ['a', 'b'] };
      const body = (required: number): CheckBody => ({ customer_id: customerId, feature_id: feature.id, required_balance: required, send_event: true, properties });
      const used = await ask(t, 'CHECK-PROPERTIES-WIRE', body(3));
      t.precondition('a send_event of 3 out of 10 is allowed', () => expect(used.allowed).toBe(true));
      const denied = await ask(t, 'CHECK-PROPERTIES-WIRE', body(50));
      t.precondition('a send_event of 50 out of 7 is denied', () => expect(denied.allowed).toBe(false));
      const recorded = await events();
      t.check('CHECK-SEND-EVENT-RECORDS', () => {
        expect(recorded.length, 'the allowed send_event recorded an event').toBeGreaterThan(0);
        expect(recorded[0], 'of the customer and feature checked').toMatchObject({ customer_id: customerId, entity_id: null, feature_id: feature.id });
      });
      t.check('CHECK-SEND-EVENT-ATOMIC', () => expect(recorded, 'one event: the denied send_event recorded none').toHaveLength(1));
      t.check('EVT-AMOUNT-IS-REQUIRED-BALANCE', () => expect(recorded[0]!.value, 'of required_balance units').toBe(3));
      t.check('CHECK-EVENT-PROPERTIES', () => expect(recorded[0]!.properties, 'with the properties attached').toEqual(properties));
    },
  ),
];
