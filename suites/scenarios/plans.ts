/**
 * Conformance scenarios of plans: `plans.create`, `plans.get` (documented), `plans.list` and
 * `plans.update` (setup), plan versions, and what a plan's configuration does once attached.
 *
 * The reference creates a new version on a configuration change only when customers are on the
 * plan's current version, so every versioning scenario attaches a customer to the current version
 * before `plans.update`; then the rule holds on both the document's reading and the reference's.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { z } from 'zod';
import { PLAN_ID_PATTERN, type Plan, type PlanItemInput, type PlansUpdateRequest } from '../../spec/plans.ts';
import { attach, checkProperty, createCustomer, createFeature, createLicensePool, createPlan, scenario, type T } from '../support.ts';

const DAY_MS = 86_400_000;

async function getPlan(t: T, planId: string, version?: number): Promise<Plan> {
  return t.expectOk(await t.client.call('plans.get', { plan_id: planId, ...(version !== undefined && { version }) }));
}

async function updatePlan(t: T, body: z.input<typeof PlansUpdateRequest>): Promise<Plan> {
  return t.expectOk(await t.client.call('plans.update', body));
}

/** The plan ids of a customer's active customer-level subscriptions, sorted. */
async function activePlanIds(t: T, customerId: string): Promise<string[]> {
  const customer = t.expectOk(await t.client.call('customers.get', { customer_id: customerId }));
  return customer.subscriptions
    .filter((sub) => sub.status === 'active' && sub.scope === 'customer')
    .map((sub) => sub.plan_id)
    .sort();
}

/** The customer's balance of a metered feature (a check that consumes nothing). */
async function balanceOf(t: T, customerId: string, featureId: string) {
  const result = t.expectOk(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 1 }));
  expect(result.balance, `customer ${customerId} has a balance of ${featureId}`).not.toBeNull();
  return result.balance!;
}

async function allowed(t: T, customerId: string, featureId: string, required: number): Promise<boolean> {
  return t.expectOk(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: required })).allowed;
}

async function track(t: T, customerId: string, featureId: string, value: number): Promise<void> {
  t.expectOk(await t.client.call('balances.track', { customer_id: customerId, feature_id: featureId, value }));
}

/** A consumable item: `included` units returning every month. */
function monthly(featureId: string, included: number): z.input<typeof PlanItemInput> {
  return { feature_id: featureId, included, reset: { interval: 'month' } };
}

/** Moves the target's clock just past `at`; events due by then run. */
async function advancePast(t: T, at: number): Promise<void> {
  const { now } = await t.control.call('clock.get', {});
  expect(at, 'the reset time lies ahead').toBeGreaterThan(now);
  await t.control.call('clock.advance', { ms: at - now + 1_000 });
}

/** Asserts that no plan `planId` exists (the refused create left nothing behind). */
async function expectNoPlan(t: T, planId: string): Promise<void> {
  t.expectError(await t.client.call('plans.get', { plan_id: planId }));
}

export const plansScenarios = [
  // ── plans.create and plans.get ────────────────────────────────────────────
  scenario(
    {
      id: 'plans.create-then-get',
      title: 'plans.create answers the new plan as version 1 (slug v1, active) and plans.get returns the same plan',
      rules: ['PLAN-CREATE-THEN-GET', 'PLAN-SHAPE', 'VER-PLAN-SLUG-DEFAULT'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const created = await createPlan(t, { description: 'A starter plan', group: t.ns.id('grp'), items: [monthly(feature.id, 50)] });
      expect(created, 'the create answer carries what was sent').toMatchObject({
        name: `Plan ${created.id}`,
        description: 'A starter plan',
        version: 1,
        version_slug: 'v1',
        active: true,
        add_on: false,
        auto_enable: false,
        archived: false,
      });
      expect(created.items.map((item) => [item.feature_id, item.included])).toEqual([[feature.id, 50]]);
      expect(await getPlan(t, created.id), 'plans.get returns the plan plans.create answered').toEqual(created);
      expect(await getPlan(t, created.id, 1), 'plans.get of version 1 returns the same plan').toEqual(created);
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
        expect(plan.price, `${plan.id}: the create answer of a plan without base price has price null`).toBeNull();
        expect((await getPlan(t, plan.id)).price, `${plan.id}: plans.get of a plan without base price has price null`).toBeNull();
      }
      for (const plan of [paid, await getPlan(t, paid.id)]) {
        expect(plan.price, 'a base price reads back as an object').toMatchObject({ amount: 20, interval: 'month' });
        expect(plan.price!.display.primary_text.length, 'the base price has a primary display text').toBeGreaterThan(0);
        expect(plan.price!.display.secondary_text.length, 'the base price has a secondary display text').toBeGreaterThan(0);
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
      const items: z.input<typeof PlanItemInput>[] = [
        { feature_id: flag.id },
        monthly(messages.id, 1000),
        { feature_id: tokens.id, included: 100, reset: { interval: 'week' }, price: { tiers: [{ to: 1000, amount: 0.5 }, { to: 'inf', amount: 0.2 }], interval: 'week', billing_method: 'usage_based' } },
        { feature_id: calls.id, unlimited: true },
        { feature_id: seats.id, included: 5 },
        { feature_id: projects.id, included: 2, price: { amount: 4, interval: 'month', billing_units: 10, billing_method: 'prepaid', max_purchase: 50 } },
      ];
      const created = await createPlan(t, { price: { amount: 30, interval: 'month' }, items });
      for (const plan of [created, await getPlan(t, created.id)]) {
        const byFeature = new Map(plan.items.map((item) => [item.feature_id, item]));
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
          reset: { interval: 'week' },
          price: { tiers: [{ to: 1000, amount: 0.5 }, { to: 'inf', amount: 0.2 }], interval: 'week', billing_units: 1, billing_method: 'usage_based', max_purchase: null },
        });
        expect(byFeature.get(calls.id)?.unlimited, 'an unlimited item').toBe(true);
        expect(byFeature.get(seats.id), 'an allocated item has included and no reset').toMatchObject({ included: 5, unlimited: false, reset: null, price: null });
        expect(byFeature.get(projects.id), 'a prepaid price keeps amount, billing units and purchase cap').toMatchObject({
          included: 2,
          reset: null,
          price: { amount: 4, interval: 'month', billing_units: 10, billing_method: 'prepaid', max_purchase: 50 },
        });
        for (const item of plan.items) expect(item.display.primary_text.length, `${item.feature_id} has a display text`).toBeGreaterThan(0);
      }
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
      for (const plan of [created, await getPlan(t, created.id)]) {
        expect(lower(plan.price?.additional_currencies), 'the base price keeps its explicit amounts per currency').toEqual(baseCurrencies);
        const tiered = plan.items.find((item) => item.feature_id === messages.id)?.price;
        expect(tiered?.tiers?.map((tier) => tier.to), 'tier boundaries are kept').toEqual([1000, 'inf']);
        expect(tiered?.tiers?.map((tier) => lower(tier.additional_currencies)), 'each tier keeps its own currency amounts').toEqual(tierCurrencies);
        const seatPrice = plan.items.find((item) => item.feature_id === seats.id)?.price;
        expect(lower(seatPrice?.additional_currencies), 'the feature price keeps its currency amounts').toEqual(seatCurrencies);
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
        for (const plan of [created, await getPlan(t, created.id)]) {
          expect(plan.free_trial, `${plan.id}: the free trial reads back as sent`).toMatchObject(trial);
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
      expect(flagged.config.ignore_past_due, 'the create answer keeps ignore_past_due true').toBe(true);
      expect((await getPlan(t, flagged.id)).config.ignore_past_due, 'plans.get keeps ignore_past_due true').toBe(true);
      const plain = await createPlan(t);
      expect(plain.config, 'a plan created without config reads ignore_past_due false').toEqual({ ignore_past_due: false });
      expect((await getPlan(t, plain.id)).config).toEqual({ ignore_past_due: false });
      await updatePlan(t, { plan_id: flagged.id, config: { ignore_past_due: false } });
      expect((await getPlan(t, flagged.id)).config.ignore_past_due, 'plans.update turns ignore_past_due off').toBe(false);
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
      for (const plan of [plain, await getPlan(t, plain.id)]) {
        expect(plan.billing_controls, 'billing_controls read {} when none are set').toEqual({});
        expect(plan.metadata, 'metadata reads {} when none is set').toEqual({});
      }
      for (const plan of [configured, await getPlan(t, configured.id)]) {
        expect(plan.billing_controls, 'billing_controls read back as sent').toMatchObject(billingControls);
        expect(plan.metadata, 'metadata reads back as sent').toEqual(metadata);
      }
    },
  ),

  scenario(
    {
      id: 'plans.processors-omitted',
      title: 'a plan with no payment processor connected has no processors field',
      rules: ['PLAN-PROCESSORS-OMITTED'],
    },
    async (t) => {
      // create_in_stripe: false keeps a deployment with a processor connected from connecting this plan.
      const created = await createPlan(t, { create_in_stripe: false });
      expect(created, 'the create answer omits processors').not.toHaveProperty('processors');
      expect(await getPlan(t, created.id), 'plans.get omits processors').not.toHaveProperty('processors');
    },
  ),

  // ── Bounds and required fields of plans.create and plans.get ─────────────────
  scenario(
    {
      id: 'plans.create-required-fields',
      title: 'plans.create without plan_id or without name is refused, and nothing is created',
      rules: ['PLAN-CREATE-REQUIRED-FIELDS'],
    },
    async (t) => {
      const planId = t.ns.id('plan');
      t.expectError(await t.client.call('plans.create', { plan_id: planId } as never));
      await expectNoPlan(t, planId);
      t.expectError(await t.client.call('plans.create', { name: `Plan ${planId}` } as never));
      t.expectError(await t.client.call('plans.create', {} as never));
      await expectNoPlan(t, planId);
      const { list } = t.expectOk(await t.client.call('plans.list', { include_archived: true }));
      expect(list.filter((plan) => plan.name === `Plan ${planId}`), 'no plan was created under the name sent without plan_id').toEqual([]);
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
        const plan = t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}` }));
        expect(plan.id, `plan id ${JSON.stringify(planId)} is kept as sent`).toBe(planId);
        expect((await getPlan(t, planId)).id).toBe(planId);
        // Such ids are outside the ledger's id form, so the plan is archived (the API's delete) here.
        await updatePlan(t, { plan_id: planId, archived: true });
      };
      const refuse = async (planId: string) => {
        t.expectError(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}` }));
        if (planId !== '') await expectNoPlan(t, planId);
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
      t.expectError(await t.client.call('plans.create', { plan_id: refused, name: '' }));
      await expectNoPlan(t, refused);
      const plan = await createPlan(t, { name: 'x' });
      expect(plan.name, 'a one-character name is kept').toBe('x');
      expect((await getPlan(t, plan.id)).name).toBe('x');
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
      t.expectError(again, { status: 400, code: 'product_already_exists' });
      const kept = await getPlan(t, plan.id);
      expect(kept, 'the existing plan is unchanged').toMatchObject({ name: 'Original', version: plan.version });
      expect(kept.items.map((item) => item.feature_id)).toEqual([feature.id]);
    },
  ),

  scenario(
    {
      id: 'plans.get-required-fields',
      title: 'plans.get without plan_id, or with a plan_id that is not a string, is refused',
      rules: ['PLAN-GET-REQUIRED-FIELDS'],
    },
    async (t) => {
      // A plan exists, so a target that falls back to "some plan" would answer 200.
      await createPlan(t);
      t.expectError(await t.client.call('plans.get', {} as never));
      t.expectError(await t.client.call('plans.get', { version: 1 } as never));
      t.expectError(await t.client.call('plans.get', { plan_id: null } as never));
      t.expectError(await t.client.call('plans.get', { plan_id: 42 } as never));
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
      const unknownId = t.ns.id('ghost');
      t.expectError(await t.client.call('plans.get', { plan_id: unknownId }), { status: 404, code: 'product_not_found' });
      t.expectError(await t.client.call('plans.get', { plan_id: plan.id, version: plan.version + 5 }), { status: 404, code: 'product_not_found' });
      t.expectError(await t.client.call('plans.update', { plan_id: unknownId, name: 'Ghost' }), { status: 404, code: 'product_not_found' });
      const customer = await createCustomer(t);
      t.expectError(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: unknownId }), { status: 404, code: 'product_not_found' });
      expect(await activePlanIds(t, customer.id), 'the failed attach gave the customer nothing').toEqual([]);
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

      const v2 = await updatePlan(t, { plan_id: v1.id, items: [monthly(feature.id, 200)] });
      expect(v2, 'the update answers the new version').toMatchObject({ id: v1.id, version: v1.version + 1, version_slug: `v${v1.version + 1}`, active: true });
      expect(v2.items.map((item) => item.included)).toEqual([200]);

      const second = await createCustomer(t);
      await attach(t, second.id, v1.id);
      const v3 = await updatePlan(t, { plan_id: v1.id, items: [monthly(feature.id, 300)] });
      expect(v3, 'a second change makes the next version').toMatchObject({ version: v2.version + 1, version_slug: `v${v2.version + 1}`, active: true });

      const latest = await getPlan(t, v1.id);
      expect(latest, 'plans.get without version returns the active (latest) version').toMatchObject({ version: v3.version, active: true });
      expect(latest.items.map((item) => item.included)).toEqual([300]);

      const versions = [];
      for (const [plan, included] of [[v1, 100], [v2, 200], [v3, 300]] as const) {
        const got = await getPlan(t, v1.id, plan.version);
        expect(got, `plans.get version ${plan.version} returns that version`).toMatchObject({ version: plan.version, version_slug: `v${plan.version}` });
        expect(got.items.map((item) => item.included), `version ${plan.version} keeps its own items`).toEqual([included]);
        versions.push(got);
      }
      expect(versions.map((plan) => plan.active), 'exactly one version, the latest, is active').toEqual([false, false, true]);

      expect((await balanceOf(t, first.id, feature.id)).granted, 'the first customer stays on version 1').toBe(100);
      expect((await balanceOf(t, second.id, feature.id)).granted, 'the second customer stays on version 2').toBe(200);
      expect(await activePlanIds(t, first.id), 'the first customer still holds the plan').toEqual([v1.id]);
      const third = await createCustomer(t);
      await attach(t, third.id, v1.id);
      expect((await balanceOf(t, third.id, feature.id)).granted, 'a new attach gets the active version').toBe(300);
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
      expect(v2.version, 'the item change made a new version').toBe(v1.version + 1);
      await updatePlan(t, { plan_id: v1.id, metadata: { stage: 'two', shared: true } });
      for (const version of [v1.version, v2.version]) {
        expect((await getPlan(t, v1.id, version)).metadata, `version ${version} reads the metadata set last`).toEqual({ stage: 'two', shared: true });
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

      const { list } = t.expectOk(await t.client.call('plans.list', {}));
      const ours = list.filter((plan) => plan.id === versioned.id || plan.id === plain.id);
      expect(ours.map((plan) => plan.id).sort(), 'each of our plans is listed exactly once').toEqual([versioned.id, plain.id].sort());
      expect(ours.find((plan) => plan.id === versioned.id), 'the updated plan is listed at its active version').toMatchObject({ version: v2.version, active: true });
      expect(ours.find((plan) => plan.id === versioned.id)?.items.map((item) => item.included)).toEqual([20]);
      expect(ours.find((plan) => plan.id === plain.id), 'the other plan is listed at version 1').toMatchObject({ version: plain.version, active: true });
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
      const setup = await createLicensePool(t, 3);
      const parent = await getPlan(t, setup.parentPlan.id);
      expect(parent.licenses, 'the parent plan lists its license link').toEqual([
        { license_plan_id: setup.licensePlan.id, version: setup.licensePlan.version, included: 3, prepaid_only: true },
      ]);
      const { list } = t.expectOk(await t.client.call('licenses.list', { customer_id: setup.customerId }));
      const pool = list.find((p) => p.license_plan_id === setup.licensePlan.id && p.parent_plan_id === parent.id);
      expect(pool, 'the attached parent offers the license plan').toMatchObject({ granted: 3, usage: 0, remaining: 3, paid_quantity: 0 });

      const noSeats = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: setup.licensePlan.id }] });
      expect(noSeats.licenses?.map((link) => link.included), 'included defaults to 0').toEqual([0]);
    },
  ),

  scenario(
    {
      id: 'plans.license-links-replace',
      title: 'plans.update with licenses replaces the whole set of license links',
      rules: ['PLAN-LICENSE-LINKS-REPLACE', 'PLAN-LICENSES-WIRE'],
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
      await updatePlan(t, {
        plan_id: parent.id,
        licenses: [
          { license_plan_id: l2.id, included: 5 },
          { license_plan_id: l3.id, included: 1 },
        ],
      });
      const links = (await getPlan(t, parent.id)).licenses ?? [];
      const seats = Object.fromEntries(links.map((link) => [link.license_plan_id, link.included]));
      expect(seats, 'only the links sent last remain, with their included seats').toEqual({ [l2.id]: 5, [l3.id]: 1 });

      const customer = await createCustomer(t);
      await attach(t, customer.id, parent.id);
      const { list } = t.expectOk(await t.client.call('licenses.list', { customer_id: customer.id }));
      const offered = Object.fromEntries(list.filter((pool) => pool.parent_plan_id === parent.id).map((pool) => [pool.license_plan_id, pool.granted]));
      expect(offered, 'the attached plan offers the replaced set').toEqual({ [l2.id]: 5, [l3.id]: 1 });
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
      const customer = await createCustomer(t);
      await attach(t, customer.id, basic.id);
      await attach(t, customer.id, elsewhere.id);
      expect(await activePlanIds(t, customer.id), 'plans of different groups are held together').toEqual([basic.id, elsewhere.id].sort());
      await attach(t, customer.id, premium.id);
      expect(await activePlanIds(t, customer.id), `${premium.id} replaced ${basic.id} in their group`).toEqual([premium.id, elsewhere.id].sort());
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
      expect([groupAddOn.add_on, looseAddOn.add_on], 'add_on reads back true').toEqual([true, true]);
      const customer = await createCustomer(t);
      await attach(t, customer.id, main.id);
      await attach(t, customer.id, groupAddOn.id);
      await attach(t, customer.id, looseAddOn.id);
      expect(await activePlanIds(t, customer.id), 'the main plan and both add-ons are held together').toEqual([main.id, groupAddOn.id, looseAddOn.id].sort());
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
      expect(plan.auto_enable, 'auto_enable reads back true').toBe(true);
      const held = customer.subscriptions.filter((sub) => sub.plan_id === plan.id && sub.status === 'active');
      expect(held, 'the new customer holds the auto-enable plan').toHaveLength(1);
      expect(held[0]!.auto_enable).toBe(true);
      expect(await activePlanIds(t, customer.id)).toContain(plan.id);
      const check = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: flag.id }));
      expect(check.allowed, 'the auto-enabled plan grants its feature').toBe(true);
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
      const existing = await createCustomer(t);
      await attach(t, existing.id, plan.id);
      const archived = await updatePlan(t, { plan_id: plan.id, archived: true });
      expect(archived.archived, 'the update archived the plan').toBe(true);
      expect((await getPlan(t, plan.id)).archived).toBe(true);
      const newcomer = await createCustomer(t);
      t.expectError(await t.client.call('billing.attach', { customer_id: newcomer.id, plan_id: plan.id }));
      expect(await activePlanIds(t, newcomer.id), 'the new customer did not get the archived plan').toEqual([]);
      expect(await activePlanIds(t, existing.id), 'the customer who had it keeps it').toEqual([plan.id]);
    },
  ),

  scenario(
    {
      id: 'plans.consumable-resets-allocated-persists',
      title: 'at each reset a consumable balance returns to its included amount, while allocated usage carries over',
      rules: ['PLAN-CONSUMABLE-RESET', 'PLAN-ALLOCATED-PERSISTS'],
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
      expect(await balanceOf(t, customer.id, messages.id)).toMatchObject({ granted: 10, usage: 7, remaining: 3 });
      expect(await balanceOf(t, customer.id, seats.id)).toMatchObject({ granted: 5, usage: 3, remaining: 2 });

      for (const cycle of [1, 2]) {
        const before = await balanceOf(t, customer.id, messages.id);
        expect(before.next_reset_at, 'a consumable balance has a next reset').not.toBeNull();
        await advancePast(t, before.next_reset_at!);
        const after = await balanceOf(t, customer.id, messages.id);
        expect(after, `after reset ${cycle} the consumable balance is back to its included amount`).toMatchObject({ granted: 10, usage: 0, remaining: 10 });
        expect(after.next_reset_at, 'the next reset moved ahead').toBeGreaterThan(before.next_reset_at!);
        expect(await balanceOf(t, customer.id, seats.id), `after reset ${cycle} the allocated usage is still there`).toMatchObject({ granted: 5, usage: 3, remaining: 2 });
        await track(t, customer.id, messages.id, 4);
      }
    },
  ),

  scenario(
    {
      id: 'plans.usage-price-overage',
      title: 'a usage price lets use run past the included amount; the same item without a price stops at it',
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

      expect(await allowed(t, free.id, feature.id, 8), 'without a price, 8 units exceed the 5 included').toBe(false);
      expect(await allowed(t, payer.id, feature.id, 8), 'with a usage price, 8 units are allowed beyond the 5 included').toBe(true);
      await track(t, payer.id, feature.id, 8);
      const balance = await balanceOf(t, payer.id, feature.id);
      expect(balance.usage, 'the usage beyond the included amount is recorded').toBe(8);
      expect(balance.overage_allowed, 'the balance allows overage').toBe(true);
      expect(await allowed(t, payer.id, feature.id, 1), 'use may go on past the included amount').toBe(true);
    },
  ),

  scenario(
    {
      id: 'plans.prepaid-upfront',
      title: 'a prepaid price grants the quantity bought at attach, and use stops at included plus prepaid',
      rules: ['PLAN-PREPAID-UPFRONT'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        items: [{ feature_id: seats.id, included: 0, price: { amount: 2, interval: 'month', billing_units: 1, billing_method: 'prepaid' } }],
      });
      const customer = await createCustomer(t);
      const result = t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: plan.id, feature_quantities: [{ feature_id: seats.id, quantity: 10 }] }));
      expect(result.payment_url, 'the plan attached at once').toBeNull();
      if (result.invoice !== undefined) expect(result.invoice.total, 'the upfront invoice charges 10 units at $2').toBe(20);
      const balance = await balanceOf(t, customer.id, seats.id);
      expect(balance, 'the 10 units bought are granted upfront').toMatchObject({ granted: 10, remaining: 10, overage_allowed: false });
      expect(balance.breakdown.reduce((sum, entry) => sum + entry.prepaid_grant, 0), 'as a prepaid grant').toBe(10);
      expect(await allowed(t, customer.id, seats.id, 10), 'the prepaid units can be used').toBe(true);
      expect(await allowed(t, customer.id, seats.id, 11), 'use beyond the prepaid units is not allowed').toBe(false);
    },
  ),

  scenario(
    {
      id: 'plans.free-trial-applies',
      title: 'a new customer attaching a paid plan with a free trial starts on the trial, ending after its duration, before any charge',
      rules: ['PLAN-FREE-TRIAL-APPLIES'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const plan = await createPlan(t, {
        group: t.ns.id('grp'),
        price: { amount: 10, interval: 'month' },
        free_trial: { duration_length: 7, duration_type: 'day', card_required: false },
      });
      const customer = await createCustomer(t);
      const result = t.expectOk(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: plan.id }));
      expect(result.payment_url, 'a trial without card requirement attaches at once').toBeNull();
      if (result.invoice !== undefined) expect(result.invoice.total, 'nothing is charged during the trial').toBe(0);
      const sub = t.expectOk(await t.client.call('customers.get', { customer_id: customer.id })).subscriptions.find((s) => s.plan_id === plan.id);
      expect(sub, 'the customer holds the plan').toBeDefined();
      expect(sub!.status).toBe('active');
      expect(sub!.trial_ends_at, 'the subscription is trialing').not.toBeNull();
      expect(sub!.trial_ends_at! - sub!.started_at, 'the trial lasts 7 days').toBe(7 * DAY_MS);
    },
  ),
];
