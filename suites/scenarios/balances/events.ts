/**
 * Scenarios of send_event and the Events part: exactly required_balance used when allowed and nothing
 * when denied (also concurrently, and on unlimited features), the events recorded with their
 * properties, negative amounts refused, and event names driving several features.
 */
import { expect } from 'vitest';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, scenario, type T } from '../../support.ts';
import { ask, balanceNow, type CheckBody, consumable, customerHolding, expectBalance, expectGranted, SPEND_DENIED_RULES, SPEND_RULES, spend } from './support.ts';

/**
 * A send_event check of `required` units that the balance covers, proven: usage moves at all
 * (CHECK-SEND-EVENT-RECORDS, for a positive amount), then by exactly `required` (EVT-AMOUNT-IS-REQUIRED-BALANCE).
 */
async function expectSendEventUses(t: T, customerId: string, featureId: string, required: number, granted: number, extra: Partial<CheckBody> = {}, askRule: RuleId = 'CHECK-SEND-EVENT-RECORDS'): Promise<void> {
  const before = (await balanceNow(t, customerId, featureId))?.usage ?? Number.NaN;
  const result = await ask(t, askRule, { customer_id: customerId, feature_id: featureId, required_balance: required, send_event: true, ...extra });
  t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(result.allowed, `a send_event of ${required} with ${granted - before} left`).toBe(true));
  const after = await balanceNow(t, customerId, featureId);
  if (required > 0) t.check('CHECK-SEND-EVENT-RECORDS', () => expect((after?.usage ?? Number.NaN) - before, `a send_event of ${required} records usage`).toBeGreaterThan(0));
  expectBalance(t, 'EVT-AMOUNT-IS-REQUIRED-BALANCE', after, { granted, usage: before + required }, `a send_event of ${required} uses exactly ${required}`);
}

/** A denied send_event check: it uses nothing (CHECK-SEND-EVENT-ATOMIC). */
async function expectDeniedUsesNothing(t: T, customerId: string, featureId: string, required: number | undefined, granted: number): Promise<void> {
  const before = (await balanceNow(t, customerId, featureId))?.usage ?? Number.NaN;
  const body = { customer_id: customerId, feature_id: featureId, send_event: true, ...(required !== undefined && { required_balance: required }) };
  const result = await ask(t, 'CHECK-SEND-EVENT-ATOMIC', body);
  t.check('CHECK-ALLOWED-BELOW-REQUIRED', () => expect(result.allowed, `a send_event of ${required ?? 'the default 1'} with ${granted - before} left`).toBe(false));
  expectBalance(t, 'CHECK-SEND-EVENT-ATOMIC', await balanceNow(t, customerId, featureId), { granted, usage: before }, `a denied send_event of ${required ?? 1} used nothing`);
}

export const eventsScenarios = [
  scenario(
    {
      id: 'balances.check-send-event',
      title: 'send_event uses exactly required_balance when allowed and nothing when denied, and a following check shows it',
      rules: ['CHECK-SEND-EVENT-RECORDS', 'CHECK-SEND-EVENT-ATOMIC', 'EVT-AMOUNT-IS-REQUIRED-BALANCE', 'CHECK-PROPERTIES-WIRE', 'CHECK-BALANCE-ARITHMETIC', 'CHECK-ALLOWED-SUFFICIENT', 'CHECK-ALLOWED-BELOW-REQUIRED'],
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
      rules: ['CHECK-BALANCE-ARITHMETIC', ...SPEND_RULES, ...SPEND_DENIED_RULES],
    },
    async (t) => {
      const { feature, mainPlan, customerId: warmUp } = await consumable(t, 6);
      // One check at a time first: an amount that fits is used, one that does not is denied, exactly what remains fits.
      await spend(t, warmUp, feature.id, 4, true);
      await spend(t, warmUp, feature.id, 3, false);
      await spend(t, warmUp, feature.id, 2, true);

      const [crowded, spare, coarse] = [await customerHolding(t, [mainPlan]), await customerHolding(t, [mainPlan]), await customerHolding(t, [mainPlan])];
      const race = async (customerId: string, checks: number, required: number, label: string) => {
        const body = { customer_id: customerId, feature_id: feature.id, required_balance: required, send_event: true };
        const results = await Promise.all(Array.from({ length: checks }, async () => t.setup(await t.client.call('balances.check', body))));
        const allowed = results.filter((result) => result.allowed).length;
        const balance = await balanceNow(t, customerId, feature.id);
        t.check('CHECK-SEND-EVENT-RECORDS', () => expect(balance?.usage, `${label}: the allowed checks recorded usage`).toBeGreaterThan(0));
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
      rules: ['CHECK-SEND-EVENT-RECORDS', 'EVT-AMOUNT-IS-REQUIRED-BALANCE', 'CHECK-ALLOWED-UNLIMITED'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, unlimited: true }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const used = await ask(t, 'CHECK-SEND-EVENT-RECORDS', { customer_id: customer.id, feature_id: feature.id, required_balance: 7, send_event: true });
      t.check('CHECK-ALLOWED-UNLIMITED', () => expect(used.allowed, 'an unlimited feature allows 7 units').toBe(true));
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), ['balance']);
      // That usage was recorded at all is CHECK-SEND-EVENT-RECORDS'; that it is the 7 asked for, EVT-AMOUNT-IS-REQUIRED-BALANCE's.
      t.check('CHECK-SEND-EVENT-RECORDS', () => expect(balance?.usage, 'the check recorded usage').toBeGreaterThan(0));
      t.check('EVT-AMOUNT-IS-REQUIRED-BALANCE', () => expect(balance?.usage, 'the 7 units used').toBe(7));
    },
  ),
  scenario(
    {
      id: 'balances.check-negative-required-balance',
      title: 'a plain check with a negative required_balance is allowed whatever is left, and uses nothing',
      rules: ['CHECK-REQUIRED-BALANCE-NEGATIVE', ...SPEND_RULES],
    },
    async (t) => {
      const { feature, customerId } = await consumable(t, 10);
      const negative = async (label: string, usage: number) => {
        const plain = await ask(t, 'CHECK-REQUIRED-BALANCE-NEGATIVE', { customer_id: customerId, feature_id: feature.id, required_balance: -3 });
        t.check('CHECK-REQUIRED-BALANCE-NEGATIVE', () => expect(plain.allowed, `${label}: any balance meets a required balance of -3`).toBe(true));
        const after = await balanceNow(t, customerId, feature.id);
        t.check('CHECK-REQUIRED-BALANCE-NEGATIVE', () => expect(after?.usage, `${label}: the plain check of -3 changed no usage`).toBe(usage));
      };
      // What send_event or a lock does with a negative amount is left open (the reference gives units back): not sent.
      await spend(t, customerId, feature.id, 4, true);
      await negative('6 units left', 4);
      await spend(t, customerId, feature.id, 6, true);
      await negative('nothing left', 10);
    },
  ),
  scenario(
    {
      id: 'balances.events-recorded',
      title: 'send_event records one usage event of required_balance with its properties; plain and denied checks record none',
      rules: [
        'CHECK-EVENT-PROPERTIES',
        'CHECK-PROPERTIES-WIRE',
        'EVT-AMOUNT-IS-REQUIRED-BALANCE',
        'EVT-ONLY-WITH-SEND-EVENT',
        'CHECK-SEND-EVENT-RECORDS',
        'CHECK-SEND-EVENT-ATOMIC',
        'CHECK-ALLOWED-SUFFICIENT',
        'CHECK-ALLOWED-BELOW-REQUIRED',
      ],
      needs: ['control-plane'],
    },
    async (t) => {
      const { feature, mainPlan, customerId } = await consumable(t, 10);
      const eventsOf = async (customer: string) => (await t.control.call('events.list', { customer_id: customer })).list;
      const events = () => eventsOf(customerId);
      // CHECK-EVENT-PROPERTIES (MUST) rests on the name of the event-properties field, which
      // interface.md does not show: first shown read, on a customer of its own (the events it records are apart).
      await t.requireWireName('balances.check.event_properties', async (send) => {
        const probe = await customerHolding(t, [mainPlan]);
        t.setup(await t.client.call('balances.check', { customer_id: probe, feature_id: feature.id, required_balance: 1, send_event: true, ...(send && { properties: { probe: true } }) }));
        return (await eventsOf(probe)).map((event) => event.properties ?? null);
      });

      await ask(t, 'EVT-ONLY-WITH-SEND-EVENT', { customer_id: customerId, feature_id: feature.id, required_balance: 2 });
      const none = await events();
      t.check('EVT-ONLY-WITH-SEND-EVENT', () => expect(none, 'a plain check records no event').toEqual([]));

      const properties = { source: 'conformance', attempt: 1, tags: ['a', 'b'] };
      const body = (required: number): CheckBody => ({ customer_id: customerId, feature_id: feature.id, required_balance: required, send_event: true, properties });
      const used = await ask(t, 'CHECK-PROPERTIES-WIRE', body(3));
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(used.allowed, 'a send_event of 3 out of 10').toBe(true));
      const recorded = await events();
      t.check('CHECK-SEND-EVENT-RECORDS', () => {
        expect(recorded.length, 'the allowed send_event recorded an event').toBeGreaterThan(0);
        expect(recorded[0], 'of the customer and feature checked').toMatchObject({ customer_id: customerId, entity_id: null, feature_id: feature.id });
      });
      t.check('EVT-AMOUNT-IS-REQUIRED-BALANCE', () => expect(recorded[0]!.value, 'of required_balance units').toBe(3));
      t.check('CHECK-EVENT-PROPERTIES', () => expect(recorded[0]!.properties, 'with the properties attached').toEqual(properties));
      const denied = await ask(t, 'CHECK-PROPERTIES-WIRE', body(50));
      t.check('CHECK-ALLOWED-BELOW-REQUIRED', () => expect(denied.allowed, 'a send_event of 50 out of 7').toBe(false));
      const after = await events();
      t.check('CHECK-SEND-EVENT-ATOMIC', () => expect(after, 'still one event: the denied send_event recorded none').toHaveLength(1));
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
      // Created directly (setup): EVT-EVENT-NAMES owns features.create, so no premise may rest on its answer here.
      const consumableFeature = async (extra: { event_names?: string[] } = {}) => {
        const featureId = t.ns.id('featconsumable');
        return t.setup(await t.client.call('features.create', { feature_id: featureId, name: `Units ${featureId}`, type: 'metered', consumable: true, ...extra }), ['id']);
      };
      const [first, second] = [await consumableFeature({ event_names: [eventName] }), await consumableFeature({ event_names: [eventName] })];
      const bystander = await consumableFeature();
      const plan = await createPlan(t, { items: [first, second, bystander].map((feature) => ({ feature_id: feature.id, included: 10, reset: MONTHLY })) });
      const customerId = await customerHolding(t, [plan]);
      // EVT-EVENT-NAMES (MUST) rests on the name of the event-names field, which interface.md does not
      // show: first shown read (a feature created with it answers the event name, one created without does not).
      await t.requireWireName('features.create.event_names', async (send) => (await consumableFeature(send ? { event_names: [t.ns.id('evt')] } : {})).event_names?.length ?? 0);
      for (const feature of [first, second, bystander]) await expectGranted(t, customerId, feature.id, 10);
      // balances.track is the reference's call (setup): the documented balances.check shows what it drove.
      t.setup(await t.client.call('balances.track', { customer_id: customerId, event_name: eventName, value: 3 }));
      for (const feature of [first, second]) {
        expectBalance(t, 'EVT-EVENT-NAMES', await balanceNow(t, customerId, feature.id), { granted: 10, usage: 3 }, `${feature.id} declares ${eventName}`);
      }
      expectBalance(t, 'EVT-EVENT-NAMES', await balanceNow(t, customerId, bystander.id), { granted: 10, usage: 0 }, `${bystander.id} does not declare ${eventName}`);
    },
  ),
];
