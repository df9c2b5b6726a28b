/**
 * Conformance scenarios of `billing.preview_multi_update`: the result (entries per processor
 * subscription, totals, currency), refunds by mode, entity scoping, request validation, and that a
 * preview changes nothing. Paid plans need `paid-attach`; exact prorated amounts need the control
 * plane's clock.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Balance } from '../../spec/balances.ts';
import type { SubscriptionRecord } from '../../spec/listings.ts';
import type { Plan } from '../../spec/plans.ts';
import { attach, createCustomer, createEntity, createFeature, createPlan, type Ops, scenario, type T } from '../support.ts';

type PreviewBody = z.input<Ops['billing.preview_multi_update']['request']>;
type PreviewResult = z.output<Ops['billing.preview_multi_update']['response']>;

/** ISO 4217 codes, as the runtime knows them; the reference answers in lower case (`usd`). */
const ISO_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
/** A prorated amount may differ from the exact share by the rounding of one cent. */
const CENT = 0.01;

function cancelNow(planIds: readonly string[]): PreviewBody['updates'] {
  return planIds.map((plan_id) => ({ plan_id, cancel_action: 'cancel_immediately' }));
}

async function preview(t: T, body: PreviewBody): Promise<PreviewResult> {
  return t.expectOk(await t.client.call('billing.preview_multi_update', body));
}

/** What a subscription record shows of a change; billing periods are left out, since the clock is shared with other scenarios. */
function recordState({ plan_id, status, past_due, canceled_at, expires_at, quantity }: Pick<SubscriptionRecord, 'plan_id' | 'status' | 'past_due' | 'canceled_at' | 'expires_at' | 'quantity'>) {
  return { plan_id, status, past_due, canceled_at, expires_at, quantity };
}

function balanceState(balance: Pick<Balance, 'granted' | 'usage' | 'remaining'> | null) {
  return balance && { granted: balance.granted, usage: balance.usage, remaining: balance.remaining };
}

/** What a preview must not change: the customer's plans and balances, its subscription records in every status, and a balance check. */
async function snapshot(t: T, customerId: string, featureId?: string) {
  const customer = t.expectOk(await t.client.call('customers.get', { customer_id: customerId }));
  const records = t.expectOk(await t.client.call('subscriptions.list', { customer_id: customerId, statuses: ['active', 'scheduled', 'past_due', 'expired'] }));
  const check = featureId === undefined ? null : t.expectOk(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0 }));
  return {
    plans: customer.subscriptions.map(recordState),
    purchases: customer.purchases,
    balances: Object.fromEntries(Object.entries(customer.balances).map(([id, balance]) => [id, balanceState(balance)])),
    flags: customer.flags,
    records: records.list.map((record) => ({ id: record.id, ...recordState(record) })),
    check: check && { allowed: check.allowed, balance: balanceState(check.balance) },
  };
}

/** The documented invariants of every result: ISO currency, the customer on every entry, the total the sum of the entries. */
function expectConsistent(result: PreviewResult, customerId: string): void {
  expect(result.customer_id, 'the result names the customer').toBe(customerId);
  for (const [where, currency] of [['the result', result.currency], ...result.subscriptions.map((entry) => ['an entry', entry.currency] as const)]) {
    expect(ISO_CURRENCIES.has(currency.toUpperCase()), `the currency of ${where}, ${JSON.stringify(currency)}, is a three-letter ISO code`).toBe(true);
  }
  for (const entry of result.subscriptions) expect(entry.customer_id, 'every entry names the customer').toBe(customerId);
  const sum = result.subscriptions.reduce((total, entry) => total + entry.total, 0);
  expect(Math.abs(result.total - sum), `total ${result.total} is the sum of the entries' totals (${sum})`).toBeLessThan(0.005);
}

/** The entry holding a plan; it must be exactly one. */
function entryOf(result: PreviewResult, planId: string) {
  const entries = result.subscriptions.filter((entry) => entry.plan_ids.includes(planId));
  expect(entries.length, `exactly one entry lists plan ${planId}`).toBe(1);
  return entries[0]!;
}

function monthly(amount: number, extra: NonNullable<Parameters<typeof createPlan>[1]> = {}) {
  return { price: { amount, interval: 'month' as const }, ...extra };
}

export const previewScenarios = [
  scenario(
    {
      id: 'preview.free-plans',
      title: 'cancelling free plans previews no entry and a total of 0 in an ISO currency, accepts subscription_params, and changes nothing',
      rules: ['PREV-RESULT-SHAPE', 'PREV-CURRENCY-ISO', 'PREV-TOTAL-SUM', 'PREV-FREE-PLANS-NO-ENTRY', 'PREV-NO-CHANGES', 'PREV-SUBSCRIPTION-PARAMS-WIRE'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const flag = await createFeature(t, 'boolean');
      // A yearly reset, so that another scenario moving the shared clock by a month does not reset the balance midway.
      const main = await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: messages.id, included: 10, reset: { interval: 'year' } }] });
      const addOn = await createPlan(t, { add_on: true, items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, addOn.id);
      t.expectOk(await t.client.call('balances.track', { customer_id: customer.id, feature_id: messages.id, value: 3 }));
      const before = await snapshot(t, customer.id, messages.id);

      const updates = cancelNow([main.id, addOn.id]);
      for (const extra of [{}, { refund_last_payment: 'full' as const, subscription_params: { metadata: { source: t.ns.id('meta') } } }]) {
        const result = await preview(t, { customer_id: customer.id, updates, ...extra });
        expectConsistent(result, customer.id);
        expect(result.subscriptions, 'free plans have no processor subscription, so no entry').toEqual([]);
        expect(result.total, 'nothing is due for cancelling free plans').toBe(0);
        expect(await snapshot(t, customer.id, messages.id), 'the preview changed nothing').toEqual(before);
      }
    },
  ),

  scenario(
    {
      id: 'preview.paid-entries',
      title: 'paid plans on a monthly and a yearly cycle preview one entry each, a free plan none; each refund is within its price and the total is their sum; nothing changes',
      rules: ['PREV-ONE-ENTRY-PER-SUBSCRIPTION', 'PREV-TOTAL-SUM', 'PREV-FREE-PLANS-NO-ENTRY', 'PREV-RESULT-SHAPE', 'PREV-CURRENCY-ISO', 'PREV-NO-CHANGES', 'PREV-CANCEL-ACTION-ENUM'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const month = await createPlan(t, monthly(20, { group: t.ns.id('grp') }));
      const year = await createPlan(t, { add_on: true, price: { amount: 120, interval: 'year' } });
      const free = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      for (const plan of [month, year, free]) await attach(t, customer.id, plan.id);
      const before = await snapshot(t, customer.id);

      const result = await preview(t, { customer_id: customer.id, updates: cancelNow([free.id, month.id, year.id]) });
      expect(await snapshot(t, customer.id), 'the preview changed nothing').toEqual(before);
      expectConsistent(result, customer.id);
      expect(result.subscriptions.some((entry) => entry.plan_ids.includes(free.id)), 'the free plan has no entry').toBe(false);
      // A monthly and a yearly price cannot share a processor subscription: two subscriptions, two entries.
      expect(result.subscriptions.length, 'one entry per affected processor subscription').toBe(2);
      const [monthEntry, yearEntry] = [entryOf(result, month.id), entryOf(result, year.id)];
      expect(monthEntry, 'the monthly and the yearly plan are on different subscriptions').not.toBe(yearEntry);
      for (const [entry, price] of [[monthEntry, 20], [yearEntry, 120]] as const) {
        expect(entry.total, `cancelling now refunds at most the price ${price}`).toBeGreaterThanOrEqual(-price);
        expect(entry.total, 'cancelling now charges nothing').toBeLessThanOrEqual(0);
      }

      const endOfCycle = await preview(t, { customer_id: customer.id, updates: [{ plan_id: month.id, cancel_action: 'cancel_end_of_cycle' }] });
      expectConsistent(endOfCycle, customer.id);
      expect(endOfCycle.total, 'cancelling at the end of the cycle is due nothing today').toBe(0);
      expect(await snapshot(t, customer.id), 'the previews changed nothing').toEqual(before);
    },
  ),

  scenario(
    {
      id: 'preview.refund-modes',
      title: 'an immediate cancellation refunds the unused share of the period by default and with prorated, the whole last payment with full, and nothing during a trial',
      rules: ['PREV-REFUND-MODE', 'PREV-REFUND-WIRE', 'PREV-TOTAL-SUM'],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      // A large price makes a few seconds of the period worth many cents.
      const price = 50_000;
      const plan = await createPlan(t, monthly(price, { group: t.ns.id('grp') }));
      const trialPlan = await createPlan(t, monthly(50, { group: t.ns.id('grp'), free_trial: { duration_length: 1, duration_type: 'year', card_required: false } }));
      const [payer, trialing] = [await createCustomer(t), await createCustomer(t)];
      await attach(t, payer.id, plan.id);
      await attach(t, trialing.id, trialPlan.id);
      // The trial itself is PLAN-FREE-TRIAL-APPLIES's; here it is what the refund of a trial is measured against.
      const trialRecord = t.setup(await t.client.call('subscriptions.list', { customer_id: trialing.id, plan_id: trialPlan.id }), ['list']).list[0];
      t.precondition('the trial plan started on its free trial', () => expect(trialRecord?.trial_ends_at).toEqual(expect.any(Number)));
      const refund = async (customerId: string, held: Plan, mode?: 'prorated' | 'full') => {
        const result = await preview(t, { customer_id: customerId, updates: cancelNow([held.id]), ...(mode && { refund_last_payment: mode }) });
        expectConsistent(result, customerId);
        return result.total;
      };
      const record = async (customerId: string, held: Plan) => {
        const { list } = t.expectOk(await t.client.call('subscriptions.list', { customer_id: customerId, plan_id: held.id }));
        expect(list.length, `subscriptions.list shows the one record of ${held.id}`).toBe(1);
        return { ...list[0]!, now: (await t.control.call('clock.get', {})).now };
      };
      /**
       * The prorated refund lies between the unused shares at the clock readings taken before and
       * after the preview. The clock is shared with scenarios running alongside; a reading during
       * which the period rolled over is taken again.
       */
      const expectProrated = async (mode: 'prorated' | undefined, why: string) => {
        for (let attempt = 0; attempt < 3; attempt++) {
          const before = await record(payer.id, plan);
          const actual = await refund(payer.id, plan, mode);
          const after = await record(payer.id, plan);
          const [start, end] = [before.current_period_start, before.current_period_end];
          if (start === null || end === null || after.current_period_start !== start) continue;
          const share = (now: number) => (-price * (end - now)) / (end - start);
          const [low, high] = [share(before.now) - CENT, share(after.now) + CENT];
          expect(actual, `${why}: ${mode ?? 'the default'} refunds the unused share, between ${low.toFixed(3)} and ${high.toFixed(3)}`).toBeGreaterThanOrEqual(low);
          expect(actual, `${why}: ${mode ?? 'the default'} refunds the unused share, between ${low.toFixed(3)} and ${high.toFixed(3)}`).toBeLessThanOrEqual(high);
          return;
        }
        throw new Error(`${why}: the current period of ${plan.id} kept changing while previewing`);
      };

      await expectProrated(undefined, 'at the start of the period');
      expect(await refund(payer.id, plan, 'full'), 'full refunds the whole last payment').toBe(-price);

      // Ten seconds later a prorated refund is short of the full price by about 19 cents.
      await t.control.call('clock.advance', { ms: 10_000 });
      for (const mode of [undefined, 'prorated'] as const) await expectProrated(mode, 'ten seconds in');
      expect(await refund(payer.id, plan, 'full'), 'ten seconds in, full still refunds the whole last payment').toBe(-price);

      const trial = await record(trialing.id, trialPlan);
      expect(trial.trial_ends_at, 'the trial plan is still in its trial').toBeGreaterThan(trial.now);
      for (const mode of ['prorated', 'full'] as const) {
        expect(await refund(trialing.id, trialPlan, mode), `nothing was paid during the trial, so ${mode} refunds nothing`).toBe(0);
      }
    },
  ),

  scenario(
    {
      id: 'preview.entity-scoping',
      title: "an update targets the plan of its own entity_id, overriding the request's, and otherwise the plan of the request's entity_id",
      rules: ['PREV-PER-UPDATE-ENTITY', 'PREV-REQUEST-ENTITY'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      const [holder, other] = [await createEntity(t, customer.id, seat.id), await createEntity(t, customer.id, seat.id)];
      await attach(t, customer.id, plan.id, { entity_id: holder.id });

      const own = [{ plan_id: plan.id, entity_id: holder.id, cancel_action: 'cancel_immediately' as const }];
      for (const [why, body] of [
        ["the update's own entity_id", { customer_id: customer.id, updates: own }],
        ["the update's own entity_id over the request's", { customer_id: customer.id, entity_id: other.id, updates: own }],
        ["the request's entity_id", { customer_id: customer.id, entity_id: holder.id, updates: cancelNow([plan.id]) }],
      ] as const) {
        const result = t.expectOk(await t.client.call('billing.preview_multi_update', body));
        expect(result.customer_id, `${why}: previews the plan of the entity that holds it`).toBe(customer.id);
        expect(result.subscriptions, `${why}: a free plan has no entry`).toEqual([]);
      }
      const elsewhere = await t.client.call('billing.preview_multi_update', { customer_id: customer.id, entity_id: other.id, updates: cancelNow([plan.id]) });
      t.expectError(elsewhere);
    },
  ),

  scenario(
    {
      id: 'preview.request-validation',
      title: 'billing.preview_multi_update refuses a missing customer_id or updates, an empty updates, an update without plan_id or cancel_action, and values outside the refund and cancel enums',
      rules: ['PREV-REQUIRED-FIELDS', 'PREV-UPDATE-FIELDS', 'PREV-UPDATES-MIN-ONE', 'PREV-REFUND-MODE-ENUM', 'PREV-CANCEL-ACTION-ENUM'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp') });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const before = await snapshot(t, customer.id);
      const valid = { customer_id: customer.id, updates: cancelNow([plan.id]) };
      const refused: [string, Record<string, unknown>][] = [
        ['no customer_id', { updates: valid.updates }],
        ['no updates', { customer_id: customer.id }],
        ['updates []', { customer_id: customer.id, updates: [] }],
        ['an update without cancel_action', { customer_id: customer.id, updates: [{ plan_id: plan.id }] }],
        ['an update without plan_id', { customer_id: customer.id, updates: [{ cancel_action: 'cancel_immediately' }] }],
        ...['partial', 'PRORATED', ''].map((mode): [string, Record<string, unknown>] => [`refund mode ${JSON.stringify(mode)}`, { ...valid, refund_last_payment: mode }]),
      ];
      for (const [why, body] of refused) {
        const result = await t.client.call('billing.preview_multi_update', body as PreviewBody);
        expect(result.ok, `${why} must be refused`).toBe(false);
        t.expectError(result);
      }
      const badAction = await t.client.call('billing.preview_multi_update', { ...valid, updates: [{ plan_id: plan.id, cancel_action: 'cancel_later' }] } as unknown as PreviewBody);
      t.expectError(badAction, { status: 400, code: 'invalid_inputs' });
      for (const refund_last_payment of ['prorated', 'full'] as const) expectConsistent(await preview(t, { ...valid, refund_last_payment }), customer.id);
      expect(await snapshot(t, customer.id), 'refused and accepted previews changed nothing').toEqual(before);
    },
  ),
];
