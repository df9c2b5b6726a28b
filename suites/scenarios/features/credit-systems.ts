/**
 * Scenarios of credit systems: credits drawn per unit at each feature's credit cost (also through locks,
 * from whichever of two systems suffices, and by an entity holding the credits), credit systems
 * created after their feature was checked, the schemas refused, and AI credit system markups.
 */
import { expect } from 'vitest';
import type { Feature } from '../../../spec/features.ts';
import { attach, createCustomer, createEntity, createFeature, createPlan, MONTHLY, readBalance, scenario, type T } from '../../support.ts';
import { balanceNow, requireLockSettings, spend, SPEND_DENIED_RULES, SPEND_RULES, usageAndRemaining } from '../balances/support.ts';
import { consumableFeature, create, expectRefusedAndAbsent, readFeature, requireCreditSchema } from './support.ts';

/** Whether balances.check allows `required` units (a read here; the caller's check inspects it). */
async function allowed(t: T, customerId: string, featureId: string, required: number): Promise<boolean> {
  return t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: required })).allowed;
}

/** Markups of an AI credit system, per provider and per model. */
const MARKUPS = {
  provider_markups: { openai: { markup: 10 }, anthropic: { markup: -100 } },
  model_markups: { 'openai/gpt-4o': { markup: 25 } },
};

/**
 * A customer whose plan grants `included` credits of a credit system pricing a consumable feature at
 * `cost`, and a lock of `units` of that feature, checked allowed and holding `units × cost` credits
 * (CHECK-ALLOWED-SUFFICIENT, CHECK-LOCK-RESERVES, FEAT-CREDIT-SYSTEM); `creditsUsed` reads the credits' usage.
 */
async function lockInCredits(t: T, { cost, included, units }: { cost: number; included: number; units: number }) {
  const feature = await consumableFeature(t);
  await requireCreditSchema(t, feature.id);
  const credits = t.setup(await t.client.call('features.create', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: feature.id, credit_cost: cost }] }), ['id']);
  const plan = await createPlan(t, { items: [{ feature_id: credits.id, included, reset: MONTHLY }] });
  const customer = await createCustomer(t);
  await attach(t, customer.id, plan.id);
  await requireLockSettings(t, plan, feature.id);
  const lockId = t.ns.id('lock');
  const held = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: units, lock: { lock_id: lockId, enabled: true } }), 'CHECK-LOCK-RESERVES');
  t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(held.allowed, `the lock of ${units} unit(s) (${units * cost} of the ${included} credits)`).toBe(true));
  const creditsUsed = async () => t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: credits.id, required_balance: 0 }), ['balance']).balance?.usage;
  const locked = await creditsUsed();
  t.check('CHECK-LOCK-RESERVES', () => expect(locked, 'the lock holds credits').toBeGreaterThan(0));
  // Credits that make a whole number of units at the cost: how many units the lock holds is CHECK-LOCK-RESERVES' to say; any other sum, the conversion's.
  const unitsHeld = (locked ?? 0) / cost;
  if (Number.isInteger(unitsHeld)) t.check('CHECK-LOCK-RESERVES', () => expect(unitsHeld, `the lock holds ${units} unit(s) (${locked} credits at ${cost} each)`).toBe(units));
  t.check('FEAT-CREDIT-SYSTEM', () => expect(locked, `the lock holds ${units} unit(s) at ${cost} credits`).toBe(units * cost));
  return { lockId, creditsUsed };
}

export const creditSystemsScenarios = [
  scenario(
    {
      id: 'features.credit-system-draws-credits',
      title: 'a credit system draws credit_cost credits per unit of each metered feature of its schema, through balances.check and balances.track',
      rules: [
        'FEAT-CREDIT-SYSTEM',
        'FEAT-CREDIT-SCHEMA-WIRE',
        'EVT-AMOUNT-IS-REQUIRED-BALANCE',
        'BAL-TRACK-DEDUCTS',
        'CHECK-ALLOWED-SUFFICIENT',
        'CHECK-ALLOWED-BELOW-REQUIRED',
        'EVT-ONLY-WITH-SEND-EVENT',
      ],
    },
    async (t) => {
      const messages = await consumableFeature(t);
      const images = await consumableFeature(t);
      // A yearly reset, so that another scenario moving the shared clock by a month does not refill the credits midway.
      const plain = await consumableFeature(t);
      await requireCreditSchema(t, messages.id);
      const schema = [
        { metered_feature_id: messages.id, credit_cost: 3 },
        { metered_feature_id: images.id, credit_cost: 2 },
      ];
      const credits = await create(t, 'FEAT-CREDIT-SYSTEM', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema });

      const plan = await createPlan(t, {
        items: [
          { feature_id: credits.id, included: 100, reset: { interval: 'year' } },
          { feature_id: plain.id, included: 100, reset: { interval: 'year' } },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      // Premise, through the setup read customers.get: the plan grants 100 credits.
      const held = t.setup(await t.client.call('customers.get', { customer_id: customer.id }), ['balances']);
      t.precondition('the plan grants 100 credits', () => expect(held.balances[credits.id]).toMatchObject({ granted: 100, usage: 0, remaining: 100 }));

      // The balance rules the steps below rest on, checked first (as their own rules) on a plain feature
      // of the same plan: a check with send_event records required_balance units, balances.track records
      // its value, a check allows exactly what is left and records nothing without send_event.
      t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: plain.id, required_balance: 2, send_event: true }));
      const plainSent = await readBalance(t, customer.id, plain.id);
      t.check('EVT-AMOUNT-IS-REQUIRED-BALANCE', () => expect(plainSent?.usage, 'a check with send_event of 2 units of a plain feature records 2').toBe(2));
      t.setup(await t.client.call('balances.track', { customer_id: customer.id, feature_id: plain.id, value: 5 }));
      const plainTracked = await readBalance(t, customer.id, plain.id);
      t.check('BAL-TRACK-DEDUCTS', () => expect(plainTracked?.usage, 'tracking 5 units of a plain feature records 5').toBe(7));
      const plainFits = [await allowed(t, customer.id, plain.id, 93), await allowed(t, customer.id, plain.id, 94)];
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(plainFits[0], 'a plain feature with 93 left allows 93').toBe(true));
      t.check('CHECK-ALLOWED-BELOW-REQUIRED', () => expect(plainFits[1], 'a plain feature with 93 left does not allow 94').toBe(false));
      const plainAfter = await readBalance(t, customer.id, plain.id);
      t.check('EVT-ONLY-WITH-SEND-EVENT', () => expect(plainAfter?.usage, 'plain checks record nothing').toBe(7));

      const sent = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: messages.id, required_balance: 2, send_event: true }), 'FEAT-CREDIT-SYSTEM');
      const afterMessages = await readBalance(t, customer.id, credits.id);
      t.check('FEAT-CREDIT-SYSTEM', () => {
        expect(sent.allowed, '2 messages at 3 credits each fit in 100 credits').toBe(true);
        expect(afterMessages, '2 messages drew 2 × 3 credits').toMatchObject({ usage: 6, remaining: 94 });
      });

      // balances.track is the reference's call: the documented balances.check shows what it drew.
      t.setup(await t.client.call('balances.track', { customer_id: customer.id, feature_id: images.id, value: 5 }));
      const afterImages = await readBalance(t, customer.id, credits.id);
      t.check('FEAT-CREDIT-SYSTEM', () => expect(afterImages, '5 images drew 5 × 2 credits').toMatchObject({ usage: 16, remaining: 84 }));

      // 84 credits left: 28 messages (84 credits) fit exactly, 29 (87) do not; 42 images (84) fit, 43 (86) do not.
      const fits = [await allowed(t, customer.id, messages.id, 28), await allowed(t, customer.id, messages.id, 29), await allowed(t, customer.id, images.id, 42), await allowed(t, customer.id, images.id, 43)];
      const untouched = await readBalance(t, customer.id, credits.id);
      t.check('FEAT-CREDIT-SYSTEM', () => {
        expect(fits, '28 messages and 42 images cost the 84 credits left; 29 messages and 43 images cost more').toEqual([true, false, true, false]);
        expect(untouched, 'checks without send_event draw nothing').toMatchObject({ usage: 16, remaining: 84 });
      });

      // The reference's wire name of the schema last, apart from the documented rule above.
      const got = await readFeature(t, credits.id);
      t.check('FEAT-CREDIT-SCHEMA-WIRE', () => {
        expect(credits.credit_schema, 'features.create answers the credit schema as sent').toEqual(schema);
        expect(got.credit_schema, 'features.get reads the credit schema as sent').toEqual(schema);
      });
    },
  ),
  scenario(
    {
      id: 'balances.second-credit-system-suffices',
      title: 'of two credit systems pricing a feature, a check draws on the one whose credits suffice at its credit cost',
      rules: ['FEAT-CREDIT-SYSTEM-CHOICE'],
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
      t.check('FEAT-CREDIT-SYSTEM-CHOICE', () => expect(result.allowed, '2 units cost 4 of the 3 dear credits, or 2 of the 10 cheap ones').toBe(true));
    },
  ),
  scenario(
    {
      id: 'features.credit-systems-created-after-checks',
      title:
        "a credit system created after its metered feature was checked, and granted after that, shows in the feature's later checks (in the balances map, and paying for it at its credit cost); so does a second one created after those checks",
      rules: ['CHECK-BALANCES-MAP', 'CHECK-BALANCES-LINKED-CREDIT-SYSTEM', 'FEAT-CREDIT-SYSTEM', 'FEAT-CREDIT-SYSTEM-CHOICE'],
    },
    async (t) => {
      // The schema's wire name is probed on a feature of its own: the probe's credit system would otherwise be one more, and the first, pricing the feature.
      await requireCreditSchema(t, (await consumableFeature(t)).id);
      const feature = await consumableFeature(t);
      // Yearly resets, so that another scenario moving the shared clock by a month does not refill the credits midway.
      const yearly = { interval: 'year' } as const;
      const customer = await createCustomer(t);
      // An own balance of 0 units: every unit checked later is paid in credits, however a target would share a check between the two.
      await attach(t, customer.id, (await createPlan(t, { group: t.ns.id('grp'), items: [{ feature_id: feature.id, included: 0, reset: yearly }] })).id);
      // The feature is checked before any credit system the customer holds prices it: a target keeping what it found then would miss them later.
      t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 1 }));

      /** A credit system pricing the feature at `cost`, granted to the customer with `included` credits by an add-on plan. */
      const grantCredits = async (cost: number, included: number) => {
        const body = { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system' as const, credit_schema: [{ metered_feature_id: feature.id, credit_cost: cost }] };
        const credits = t.setup(await t.client.call('features.create', body), ['id']);
        await attach(t, customer.id, (await createPlan(t, { add_on: true, items: [{ feature_id: credits.id, included, reset: yearly }] })).id);
        return credits;
      };
      /** A check of the feature whose balances map carries it and each credit system, as a check of each shows it. */
      const expectMapCovers = async (label: string, creditIds: readonly string[]) => {
        const direct = new Map<string, unknown>();
        for (const id of [feature.id, ...creditIds]) direct.set(id, await balanceNow(t, customer.id, id));
        const answer = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }), 'CHECK-BALANCES-MAP');
        t.check('CHECK-BALANCES-MAP', () => expect(answer.balances?.[feature.id], `${label}: the balances map carries the checked feature, as its own check shows it`).toEqual(direct.get(feature.id)));
        t.check('CHECK-BALANCES-LINKED-CREDIT-SYSTEM', () => {
          for (const id of creditIds) expect(answer.balances?.[id], `${label}: the balances map carries credit system ${id}, as a check of it shows it`).toEqual(direct.get(id));
        });
      };

      const credits = await grantCredits(2, 20);
      const used = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 5, send_event: true }), 'FEAT-CREDIT-SYSTEM');
      const drawn = await balanceNow(t, customer.id, credits.id);
      t.check('FEAT-CREDIT-SYSTEM', () => {
        expect(used.allowed, '5 units at 2 credits fit in the 20 credits of the credit system created after the first check').toBe(true);
        expect(usageAndRemaining(drawn), '5 units drew 10 credits').toEqual({ usage: 10, remaining: 10 });
      });
      await expectMapCovers('with a credit system created after the first check', [credits.id]);

      const second = await grantCredits(1, 10);
      // 10 of the first system's credits are left: 8 units cost 16 of them, or 8 of the second's 10.
      const choice = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 8 }), ['allowed']);
      t.check('FEAT-CREDIT-SYSTEM-CHOICE', () => expect(choice.allowed, 'the second credit system, created after the checks before, pays for 8 units').toBe(true));
      await expectMapCovers('with a second credit system created after the checks before', [credits.id, second.id]);
    },
  ),
  scenario(
    {
      id: 'balances.lock-override-in-credits',
      title: 'a lock paid by a credit system, confirmed with a larger override_value, uses the extra units at the credit cost',
      rules: ['FEAT-CREDIT-SCHEMA-WIRE', 'FEAT-CREDIT-SYSTEM', 'CHECK-ALLOWED-SUFFICIENT', 'CHECK-LOCK-RESERVES', 'CHECK-LOCK-CONFIRM'],
    },
    async (t) => {
      const { lockId, creditsUsed } = await lockInCredits(t, { cost: 2, included: 20, units: 1 });
      t.setup(await t.client.call('balances.finalize', { lock_id: lockId, action: 'confirm', override_value: 3 }));
      const confirmed = await creditsUsed();
      t.check('CHECK-LOCK-CONFIRM', () => expect(confirmed, 'the confirm with a larger override_value uses more than the lock held').toBeGreaterThan(2));
      t.check('FEAT-CREDIT-SCHEMA-WIRE', () => expect(confirmed, '3 units at 2 credits each').toBe(6));
    },
  ),
  scenario(
    {
      id: 'balances.lock-release-in-credits',
      title: 'a lock paid by a credit system at 3 credits a unit, released, gives back every credit it held',
      rules: ['FEAT-CREDIT-SCHEMA-WIRE', 'FEAT-CREDIT-SYSTEM', 'CHECK-ALLOWED-SUFFICIENT', 'CHECK-LOCK-RESERVES', 'CHECK-LOCK-RELEASE'],
    },
    async (t) => {
      // Not 1 credit a unit: there, units given back for credits would look right.
      const { lockId, creditsUsed } = await lockInCredits(t, { cost: 3, included: 30, units: 2 });
      t.setup(await t.client.call('balances.finalize', { lock_id: lockId, action: 'release' }));
      const released = await creditsUsed();
      t.check('CHECK-LOCK-RELEASE', () => expect(released, 'the release gives back the 6 credits held').toBe(0));
    },
  ),
  scenario(
    {
      id: 'features.credit-system-pays-entity-usage',
      title: "a credit system granted to an entity pays for that entity's use of a metered feature at its credit cost, to the last credit, and a sibling entity draws none of it",
      rules: ['FEAT-CREDIT-SYSTEM', 'CHECK-ENTITY-SCOPED', 'BILL-ATTACH-ENTITY', ...SPEND_RULES, ...SPEND_DENIED_RULES],
    },
    async (t) => {
      const messages = await consumableFeature(t);
      const plain = await consumableFeature(t);
      // `consumable` sent, so no premise rests on the answer of features.create (FEAT-CREDIT-SYSTEM's operation here).
      const seat = await createFeature(t, 'allocated', { consumable: false });
      await requireCreditSchema(t, messages.id);
      const credits = t.setup(await t.client.call('features.create', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: messages.id, credit_cost: 3 }] }), ['id']);
      // Yearly resets, so that another scenario moving the shared clock by a month does not refill the credits midway.
      const yearly = { interval: 'year' } as const;
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: credits.id, included: 30, reset: yearly }, { feature_id: plain.id, included: 10, reset: yearly }] });
      const customer = await createCustomer(t);
      const [holder, sibling] = [await createEntity(t, customer.id, seat.id), await createEntity(t, customer.id, seat.id)];
      await attach(t, customer.id, plan.id, { entity_id: holder.id });
      const { list: entities } = t.setup(await t.client.call('entities.list', { customer_id: customer.id }), ['list']);
      const plansOf = (entityId: string) => (entities.find((entity) => entity.id === entityId)?.subscriptions ?? []).map((subscription) => subscription.plan_id);
      const [holderPlans, siblingPlans] = [plansOf(holder.id), plansOf(sibling.id)];
      t.check('BILL-ATTACH-ENTITY', () => {
        expect(holderPlans, `billing.attach with entity_id gave ${plan.id} to ${holder.id}`).toContain(plan.id);
        expect(siblingPlans, 'and not to its sibling').not.toContain(plan.id);
      });
      const check = (entityId: string, featureId: string, required: number, sendEvent = false) =>
        t.client.call('balances.check', { customer_id: customer.id, entity_id: entityId, feature_id: featureId, required_balance: required, ...(sendEvent && { send_event: true }) });
      // What the credit steps rest on, checked first as their own rules on the plain feature of the same plan.
      const [holderPlain, siblingPlain] = [t.expectOk(await check(holder.id, plain.id, 0), 'CHECK-ENTITY-SCOPED'), t.expectOk(await check(sibling.id, plain.id, 0), 'CHECK-ENTITY-SCOPED')];
      t.check('CHECK-ENTITY-SCOPED', () => {
        expect(holderPlain.balance?.granted, "a check naming the holder shows the entity's own grant").toBe(10);
        expect(siblingPlain.balance?.granted ?? 0, 'a check naming the sibling does not').toBe(0);
      });
      await spend(t, customer.id, plain.id, 2, true, holder.id);
      const exact = t.expectOk(await check(holder.id, plain.id, 8), 'CHECK-ALLOWED-SUFFICIENT');
      t.check('CHECK-ALLOWED-SUFFICIENT', () => expect(exact.allowed, 'a check of exactly the 8 units left is allowed').toBe(true));
      await spend(t, customer.id, plain.id, 9, false, holder.id);

      const creditsOf = async (entityId: string) => usageAndRemaining(t.expectOk(await check(entityId, credits.id, 0), 'FEAT-CREDIT-SYSTEM').balance);
      const sent = t.expectOk(await check(holder.id, messages.id, 4, true), 'FEAT-CREDIT-SYSTEM');
      const afterSend = await creditsOf(holder.id);
      t.check('FEAT-CREDIT-SYSTEM', () => {
        expect(sent.allowed, "4 messages at 3 credits fit in the entity's 30 credits").toBe(true);
        expect(afterSend, "4 messages drew 12 of the entity's credits").toEqual({ usage: 12, remaining: 18 });
      });
      const [six, seven] = [t.expectOk(await check(holder.id, messages.id, 6), 'FEAT-CREDIT-SYSTEM'), t.expectOk(await check(holder.id, messages.id, 7), 'FEAT-CREDIT-SYSTEM')];
      t.check('FEAT-CREDIT-SYSTEM', () => expect([six.allowed, seven.allowed], '6 messages cost the 18 credits left, 7 cost 21').toEqual([true, false]));
      const siblingCheck = t.expectOk(await check(sibling.id, messages.id, 1), 'CHECK-ENTITY-SCOPED');
      t.check('CHECK-ENTITY-SCOPED', () => expect(siblingCheck.allowed, "a sibling entity cannot spend the holder's credits").toBe(false));
    },
  ),
  scenario(
    {
      id: 'features.credit-schema-refused',
      title: 'a credit schema naming one metered feature twice, an allocated feature, or another credit system is refused; one naming a consumable metered feature once is accepted',
      rules: ['FEAT-CREDIT-SCHEMA-VALID', 'FEAT-CREDIT-SCHEMA-WIRE', 'FEAT-CONSUMABLE-METERED'],
    },
    async (t) => {
      // The features named, of the kind asked (FEAT-CONSUMABLE-METERED's, checked: this scenario owns features.create).
      const metered = async (consumable: boolean) => {
        const feature = await create(t, 'FEAT-CONSUMABLE-METERED', { feature_id: t.ns.id('featmetered'), name: 'Metered', type: 'metered', consumable });
        t.check('FEAT-CONSUMABLE-METERED', () => expect(feature.consumable, `a metered feature created with consumable ${consumable}`).toBe(consumable));
        return feature;
      };
      const [messages, seats] = [await metered(true), await metered(false)];
      await requireCreditSchema(t, messages.id);
      const createCredits = async (schema: { metered_feature_id: string; credit_cost: number }[]) =>
        t.client.call('features.create', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema });
      // The nearest valid request: the consumable feature once.
      const credits = t.expectOk(await createCredits([{ metered_feature_id: messages.id, credit_cost: 2 }]), 'FEAT-CREDIT-SCHEMA-VALID');
      // The schema is read back as sent (FEAT-CREDIT-SCHEMA-WIRE's); the refusals below need nothing of it.
      t.check('FEAT-CREDIT-SCHEMA-WIRE', () => expect(credits.credit_schema, 'the credit system answers its schema').toEqual([{ metered_feature_id: messages.id, credit_cost: 2 }]));
      const refused = { rule: 'FEAT-CREDIT-SCHEMA-VALID', status: 400, code: 'invalid_feature' } as const;
      t.expectError(await createCredits([{ metered_feature_id: messages.id, credit_cost: 2 }, { metered_feature_id: messages.id, credit_cost: 3 }]), refused);
      // A boolean feature in a schema is not sent: the reference accepts it (observed-behaviour §3.8 refuses only these).
      for (const other of [seats, credits]) t.expectError(await createCredits([{ metered_feature_id: other.id, credit_cost: 1 }]), refused);
    },
  ),
  scenario(
    {
      id: 'features.ai-markups',
      title: 'an AI credit system takes a default markup of -100 (usage free) but not below, and answers default_markup, provider_markups and model_markups as sent',
      rules: ['FEAT-AI-DEFAULT-MARKUP-MIN', 'FEAT-AI-MARKUP-WIRE', 'FEAT-MODEL-MARKUPS-WIRE'],
    },
    async (t) => {
      // FEAT-AI-DEFAULT-MARKUP-MIN (MUST) rests on the name of the default-markup field, which interface.md
      // names in prose only: first shown read (an AI credit system created with it answers it, one created without does not).
      await t.requireWireName('features.create.default_markup', async (send) => {
        const body = { feature_id: t.ns.id('featai'), name: 'AI', type: 'ai_credit_system' as const, ...(send && { default_markup: 20 }) };
        return t.setup(await t.client.call('features.create', body)).default_markup ?? null;
      });
      for (const default_markup of [-100.01, -101, -1000]) {
        await expectRefusedAndAbsent(t, 'FEAT-AI-DEFAULT-MARKUP-MIN', { feature_id: t.ns.id('featai'), name: 'AI', type: 'ai_credit_system', default_markup });
      }
      const created: [number, Feature][] = [];
      for (const default_markup of [-100, -99.99, 0, 250]) {
        created.push([default_markup, await create(t, 'FEAT-AI-DEFAULT-MARKUP-MIN', { feature_id: t.ns.id('featai'), name: 'AI', type: 'ai_credit_system', default_markup, ...MARKUPS })]);
      }
      // Read back only after the MUST rule's last check: features.get is a reference operation.
      const answers: [number, Feature, Feature][] = [];
      for (const [default_markup, feature] of created) answers.push([default_markup, feature, await readFeature(t, feature.id)]);
      for (const [default_markup, created, got] of answers) {
        for (const [what, feature] of [['features.create', created], ['features.get', got]] as const) {
          t.check('FEAT-AI-MARKUP-WIRE', () =>
            expect({ default_markup: feature.default_markup, provider_markups: feature.provider_markups }, `${what} answers default markup ${default_markup} and the provider markups as sent`).toEqual({
              default_markup,
              provider_markups: MARKUPS.provider_markups,
            }),
          );
          t.check('FEAT-MODEL-MARKUPS-WIRE', () => expect(feature.model_markups, `${what} answers the model markups as sent`).toEqual(MARKUPS.model_markups));
        }
      }
    },
  ),
];
