/**
 * Scenarios of balances.check's answer: sums over grant sources, allowed and denied, unlimited and
 * boolean features, a balance's flags and purchase cap, the credit systems in its balances map, and
 * its required fields.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { attach, cappedUsagePrice, createCustomer, createFeature, createPlan, MONTHLY, readBalance, scenario } from '../../support.ts';
import { ask, balanceNow, bySource, type CheckBody, consumable, customerHolding, expectBalance, read, sources, spend } from './support.ts';

export const checkScenarios = [
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
      // Drawing credits is FEAT-CREDIT-SYSTEM's (features/credit-systems.ts): here only premises.
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
];
