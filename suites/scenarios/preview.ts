/**
 * Conformance scenarios of `billing.preview_multi_update`: the result (entries per processor
 * subscription, totals, currency), refunds by mode, entity scoping, request validation, and that a
 * preview changes nothing. Paid plans need `paid-attach`; exact prorated amounts need the control
 * plane's clock.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Balance } from '../../spec/balances.ts';
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

async function preview(t: T, body: PreviewBody, rule?: PreviewRule): Promise<PreviewResult> {
  return t.expectOk(await t.client.call('billing.preview_multi_update', body), rule);
}

type PreviewRule = Parameters<T['check']>[0];

function balanceState(balance: Pick<Balance, 'granted' | 'usage' | 'remaining'> | null) {
  return balance && { granted: balance.granted, usage: balance.usage, remaining: balance.remaining };
}

/**
 * What a preview must not change, through documented reads: the customer's plans as
 * subscriptions.list shows them, and a balance check of each feature given. The reads prove
 * nothing themselves (setup); the comparison is PREV-NO-CHANGES'.
 */
async function snapshot(t: T, customerId: string, featureIds: readonly string[] = []) {
  const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customerId, limit: 200 }), ['list']);
  const checks = [];
  for (const feature_id of featureIds) {
    const check = t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id, required_balance: 0 }));
    checks.push({ feature_id, allowed: check.allowed, balance: balanceState(check.balance ?? null) });
  }
  return {
    plans: list
      .map(({ plan_id, entity_id, status, past_due, canceled_at, expires_at, quantity }) => ({ plan_id, entity_id, status, past_due, canceled_at, expires_at, quantity }))
      .sort((a, b) => a.plan_id.localeCompare(b.plan_id)),
    checks,
  };
}

/** The amounts of a preview are in the major unit (CONV-MONEY-MAJOR-UNITS): cancelling refunds at most what the plans cost. */
function inMajorUnits(t: T, result: PreviewResult, most: number): void {
  t.precondition(`amounts are in the major unit: the refund is at most ${most}`, () => expect(Math.abs(result.total)).toBeLessThanOrEqual(most + CENT));
}

/** The entities of the customer holding `planId` (own or inherited), as entities.list (documented) shows them, sorted. */
async function holdersOf(t: T, customerId: string, planId: string): Promise<string[]> {
  const { list } = t.setup(await t.client.call('entities.list', { customer_id: customerId, limit: 200 }), ['list']);
  return list
    .filter((entity) => (entity.subscriptions ?? []).some((subscription) => subscription.plan_id === planId && subscription.status === 'active'))
    .map((entity) => entity.id)
    .sort();
}

/**
 * The documented invariants of every result, each checked as its own rule when the scenario
 * carries it: the customer named (PREV-RESULT-SHAPE), ISO currencies (PREV-CURRENCY-ISO), the total
 * the sum of the entries (PREV-TOTAL-SUM). A field the answer left out is the shape rule's, checked by the client.
 */
function expectConsistent(t: T, result: PreviewResult, customerId: string): void {
  const carries = (rule: PreviewRule) => t.scenario.rules.includes(rule);
  if (carries('PREV-RESULT-SHAPE')) {
    t.check('PREV-RESULT-SHAPE', () => {
      if (result.customer_id !== undefined) expect(result.customer_id, 'the result names the customer').toBe(customerId);
      for (const entry of result.subscriptions ?? []) if (entry.customer_id !== undefined) expect(entry.customer_id, 'every entry names the customer').toBe(customerId);
    });
  }
  if (carries('PREV-CURRENCY-ISO')) {
    t.check('PREV-CURRENCY-ISO', () => {
      for (const [where, currency] of [['the result', result.currency], ...(result.subscriptions ?? []).map((entry) => ['an entry', entry.currency] as const)]) {
        if (typeof currency === 'string') expect(ISO_CURRENCIES.has(currency.toUpperCase()), `the currency of ${where}, ${JSON.stringify(currency)}, is a three-letter ISO code`).toBe(true);
      }
    });
  }
  if (carries('PREV-TOTAL-SUM')) {
    // A missing entries list stays missing (NaN below): that is PREV-RESULT-SHAPE's, not a wrong sum.
    const sum = result.subscriptions === undefined ? Number.NaN : result.subscriptions.reduce((total, entry) => total + entry.total, 0);
    t.check('PREV-TOTAL-SUM', () => expect(Math.abs(result.total - sum), `total ${result.total} is the sum of the entries' totals (${sum})`).toBeLessThan(0.005));
  }
}

/** The entry holding a plan; it must be exactly one (PREV-ONE-ENTRY-PER-SUBSCRIPTION). */
function entryOf(t: T, result: PreviewResult, planId: string) {
  const entries = result.subscriptions.filter((entry) => entry.plan_ids.includes(planId));
  t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () => expect(entries.length, `exactly one entry lists plan ${planId}`).toBe(1));
  return entries[0]!;
}

function monthly(amount: number, extra: NonNullable<Parameters<typeof createPlan>[1]> = {}) {
  return { price: { amount, interval: 'month' as const }, ...extra };
}

/**
 * The refund mode goes by the reference's wire name, `refund_last_payment` (the document does not
 * show it): a target that reads no such field cannot refuse a value sent in it. Where the clock can
 * be moved and paid plans attach, a premise shows that the field is read: ten seconds into the
 * period, `full` and `prorated` refund different amounts (PREV-REFUND-WIRE's statement).
 */
async function expectRefundModeRead(t: T): Promise<void> {
  if (!t.has('control-plane') || !t.has('paid-attach')) return;
  const plan = await createPlan(t, monthly(50_000, { group: t.ns.id('grp') }));
  const payer = await createCustomer(t);
  await attach(t, payer.id, plan.id);
  await t.control.call('clock.advance', { ms: 10_000 });
  const totals: number[] = [];
  for (const refund_last_payment of ['prorated', 'full'] as const) {
    totals.push(t.setup(await t.client.call('billing.preview_multi_update', { customer_id: payer.id, updates: cancelNow([plan.id]), refund_last_payment }), ['total']).total);
  }
  t.precondition('refund_last_payment is read: ten seconds into the period, full and prorated refunds differ', () => expect(Math.abs(totals[0]! - totals[1]!)).toBeGreaterThan(CENT));
}

export const previewScenarios = [
  scenario(
    {
      id: 'preview.free-plans',
      title: 'cancelling free plans previews no entry and a total of 0 in an ISO currency, accepts subscription_params, and changes nothing',
      rules: ['PREV-RESULT-SHAPE', 'PREV-CURRENCY-ISO', 'PREV-TOTAL-SUM', 'PREV-FREE-PLANS-NO-ENTRY', 'PREV-NO-CHANGES', 'PREV-SUBSCRIPTION-PARAMS-WIRE'],
      // Snapshots compared whole (PREV-NO-CHANGES): alone where it can be, so a target listing other customers' records shows no other scenario's writes between them.
      uses: ['exclusive-tenant'],
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
      t.setup(await t.client.call('balances.track', { customer_id: customer.id, feature_id: messages.id, value: 3 }));
      const before = await snapshot(t, customer.id, [messages.id, flag.id]);

      const updates = cancelNow([main.id, addOn.id]);
      for (const [extra, rule] of [
        [{}, 'PREV-RESULT-SHAPE'],
        [{ refund_last_payment: 'full' as const, subscription_params: { metadata: { source: t.ns.id('meta') } } }, 'PREV-SUBSCRIPTION-PARAMS-WIRE'],
      ] as const) {
        const result = await preview(t, { customer_id: customer.id, updates, ...extra }, rule);
        expectConsistent(t, result, customer.id);
        t.check('PREV-FREE-PLANS-NO-ENTRY', () => {
          expect(result.subscriptions, 'free plans have no processor subscription, so no entry').toEqual([]);
          expect(result.total, 'nothing is due for cancelling free plans').toBe(0);
        });
        const after = await snapshot(t, customer.id, [messages.id, flag.id]);
        t.check('PREV-NO-CHANGES', () => expect(after, 'the preview changed nothing').toEqual(before));
      }
    },
  ),

  scenario(
    {
      id: 'preview.paid-entries',
      title: 'paid plans on a monthly and a yearly cycle preview one entry each, a free plan none; each refund is within its price and the total is their sum; nothing changes',
      rules: ['PREV-ONE-ENTRY-PER-SUBSCRIPTION', 'PREV-TOTAL-SUM', 'PREV-FREE-PLANS-NO-ENTRY', 'PREV-RESULT-SHAPE', 'PREV-CURRENCY-ISO', 'PREV-NO-CHANGES', 'PREV-CANCEL-ACTION-ENUM'],
      needs: ['paid-attach'],
      // As preview.free-plans: its snapshots are compared whole.
      uses: ['exclusive-tenant'],
    },
    async (t) => {
      const month = await createPlan(t, monthly(20, { group: t.ns.id('grp') }));
      const year = await createPlan(t, { add_on: true, price: { amount: 120, interval: 'year' } });
      const free = await createPlan(t, { add_on: true });
      const customer = await createCustomer(t);
      for (const plan of [month, year, free]) await attach(t, customer.id, plan.id);
      const before = await snapshot(t, customer.id);

      const result = await preview(t, { customer_id: customer.id, updates: cancelNow([free.id, month.id, year.id]) }, 'PREV-RESULT-SHAPE');
      const after = await snapshot(t, customer.id);
      t.check('PREV-NO-CHANGES', () => expect(after, 'the preview changed nothing').toEqual(before));
      expectConsistent(t, result, customer.id);
      t.check('PREV-FREE-PLANS-NO-ENTRY', () => expect(result.subscriptions.some((entry) => entry.plan_ids.includes(free.id)), 'the free plan has no entry').toBe(false));
      // A monthly and a yearly price cannot share a processor subscription: two subscriptions, two entries.
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () => expect(result.subscriptions.length, 'one entry per affected processor subscription').toBe(2));
      const [monthEntry, yearEntry] = [entryOf(t, result, month.id), entryOf(t, result, year.id)];
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () => expect(monthEntry, 'the monthly and the yearly plan are on different subscriptions').not.toBe(yearEntry));
      t.precondition('cancelling now refunds at most each price and charges nothing', () => {
        for (const [entry, price] of [[monthEntry, 20], [yearEntry, 120]] as const) {
          expect(entry.total).toBeGreaterThanOrEqual(-price);
          expect(entry.total).toBeLessThanOrEqual(0);
        }
      });

      const endOfCycle = await preview(t, { customer_id: customer.id, updates: [{ plan_id: month.id, cancel_action: 'cancel_end_of_cycle' }] }, 'PREV-CANCEL-ACTION-ENUM');
      expectConsistent(t, endOfCycle, customer.id);
      t.check('PREV-TOTAL-SUM', () => expect(endOfCycle.total, 'cancelling at the end of the cycle is due nothing today').toBe(0));
      const afterBoth = await snapshot(t, customer.id);
      t.check('PREV-NO-CHANGES', () => expect(afterBoth, 'the previews changed nothing').toEqual(before));
    },
  ),

  scenario(
    {
      id: 'preview.shared-subscription',
      title: 'a main plan and an add-on billed on the same monthly cycle share one processor subscription: one entry carrying both plan IDs',
      rules: ['PREV-ONE-ENTRY-PER-SUBSCRIPTION'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const main = await createPlan(t, monthly(20, { group: t.ns.id('grp') }));
      const addOn = await createPlan(t, monthly(5, { add_on: true }));
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, addOn.id);
      const result = await preview(t, { customer_id: customer.id, updates: cancelNow([main.id, addOn.id]) });
      t.check('PREV-ONE-ENTRY-PER-SUBSCRIPTION', () => {
        expect(result.subscriptions.length, 'one processor subscription, one entry').toBe(1);
        expect([...result.subscriptions[0]!.plan_ids].sort(), 'the entry carries both plans').toEqual([main.id, addOn.id].sort());
      });
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
        const result = await preview(t, { customer_id: customerId, updates: cancelNow([held.id]), ...(mode && { refund_last_payment: mode }) }, mode === undefined ? 'PREV-REFUND-MODE' : 'PREV-REFUND-WIRE');
        expectConsistent(t, result, customerId);
        inMajorUnits(t, result, held.price?.amount ?? 0);
        return result.total;
      };
      const record = async (customerId: string, held: Plan) => {
        const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customerId, plan_id: held.id }), ['list']);
        t.precondition(`subscriptions.list shows the one record of ${held.id}`, () => expect(list.length).toBe(1));
        return { ...list[0]!, now: (await t.control.call('clock.get', {})).now };
      };
      /**
       * The prorated refund lies between the unused shares at the clock readings taken before and
       * after the preview; returns it. The clock is shared with scenarios running alongside; a
       * reading during which the period rolled over is taken again.
       */
      const expectProrated = async (mode: 'prorated' | undefined, why: string): Promise<number> => {
        for (let attempt = 0; attempt < 3; attempt++) {
          const before = await record(payer.id, plan);
          const actual = await refund(payer.id, plan, mode);
          const after = await record(payer.id, plan);
          const [start, end] = [before.current_period_start, before.current_period_end];
          if (start === null || end === null || after.current_period_start !== start) continue;
          const share = (now: number) => (-price * (end - now)) / (end - start);
          const [low, high] = [share(before.now) - CENT, share(after.now) + CENT];
          const what = `${why}: ${mode ?? 'the default'} refunds the unused share, between ${low.toFixed(3)} and ${high.toFixed(3)}`;
          t.check('PREV-REFUND-MODE', () => {
            expect(actual, what).toBeGreaterThanOrEqual(low);
            expect(actual, what).toBeLessThanOrEqual(high);
          });
          return actual;
        }
        throw new Error(`${why}: the current period of ${plan.id} kept changing while previewing`);
      };

      await expectProrated(undefined, 'at the start of the period');

      // Ten seconds later a prorated refund is short of the full price by about 19 cents, so a full
      // refund that equals the prorated one shows the mode was not read at all.
      await t.control.call('clock.advance', { ms: 10_000 });
      await expectProrated(undefined, 'ten seconds in');
      const prorated = await expectProrated('prorated', 'ten seconds in');
      const full = await refund(payer.id, plan, 'full');
      t.check('PREV-REFUND-WIRE', () => expect(Math.abs(full - prorated), 'refund_last_payment: full is read (its refund differs from the prorated one)').toBeGreaterThan(CENT));
      t.check('PREV-REFUND-MODE', () => expect(full, 'ten seconds in, full refunds the whole last payment').toBe(-price));

      const trial = await record(trialing.id, trialPlan);
      t.precondition('the trial plan is still in its trial', () => expect(trial.trial_ends_at).toBeGreaterThan(trial.now));
      for (const mode of ['prorated', 'full'] as const) {
        const during = await refund(trialing.id, trialPlan, mode);
        t.check('PREV-REFUND-MODE', () => expect(during, `nothing was paid during the trial, so ${mode} refunds nothing`).toBe(0));
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
      for (const [why, body, rule] of [
        ["the update's own entity_id", { customer_id: customer.id, updates: own }, 'PREV-PER-UPDATE-ENTITY'],
        ["the update's own entity_id over the request's", { customer_id: customer.id, entity_id: other.id, updates: own }, 'PREV-PER-UPDATE-ENTITY'],
        ["the request's entity_id", { customer_id: customer.id, entity_id: holder.id, updates: cancelNow([plan.id]) }, 'PREV-REQUEST-ENTITY'],
      ] as const) {
        // What each preview is measured against: the plan is the holder's alone (BILL-ATTACH-ENTITY), and the previews before changed nothing (PREV-NO-CHANGES).
        const holders = await holdersOf(t, customer.id, plan.id);
        t.precondition(`before previewing ${why}: the plan is held by ${holder.id} alone`, () => expect(holders).toEqual([holder.id]));
        const result = t.expectOk(await t.client.call('billing.preview_multi_update', body), rule);
        t.precondition(`${why}: a free plan previews no entry`, () => expect(result.subscriptions).toEqual([]));
      }
      const elsewhere = await t.client.call('billing.preview_multi_update', { customer_id: customer.id, entity_id: other.id, updates: cancelNow([plan.id]) });
      t.expectError(elsewhere, { rule: 'PREV-REQUEST-ENTITY' });
    },
  ),

  scenario(
    {
      id: 'preview.request-validation',
      title: 'billing.preview_multi_update refuses a missing customer_id or updates, an empty updates, an update without plan_id or cancel_action, and values outside the refund and cancel enums',
      rules: ['PREV-REQUIRED-FIELDS', 'PREV-UPDATE-FIELDS', 'PREV-UPDATES-MIN-ONE', 'PREV-REFUND-MODE-ENUM', 'PREV-CANCEL-ACTION-ENUM'],
      uses: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp') });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const valid = { customer_id: customer.id, updates: cancelNow([plan.id]) };
      // The nearest valid requests are accepted (positive controls), so the refusals below are about their one defect.
      for (const refund_last_payment of [undefined, 'prorated', 'full'] as const) {
        t.setup(await t.client.call('billing.preview_multi_update', { ...valid, ...(refund_last_payment && { refund_last_payment }) }));
      }
      type ValidationRule = Parameters<typeof t.check>[0];
      const expectRefused = async (why: string, body: Record<string, unknown>, rule: ValidationRule) => {
        const result = await t.client.call('billing.preview_multi_update', body as PreviewBody);
        t.check(rule, () => expect(result.ok, `${why} must be refused`).toBe(false));
        t.expectError(result, { rule });
      };
      await expectRefused('no customer_id', { updates: valid.updates }, 'PREV-REQUIRED-FIELDS');
      await expectRefused('no updates', { customer_id: customer.id }, 'PREV-REQUIRED-FIELDS');
      await expectRefused('updates []', { customer_id: customer.id, updates: [] }, 'PREV-UPDATES-MIN-ONE');
      await expectRefused('an update without cancel_action', { customer_id: customer.id, updates: [{ plan_id: plan.id }] }, 'PREV-UPDATE-FIELDS');
      await expectRefused('an update without plan_id', { customer_id: customer.id, updates: [{ cancel_action: 'cancel_immediately' }] }, 'PREV-UPDATE-FIELDS');
      const badAction = await t.client.call('billing.preview_multi_update', { ...valid, updates: [{ plan_id: plan.id, cancel_action: 'cancel_later' }] } as unknown as PreviewBody);
      t.expectError(badAction, { status: 400, code: 'invalid_inputs', rule: 'PREV-CANCEL-ACTION-ENUM' });

      await expectRefundModeRead(t);
      for (const mode of ['partial', 'PRORATED', '']) await expectRefused(`refund mode ${JSON.stringify(mode)}`, { ...valid, refund_last_payment: mode }, 'PREV-REFUND-MODE-ENUM');
    },
  ),
];
