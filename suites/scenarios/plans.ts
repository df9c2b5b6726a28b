/**
 * Conformance scenarios of plans: `plans.create`, `plans.get` (documented), `plans.list` and
 * `plans.update` (setup), plan versions, and what a plan's configuration does once attached.
 * Every assertion names its rule; calls that only build or observe state are setup (they block,
 * never fail): `plans.get` is the subject only of PLAN-CREATE-THEN-GET and the version rules,
 * elsewhere it is a read whose answer a rule's check inspects.
 *
 * The reference creates a new version on a configuration change only when customers are on the
 * plan's current version, so every versioning scenario attaches a customer to the current version
 * before `plans.update`; then the rule holds on both the document's reading and the reference's.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { z } from 'zod';
import { PLAN_ID_PATTERN, type Plan, type PlanItemInput, type PlansUpdateRequest } from '../../spec/plans.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';
import { attach, checkProperty, createCustomer, createFeature, createPlan, readBalance, scenario, type T } from '../support.ts';

const DAY_MS = 86_400_000;

/** plans.get as a read (setup); the rule using it checks what it answers. */
async function readPlan(t: T, planId: string, version?: number): Promise<Plan> {
  return t.setup(await t.client.call('plans.get', { plan_id: planId, ...(version !== undefined && { version }) }));
}

/** plans.get as the subject of `rule`: a refusal FAILs it. */
async function getPlan(t: T, rule: RuleId, planId: string, version?: number): Promise<Plan> {
  return t.expectOk(await t.client.call('plans.get', { plan_id: planId, ...(version !== undefined && { version }) }), rule);
}

async function updatePlan(t: T, body: z.input<typeof PlansUpdateRequest>): Promise<Plan> {
  return t.setup(await t.client.call('plans.update', body));
}

/** A customer's active customer-level subscriptions, through the documented subscriptions.list (a read here). */
async function activeSubscriptions(t: T, customerId: string) {
  const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customerId, limit: 200 }), ['list']);
  return list.filter((sub) => sub.customer_id === customerId && sub.status === 'active' && sub.entity_id == null);
}

/** The plan ids of a customer's active customer-level subscriptions, sorted. */
async function activePlanIds(t: T, customerId: string): Promise<string[]> {
  return (await activeSubscriptions(t, customerId)).map((sub) => sub.plan_id).sort();
}

/** Whether balances.check allows `required` units (a read here; the caller's check inspects it). */
async function allowed(t: T, customerId: string, featureId: string, required: number): Promise<boolean> {
  return t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: required })).allowed;
}

async function track(t: T, customerId: string, featureId: string, value: number): Promise<void> {
  t.setup(await t.client.call('balances.track', { customer_id: customerId, feature_id: featureId, value }));
}

/** A consumable item: `included` units returning every month. */
function monthly(featureId: string, included: number): z.input<typeof PlanItemInput> {
  return { feature_id: featureId, included, reset: { interval: 'month' } };
}

/** Moves the target's clock just past `at`; events due by then run. */
async function advancePast(t: T, at: number): Promise<void> {
  const { now } = await t.control.call('clock.get', {});
  t.precondition('the reset time lies ahead of the clock', () => expect(at).toBeGreaterThan(now));
  await t.control.call('clock.advance', { ms: at - now + 1_000 });
}

/** Asserts, as a check of `rule`, that no plan `planId` exists (the refused create left nothing behind). */
async function expectNoPlan(t: T, planId: string, rule: RuleId): Promise<void> {
  t.expectError(await t.client.call('plans.get', { plan_id: planId }), { rule });
}

/** "now" of the target: the fake's clock where there is one, else this machine's. */
async function targetNow(t: T): Promise<number> {
  return t.has('control-plane') ? (await t.control.call('clock.get', {})).now : Date.now();
}

/**
 * CONV-TIMESTAMPS-MS of every timestamp given that the answer carried (a missing one is the shape
 * rule's): an integer number of milliseconds (above 10^12) between `from` and `to`.
 */
function expectMilliseconds(t: T, [from, to]: readonly [number, number], stamps: Record<string, unknown>): void {
  t.check('CONV-TIMESTAMPS-MS', () => {
    for (const [what, stamp] of Object.entries(stamps)) {
      if (stamp === undefined || stamp === null) continue;
      expect(Number.isInteger(stamp), `${what} ${String(stamp)} is an integer`).toBe(true);
      expect(stamp as number, `${what} is in milliseconds`).toBeGreaterThan(1e12);
      expect(stamp as number, `${what} is a time in milliseconds after ${from}`).toBeGreaterThanOrEqual(from);
      expect(stamp as number, `${what} is a time in milliseconds before ${to}`).toBeLessThanOrEqual(to);
    }
  });
}

export const plansScenarios = [
  // ── plans.create and plans.get ────────────────────────────────────────────
  scenario(
    {
      id: 'plans.create-then-get',
      title: 'plans.create answers the new plan as version 1 (slug v1, active, no base variant, its group) and plans.get returns the same plan',
      rules: ['PLAN-CREATE-THEN-GET', 'PLAN-SHAPE', 'VER-PLAN-SLUG-DEFAULT', 'CONV-TIMESTAMPS-MS'],
      uses: ['control-plane'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const planId = t.ns.id('plan');
      const group = t.ns.id('grp');
      const created = t.expectOk(
        await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, description: 'A starter plan', group, items: [monthly(feature.id, 50)] }),
        'PLAN-CREATE-THEN-GET',
      );
      const now = await targetNow(t);
      t.check('PLAN-CREATE-THEN-GET', () => {
        expect(created, 'the create answer carries what was sent').toMatchObject({
          id: planId,
          name: `Plan ${planId}`,
          description: 'A starter plan',
          group,
          version: 1,
          active: true,
          add_on: false,
          auto_enable: false,
          archived: false,
        });
        expect(created.base_variant_id ?? null, 'a plan that is not a variant has no base variant').toBeNull();
        expect((created.items ?? []).map((item) => [item.feature_id, item.included])).toEqual([[feature.id, 50]]);
      });
      t.check('VER-PLAN-SLUG-DEFAULT', () => expect(created.version_slug, 'version 1 is v1').toBe('v1'));
      // Compared without created_at: its unit is CONV-TIMESTAMPS-MS's, its presence PLAN-SHAPE's.
      const { created_at: createdAt, ...rest } = created;
      for (const version of [undefined, 1]) {
        const got = await getPlan(t, 'PLAN-CREATE-THEN-GET', planId, version);
        const { created_at: gotAt, ...gotRest } = got;
        t.check('PLAN-CREATE-THEN-GET', () => {
          expect(gotRest, `plans.get${version === undefined ? '' : ' of version 1'} returns the plan plans.create answered`).toEqual(rest);
          if (createdAt !== undefined && gotAt !== undefined && Math.abs(createdAt - gotAt) < 1e6) expect(gotAt, 'the same creation time').toBe(createdAt);
        });
        expectMilliseconds(t, [now - DAY_MS, now + DAY_MS], { 'plans.create created_at': createdAt, 'plans.get created_at': gotAt });
      }
    },
  ),

  scenario(
    {
      id: 'plans.price-null-free',
      title: 'price is null for a free plan and for a usage-only plan, and an object with display texts for a plan with a base price',
      rules: ['PLAN-PRICE-NULL-FREE', 'PLAN-SHAPE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const free = await createPlan(t, { items: [monthly(feature.id, 10)] });
      const usageOnly = await createPlan(t, {
        items: [{ ...monthly(feature.id, 10), price: { amount: 0.25, interval: 'month', billing_method: 'usage_based' } }],
      });
      const paid = await createPlan(t, { price: { amount: 20, interval: 'month' }, items: [monthly(feature.id, 10)] });
      for (const plan of [free, usageOnly]) {
        const got = await readPlan(t, plan.id);
        t.check('PLAN-PRICE-NULL-FREE', () => {
          expect(plan.price, `${plan.id}: the create answer of a plan without base price has price null`).toBeNull();
          expect(got.price, `${plan.id}: plans.get of a plan without base price has price null`).toBeNull();
        });
      }
      for (const plan of [paid, await readPlan(t, paid.id)]) {
        t.check('PLAN-PRICE-NULL-FREE', () => {
          expect(plan.price, 'a base price reads back as an object').toMatchObject({ amount: 20, interval: 'month' });
          expect(plan.price?.display?.primary_text?.length, 'the base price has a primary display text').toBeGreaterThan(0);
          expect(plan.price?.display?.secondary_text?.length, 'the base price has a secondary display text').toBeGreaterThan(0);
        });
      }
    },
  ),

  scenario(
    {
      id: 'plans.items-round-trip',
      title: 'plan items sent in snake_case (boolean, consumable, allocated, unlimited, tiered usage price, prepaid price) read back as sent',
      rules: ['PLAN-ITEMS-ROUND-TRIP', 'PLAN-SHAPE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const messages = await createFeature(t, 'consumable');
      const tokens = await createFeature(t, 'consumable');
      const calls = await createFeature(t, 'consumable');
      const seats = await createFeature(t, 'allocated');
      const projects = await createFeature(t, 'allocated');
      // Every priced item on the plan's monthly interval: the document says nothing about mixing
      // intervals, and the reference refuses weekly and monthly prices on one plan.
      const items: z.input<typeof PlanItemInput>[] = [
        { feature_id: flag.id },
        monthly(messages.id, 1000),
        { feature_id: tokens.id, included: 100, reset: { interval: 'month' }, price: { tiers: [{ to: 1000, amount: 0.5 }, { to: 'inf', amount: 0.2 }], interval: 'month', billing_method: 'usage_based' } },
        { feature_id: calls.id, unlimited: true },
        { feature_id: seats.id, included: 5 },
        { feature_id: projects.id, included: 2, price: { amount: 4, interval: 'month', billing_units: 10, billing_method: 'prepaid', max_purchase: 50 } },
      ];
      const created = await createPlan(t, { price: { amount: 30, interval: 'month' }, items });
      for (const plan of [created, await readPlan(t, created.id)]) {
        const byFeature = new Map((plan.items ?? []).map((item) => [item.feature_id, item]));
        t.check('PLAN-ITEMS-ROUND-TRIP', () => {
          expect([...byFeature.keys()].sort(), 'one item per feature sent').toEqual(items.map((item) => item.feature_id).sort());
          expect(byFeature.get(flag.id), 'a boolean item').toMatchObject({ included: 0, unlimited: false, price: null });
          expect(byFeature.get(messages.id), 'a consumable item keeps included and its monthly reset').toMatchObject({
            included: 1000,
            unlimited: false,
            reset: { interval: 'month' },
            price: null,
          });
          expect(byFeature.get(tokens.id), 'a tiered usage price keeps its tiers, interval and method').toMatchObject({
            included: 100,
            reset: { interval: 'month' },
            price: { tiers: [{ to: 1000, amount: 0.5 }, { to: 'inf', amount: 0.2 }], interval: 'month', billing_units: 1, billing_method: 'usage_based', max_purchase: null },
          });
          expect(byFeature.get(calls.id)?.unlimited, 'an unlimited item').toBe(true);
          expect(byFeature.get(seats.id), 'an allocated item has included and no reset').toMatchObject({ included: 5, unlimited: false, reset: null, price: null });
          expect(byFeature.get(projects.id), 'a prepaid price keeps amount, billing units and purchase cap').toMatchObject({
            included: 2,
            reset: null,
            price: { amount: 4, interval: 'month', billing_units: 10, billing_method: 'prepaid', max_purchase: 50 },
          });
          for (const item of plan.items ?? []) expect(item.display?.primary_text?.length, `${item.feature_id} has a display text`).toBeGreaterThan(0);
        });
      }
    },
  ),

  scenario(
    {
      id: 'plans.billing-method-enum',
      title: 'plans.create refuses an item price whose billing_method is outside usage_based and prepaid, creating nothing, and accepts the same item with each documented method',
      rules: ['PLAN-BILLING-METHOD-ENUM'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const item = (billingMethod: string) => ({ ...monthly(feature.id, 5), price: { amount: 1, interval: 'month', billing_method: billingMethod } });
      for (const billingMethod of ['per_unit', 'USAGE_BASED', 'prepaid ', '']) {
        const planId = t.ns.id('plan');
        t.expectError(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, items: [item(billingMethod)] } as never), { rule: 'PLAN-BILLING-METHOD-ENUM' });
        await expectNoPlan(t, planId, 'PLAN-BILLING-METHOD-ENUM');
      }
      // The nearest valid requests: the same item with each documented method.
      for (const billingMethod of ['usage_based', 'prepaid']) await createPlan(t, { items: [item(billingMethod) as z.input<typeof PlanItemInput>] });
    },
  ),

  scenario(
    {
      id: 'plans.currencies-round-trip',
      title: 'additional_currencies on the base price, on a feature price and on each tier of a tiered price read back as sent',
      rules: ['PLAN-CURRENCIES-ROUND-TRIP'],
      needs: ['multi-currency'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const seats = await createFeature(t, 'allocated');
      const baseCurrencies = [
        { currency: 'eur', amount: 18 },
        { currency: 'gbp', amount: 16 },
      ];
      const tierCurrencies = [[{ currency: 'eur', amount: 0.45 }], [{ currency: 'eur', amount: 0.18 }]];
      const seatCurrencies = [{ currency: 'eur', amount: 9 }];
      const created = await createPlan(t, {
        price: { amount: 20, interval: 'month', additional_currencies: baseCurrencies },
        items: [
          {
            ...monthly(messages.id, 100),
            price: {
              tiers: [
                { to: 1000, amount: 0.5, additional_currencies: tierCurrencies[0] },
                { to: 'inf', amount: 0.2, additional_currencies: tierCurrencies[1] },
              ],
              interval: 'month',
              billing_method: 'usage_based',
            },
          },
          { feature_id: seats.id, price: { amount: 10, interval: 'month', billing_method: 'prepaid', additional_currencies: seatCurrencies } },
        ],
      });
      const lower = (list: readonly { currency: string; amount: number }[] | undefined) => (list ?? []).map(({ currency, amount }) => ({ currency: currency.toLowerCase(), amount }));
      for (const plan of [created, await readPlan(t, created.id)]) {
        t.check('PLAN-CURRENCIES-ROUND-TRIP', () => {
          expect(lower(plan.price?.additional_currencies), 'the base price keeps its explicit amounts per currency').toEqual(baseCurrencies);
          const tiered = plan.items?.find((item) => item.feature_id === messages.id)?.price;
          expect(tiered?.tiers?.map((tier) => tier.to), 'tier boundaries are kept').toEqual([1000, 'inf']);
          expect(tiered?.tiers?.map((tier) => lower(tier.additional_currencies)), 'each tier keeps its own currency amounts').toEqual(tierCurrencies);
          const seatPrice = plan.items?.find((item) => item.feature_id === seats.id)?.price;
          expect(lower(seatPrice?.additional_currencies), 'the feature price keeps its currency amounts').toEqual(seatCurrencies);
        });
      }
    },
  ),

  scenario(
    {
      id: 'plans.free-trial-round-trip',
      title: 'free_trial {duration_length, duration_type, card_required} reads back as sent',
      rules: ['PLAN-FREE-TRIAL-ROUND-TRIP', 'PLAN-FREE-TRIAL-WIRE', 'PLAN-SHAPE'],
    },
    async (t) => {
      const trials = [
        { duration_length: 14, duration_type: 'day', card_required: true },
        { duration_length: 1, duration_type: 'month', card_required: false },
      ] as const;
      for (const trial of trials) {
        const created = await createPlan(t, { price: { amount: 10, interval: 'month' }, free_trial: trial });
        for (const plan of [created, await readPlan(t, created.id)]) {
          // The wire name first: a trial that is not there at all was not taken from `free_trial`.
          t.check('PLAN-FREE-TRIAL-WIRE', () => expect(plan.free_trial, `${plan.id}: the plan has the free trial sent as free_trial`).toBeDefined());
          t.check('PLAN-FREE-TRIAL-ROUND-TRIP', () => expect(plan.free_trial, `${plan.id}: the free trial reads back as sent`).toMatchObject(trial));
        }
      }
    },
  ),

  scenario(
    {
      id: 'plans.config',
      title: 'config.ignore_past_due reads back as sent, defaults to false, and changes with plans.update',
      rules: ['PLAN-CONFIG-ROUND-TRIP', 'PLAN-CONFIG-WIRE'],
    },
    async (t) => {
      const flagged = await createPlan(t, { config: { ignore_past_due: true } });
      const flaggedRead = await readPlan(t, flagged.id);
      t.check('PLAN-CONFIG-ROUND-TRIP', () => {
        expect(flagged.config?.ignore_past_due, 'the create answer keeps ignore_past_due true').toBe(true);
        expect(flaggedRead.config?.ignore_past_due, 'plans.get keeps ignore_past_due true').toBe(true);
      });
      const { version } = await updatePlan(t, { plan_id: flagged.id, config: { ignore_past_due: false } });
      const updated = await readPlan(t, flagged.id, version);
      t.check('PLAN-CONFIG-ROUND-TRIP', () => expect(updated.config?.ignore_past_due, 'plans.update turns ignore_past_due off').toBe(false));
      const plain = await createPlan(t);
      const plainRead = await readPlan(t, plain.id);
      t.check('PLAN-CONFIG-WIRE', () => {
        expect(plain.config, 'a plan created without config reads ignore_past_due false').toEqual({ ignore_past_due: false });
        expect(plainRead.config).toEqual({ ignore_past_due: false });
      });
    },
  ),

  scenario(
    {
      id: 'plans.billing-controls-and-metadata',
      title: 'billing_controls and metadata read back as sent, and as {} when none are set',
      rules: ['PLAN-BILLING-CONTROLS-WIRE', 'PLAN-METADATA-WIRE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const billingControls = { overage_allowed: [{ feature_id: feature.id, enabled: true }] };
      const metadata = { tier: 'gold', seats: 3, beta: true, nested: { region: 'eu', tags: ['a', 'b'] }, nothing: null };
      const plain = await createPlan(t, { items: [monthly(feature.id, 10)] });
      const configured = await createPlan(t, { items: [monthly(feature.id, 10)], billing_controls: billingControls, metadata });
      const reads = [await readPlan(t, plain.id), await readPlan(t, configured.id)] as const;
      for (const plan of [plain, reads[0]]) {
        t.check('PLAN-BILLING-CONTROLS-WIRE', () => expect(plan.billing_controls, 'billing_controls read {} when none are set').toEqual({}));
        t.check('PLAN-METADATA-WIRE', () => expect(plan.metadata, 'metadata reads {} when none is set').toEqual({}));
      }
      for (const plan of [configured, reads[1]]) {
        t.check('PLAN-BILLING-CONTROLS-WIRE', () => expect(plan.billing_controls, 'billing_controls read back as sent').toMatchObject(billingControls));
        t.check('PLAN-METADATA-WIRE', () => expect(plan.metadata, 'metadata reads back as sent').toEqual(metadata));
      }
    },
  ),

  scenario(
    {
      id: 'plans.processors-omitted',
      title: 'processors is omitted or names a connected processor: never an empty object',
      rules: ['PLAN-PROCESSORS-OMITTED'],
    },
    async (t) => {
      // Nothing reference-only is sent: on a deployment with a processor connected the plan may be
      // connected to it, and then `processors` is set; unset, it must be left out.
      const created = await createPlan(t);
      const got = await readPlan(t, created.id);
      t.check('PLAN-PROCESSORS-OMITTED', () => {
        for (const [what, plan] of [['the create answer', created], ['plans.get', got]] as const) {
          if (!('processors' in plan)) continue;
          expect(plan.processors, `${what}: processors, when present, names a processor`).toEqual(expect.any(Object));
          expect(Object.keys(plan.processors ?? {}).length, `${what}: processors is present but empty, not omitted`).toBeGreaterThan(0);
        }
      });
    },
  ),

  scenario(
    {
      id: 'plans.create-in-stripe',
      title: 'plans.create accepts create_in_stripe: false and the plan is connected to no processor',
      rules: ['PLAN-CREATE-IN-STRIPE-WIRE'],
    },
    async (t) => {
      const planId = t.ns.id('plan');
      const created = t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, create_in_stripe: false }), 'PLAN-CREATE-IN-STRIPE-WIRE');
      const got = await readPlan(t, created.id);
      t.check('PLAN-CREATE-IN-STRIPE-WIRE', () => {
        expect(created.processors?.['stripe'], 'the create answer names no Stripe connection').toBeUndefined();
        expect(got.processors?.['stripe'], 'plans.get names no Stripe connection').toBeUndefined();
      });
    },
  ),

  // ── Bounds and required fields of plans.create and plans.get ─────────────────
  scenario(
    {
      id: 'plans.create-required-fields',
      title: 'plans.create without plan_id or without name is refused, and nothing is created; with both it is accepted',
      rules: ['PLAN-CREATE-REQUIRED-FIELDS'],
    },
    async (t) => {
      const planId = t.ns.id('plan');
      t.expectError(await t.client.call('plans.create', { plan_id: planId } as never), { rule: 'PLAN-CREATE-REQUIRED-FIELDS' });
      await expectNoPlan(t, planId, 'PLAN-CREATE-REQUIRED-FIELDS');
      t.expectError(await t.client.call('plans.create', { name: `Plan ${planId}` } as never), { rule: 'PLAN-CREATE-REQUIRED-FIELDS' });
      t.expectError(await t.client.call('plans.create', {} as never), { rule: 'PLAN-CREATE-REQUIRED-FIELDS' });
      await expectNoPlan(t, planId, 'PLAN-CREATE-REQUIRED-FIELDS');
      const { list } = t.setup(await t.client.call('plans.list', { include_archived: true }), ['list']);
      t.check('PLAN-CREATE-REQUIRED-FIELDS', () => expect(list.filter((plan) => plan.name === `Plan ${planId}`), 'no plan was created under the name sent without plan_id').toEqual([]));
      // The nearest valid request: both fields.
      await createPlan(t, { plan_id: planId });
    },
  ),

  scenario(
    {
      id: 'plans.id-pattern',
      title: 'plans.create accepts plan ids matching ^[a-zA-Z0-9_-]+$ and refuses any other (empty included), creating nothing',
      rules: ['PLAN-ID-PATTERN'],
    },
    async (t) => {
      const accept = async (planId: string) => {
        const plan = t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}` }), 'PLAN-ID-PATTERN');
        const got = await readPlan(t, planId);
        t.check('PLAN-ID-PATTERN', () => {
          expect(plan.id, `plan id ${JSON.stringify(planId)} is kept as sent`).toBe(planId);
          expect(got.id).toBe(planId);
        });
        // Such ids are outside the ledger's id form, so the plan is archived (the API's delete) here.
        await updatePlan(t, { plan_id: planId, archived: true });
      };
      const refuse = async (planId: string) => {
        t.expectError(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}` }), { rule: 'PLAN-ID-PATTERN' });
        if (planId !== '') await expectNoPlan(t, planId, 'PLAN-ID-PATTERN');
      };

      // The edges: the pattern's own special characters, alone and together; the empty id; one bad character.
      const base = t.ns.id('pid');
      for (const suffix of ['-', '_', '-_-', 'Az09']) await accept(`${base}${suffix}`);
      for (const planId of ['', ' ', `${base} `, `${base}.`, `${base}/x`]) await refuse(planId);

      const allowed = fc.stringMatching(/^[a-zA-Z0-9_-]{1,10}$/);
      const outside = fc.constantFrom(' ', '.', '!', '@', '#', '/', ':', '+', '*', '~', '?', '%', '"', '\t', '\n', 'é', 'ß', 'Ω', '漢', '😀');
      const unmatched = fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }).filter((s) => !PLAN_ID_PATTERN.test(s) && !s.includes('\u0000'));
      const invalidSuffix = fc.oneof(
        fc.tuple(fc.stringMatching(/^[a-zA-Z0-9_-]{0,4}$/), outside, fc.stringMatching(/^[a-zA-Z0-9_-]{0,4}$/)).map((parts) => parts.join('')),
        unmatched,
      );
      await checkProperty(t, fc.asyncProperty(allowed, (suffix) => accept(`${t.ns.id('pid')}${suffix}`)), 15);
      await checkProperty(t, fc.asyncProperty(invalidSuffix, (suffix) => refuse(`${t.ns.id('pid')}${suffix}`)), 20);
    },
  ),

  scenario(
    {
      id: 'plans.name-min-length',
      title: 'plans.create refuses an empty name, creating nothing, and accepts a name of one character',
      rules: ['PLAN-NAME-MIN-LENGTH'],
    },
    async (t) => {
      const refused = t.ns.id('plan');
      t.expectError(await t.client.call('plans.create', { plan_id: refused, name: '' }), { rule: 'PLAN-NAME-MIN-LENGTH' });
      await expectNoPlan(t, refused, 'PLAN-NAME-MIN-LENGTH');
      // The nearest valid request: a name of one character.
      const plan = await createPlan(t, { name: 'x' });
      const got = await readPlan(t, plan.id);
      t.check('PLAN-NAME-MIN-LENGTH', () => {
        expect(plan.name, 'a one-character name is kept').toBe('x');
        expect(got.name).toBe('x');
      });
    },
  ),

  scenario(
    {
      id: 'plans.duplicate-id',
      title: 'plans.create with an existing plan_id is refused with 400 product_already_exists and the plan is unchanged',
      rules: ['PLAN-DUPLICATE-ID'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { name: 'Original', items: [monthly(feature.id, 10)] });
      const again = await t.client.call('plans.create', { plan_id: plan.id, name: 'Impostor' });
      t.expectError(again, { status: 400, code: 'product_already_exists', rule: 'PLAN-DUPLICATE-ID' });
      const kept = await readPlan(t, plan.id);
      t.check('PLAN-DUPLICATE-ID', () => {
        expect(kept, 'the existing plan is unchanged').toMatchObject({ name: 'Original', version: plan.version });
        expect((kept.items ?? []).map((item) => item.feature_id)).toEqual([feature.id]);
      });
    },
  ),

  scenario(
    {
      id: 'plans.get-required-fields',
      title: 'plans.get without plan_id, or with a plan_id that is not a string, is refused; with the plan_id it answers',
      rules: ['PLAN-GET-REQUIRED-FIELDS'],
    },
    async (t) => {
      // A plan exists, so a target that falls back to "some plan" would answer 200.
      const plan = await createPlan(t);
      for (const body of [{}, { version: 1 }, { plan_id: null }, { plan_id: 42 }]) {
        t.expectError(await t.client.call('plans.get', body as never), { rule: 'PLAN-GET-REQUIRED-FIELDS' });
      }
      // The nearest valid request: the plan_id of the plan.
      await readPlan(t, plan.id);
    },
  ),

  scenario(
    {
      id: 'plans.not-found',
      title: 'an unknown plan id, or an unknown version of a known plan, is answered 404 product_not_found',
      rules: ['ERR-PLAN-NOT-FOUND'],
    },
    async (t) => {
      const plan = await createPlan(t);
      // The nearest valid requests: the plan and its version exist.
      await readPlan(t, plan.id, plan.version);
      const unknownId = t.ns.id('ghost');
      const notFound = { status: 404, code: 'product_not_found', rule: 'ERR-PLAN-NOT-FOUND' } as const;
      t.expectError(await t.client.call('plans.get', { plan_id: unknownId }), notFound);
      t.expectError(await t.client.call('plans.get', { plan_id: plan.id, version: plan.version + 5 }), notFound);
      t.expectError(await t.client.call('plans.update', { plan_id: unknownId, name: 'Ghost' }), notFound);
      const customer = await createCustomer(t);
      t.expectError(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: unknownId }), notFound);
      const held = await activePlanIds(t, customer.id);
      t.check('ERR-PLAN-NOT-FOUND', () => expect(held, 'the failed attach gave the customer nothing').toEqual([]));
    },
  ),

  // ── Versions ─────────────────────────────────────────────────────────────
  scenario(
    {
      id: 'plans.update-new-version',
      title: 'a configuration change of a plan customers are on makes version n+1 (slug v{n+1}), the only active one; old versions stay retrievable and customers stay on theirs',
      rules: ['PLAN-UPDATE-NEW-VERSION', 'VER-PLAN-VERSION-INCREASES', 'VER-PLAN-SLUG-DEFAULT', 'VER-PLAN-ONE-ACTIVE', 'PLAN-GET-VERSION', 'PLAN-GET-DEFAULT-ACTIVE', 'PLAN-SHAPE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const v1 = await createPlan(t, { items: [monthly(feature.id, 100)] });
      const first = await createCustomer(t);
      await attach(t, first.id, v1.id);

      /** plans.update of the items (its subject here), checked as a new version after `previous`. */
      const changeItems = async (previous: Plan, included: number): Promise<Plan> => {
        const next = t.expectOk(await t.client.call('plans.update', { plan_id: v1.id, items: [monthly(feature.id, included)] }), 'PLAN-UPDATE-NEW-VERSION');
        t.check('VER-PLAN-VERSION-INCREASES', () => expect(next, 'the update answers the next version').toMatchObject({ id: v1.id, version: previous.version + 1 }));
        t.check('VER-PLAN-SLUG-DEFAULT', () => expect(next.version_slug, 'its slug').toBe(`v${next.version}`));
        t.check('VER-PLAN-ONE-ACTIVE', () => expect(next.active, 'the new version is the active one').toBe(true));
        t.check('PLAN-UPDATE-NEW-VERSION', () => expect((next.items ?? []).map((item) => item.included), 'the new version has the items sent').toEqual([included]));
        return next;
      };
      const v2 = await changeItems(v1, 200);
      const second = await createCustomer(t);
      await attach(t, second.id, v1.id);
      const v3 = await changeItems(v2, 300);

      const latest = await getPlan(t, 'PLAN-GET-DEFAULT-ACTIVE', v1.id);
      t.check('PLAN-GET-DEFAULT-ACTIVE', () => {
        expect(latest, 'plans.get without version returns the active (latest) version').toMatchObject({ version: v3.version });
        expect((latest.items ?? []).map((item) => item.included)).toEqual([300]);
      });

      const versions: Plan[] = [];
      for (const [plan, included] of [[v1, 100], [v2, 200], [v3, 300]] as const) {
        const got = await getPlan(t, 'PLAN-GET-VERSION', v1.id, plan.version);
        t.check('PLAN-GET-VERSION', () => {
          expect(got.version, `plans.get version ${plan.version} returns that version`).toBe(plan.version);
          expect((got.items ?? []).map((item) => item.included), `version ${plan.version} keeps its own items`).toEqual([included]);
        });
        t.check('VER-PLAN-SLUG-DEFAULT', () => expect(got.version_slug).toBe(`v${plan.version}`));
        versions.push(got);
      }
      t.check('VER-PLAN-ONE-ACTIVE', () => expect(versions.map((plan) => plan.active), 'exactly one version, the latest, is active').toEqual([false, false, true]));

      const granted = [(await readBalance(t, first.id, feature.id))?.granted, (await readBalance(t, second.id, feature.id))?.granted];
      const held = await activePlanIds(t, first.id);
      t.check('PLAN-UPDATE-NEW-VERSION', () => {
        expect(granted, 'the first customer stays on version 1, the second on version 2').toEqual([100, 200]);
        expect(held, 'the first customer still holds the plan').toEqual([v1.id]);
      });
      const third = await createCustomer(t);
      await attach(t, third.id, v1.id);
      const newest = await readBalance(t, third.id, feature.id);
      t.check('PLAN-UPDATE-NEW-VERSION', () => expect(newest?.granted, 'a new attach gets the active version').toBe(300));
    },
  ),

  scenario(
    {
      id: 'plans.metadata-shared',
      title: 'plan metadata is shared across all versions: set on the latest, it reads the same on every version',
      rules: ['PLAN-METADATA-SHARED'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const v1 = await createPlan(t, { items: [monthly(feature.id, 10)], metadata: { stage: 'one' } });
      const customer = await createCustomer(t);
      await attach(t, customer.id, v1.id);
      const v2 = await updatePlan(t, { plan_id: v1.id, items: [monthly(feature.id, 20)] });
      t.precondition('the item change made a new version', () => expect(v2.version).toBe(v1.version + 1));
      await updatePlan(t, { plan_id: v1.id, metadata: { stage: 'two', shared: true } });
      for (const version of [v1.version, v2.version]) {
        const got = await readPlan(t, v1.id, version);
        t.check('PLAN-METADATA-SHARED', () => expect(got.metadata, `version ${version} reads the metadata set last`).toEqual({ stage: 'two', shared: true }));
      }
    },
  ),

  scenario(
    {
      id: 'plans.list',
      title: 'plans.list answers {list: [Plan]} with the active version of each plan, once',
      rules: ['PLAN-LIST', 'PLAN-LIST-SHAPE', 'VER-PLAN-ONE-ACTIVE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const versioned = await createPlan(t, { items: [monthly(feature.id, 10)] });
      const plain = await createPlan(t, { items: [monthly(feature.id, 5)] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, versioned.id);
      const v2 = await updatePlan(t, { plan_id: versioned.id, items: [monthly(feature.id, 20)] });
      const first = await readPlan(t, versioned.id, versioned.version);
      t.precondition('the item change made a new version, and plans.get answers the version asked for', () => expect([v2.version, first.version]).toEqual([versioned.version + 1, versioned.version]));
      t.check('VER-PLAN-ONE-ACTIVE', () => expect(first.active, 'version 1 is no longer active').toBe(false));

      const answer = t.expectOk(await t.client.call('plans.list', {}), 'PLAN-LIST');
      t.precondition('plans.list answered a list', () => expect(Array.isArray(answer.list)).toBe(true));
      const ours = answer.list.filter((plan) => plan.id === versioned.id || plan.id === plain.id);
      t.check('PLAN-LIST', () => {
        expect(ours.map((plan) => plan.id).sort(), 'each of our plans is listed exactly once').toEqual([versioned.id, plain.id].sort());
        expect(ours.find((plan) => plan.id === versioned.id), 'the updated plan is listed at its active version').toMatchObject({ version: v2.version, active: true });
        expect(ours.find((plan) => plan.id === versioned.id)?.items?.map((item) => item.included)).toEqual([20]);
        expect(ours.find((plan) => plan.id === plain.id), 'the other plan is listed at version 1').toMatchObject({ version: plain.version, active: true });
      });
    },
  ),

  // ── License links ───────────────────────────────────────────────────────────
  scenario(
    {
      id: 'plans.license-links-offer',
      title: 'a plan created with licenses [{license_plan_id, included}] reads them back and, once attached, offers that many seats',
      rules: ['PLAN-LICENSE-LINKS-OFFER', 'PLAN-LICENSES-WIRE'],
    },
    async (t) => {
      // Built here rather than with createLicensePool, which requires the links this scenario proves.
      const flag = await createFeature(t, 'boolean');
      const licensePlan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const parentPlan = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: licensePlan.id, included: 3 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, parentPlan.id);
      const setup = { customerId: customer.id, licensePlan, parentPlan };
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      const pool = list.find((p) => p.license_plan_id === setup.licensePlan.id && p.parent_plan_id === setup.parentPlan.id);
      t.check('PLAN-LICENSE-LINKS-OFFER', () => {
        expect(pool, 'the attached parent offers the license plan').toBeDefined();
        expect(pool!.granted === 3 || pool!.remaining === 3, `the pool offers 3 seats (granted ${pool!.granted}, remaining ${pool!.remaining})`).toBe(true);
      });
      const parent = await readPlan(t, setup.parentPlan.id);
      t.check('PLAN-LICENSES-WIRE', () =>
        expect(parent.licenses, 'the parent plan lists its license link').toEqual([
          { license_plan_id: setup.licensePlan.id, version: setup.licensePlan.version, included: 3, prepaid_only: true },
        ]),
      );
      const noSeats = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: setup.licensePlan.id }] });
      t.check('PLAN-LICENSES-WIRE', () => expect(noSeats.licenses?.map((link) => link.included), 'included defaults to 0').toEqual([0]));
    },
  ),

  scenario(
    {
      id: 'plans.license-links-replace',
      title: 'plans.update with licenses replaces the whole set of license links',
      rules: ['PLAN-LICENSE-LINKS-REPLACE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const l1 = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const l2 = await createPlan(t);
      const l3 = await createPlan(t);
      const parent = await createPlan(t, {
        group: t.ns.id('grp'),
        licenses: [
          { license_plan_id: l1.id, included: 2 },
          { license_plan_id: l2.id, included: 1 },
        ],
      });
      const updated = await updatePlan(t, {
        plan_id: parent.id,
        licenses: [
          { license_plan_id: l2.id, included: 5 },
          { license_plan_id: l3.id, included: 1 },
        ],
      });
      // The version the update answered, whether it made a new one or not (which plans.get returns without version is PLAN-GET-DEFAULT-ACTIVE's).
      const links = (await readPlan(t, parent.id, updated.version)).licenses ?? [];
      t.check('PLAN-LICENSE-LINKS-REPLACE', () =>
        expect(Object.fromEntries(links.map((link) => [link.license_plan_id, link.included])), 'only the links sent last remain, with their included seats').toEqual({ [l2.id]: 5, [l3.id]: 1 }),
      );

      const customer = await createCustomer(t);
      await attach(t, customer.id, parent.id);
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customer.id }), ['list']);
      const offered = list.filter((pool) => pool.parent_plan_id === parent.id).map((pool) => pool.license_plan_id);
      t.check('PLAN-LICENSE-LINKS-REPLACE', () => expect(offered.sort(), 'the attached plan offers the replaced set').toEqual([l2.id, l3.id].sort()));
    },
  ),

  // ── What a plan's configuration does once attached ─────────────────────────────
  scenario(
    {
      id: 'plans.group-exclusive',
      title: 'attaching a main plan replaces the main plan of the same group and leaves other groups alone',
      rules: ['PLAN-GROUP-EXCLUSIVE'],
    },
    async (t) => {
      const [group, other] = [t.ns.id('grp'), t.ns.id('grp')];
      const basic = await createPlan(t, { group });
      const premium = await createPlan(t, { group });
      const elsewhere = await createPlan(t, { group: other });
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect([basic.group, premium.group, elsewhere.group], 'each plan reads back its group').toEqual([group, group, other]));
      const customer = await createCustomer(t);
      await attach(t, customer.id, basic.id);
      await attach(t, customer.id, elsewhere.id);
      const together = await activePlanIds(t, customer.id);
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect(together, 'plans of different groups are held together').toEqual([basic.id, elsewhere.id].sort()));
      await attach(t, customer.id, premium.id);
      const replaced = await activePlanIds(t, customer.id);
      t.check('PLAN-GROUP-EXCLUSIVE', () => expect(replaced, `${premium.id} replaced ${basic.id} in their group`).toEqual([premium.id, elsewhere.id].sort()));
    },
  ),

  scenario(
    {
      id: 'plans.add-on-alongside',
      title: 'an add-on attaches alongside the main plan, in its group or without one, and replaces nothing',
      rules: ['PLAN-ADD-ON-ALONGSIDE'],
    },
    async (t) => {
      const group = t.ns.id('grp');
      const main = await createPlan(t, { group });
      const groupAddOn = await createPlan(t, { group, add_on: true });
      const looseAddOn = await createPlan(t, { add_on: true });
      // That plans.create takes add_on as sent is the round trip's (and the snake_case request convention's).
      t.precondition('the add-ons were created as add-ons', () => expect([groupAddOn.add_on, looseAddOn.add_on]).toEqual([true, true]));
      // The listing read below shows add-ons (LIST-SUBSCRIPTIONS-RECURRING): seen first on an add-on held alone.
      const alone = await createCustomer(t);
      await attach(t, alone.id, looseAddOn.id);
      const aloneHeld = await activePlanIds(t, alone.id);
      t.precondition('subscriptions.list shows an add-on held alone', () => expect(aloneHeld).toEqual([looseAddOn.id]));
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, groupAddOn.id);
      await attach(t, customer.id, looseAddOn.id);
      const held = await activePlanIds(t, customer.id);
      t.check('PLAN-ADD-ON-ALONGSIDE', () => expect(held, 'the main plan and both add-ons are held together').toEqual([main.id, groupAddOn.id, looseAddOn.id].sort()));
    },
  ),

  scenario(
    {
      id: 'plans.auto-enable',
      title: 'an auto_enable plan is attached to a customer when the customer is created',
      rules: ['PLAN-AUTO-ENABLE'],
      // For a moment every new customer of the tenant gets the auto-enable plan.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      // A free plan in a group of its own, turned off right after it has served.
      const plan = await createPlan(t, { group: t.ns.id('grp'), auto_enable: true, items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t).finally(() => updatePlan(t, { plan_id: plan.id, auto_enable: false }));
      const subscriptions = (await activeSubscriptions(t, customer.id)).filter((sub) => sub.plan_id === plan.id);
      // Holding the plan is the rule; what a held plan grants is the balance rules'.
      t.check('PLAN-AUTO-ENABLE', () => {
        expect(plan.auto_enable, 'auto_enable reads back true').toBe(true);
        expect(subscriptions, 'the new customer holds the auto-enable plan').toHaveLength(1);
      });
    },
  ),

  scenario(
    {
      id: 'plans.archived-not-attachable',
      title: 'an archived plan cannot be attached to a new customer; a customer who had it keeps it',
      rules: ['PLAN-ARCHIVED-NOT-ATTACHABLE'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp') });
      // The nearest valid request: attaching the plan before it is archived.
      const existing = await createCustomer(t);
      await attach(t, existing.id, plan.id);
      const archived = await updatePlan(t, { plan_id: plan.id, archived: true });
      const read = await readPlan(t, plan.id);
      t.precondition('the update archived the plan', () => expect([archived.archived, read.archived]).toEqual([true, true]));
      const newcomer = await createCustomer(t);
      // billing.attach is the reference's call: what counts is what the documented listing shows after it, refused or not.
      await t.client.call('billing.attach', { customer_id: newcomer.id, plan_id: plan.id });
      const [newcomerPlans, existingPlans] = [await activePlanIds(t, newcomer.id), await activePlanIds(t, existing.id)];
      t.check('PLAN-ARCHIVED-NOT-ATTACHABLE', () => {
        expect(newcomerPlans, 'the new customer did not get the archived plan').toEqual([]);
        expect(existingPlans, 'the customer who had it keeps it').toEqual([plan.id]);
      });
    },
  ),

  scenario(
    {
      id: 'plans.consumable-resets-allocated-persists',
      title: 'at each reset a consumable balance returns to its included amount, while allocated usage carries over',
      rules: ['PLAN-CONSUMABLE-RESET', 'PLAN-ALLOCATED-PERSISTS', 'CONV-TIMESTAMPS-MS'],
      needs: ['control-plane'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const seats = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { group: t.ns.id('grp'), items: [monthly(messages.id, 10), { feature_id: seats.id, included: 5 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      await track(t, customer.id, messages.id, 7);
      await track(t, customer.id, seats.id, 3);
      const [used, seated] = [await readBalance(t, customer.id, messages.id), await readBalance(t, customer.id, seats.id)];
      t.precondition('the tracked usage shows in both balances', () => {
        expect(used).toMatchObject({ granted: 10, usage: 7, remaining: 3 });
        expect(seated).toMatchObject({ granted: 5, usage: 3, remaining: 2 });
      });

      for (const cycle of [1, 2]) {
        const before = await readBalance(t, customer.id, messages.id);
        t.check('PLAN-CONSUMABLE-RESET', () => expect(before?.next_reset_at, 'a consumable balance has a next reset').toEqual(expect.any(Number)));
        const now = await targetNow(t);
        // A monthly reset lies at most 31 days ahead.
        expectMilliseconds(t, [now, now + 32 * DAY_MS], {
          'next_reset_at': before!.next_reset_at,
          ...Object.fromEntries((before!.breakdown ?? []).map((entry, i) => [`breakdown[${i}].reset.resets_at`, entry.reset?.resets_at])),
        });
        await advancePast(t, before!.next_reset_at!);
        const after = await readBalance(t, customer.id, messages.id);
        t.check('PLAN-CONSUMABLE-RESET', () => {
          expect(after, `after reset ${cycle} the consumable balance is back to its included amount`).toMatchObject({ granted: 10, usage: 0, remaining: 10 });
          expect(after!.next_reset_at, 'the next reset moved ahead').toBeGreaterThan(before!.next_reset_at!);
        });
        const persisted = await readBalance(t, customer.id, seats.id);
        t.check('PLAN-ALLOCATED-PERSISTS', () => expect(persisted, `after reset ${cycle} the allocated usage is still there`).toMatchObject({ granted: 5, usage: 3, remaining: 2 }));
        await track(t, customer.id, messages.id, 4);
      }
    },
  ),

  scenario(
    {
      id: 'plans.usage-price-overage',
      title: 'a usage price lets use run past the included amount and bills it: the units beyond included are recorded on the priced grant',
      rules: ['PLAN-USAGE-PRICE-OVERAGE'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const priced = await createPlan(t, {
        group: t.ns.id('grp'),
        items: [{ ...monthly(feature.id, 5), price: { amount: 0.1, interval: 'month', billing_method: 'usage_based' } }],
      });
      const unpriced = await createPlan(t, { group: t.ns.id('grp'), items: [monthly(feature.id, 5)] });
      const [payer, free] = [await createCustomer(t), await createCustomer(t)];
      await attach(t, payer.id, priced.id);
      await attach(t, free.id, unpriced.id);

      // The reference point: without a price, use stops at the included amount (the balance rules' statement).
      const unpricedAllows = await allowed(t, free.id, feature.id, 8);
      t.precondition('without a price, 8 units exceed the 5 included', () => expect(unpricedAllows).toBe(false));
      const pricedAllows = await allowed(t, payer.id, feature.id, 8);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => expect(pricedAllows, 'with a usage price, 8 units are allowed beyond the 5 included').toBe(true));
      await track(t, payer.id, feature.id, 8);
      const balance = await readBalance(t, payer.id, feature.id);
      t.precondition('the 8 units tracked, and they alone, are recorded', () => expect(balance?.usage).toBe(8));
      const more = await allowed(t, payer.id, feature.id, 1);
      t.check('PLAN-USAGE-PRICE-OVERAGE', () => {
        expect(balance?.overage_allowed, 'the balance allows overage').toBe(true);
        // Billed: the 3 units beyond the 5 included are recorded as usage of the grant that carries the usage price.
        const pricedGrants = (balance?.breakdown ?? []).filter((entry) => entry.plan_id === priced.id);
        expect(pricedGrants, 'one grant of the priced plan').toHaveLength(1);
        expect(pricedGrants[0], 'the priced grant: 5 included, 8 used, its usage price').toMatchObject({ included_grant: 5, usage: 8, price: { billing_method: 'usage_based' } });
        expect(pricedGrants[0]!.usage - pricedGrants[0]!.included_grant - pricedGrants[0]!.prepaid_grant, 'units billed as overage').toBe(3);
        expect(more, 'use may go on past the included amount').toBe(true);
      });
    },
  ),

  scenario(
    {
      id: 'plans.prepaid-upfront',
      title: 'a prepaid price grants the quantity bought at attach and charges quantity ÷ billing units × amount upfront',
      rules: ['PLAN-PREPAID-UPFRONT'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      // Packs of 5 seats at $2: 10 seats bought are 2 packs, $4 upfront.
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        items: [{ feature_id: seats.id, included: 0, price: { amount: 2, interval: 'month', billing_units: 5, billing_method: 'prepaid' } }],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id, { feature_quantities: [{ feature_id: seats.id, quantity: 10 }] });
      const balance = await readBalance(t, customer.id, seats.id);
      t.check('PLAN-PREPAID-UPFRONT', () => {
        expect(balance, 'the 10 units bought are granted upfront').toMatchObject({ granted: 10, remaining: 10 });
        expect((balance?.breakdown ?? []).reduce((sum, entry) => sum + entry.prepaid_grant, 0), 'as a prepaid grant').toBe(10);
      });
      // The charge, through the documented preview: cancelling at once refunds the unused part of
      // what was paid upfront, which right after the attach is all of it.
      const preview = t.setup(
        await t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        ['total'],
      );
      // Whatever the packs, 10 seats at $2 cost at most $20: a larger refund is in another unit (CONV-MONEY-MAJOR-UNITS).
      t.precondition('amounts are in the major unit: the refund is at most 20', () => expect(Math.abs(preview.total)).toBeLessThanOrEqual(20));
      t.check('PLAN-PREPAID-UPFRONT', () => expect(Math.abs(preview.total + 4), `10 seats in packs of 5 at $2 were charged $4 upfront (refund ${preview.total})`).toBeLessThanOrEqual(0.01));
    },
  ),

  scenario(
    {
      id: 'plans.free-trial-applies',
      title: 'a new customer attaching a paid plan with a free trial starts on the trial, ending after its duration',
      rules: ['PLAN-FREE-TRIAL-APPLIES', 'CONV-TIMESTAMPS-MS'],
      needs: ['paid-attach'],
      uses: ['control-plane'],
    },
    async (t) => {
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        price: { amount: 10, interval: 'month' },
        free_trial: { duration_length: 7, duration_type: 'day', card_required: false },
      });
      // The plan carries its trial (PLAN-FREE-TRIAL-WIRE and -ROUND-TRIP are proven apart).
      t.precondition('the plan was created with its free trial', () => expect(plan.free_trial?.duration_length).toBe(7));
      const customer = await createCustomer(t);
      const now = await targetNow(t);
      await attach(t, customer.id, plan.id);
      const sub = (await activeSubscriptions(t, customer.id)).find((s) => s.plan_id === plan.id);
      t.check('PLAN-FREE-TRIAL-APPLIES', () => {
        expect(sub, 'the customer holds the plan, active').toBeDefined();
        expect(sub!.trial_ends_at, 'the subscription is trialing').toEqual(expect.any(Number));
        expect(sub!.trial_ends_at! - sub!.started_at, 'the trial lasts 7 days').toBe(7 * DAY_MS);
      });
      expectMilliseconds(t, [now - DAY_MS, now + 8 * DAY_MS], { started_at: sub!.started_at, trial_ends_at: sub!.trial_ends_at });
    },
  ),
];
