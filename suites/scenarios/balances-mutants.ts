/**
 * Balance scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's balances that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, readBalance, scenario, type T } from '../support.ts';

const MONTHLY = { interval: 'month' } as const;

/** A customer on a plan of 5 included units a month and a usage price capped at 10 more (max_purchase). */
async function cappedUsagePrice(t: T) {
  const feature = await createFeature(t, 'consumable');
  const price = { amount: 0.1, interval: 'month', billing_method: 'usage_based', max_purchase: 10 } as const;
  const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY, price }] });
  const customer = await createCustomer(t);
  await attach(t, customer.id, plan.id);
  return { feature, customer };
}

export const balancesMutantScenarios = [
  scenario(
    {
      id: 'balances.next-reset-of-allocated-ms',
      title: 'the balance of an allocated feature, which never resets, has no next reset, not a zero timestamp',
      rules: ['CONV-TIMESTAMPS-MS'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { items: [{ feature_id: seats.id, included: 3 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: seats.id }), ['balance']);
      t.precondition('the customer has a balance of the allocated feature', () => expect(balance).not.toBeNull());
      const nextReset = balance!.next_reset_at;
      t.check('CONV-TIMESTAMPS-MS', () => {
        if (nextReset === null || nextReset === undefined) return;
        expect(Number.isInteger(nextReset), `next_reset_at ${nextReset} is an integer`).toBe(true);
        expect(nextReset, 'next_reset_at is Unix milliseconds (> 10^12)').toBeGreaterThan(1e12);
      });
    },
  ),

  scenario(
    {
      id: 'balances.unlimited-with-limited-source',
      title: 'a feature one of whose grant sources is unlimited is unlimited: any amount is allowed, beyond what the limited source grants',
      rules: ['CHECK-ALLOWED-UNLIMITED'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const limited = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const unlimited = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, unlimited: true }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, limited.id);
      await attach(t, customer.id, unlimited.id);
      for (const required of [6, 1e12]) {
        const result = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: required }), ['allowed']);
        t.check('CHECK-ALLOWED-UNLIMITED', () => expect(result.allowed, `${required} units, with an unlimited source beside 5 limited units`).toBe(true));
      }
    },
  ),

  scenario(
    {
      id: 'balances.overage-with-unpriced-source',
      title: 'a balance fed by a usage-priced grant and an unpriced one allows overage: the usage price applies beyond the included amount',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const priced = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY, price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }] });
      const unpriced = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, priced.id);
      await attach(t, customer.id, unpriced.id);
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id }), ['balance']);
      t.precondition('the customer has a balance of the feature', () => expect(balance).not.toBeNull());
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(balance!.overage_allowed, 'one of its grants carries a usage price').toBe(true));
    },
  ),

  scenario(
    {
      id: 'balances.next-reset-is-earliest',
      title: 'a balance fed by a daily and a monthly source next resets when the daily one does',
      rules: ['PLAN-CONSUMABLE-RESET'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const daily = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: { interval: 'day' } }] });
      const monthly = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      const nextReset = async () => t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), ['balance']).balance?.next_reset_at;
      await attach(t, customer.id, daily.id);
      // The daily source alone gives the time to expect (not the breakdown's resets_at: that is CHECK-BREAKDOWN-RESET's).
      const daysReset = await nextReset();
      t.precondition('the daily source names its next reset', () => expect(daysReset).toEqual(expect.any(Number)));
      await attach(t, customer.id, monthly.id);
      const withMonthly = await nextReset();
      t.check('PLAN-CONSUMABLE-RESET', () => expect(withMonthly, 'the balance still next resets with its daily source, not the monthly one').toBe(daysReset));
    },
  ),

  scenario(
    {
      id: 'balances.flag-of-another-feature-denied',
      title: 'a customer holding one boolean feature (and a metered one) is denied another boolean feature',
      rules: ['CHECK-DENIED-OTHERWISE'],
    },
    async (t) => {
      const [held, other] = [await createFeature(t, 'boolean'), await createFeature(t, 'boolean')];
      const metered = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: metered.id, included: 5, reset: MONTHLY }, { feature_id: held.id }] });
      await createPlan(t, { add_on: true, items: [{ feature_id: other.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const control = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: held.id }), ['allowed']);
      t.precondition('the boolean feature of the plan is allowed', () => expect(control.allowed).toBe(true));
      const denied = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: other.id }), ['allowed']);
      t.check('CHECK-DENIED-OTHERWISE', () => expect(denied.allowed, 'a boolean feature in none of the customer\'s plans').toBe(false));
    },
  ),

  scenario(
    {
      id: 'balances.overage-within-purchase-cap',
      title: 'a usage price with a purchase cap still lets use run past the included amount, within the cap',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const { feature, customer } = await cappedUsagePrice(t);
      const result = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 12 }), ['allowed']);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(result.allowed, '12 units: 5 included and 7 beyond, within the cap of 10').toBe(true));
    },
  ),

  scenario(
    {
      id: 'balances.overage-stops-at-purchase-cap',
      title: "use past the included amount stops exactly at the usage price's max_purchase, counting the overage already used",
      rules: ['CHECK-OVERAGE-PURCHASE-CAP'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const { feature, customer } = await cappedUsagePrice(t);
      const check = async (required: number, sendEvent = false) =>
        t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: required, send_event: sendEvent }), ['allowed']).allowed;
      const usedSoFar = async (units: number) => {
        const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), ['balance']);
        t.precondition(`${units} units are used`, () => expect(balance?.usage).toBe(units));
      };
      // The included 5 are used first, so every check below is past the balance (denying those is the
      // cap's doing, not CHECK-ALLOWED-BELOW-REQUIRED's).
      const included = await check(5, true);
      t.precondition('the 5 included units can be used', () => expect(included).toBe(true));
      await usedSoFar(5);
      // The nearest valid request, exactly on the cap: that use past the included amount is allowed at all is PLAN-USAGE-PRICE-OVERAGE's.
      const onTheCap = await check(10);
      t.precondition('10 more units (the whole cap) are allowed', () => expect(onTheCap).toBe(true));
      const pastTheCap = await check(11);
      t.check('CHECK-OVERAGE-PURCHASE-CAP', () => expect(pastTheCap, '11 units past the 5 included, with a cap of 10').toBe(false));
      const overage = await check(7, true);
      t.precondition('send_event of 7 units of overage is allowed', () => expect(overage).toBe(true));
      await usedSoFar(12);
      const [rest, pastTheRest] = [await check(3), await check(4)];
      t.check('CHECK-OVERAGE-PURCHASE-CAP', () => {
        expect(rest, 'the 3 units of the cap left after 7 of overage are allowed').toBe(true);
        expect(pastTheRest, 'and 4 are not').toBe(false);
      });
    },
  ),

  scenario(
    {
      id: 'balances.lock-override-across-sources',
      title: 'confirming a lock that holds units of two grant sources with a smaller override_value keeps exactly that many',
      rules: ['CHECK-LOCK-CONFIRM'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const main = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const addOn = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, addOn.id);
      const lockId = t.ns.id('lock');
      const held = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 8, lock: { lock_id: lockId, enabled: true } }), ['allowed']);
      t.precondition('the lock of 8 (more than either source has) is allowed', () => expect(held.allowed).toBe(true));
      t.setup(await t.client.call('balances.finalize', { lock_id: lockId, action: 'confirm', override_value: 2 }));
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), ['balance']);
      t.check('CHECK-LOCK-CONFIRM', () => expect(balance?.usage, 'confirm with override_value 2 keeps 2 of the 8 held').toBe(2));
    },
  ),

  scenario(
    {
      id: 'balances.send-event-on-unlimited',
      title: 'send_event on an unlimited feature records the usage: the balance shows the units used',
      rules: ['CHECK-SEND-EVENT-RECORDS', 'EVT-AMOUNT-IS-REQUIRED-BALANCE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, unlimited: true }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const used = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 7, send_event: true }), ['allowed']);
      t.precondition('an unlimited feature allows 7 units', () => expect(used.allowed).toBe(true));
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), ['balance']);
      // That usage was recorded at all is CHECK-SEND-EVENT-RECORDS'; that it is the 7 asked for, EVT-AMOUNT-IS-REQUIRED-BALANCE's.
      t.check('CHECK-SEND-EVENT-RECORDS', () => expect(balance?.usage, 'the check recorded usage').toBeGreaterThan(0));
      t.check('EVT-AMOUNT-IS-REQUIRED-BALANCE', () => expect(balance?.usage, 'the 7 units used').toBe(7));
    },
  ),

  scenario(
    {
      id: 'balances.send-event-into-overage',
      title: 'send_event beyond the included amount of a usage-priced item is allowed',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY, price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const used = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 8, send_event: true }), ['allowed']);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(used.allowed, 'send_event of 8 units, 3 beyond the 5 included').toBe(true));
    },
  ),

  scenario(
    {
      id: 'balances.overage-of-another-feature',
      title: 'a usage price on another feature of the plan lets no use past this feature\'s balance',
      rules: ['CHECK-ALLOWED-BELOW-REQUIRED'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const [limited, priced] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const plan = await createPlan(t, {
        items: [
          { feature_id: limited.id, included: 5, reset: MONTHLY },
          { feature_id: priced.id, included: 5, reset: MONTHLY, price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const control = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: limited.id, required_balance: 5 }), ['allowed']);
      t.precondition('the 5 included units are allowed', () => expect(control.allowed).toBe(true));
      const over = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: limited.id, required_balance: 6 }), ['allowed']);
      t.check('CHECK-ALLOWED-BELOW-REQUIRED', () => expect(over.allowed, '6 units of a balance of 5 without a price of its own').toBe(false));
    },
  ),

  scenario(
    {
      id: 'balances.own-balance-beside-unheld-credits',
      title: 'a denied check of a feature the customer holds, priced by a credit system the customer does not hold, shows the feature\'s own balance',
      rules: ['CHECK-BALANCE-NULL'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      await createFeature(t, 'consumable', { type: 'credit_system', credit_schema: [{ metered_feature_id: feature.id, credit_cost: 1 }] });
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 2, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const over = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 3 }), ['allowed']);
      t.precondition('3 units of a balance of 2 are denied', () => expect(over.allowed).toBe(false));
      t.check('CHECK-BALANCE-NULL', () => expect(over.balance?.granted, 'the customer has a balance of the feature: its own 2 units').toBe(2));
    },
  ),

  scenario(
    {
      id: 'balances.second-credit-system-suffices',
      title: 'of two credit systems pricing a feature, a check draws on the one whose credits suffice at its credit cost',
      rules: ['FEAT-CREDIT-SCHEMA-WIRE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const dear = await createFeature(t, 'consumable', { type: 'credit_system', credit_schema: [{ metered_feature_id: feature.id, credit_cost: 2 }] });
      const cheap = await createFeature(t, 'consumable', { type: 'credit_system', credit_schema: [{ metered_feature_id: feature.id, credit_cost: 1 }] });
      const plan = await createPlan(t, {
        items: [
          { feature_id: dear.id, included: 3, reset: MONTHLY },
          { feature_id: cheap.id, included: 10, reset: MONTHLY },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const result = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 2 }), ['allowed']);
      t.check('FEAT-CREDIT-SCHEMA-WIRE', () => expect(result.allowed, '2 units cost 4 of the 3 dear credits, or 2 of the 10 cheap ones').toBe(true));
    },
  ),

  scenario(
    {
      id: 'balances.no-preview-on-allowed-flag',
      title: 'an allowed check of a boolean feature with with_preview carries no upgrade information',
      rules: ['CHECK-PREVIEW-ONLY-WHEN-REQUESTED'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const result = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: flag.id, with_preview: true }), ['allowed']);
      t.precondition('the boolean feature of the plan is allowed', () => expect(result.allowed).toBe(true));
      t.check('CHECK-PREVIEW-ONLY-WHEN-REQUESTED', () => expect(result.preview ?? null, 'allowed, so no upgrade information').toBeNull());
    },
  ),

  scenario(
    {
      id: 'balances.lock-override-above-held',
      title: 'confirming a lock with a larger override_value uses the extra units of the locked feature, not of another feature of the plan',
      rules: ['CHECK-LOCK-CONFIRM'],
    },
    async (t) => {
      const [other, feature] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const plan = await createPlan(t, {
        items: [
          { feature_id: other.id, included: 10, reset: MONTHLY },
          { feature_id: feature.id, included: 10, reset: MONTHLY },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const lockId = t.ns.id('lock');
      const held = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 2, lock: { lock_id: lockId, enabled: true } }), ['allowed']);
      t.precondition('the lock of 2 is allowed', () => expect(held.allowed).toBe(true));
      t.setup(await t.client.call('balances.finalize', { lock_id: lockId, action: 'confirm', override_value: 4 }));
      const usage = async (featureId: string) =>
        t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: featureId, required_balance: 0 }), ['balance']).balance?.usage;
      const [own, others] = [await usage(feature.id), await usage(other.id)];
      t.check('CHECK-LOCK-CONFIRM', () => expect({ own, others }, 'override_value 4 uses 4 of the locked feature and none of the other').toEqual({ own: 4, others: 0 }));
    },
  ),

  scenario(
    {
      id: 'balances.lock-override-in-credits',
      title: 'a lock paid by a credit system, confirmed with a larger override_value, uses the extra units at the credit cost',
      rules: ['FEAT-CREDIT-SCHEMA-WIRE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const credits = await createFeature(t, 'consumable', { type: 'credit_system', credit_schema: [{ metered_feature_id: feature.id, credit_cost: 2 }] });
      const plan = await createPlan(t, { items: [{ feature_id: credits.id, included: 20, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const lockId = t.ns.id('lock');
      const held = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 2, lock: { lock_id: lockId, enabled: true } }), ['allowed']);
      t.precondition('the lock of 2 units (4 credits) is allowed', () => expect(held.allowed).toBe(true));
      const creditsUsed = async () =>
        t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: credits.id, required_balance: 0 }), ['balance']).balance?.usage;
      const locked = await creditsUsed();
      // The credit cost of a unit is FEAT-CREDIT-SYSTEM's, the lock holding it CHECK-LOCK-RESERVES'.
      t.precondition('the lock holds 2 units at 2 credits each', () => expect(locked).toBe(4));
      t.setup(await t.client.call('balances.finalize', { lock_id: lockId, action: 'confirm', override_value: 3 }));
      const confirmed = await creditsUsed();
      // Keeping what the lock held on confirm is CHECK-LOCK-CONFIRM's.
      t.precondition('the confirm with a larger override_value uses more than the lock held', () => expect(confirmed).toBeGreaterThan(4));
      t.check('FEAT-CREDIT-SCHEMA-WIRE', () => expect(confirmed, '3 units at 2 credits each').toBe(6));
    },
  ),

  scenario(
    {
      id: 'balances.cap-of-the-priced-source',
      title: "a balance fed by an unpriced grant and a usage-priced one capped at 10 reports the priced grant's max_purchase, whichever was attached first",
      rules: ['CHECK-BALANCE-FLAGS'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const price = { amount: 0.1, interval: 'month', billing_method: 'usage_based', max_purchase: 10 } as const;
      const unpriced = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const priced = await createPlan(t, { add_on: true, items: [{ feature_id: feature.id, included: 5, reset: MONTHLY, price }] });
      const customer = await createCustomer(t);
      // The unpriced grant first: the only cap there is comes second.
      await attach(t, customer.id, unpriced.id);
      await attach(t, customer.id, priced.id);
      const balance = await readBalance(t, customer.id, feature.id);
      // That a usage price beside an unpriced grant allows overage is PLAN-USAGE-PRICE-OVERAGE's.
      t.precondition('the balance sums both grants and allows overage', () => expect(balance).toMatchObject({ granted: 10, overage_allowed: true }));
      t.check('CHECK-BALANCE-FLAGS', () => expect(balance!.max_purchase, 'the overage it allows is capped at the priced item\'s 10').toBe(10));
    },
  ),

  scenario(
    {
      id: 'balances.track-overflow-past-balance',
      title: 'balances.track with overage_behavior "overflow" uses the full amount past the balance; the default "cap" stops at it',
      rules: ['BAL-TRACK-OVERAGE-BEHAVIOR'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 5, reset: MONTHLY }] });
      const [overflowing, capped] = [await createCustomer(t), await createCustomer(t)];
      const balanceOf = async (customerId: string) => {
        const balance = await readBalance(t, customerId, feature.id);
        return { granted: balance?.granted, usage: balance?.usage, remaining: balance?.remaining };
      };
      for (const customer of [overflowing, capped]) {
        await attach(t, customer.id, plan.id);
        t.setup(await t.client.call('balances.track', { customer_id: customer.id, feature_id: feature.id, value: 2 }));
        const start = await balanceOf(customer.id);
        // That a track within the balance uses its value is BAL-TRACK-DEDUCTS'.
        t.precondition('a track of 2 of the 5 units used 2', () => expect(start).toEqual({ granted: 5, usage: 2, remaining: 3 }));
      }
      t.expectOk(await t.client.call('balances.track', { customer_id: overflowing.id, feature_id: feature.id, value: 5, overage_behavior: 'overflow' }), 'BAL-TRACK-OVERAGE-BEHAVIOR');
      t.expectOk(await t.client.call('balances.track', { customer_id: capped.id, feature_id: feature.id, value: 5 }), 'BAL-TRACK-OVERAGE-BEHAVIOR');
      const [overflowed, stopped] = [await balanceOf(overflowing.id), await balanceOf(capped.id)];
      t.check('BAL-TRACK-OVERAGE-BEHAVIOR', () => {
        expect(overflowed, 'overflow: all 5 more are used, 2 past the balance').toEqual({ granted: 5, usage: 7, remaining: 0 });
        expect(stopped, 'cap: only the 3 that fit are used').toEqual({ granted: 5, usage: 5, remaining: 0 });
      });
    },
  ),
];
