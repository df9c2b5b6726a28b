/**
 * Scenarios of the preview's result: no entry for free plans, one entry per paid plan with refunds
 * within its price and a total that is their sum, refunds by mode, every kind of price, usage beyond
 * the included amount billed, and that a preview changes nothing.
 */
import { expect } from 'vitest';
import type { HeaderOverrides } from '../../framework/index.ts';
import type { Balance } from '../../../spec/balances.ts';
import type { Plan } from '../../../spec/plans.ts';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, PUBLISHED_CLIENT_HEADERS, scenario, type T } from '../../support.ts';
import { cancelNow, CENT, monthly, preview, type PreviewResult, type PreviewRule } from './support.ts';

/** ISO 4217 codes, as the runtime knows them; the reference answers in lower case (`usd`). */
const ISO_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

function balanceState(balance: Pick<Balance, 'granted' | 'usage' | 'remaining'> | null) {
  return balance && { granted: balance.granted, usage: balance.usage, remaining: balance.remaining };
}

/**
 * What a preview must not change, through the documented read balances.check: the access and the
 * balance of each feature the customer's plans grant (a plan cancelled, or its usage reset, shows
 * there). PREV-NO-CHANGES is MUST, so it rests on no reference read (customers.get) and on no
 * listing (not this part's). The reads prove nothing themselves (setup); the comparison is PREV-NO-CHANGES'.
 */
async function snapshot(t: T, customerId: string, featureIds: readonly string[]) {
  const checks = [];
  for (const feature_id of featureIds) {
    const check = t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id, required_balance: 0 }));
    checks.push({ feature_id, allowed: check.allowed, balance: balanceState(check.balance ?? null) });
  }
  return checks;
}

/** The customer's live subscription to a plan, as the setup read customers.get shows it (its period and trial). */
async function heldRecord(t: T, customerId: string, planId: string) {
  const { subscriptions } = t.setup(await t.client.call('customers.get', { customer_id: customerId }), ['subscriptions']);
  return subscriptions.find((record) => record.plan_id === planId && record.status === 'active');
}

/** The amounts of a preview are in the major unit (CONV-MONEY-MAJOR-UNITS): cancelling refunds at most what the plans cost. */
function inMajorUnits(t: T, result: PreviewResult, most: number): void {
  t.precondition(`amounts are in the major unit: the refund is at most ${most}`, () => expect(Math.abs(result.total)).toBeLessThanOrEqual(most + CENT));
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

const PAID_ENTRIES_RULES = ['PREV-ONE-ENTRY-PER-SUBSCRIPTION', 'PREV-TOTAL-SUM', 'PREV-FREE-PLANS-NO-ENTRY', 'PREV-RESULT-SHAPE', 'PREV-CURRENCY-ISO', 'PREV-NO-CHANGES', 'PREV-CANCEL-ACTION-ENUM'] as const;

/**
 * Paid plans on a monthly and a yearly cycle and a free one, cancelled in one preview and the
 * monthly one at the end of its cycle, asked by a plain caller or with `headers` (the published
 * client: interface.md does not tell callers apart).
 */
async function previewPaidEntries(t: T, headers?: HeaderOverrides): Promise<void> {
  // Each plan grants a feature of its own, so that a preview that cancelled it shows in a balance check.
  const [units, yearFlag, freeFlag] = [await createFeature(t, 'consumable'), await createFeature(t, 'boolean'), await createFeature(t, 'boolean')];
  const month = await createPlan(t, monthly(20, { group: t.ns.id('grp'), items: [{ feature_id: units.id, included: 10, reset: { interval: 'year' } }] }));
  const year = await createPlan(t, { add_on: true, price: { amount: 120, interval: 'year' }, items: [{ feature_id: yearFlag.id }] });
  const free = await createPlan(t, { add_on: true, items: [{ feature_id: freeFlag.id }] });
  const customer = await createCustomer(t);
  for (const plan of [month, year, free]) await attach(t, customer.id, plan.id);
  const granted = [units.id, yearFlag.id, freeFlag.id];
  const before = await snapshot(t, customer.id, granted);

  const result = await preview(t, { customer_id: customer.id, updates: cancelNow([free.id, month.id, year.id]) }, 'PREV-RESULT-SHAPE', headers);
  const after = await snapshot(t, customer.id, granted);
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

  const endOfCycle = await preview(t, { customer_id: customer.id, updates: [{ plan_id: month.id, cancel_action: 'cancel_end_of_cycle' }] }, 'PREV-CANCEL-ACTION-ENUM', headers);
  expectConsistent(t, endOfCycle, customer.id);
  t.check('PREV-TOTAL-SUM', () => expect(endOfCycle.total, 'cancelling at the end of the cycle is due nothing today').toBe(0));
  const afterBoth = await snapshot(t, customer.id, granted);
  t.check('PREV-NO-CHANGES', () => expect(afterBoth, 'the previews changed nothing').toEqual(before));
}

export const resultScenarios = [
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
      rules: PAID_ENTRIES_RULES,
      needs: ['paid-attach'],
      // As preview.free-plans: its snapshots are compared whole.
      uses: ['exclusive-tenant'],
    },
    (t) => previewPaidEntries(t),
  ),
  scenario(
    {
      id: 'preview.paid-entries-published-client',
      title: "the published client's previews (its User-Agent) are answered as a plain caller's: paid plans on two cycles one entry each, a free plan none, the total their sum, nothing changed",
      rules: PAID_ENTRIES_RULES,
      needs: ['paid-attach'],
      uses: ['exclusive-tenant'],
    },
    (t) => previewPaidEntries(t, PUBLISHED_CLIENT_HEADERS),
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
      const trialRecord = await heldRecord(t, trialing.id, trialPlan.id);
      t.precondition('the trial plan started on its free trial', () => expect(trialRecord?.trial_ends_at).toEqual(expect.any(Number)));
      const refund = async (customerId: string, held: Plan, mode?: 'prorated' | 'full') => {
        const result = await preview(t, { customer_id: customerId, updates: cancelNow([held.id]), ...(mode && { refund_last_payment: mode }) }, mode === undefined ? 'PREV-REFUND-MODE' : 'PREV-REFUND-WIRE');
        expectConsistent(t, result, customerId);
        inMajorUnits(t, result, held.price?.amount ?? 0);
        return result.total;
      };
      const record = async (customerId: string, held: Plan) => {
        const found = await heldRecord(t, customerId, held.id);
        t.precondition(`customers.get shows the customer's record of ${held.id}`, () => expect(found).toBeDefined());
        return { ...found!, now: (await t.control.call('clock.get', {})).now };
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
      id: 'preview.every-price-kind',
      title:
        'cancelling at once a plan that carries every kind of item (included, usage-priced, prepaid, tiered prepaid) previews a result of the documented shape, whose total is the sum of its entries and refunds at least the base price and the flat-priced seats',
      rules: ['PREV-RESULT-SHAPE', 'PREV-TOTAL-SUM', 'PREV-REFUND-MODE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const [included, usage] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const [seats, tiered] = [await createFeature(t, 'allocated'), await createFeature(t, 'allocated')];
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        price: { amount: 20, interval: 'month' },
        items: [
          { feature_id: included.id, included: 100, reset: MONTHLY },
          { feature_id: usage.id, included: 10, reset: MONTHLY, price: { amount: 0.5, interval: 'month', billing_method: 'usage_based' } },
          { feature_id: seats.id, included: 0, price: { amount: 4, interval: 'month', billing_method: 'prepaid' } },
          { feature_id: tiered.id, included: 0, price: { tiers: [{ to: 10, amount: 3 }, { to: 'inf', amount: 2 }], interval: 'month', billing_method: 'prepaid' } },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id, { feature_quantities: [{ feature_id: seats.id, quantity: 2 }, { feature_id: tiered.id, quantity: 12 }] });
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: seats.id, required_balance: 0 }), ['balance']);
      t.precondition('the 2 prepaid seats were bought at attach', () => expect(balance?.granted).toBe(2));
      const result = t.expectOk(
        await t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        'PREV-RESULT-SHAPE',
      );
      t.check('PREV-RESULT-SHAPE', () => expect(result.customer_id, 'the result names the customer').toBe(customer.id));
      const sum = (result.subscriptions ?? []).reduce((total, entry) => total + entry.total, 0);
      t.check('PREV-TOTAL-SUM', () => expect(Math.abs(result.total - sum), `total ${result.total} is the sum of the entries' totals (${sum})`).toBeLessThan(0.005));
      // Right after the attach almost all of the period is unused; the tiered seats cost something too, how much is not stated.
      t.check('PREV-REFUND-MODE', () => expect(-result.total, 'cancelling at once refunds at least the $20 base price and 2 seats at $4').toBeGreaterThanOrEqual(28 - 0.01));
    },
  ),
  scenario(
    {
      id: 'preview.usage-overage',
      title:
        'cancelling at once a usage-only plan previews nothing due while usage stays within the included amounts (up to exactly them), and the usage beyond them billed at the per-unit and the first-tier rate',
      rules: ['PREV-USAGE-OVERAGE-BILLED'],
      needs: ['paid-attach'],
    },
    async (t) => {
      // Yearly resets and prices, so that a scenario alongside moving the shared clock by a month resets no usage midway.
      const YEARLY = { interval: 'year' as const };
      const [calls, tokens] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      // No base price and nothing prepaid: nothing is refunded, so the total is the usage charge alone.
      // Tier arithmetic is not stated, so the tiered item's overage stays inside its first tier, whose
      // bound (100) is above the included amount and above the total usage: every reading prices it at 0.20.
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        items: [
          { feature_id: calls.id, included: 10, reset: YEARLY, price: { amount: 0.5, ...YEARLY, billing_method: 'usage_based' } },
          { feature_id: tokens.id, included: 10, reset: YEARLY, price: { tiers: [{ to: 100, amount: 0.2 }, { to: 'inf', amount: 0.1 }], ...YEARLY, billing_method: 'usage_based' } },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const use = async (feature_id: string, units: number) => {
        const used = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id, required_balance: units, send_event: true }), ['allowed']);
        t.precondition(`${units} units of ${feature_id} are recorded`, () => expect(used.allowed).toBe(true));
      };
      /** Previews cancelling the plan now, once the usage reads as expected before and after (no reset in between). */
      const cancelNowWith = async (usage: Record<string, number>) => {
        const read = async () => {
          for (const [feature_id, units] of Object.entries(usage)) {
            const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id, required_balance: 0 }), ['balance']);
            t.precondition(`${feature_id} reads ${units} units used`, () => expect(balance?.usage).toBe(units));
          }
        };
        await read();
        const result = await preview(t, { customer_id: customer.id, updates: cancelNow([plan.id]) }, 'PREV-USAGE-OVERAGE-BILLED');
        await read();
        return result;
      };
      const shown = (result: PreviewResult) => JSON.stringify(result.subscriptions.map((entry) => ({ total: entry.total, line_items: entry.line_items.map((line) => [line.description, line.total]) })));

      const unused = await cancelNowWith({ [calls.id]: 0, [tokens.id]: 0 });
      t.check('PREV-USAGE-OVERAGE-BILLED', () => expect(unused.total, `no usage: nothing is due (${shown(unused)})`).toBe(0));
      await use(calls.id, 10);
      await use(tokens.id, 10);
      const within = await cancelNowWith({ [calls.id]: 10, [tokens.id]: 10 });
      t.check('PREV-USAGE-OVERAGE-BILLED', () => expect(within.total, `usage of exactly the included amounts is not billed (${shown(within)})`).toBe(0));
      await use(calls.id, 7);
      await use(tokens.id, 5);
      const beyond = await cancelNowWith({ [calls.id]: 17, [tokens.id]: 15 });
      t.check('PREV-USAGE-OVERAGE-BILLED', () =>
        expect(Math.abs(beyond.total - 4.5), `7 calls beyond at 0.50 and 5 tokens beyond at 0.20 are due today: 4.50, not ${beyond.total} (${shown(beyond)})`).toBeLessThan(CENT / 2),
      );
    },
  ),
];
