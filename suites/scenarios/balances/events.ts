/**
 * Scenarios of send_event and the Events part: exactly required_balance used when allowed and nothing
 * when denied (also concurrently, and on unlimited features), the events recorded with their
 * properties, negative amounts refused, and event names driving several features.
 */
import { expect } from 'vitest';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, scenario, type T } from '../../support.ts';
import { ask, balanceNow, type CheckBody, consumable, customerHolding, expectBalance, spend } from './support.ts';

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

export const eventsScenarios = [
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
];
