/**
 * Scenarios of credit systems: credits drawn per unit at each feature's credit cost (also through locks,
 * and from whichever of two systems suffices), the schemas refused, and AI credit system markups.
 */
import { expect } from 'vitest';
import type { Feature } from '../../../spec/features.ts';
import { attach, createCustomer, createFeature, createPlan, MONTHLY, readBalance, scenario, type T } from '../../support.ts';
import { create, expectRefusedAndAbsent, readFeature } from './support.ts';

/** Whether balances.check allows `required` units (a read here; the caller's check inspects it). */
async function allowed(t: T, customerId: string, featureId: string, required: number): Promise<boolean> {
  return t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: required })).allowed;
}

/** Markups of an AI credit system, per provider and per model. */
const MARKUPS = {
  provider_markups: { openai: { markup: 10 }, anthropic: { markup: -100 } },
  model_markups: { 'openai/gpt-4o': { markup: 25 } },
};

export const creditSystemsScenarios = [
  scenario(
    {
      id: 'features.credit-system-draws-credits',
      title: 'a credit system draws credit_cost credits per unit of each metered feature of its schema, through balances.check and balances.track',
      rules: ['FEAT-CREDIT-SYSTEM', 'FEAT-CREDIT-SCHEMA-WIRE'],
    },
    async (t) => {
      const messages = await createFeature(t, 'consumable');
      const images = await createFeature(t, 'consumable');
      const schema = [
        { metered_feature_id: messages.id, credit_cost: 3 },
        { metered_feature_id: images.id, credit_cost: 2 },
      ];
      const credits = await create(t, 'FEAT-CREDIT-SYSTEM', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema });

      // A yearly reset, so that another scenario moving the shared clock by a month does not refill the credits midway.
      const plain = await createFeature(t, 'consumable');
      const plan = await createPlan(t, {
        items: [
          { feature_id: credits.id, included: 100, reset: { interval: 'year' } },
          { feature_id: plain.id, included: 100, reset: { interval: 'year' } },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const initial = await readBalance(t, customer.id, credits.id);
      t.precondition('the plan grants 100 credits', () => expect(initial).toMatchObject({ granted: 100, usage: 0, remaining: 100 }));

      // The balance rules the steps below rest on, shown first on a plain feature of the same plan: a
      // check with send_event records required_balance units, balances.track records its value, a
      // check allows exactly what is left and records nothing without send_event.
      t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: plain.id, required_balance: 2, send_event: true }));
      const plainSent = await readBalance(t, customer.id, plain.id);
      t.precondition('a check with send_event of 2 units of a plain feature records 2', () => expect(plainSent).toMatchObject({ usage: 2, remaining: 98 }));
      t.setup(await t.client.call('balances.track', { customer_id: customer.id, feature_id: plain.id, value: 5 }));
      const plainTracked = await readBalance(t, customer.id, plain.id);
      t.precondition('tracking 5 units of a plain feature records 5', () => expect(plainTracked).toMatchObject({ usage: 7, remaining: 93 }));
      const plainFits = [await allowed(t, customer.id, plain.id, 93), await allowed(t, customer.id, plain.id, 94)];
      const plainAfter = await readBalance(t, customer.id, plain.id);
      t.precondition('a plain feature with 93 left allows 93, not 94, and plain checks record nothing', () => {
        expect(plainFits).toEqual([true, false]);
        expect(plainAfter).toMatchObject({ usage: 7, remaining: 93 });
      });

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
      id: 'features.credit-schema-refused',
      title: 'a credit schema naming one metered feature twice, an allocated or a boolean feature, or another credit system is refused; one naming a consumable metered feature once is accepted',
      rules: ['FEAT-CREDIT-SCHEMA-VALID'],
    },
    async (t) => {
      const [messages, seats, flag] = [await createFeature(t, 'consumable'), await createFeature(t, 'allocated'), await createFeature(t, 'boolean')];
      const createCredits = async (schema: { metered_feature_id: string; credit_cost: number }[]) =>
        t.client.call('features.create', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema });
      // The nearest valid request: the consumable feature once.
      const credits = t.setup(await createCredits([{ metered_feature_id: messages.id, credit_cost: 2 }]), ['id']);
      // The schema is read at all (FEAT-CREDIT-SCHEMA-WIRE's): else a refusal could not show.
      t.precondition('the credit system reads back its schema', () => expect(credits.credit_schema).toEqual([{ metered_feature_id: messages.id, credit_cost: 2 }]));
      const refused = { rule: 'FEAT-CREDIT-SCHEMA-VALID', status: 400, code: 'invalid_feature' } as const;
      t.expectError(await createCredits([{ metered_feature_id: messages.id, credit_cost: 2 }, { metered_feature_id: messages.id, credit_cost: 3 }]), refused);
      for (const other of [seats, flag, credits]) t.expectError(await createCredits([{ metered_feature_id: other.id, credit_cost: 1 }]), refused);
    },
  ),
  scenario(
    {
      id: 'features.ai-markups',
      title: 'an AI credit system takes a default markup of -100 (usage free) but not below, and answers default_markup, provider_markups and model_markups as sent',
      rules: ['FEAT-AI-DEFAULT-MARKUP-MIN', 'FEAT-AI-MARKUP-WIRE', 'FEAT-MODEL-MARKUPS-WIRE'],
    },
    async (t) => {
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
