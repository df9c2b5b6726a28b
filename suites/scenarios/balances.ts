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
import {
  attach,
  checkProperty,
  createCustomer,
  createEntity,
  createFeature,
  createLicensePool,
  createPlan,
  licenseEntities,
  scenario,
  type Ops,
  type T,
} from '../support.ts';

type CheckBody = z.input<typeof BalancesCheckRequest>;
type CheckResult = z.output<Ops['balances.check']['response']>;
type BalanceView = z.output<typeof Balance>;

const MONTHLY = { interval: 'month' } as const;

async function check(t: T, body: CheckBody): Promise<CheckResult> {
  return t.expectOk(await t.client.call('balances.check', body));
}

/** The balance a plain check (one unit, nothing used) shows; it must exist. */
async function balanceNow(t: T, customerId: string, featureId: string, entityId?: string): Promise<BalanceView> {
  const result = await check(t, { customer_id: customerId, feature_id: featureId, ...(entityId !== undefined && { entity_id: entityId }) });
  expect(result.balance, `${customerId}${entityId ? `/${entityId}` : ''} has a balance of ${featureId}`).not.toBeNull();
  return result.balance!;
}

/**
 * Asserts a balance's totals, that what remains is what was granted less what was used, and that its
 * breakdown entries add up to it, each with the same arithmetic.
 */
function expectBalance(balance: BalanceView | null, expected: { granted: number; remaining: number; usage: number }, label: string): void {
  expect(balance, `${label}: a balance`).not.toBeNull();
  const { granted, remaining, usage, breakdown } = balance!;
  expect({ granted, remaining, usage }, `${label}: granted, remaining and usage`).toEqual(expected);
  expect(remaining, `${label}: remaining = granted - usage`).toBe(granted - usage);
  const sum = (pick: (entry: BalanceView['breakdown'][number]) => number) => breakdown.reduce((total, entry) => total + pick(entry), 0);
  expect(
    { granted: sum((e) => e.included_grant + e.prepaid_grant), remaining: sum((e) => e.remaining), usage: sum((e) => e.usage) },
    `${label}: the breakdown entries add up to the balance`,
  ).toEqual({ granted, remaining, usage });
  for (const entry of breakdown) {
    expect(entry.remaining, `${label}: breakdown entry of ${entry.plan_id}: remaining = included + prepaid - usage`).toBe(entry.included_grant + entry.prepaid_grant - entry.usage);
  }
}

/** Grant sources as [plan_id, included_grant] pairs, sorted by plan, so that their order does not matter. */
function bySource(pairs: readonly (readonly [string, number])[]): [string, number][] {
  return pairs.map(([planId, included]): [string, number] => [planId, included]).sort(([a], [b]) => a.localeCompare(b));
}

/** The grant sources of a balance's breakdown. */
function sources(balance: BalanceView | null): [string, number][] {
  return bySource((balance?.breakdown ?? []).map((entry) => [entry.plan_id, entry.included_grant] as const));
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

/** A check that uses `required` units (send_event), asserting whether it was allowed. */
async function use(t: T, customerId: string, featureId: string, required: number, allowed: boolean, extra: Partial<CheckBody> = {}): Promise<CheckResult> {
  const result = await check(t, { customer_id: customerId, feature_id: featureId, required_balance: required, send_event: true, ...extra });
  expect(result.allowed, `send_event of ${required} ${allowed ? 'allowed' : 'denied'}`).toBe(allowed);
  return result;
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
        'EVT-ONLY-WITH-SEND-EVENT',
      ],
    },
    async (t) => {
      const { feature, mainPlan, addOnPlan, customerId } = await consumable(t, 10, 5);
      const ask = (extra: Partial<CheckBody> = {}) => check(t, { customer_id: customerId, feature_id: feature.id, ...extra });

      const first = await ask();
      expect(first, 'an omitted required_balance is 1, and 15 units allow it').toMatchObject({ allowed: true, customer_id: customerId, required_balance: 1 });
      expect(first.entity_id ?? null, 'no entity was named').toBeNull();
      expectBalance(first.balance, { granted: 15, remaining: 15, usage: 0 }, 'main 10 + add-on 5');
      expect(first.balance!.feature_id).toBe(feature.id);
      expect(sources(first.balance), 'one breakdown entry per plan granting the feature').toEqual(bySource([[mainPlan.id, 10], [addOnPlan!.id, 5]]));
      for (const entry of first.balance!.breakdown) expect(entry.price, `the unpriced grant of ${entry.plan_id} has price null`).toBeNull();
      expect(first.balances[feature.id], 'the balances map carries the checked feature, as the balance').toEqual(first.balance);

      expect((await ask({ required_balance: 15 })).allowed, 'exactly the 15 remaining units suffice').toBe(true);
      const over = await ask({ required_balance: 16 });
      expect(over.allowed, '16 units are more than the 15 remaining').toBe(false);
      expectBalance(over.balance, { granted: 15, remaining: 15, usage: 0 }, 'a denied check still shows the balance');
      expect((await ask({ required_balance: 0 })).allowed, 'a required balance of 0 is always met').toBe(true);
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 15, remaining: 15, usage: 0 }, 'plain checks used nothing');

      await use(t, customerId, feature.id, 12, true);
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 15, remaining: 3, usage: 12 }, 'after using 12');
      expect((await ask({ required_balance: 3 })).allowed, 'exactly the 3 remaining units suffice').toBe(true);
      expect((await ask({ required_balance: 4 })).allowed, '4 units are more than the 3 remaining').toBe(false);

      await use(t, customerId, feature.id, 3, true);
      const empty = await ask();
      expect(empty, 'with nothing left, the default required_balance of 1 is denied').toMatchObject({ allowed: false, required_balance: 1 });
      expectBalance(empty.balance, { granted: 15, remaining: 0, usage: 15 }, 'all used');
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
      const balance = () => balanceNow(t, customerId, feature.id);

      await use(t, customerId, feature.id, 3, true, { properties: { source: 'conformance', attempt: 1 } });
      expectBalance(await balance(), { granted: 10, remaining: 7, usage: 3 }, 'send_event of 3 (with properties) used 3');

      await use(t, customerId, feature.id, 8, false);
      expectBalance(await balance(), { granted: 10, remaining: 7, usage: 3 }, 'a denied send_event of 8 used nothing, not even the 7 left');

      await use(t, customerId, feature.id, 0, true);
      expectBalance(await balance(), { granted: 10, remaining: 7, usage: 3 }, 'send_event of 0 used nothing');

      await use(t, customerId, feature.id, 7, true);
      expectBalance(await balance(), { granted: 10, remaining: 0, usage: 10 }, 'send_event of exactly the 7 left used them all');

      const denied = await check(t, { customer_id: customerId, feature_id: feature.id, send_event: true });
      expect(denied.allowed, 'with nothing left, send_event of the default 1 is denied').toBe(false);
      expectBalance(await balance(), { granted: 10, remaining: 0, usage: 10 }, 'the denied send_event used nothing');
    },
  ),

  scenario(
    {
      id: 'balances.check-send-event-concurrent',
      title: 'N concurrent send_event checks against a balance of M allow exactly min(N, M), and usage ends at exactly that',
      rules: ['CHECK-SEND-EVENT-ATOMIC', 'CHECK-SEND-EVENT-RECORDS'],
    },
    async (t) => {
      const { feature, mainPlan, customerId: crowded } = await consumable(t, 6);
      const [spare, coarse] = [await customerHolding(t, [mainPlan]), await customerHolding(t, [mainPlan])];
      const race = async (customerId: string, checks: number, required: number) => {
        const results = await Promise.all(Array.from({ length: checks }, () => check(t, { customer_id: customerId, feature_id: feature.id, required_balance: required, send_event: true })));
        return results.filter((result) => result.allowed).length;
      };

      expect(await race(crowded, 10, 1), '10 concurrent checks of 1 against 6 units: exactly 6 allowed').toBe(6);
      expectBalance(await balanceNow(t, crowded, feature.id), { granted: 6, remaining: 0, usage: 6 }, '10 checks against 6');

      expect(await race(spare, 4, 1), '4 concurrent checks of 1 against 6 units: all 4 allowed').toBe(4);
      expectBalance(await balanceNow(t, spare, feature.id), { granted: 6, remaining: 2, usage: 4 }, '4 checks against 6');

      expect(await race(coarse, 3, 4), '3 concurrent checks of 4 against 6 units: exactly 1 allowed').toBe(1);
      expectBalance(await balanceNow(t, coarse, feature.id), { granted: 6, remaining: 2, usage: 4 }, '3 checks of 4 against 6: the denied ones took nothing');
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
      const property = fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }), async (main, addOn, steps) => {
        const mainPlan = await createPlan(t, { items: [{ feature_id: feature.id, included: main, reset: MONTHLY }] });
        const addOnPlan = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: addOn, reset: MONTHLY }] });
        const customerId = await customerHolding(t, [mainPlan, addOnPlan]);
        const model = new ConsumableModel(main + addOn);
        for (const [i, step] of steps.entries()) {
          const label = `step ${i} (${JSON.stringify(step)}) on main ${main} + add-on ${addOn}`;
          if (step.kind === 'check') {
            const result = await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: step.required, send_event: step.sendEvent });
            expect(result.allowed, `${label}: allowed`).toBe(model.check(step.required, step.sendEvent));
          } else {
            t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: step.value, overage_behavior: 'cap' }));
            model.track(step.value);
          }
          const after = await check(t, { customer_id: customerId, feature_id: feature.id });
          expect(after.allowed, `${label}: a plain check of 1 afterwards`).toBe(model.check(1, false));
          expectBalance(after.balance, { granted: model.granted, remaining: model.remaining, usage: model.usage }, label);
          expect(sources(after.balance), `${label}: one breakdown entry per source`).toEqual(bySource([[mainPlan.id, main], [addOnPlan.id, addOn]]));
        }
      });
      await checkProperty(t, property, 15);
    },
  ),

  scenario(
    {
      id: 'balances.check-unlimited',
      title: 'an unlimited feature allows any amount, with or without send_event',
      rules: ['CHECK-ALLOWED-UNLIMITED'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, unlimited: true }] });
      const customerId = await customerHolding(t, [plan]);
      const huge = await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: 1_000_000 });
      expect(huge.allowed, 'an unlimited feature allows 1,000,000 units').toBe(true);
      expect(huge.balance?.unlimited, 'the balance says unlimited').toBe(true);
      await use(t, customerId, feature.id, 5_000, true);
      await use(t, customerId, feature.id, 5_000, true);
      expect((await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: 1_000_000 })).allowed, 'still allowed after using 10,000').toBe(true);
    },
  ),

  scenario(
    {
      id: 'balances.check-boolean',
      title: 'a boolean feature in a plan is allowed with its flag and no balance; one the customer lacks is denied, as is a metered feature without a grant',
      rules: ['CHECK-RESULT-SHAPE', 'CHECK-ALLOWED-BOOLEAN-IN-PLAN', 'CHECK-FLAG-OBJECT', 'CHECK-DENIED-OTHERWISE', 'CHECK-BALANCE-NULL', 'CHECK-SEND-EVENT-BOOLEAN'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const metered = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const holder = await customerHolding(t, [plan]);
      const stranger = await customerHolding(t, []);

      const granted = await check(t, { customer_id: holder, feature_id: flag.id });
      expect(granted.allowed, 'a boolean feature included in the plan is allowed').toBe(true);
      expect(granted.balance, 'a boolean feature has no balance').toBeNull();
      expect(granted.flag, 'the flag object names the feature and the plan').toMatchObject({ feature_id: flag.id, plan_id: plan.id, expires_at: null });
      expect(granted.flag!.id, 'the flag has an id').toEqual(expect.any(String));

      const lacking = await check(t, { customer_id: stranger, feature_id: flag.id });
      expect(lacking.allowed, 'a boolean feature in none of the customer\'s plans is denied').toBe(false);
      expect(lacking.flag ?? null, 'no flag').toBeNull();
      expect(lacking.balance, 'no balance').toBeNull();

      for (const required of [1, 0]) {
        const ungranted = await check(t, { customer_id: holder, feature_id: metered.id, required_balance: required });
        expect(ungranted.allowed, `a metered feature the customer holds no grant of is denied (required ${required})`).toBe(false);
        expect(ungranted.balance, 'and its balance is null').toBeNull();
      }

      t.expectError(await t.client.call('balances.check', { customer_id: holder, feature_id: flag.id, send_event: true }), { status: 400, code: 'invalid_request' });
      expect((await check(t, { customer_id: holder, feature_id: flag.id })).allowed, 'the refused send_event changed nothing').toBe(true);
    },
  ),

  scenario(
    {
      id: 'balances.check-credit-system',
      title: 'a check covers the credit systems pricing the feature, and draws credits at the credit cost once the feature\'s own balance is used up',
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
      const maps = async (label: string, expected: { own: { remaining: number; usage: number }; credits: { remaining: number; usage: number } }) => {
        const { balances } = await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: 0 });
        expect(Object.keys(balances).sort(), `${label}: the balances map covers the feature and its credit system`).toEqual([credits.id, feature.id].sort());
        expectBalance(balances[feature.id]!, { granted: 3, ...expected.own }, `${label}: the feature's own balance`);
        expectBalance(balances[credits.id]!, { granted: 20, ...expected.credits }, `${label}: the credit system's balance`);
      };

      await maps('unused', { own: { remaining: 3, usage: 0 }, credits: { remaining: 20, usage: 0 } });
      await use(t, customerId, feature.id, 3, true);
      await maps('3 units from the feature\'s own balance', { own: { remaining: 0, usage: 3 }, credits: { remaining: 20, usage: 0 } });
      await use(t, customerId, feature.id, 2, true);
      await maps('2 more units cost 4 credits', { own: { remaining: 0, usage: 3 }, credits: { remaining: 16, usage: 4 } });
      await use(t, customerId, feature.id, 9, false);
      await maps('9 units would cost 18 credits, more than the 16 left: nothing used', { own: { remaining: 0, usage: 3 }, credits: { remaining: 16, usage: 4 } });
      await use(t, customerId, feature.id, 8, true);
      await maps('8 units cost the 16 credits left', { own: { remaining: 0, usage: 3 }, credits: { remaining: 0, usage: 20 } });
      expect((await check(t, { customer_id: customerId, feature_id: feature.id })).allowed, 'nothing left in either balance').toBe(false);
    },
  ),

  scenario(
    {
      id: 'balances.check-entity-scoped',
      title: 'with entity_id a check answers for that entity: its own plans and seats count, not a sibling\'s, and not at customer level',
      rules: ['CHECK-ENTITY-SCOPED'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: MONTHLY }] });
      const customerId = await customerHolding(t, []);
      const [holder, sibling] = [await createEntity(t, customerId, seats.id), await createEntity(t, customerId, seats.id)];
      await attach(t, customerId, plan.id, { entity_id: holder.id });

      const own = await check(t, { customer_id: customerId, entity_id: holder.id, feature_id: units.id });
      expect(own.allowed, 'the entity holding the plan is allowed').toBe(true);
      expect(own.entity_id, 'the result names the entity').toBe(holder.id);
      expectBalance(own.balance, { granted: 5, remaining: 5, usage: 0 }, 'the entity\'s own grant');
      for (const [who, entityId] of [['a sibling entity', sibling.id], ['the customer', undefined]] as const) {
        const other = await check(t, { customer_id: customerId, feature_id: units.id, ...(entityId !== undefined && { entity_id: entityId }) });
        expect(other.allowed, `${who} does not hold the entity's plan`).toBe(false);
        expect(other.balance, `${who} has no balance of it`).toBeNull();
      }
      await use(t, customerId, units.id, 2, true, { entity_id: holder.id });
      expectBalance(await balanceNow(t, customerId, units.id, holder.id), { granted: 5, remaining: 3, usage: 2 }, 'the entity used 2 of its own');
      t.expectError(await t.client.call('balances.check', { customer_id: customerId, entity_id: t.ns.id('nobody'), feature_id: units.id }));

      // A license seat grants its entity, not the customer.
      const pool = await createLicensePool(t, 1);
      const [seat] = licenseEntities(t, pool, 1);
      t.expectOk(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: [seat!] }));
      expect((await check(t, { customer_id: pool.customerId, entity_id: seat!.entity_id, feature_id: pool.flag.id })).allowed, 'the licensed entity has the seat plan\'s flag').toBe(true);
      expect((await check(t, { customer_id: pool.customerId, feature_id: pool.flag.id })).allowed, 'the customer itself does not').toBe(false);
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

      const denied = await check(t, { customer_id: customerId, feature_id: units.id, required_balance: 5, with_preview: true });
      expect(denied.allowed).toBe(false);
      expect(denied.preview, 'a denied check with with_preview carries upgrade information').toBeTruthy();
      expect(denied.preview, 'about the usage limit of the checked feature').toMatchObject({ scenario: 'usage_limit', feature_id: units.id, feature_name: units.name });
      expect(denied.preview!.products.map((product) => product.id), 'offering the plan that grants more').toContain(big.id);

      const flagged = await check(t, { customer_id: customerId, feature_id: flag.id, with_preview: true });
      expect(flagged.allowed).toBe(false);
      expect(flagged.preview, 'a missing boolean feature is a feature_flag preview').toMatchObject({ scenario: 'feature_flag', feature_id: flag.id, feature_name: flag.name });
      expect(flagged.preview!.products.map((product) => product.id)).toContain(big.id);

      const allowed = await check(t, { customer_id: customerId, feature_id: units.id, with_preview: true });
      expect(allowed.allowed).toBe(true);
      expect(allowed.preview ?? null, 'an allowed check carries no upgrade information').toBeNull();
      for (const withPreview of [undefined, false]) {
        const unasked = await check(t, { customer_id: customerId, feature_id: units.id, required_balance: 5, ...(withPreview !== undefined && { with_preview: withPreview }) });
        expect(unasked.allowed).toBe(false);
        expect(unasked.preview ?? null, `a denied check with with_preview ${String(withPreview)} carries no upgrade information`).toBeNull();
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
      t.expectError(await incomplete({ customer_id: customerId, required_balance: 4, send_event: true }));
      t.expectError(await incomplete({ feature_id: feature.id, required_balance: 4, send_event: true }));
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 10, remaining: 10, usage: 0 }, 'the refused checks used nothing');
    },
  ),

  // ── Locks ───────────────────────────────────────────────────────────────────
  scenario(
    {
      id: 'balances.check-lock',
      title: 'a check with lock settings holds the units; balances.finalize confirm keeps them (or override_value instead), release gives them back',
      rules: ['CHECK-LOCK-RESERVES', 'CHECK-LOCK-CONFIRM', 'CHECK-LOCK-RELEASE', 'CHECK-LOCK-WIRE', 'BAL-FINALIZE-WIRE', 'BAL-FINALIZE-SHAPE'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const hold = async (required: number, allowed: boolean) => {
        const lockId = t.ns.id('lock');
        const result = await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: required, lock: { lock_id: lockId, enabled: true } });
        expect(result.allowed, `a lock of ${required} ${allowed ? 'allowed' : 'denied'}`).toBe(allowed);
        return lockId;
      };
      const finalize = async (body: z.input<Ops['balances.finalize']['request']>) =>
        expect(t.expectOk(await t.client.call('balances.finalize', body)), `finalize ${body.action} answers success`).toEqual({ success: true });
      const balance = () => balanceNow(t, customerId, feature.id);

      const confirmed = await hold(4, true);
      expectBalance(await balance(), { granted: 10, remaining: 6, usage: 4 }, 'a lock of 4 holds 4');
      expect((await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: 7 })).allowed, 'the held units are not available').toBe(false);
      await finalize({ lock_id: confirmed, action: 'confirm' });
      expectBalance(await balance(), { granted: 10, remaining: 6, usage: 4 }, 'confirm keeps the 4');

      const released = await hold(3, true);
      expectBalance(await balance(), { granted: 10, remaining: 3, usage: 7 }, 'a lock of 3 holds 3');
      await finalize({ lock_id: released, action: 'release' });
      expectBalance(await balance(), { granted: 10, remaining: 6, usage: 4 }, 'release gives the 3 back');

      const overridden = await hold(2, true);
      await finalize({ lock_id: overridden, action: 'confirm', override_value: 1 });
      expectBalance(await balance(), { granted: 10, remaining: 5, usage: 5 }, 'confirm with override_value 1 keeps 1 of the 2 held');

      await hold(9, false);
      expectBalance(await balance(), { granted: 10, remaining: 5, usage: 5 }, 'a denied lock holds nothing');
    },
  ),

  scenario(
    {
      id: 'balances.check-lock-expiry',
      title: 'a lock with expires_at holds its units until the clock passes expires_at, then gives them back',
      rules: ['CHECK-LOCK-WIRE', 'CHECK-LOCK-RESERVES'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const { now } = await t.control.call('clock.get', {});
      const locked = await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: 4, lock: { lock_id: t.ns.id('lock'), enabled: true, expires_at: now + 60_000 } });
      expect(locked.allowed, 'a lock of 4 out of 10 is allowed').toBe(true);
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 10, remaining: 6, usage: 4 }, 'the lock holds 4');
      await t.control.call('clock.advance', { ms: 30_000 });
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 10, remaining: 6, usage: 4 }, 'halfway to expires_at, the lock still holds 4');
      await t.control.call('clock.advance', { ms: 31_000 });
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 10, remaining: 10, usage: 0 }, 'past expires_at, the 4 are back');
    },
  ),

  // ── balances.track and events ───────────────────────────────────────────────
  scenario(
    {
      id: 'balances.track',
      title: 'balances.track records value units: later checks show usage up and remaining down by value',
      rules: ['BAL-TRACK-DEDUCTS', 'BAL-TRACK-SHAPE'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10, 5);
      const tracked = t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: 5 }));
      expect(tracked, 'the track answer names the customer and the value').toMatchObject({ customer_id: customerId, value: 5 });
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 15, remaining: 10, usage: 5 }, 'after tracking 5');
      t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: feature.id, value: 7 }));
      expectBalance(await balanceNow(t, customerId, feature.id), { granted: 15, remaining: 3, usage: 12 }, 'after tracking 7 more, across both sources');
    },
  ),

  scenario(
    {
      id: 'balances.event-names',
      title: 'an event name declared by several features drives each of their balances, and only theirs',
      rules: ['EVT-EVENT-NAMES'],
    },
    async (t) => {
      const eventName = t.ns.id('evt');
      const [first, second] = [await createFeature(t, 'consumable', { event_names: [eventName] }), await createFeature(t, 'consumable', { event_names: [eventName] })];
      const bystander = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [first, second, bystander].map((feature) => ({ feature_id: feature.id, included: 10, reset: MONTHLY })) });
      const customerId = await customerHolding(t, [plan]);
      t.expectOk(await t.client.call('balances.track', { customer_id: customerId, event_name: eventName, value: 3 }));
      for (const feature of [first, second]) {
        expectBalance(await balanceNow(t, customerId, feature.id), { granted: 10, remaining: 7, usage: 3 }, `${feature.id} declares ${eventName}`);
      }
      expectBalance(await balanceNow(t, customerId, bystander.id), { granted: 10, remaining: 10, usage: 0 }, `${bystander.id} does not declare ${eventName}`);
    },
  ),

  scenario(
    {
      id: 'balances.events-recorded',
      title: 'send_event records one usage event of required_balance with its properties; plain and denied checks record none',
      rules: ['CHECK-EVENT-PROPERTIES', 'CHECK-PROPERTIES-WIRE', 'EVT-AMOUNT-IS-REQUIRED-BALANCE', 'EVT-ONLY-WITH-SEND-EVENT', 'CHECK-SEND-EVENT-RECORDS'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const events = async () => (await t.control.call('events.list', { customer_id: customerId })).list;

      await check(t, { customer_id: customerId, feature_id: feature.id, required_balance: 2 });
      expect(await events(), 'a plain check records no event').toEqual([]);

      const properties = { source: 'conformance', attempt: 1, tags: ['a', 'b'] };
      await use(t, customerId, feature.id, 3, true, { properties });
      await use(t, customerId, feature.id, 50, false, { properties });
      const recorded = await events();
      expect(recorded, 'one event, for the allowed send_event only').toHaveLength(1);
      expect(recorded[0], 'of required_balance units, with the properties attached').toMatchObject({ customer_id: customerId, entity_id: null, feature_id: feature.id, value: 3, properties });
    },
  ),
];
