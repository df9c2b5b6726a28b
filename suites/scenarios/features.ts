/**
 * Conformance scenarios of features: `features.create` and the Feature resource, credit systems,
 * and the setup calls `features.get` and `features.list`. Features cannot be deleted through the
 * API, so every one carries a namespaced id and a shared deployment keeps them.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Feature } from '../../spec/features.ts';
import { attach, createCustomer, createFeature, createPlan, type Ops, scenario, type T } from '../support.ts';

type CreateBody = z.input<Ops['features.create']['request']>;

/** The fields a create request sets, as the Feature must read them back. */
const ECHOED = ['id', 'name', 'type', 'consumable', 'archived', 'event_names', 'credit_schema', 'model_markups', 'default_markup', 'provider_markups'] as const;

function echoed(feature: Feature) {
  return Object.fromEntries(ECHOED.map((key) => [key, feature[key]]));
}

async function create(t: T, body: CreateBody): Promise<Feature> {
  return t.expectOk(await t.client.call('features.create', body));
}

async function get(t: T, featureId: string): Promise<Feature> {
  return t.expectOk(await t.client.call('features.get', { feature_id: featureId }));
}

/** A refused create must leave no feature behind. */
async function expectRefusedAndAbsent(t: T, body: Record<string, unknown>, why: string): Promise<void> {
  const result = await t.client.call('features.create', body as CreateBody);
  expect(result.ok, `${why}: features.create must refuse the body`).toBe(false);
  t.expectError(result);
  const after = await t.client.call('features.get', { feature_id: String(body['feature_id']) });
  expect(after.ok, `${why}: the refused create must not have created ${String(body['feature_id'])}`).toBe(false);
}

/** The balance of a feature as balances.check reports it (required_balance 0 consumes and requires nothing). */
async function balanceOf(t: T, customerId: string, featureId: string) {
  const result = t.expectOk(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0 }));
  expect(result.balance, `balances.check shows a balance of ${featureId}`).not.toBeNull();
  return result.balance!;
}

async function allowed(t: T, customerId: string, featureId: string, required: number): Promise<boolean> {
  return t.expectOk(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: required })).allowed;
}

export const featuresScenarios = [
  scenario(
    {
      id: 'features.types-round-trip',
      title: 'features.create makes a feature of each of the four types and answers it as sent; features.get reads the same; event_names is [] when none are set',
      rules: ['FEAT-SHAPE', 'FEAT-TYPES', 'FEAT-GET', 'FEAT-EVENT-NAMES-WIRE'],
    },
    async (t) => {
      const metered = t.ns.id('featmetered');
      const bodies: CreateBody[] = [
        { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean' },
        { feature_id: metered, name: 'Metered', type: 'metered', consumable: true, event_names: [t.ns.id('evt'), t.ns.id('evt')] },
        { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: metered, credit_cost: 2 }] },
        { feature_id: t.ns.id('featai'), name: 'AI credits', type: 'ai_credit_system', default_markup: 20 },
      ];
      for (const body of bodies) {
        const created = await create(t, body);
        expect(created, `features.create answers the ${body.type} feature as sent`).toMatchObject({ id: body.feature_id, name: body.name, type: body.type, archived: false });
        expect(created.event_names, `event_names of ${body.feature_id}: as sent, [] when none were set`).toEqual(body.event_names ?? []);
        expect(echoed(await get(t, body.feature_id)), `features.get reads ${body.feature_id} as created`).toEqual(echoed(created));
      }
    },
  ),

  scenario(
    {
      id: 'features.consumable',
      title: 'consumable is kept on metered features, and changes nothing on boolean features or credit systems',
      rules: ['FEAT-CONSUMABLE-METERED', 'FEAT-CONSUMABLE-ONLY-METERED'],
    },
    async (t) => {
      for (const consumable of [true, false]) {
        const feature = await create(t, { feature_id: t.ns.id('featmetered'), name: 'Metered', type: 'metered', consumable });
        expect(feature.consumable, `a metered feature created with consumable ${consumable}`).toBe(consumable);
        expect((await get(t, feature.id)).consumable, `features.get of a metered feature created with consumable ${consumable}`).toBe(consumable);
      }

      const plain = await create(t, { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean' });
      const flagged = await create(t, { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean', consumable: true });
      expect({ ...echoed(flagged), id: plain.id }, 'a boolean feature created with consumable true reads like one created without it').toEqual(echoed(plain));
      // …and it still gates access as a flag.
      const plan = await createPlan(t, { items: [{ feature_id: flagged.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const check = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: flagged.id }));
      expect(check, 'the boolean feature created with consumable true is a flag the plan grants').toMatchObject({ allowed: true, balance: null, flag: { feature_id: flagged.id } });

      const metered = await createFeature(t, 'consumable');
      const schema = [{ metered_feature_id: metered.id, credit_cost: 1 }];
      const credits = await create(t, { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', consumable: true, credit_schema: schema });
      const creditsDefault = await create(t, { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema });
      expect(credits.consumable, 'consumable true on a credit system changes nothing').toBe(creditsDefault.consumable);
    },
  ),

  scenario(
    { id: 'features.display-round-trip', title: 'the display names sent to features.create are the ones features.create and features.get answer', rules: ['FEAT-DISPLAY-ROUND-TRIP'] },
    async (t) => {
      const bodies: CreateBody[] = [
        { feature_id: t.ns.id('featseats'), name: 'Seats', type: 'metered', consumable: false, display: { singular: 'seat', plural: 'seats' } },
        { feature_id: t.ns.id('featflag'), name: 'Single sign-on', type: 'boolean', display: { singular: 'SSO login', plural: 'SSO logins' } },
      ];
      for (const body of bodies) {
        expect((await create(t, body)).display, `features.create answers the display of ${body.feature_id} as sent`).toEqual(body.display);
        expect((await get(t, body.feature_id)).display, `features.get reads the display of ${body.feature_id} as sent`).toEqual(body.display);
      }
    },
  ),

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
      const credits = await create(t, { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema });
      expect(credits.credit_schema, 'features.create answers the credit schema as sent').toEqual(schema);
      expect((await get(t, credits.id)).credit_schema, 'features.get reads the credit schema as sent').toEqual(schema);

      // A yearly reset, so that another scenario moving the shared clock by a month does not refill the credits midway.
      const plan = await createPlan(t, { items: [{ feature_id: credits.id, included: 100, reset: { interval: 'year' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      expect(await balanceOf(t, customer.id, credits.id)).toMatchObject({ granted: 100, usage: 0, remaining: 100 });

      const sent = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: messages.id, required_balance: 2, send_event: true }));
      expect(sent.allowed, '2 messages at 3 credits each fit in 100 credits').toBe(true);
      expect(await balanceOf(t, customer.id, credits.id), '2 messages drew 2 × 3 credits').toMatchObject({ usage: 6, remaining: 94 });

      t.expectOk(await t.client.call('balances.track', { customer_id: customer.id, feature_id: images.id, value: 5 }));
      expect(await balanceOf(t, customer.id, credits.id), '5 images drew 5 × 2 credits').toMatchObject({ usage: 16, remaining: 84 });

      // 84 credits left: 28 messages (84 credits) fit exactly, 29 (87) do not; 42 images (84) fit, 43 (86) do not.
      expect(await allowed(t, customer.id, messages.id, 28), '28 messages cost 84 credits, all that is left').toBe(true);
      expect(await allowed(t, customer.id, messages.id, 29), '29 messages cost 87 credits, more than the 84 left').toBe(false);
      expect(await allowed(t, customer.id, images.id, 42), '42 images cost 84 credits, all that is left').toBe(true);
      expect(await allowed(t, customer.id, images.id, 43), '43 images cost 86 credits, more than the 84 left').toBe(false);
      expect(await balanceOf(t, customer.id, credits.id), 'checks without send_event draw nothing').toMatchObject({ usage: 16, remaining: 84 });
    },
  ),

  scenario(
    {
      id: 'features.create-validation',
      title: 'features.create refuses a body without name or type, or with a type outside the enum, and creates nothing; every enum value is accepted',
      rules: ['FEAT-CREATE-REQUIRED-FIELDS', 'FEAT-TYPE-ENUM'],
    },
    async (t) => {
      await expectRefusedAndAbsent(t, { feature_id: t.ns.id('featnoname'), type: 'boolean' }, 'no name');
      await expectRefusedAndAbsent(t, { feature_id: t.ns.id('featnotype'), name: 'No type' }, 'no type');
      for (const type of ['gauge', 'Boolean', 'credit-system', '']) {
        await expectRefusedAndAbsent(t, { feature_id: t.ns.id('featbadtype'), name: 'Bad type', type }, `type ${JSON.stringify(type)}`);
      }
      const metered = await createFeature(t, 'consumable');
      const accepted: CreateBody[] = [
        { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean' },
        { feature_id: t.ns.id('featmetered'), name: 'Metered', type: 'metered', consumable: true },
        { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: metered.id, credit_cost: 1 }] },
        { feature_id: t.ns.id('featai'), name: 'AI', type: 'ai_credit_system' },
      ];
      for (const body of accepted) expect((await create(t, body)).type, `type ${body.type} is accepted`).toBe(body.type);
    },
  ),

  scenario(
    {
      id: 'features.ai-markups',
      title: 'an AI credit system takes a default markup of -100 (usage free) but not below, and answers default_markup and provider_markups as sent',
      rules: ['FEAT-AI-DEFAULT-MARKUP-MIN', 'FEAT-AI-MARKUP-WIRE'],
    },
    async (t) => {
      for (const default_markup of [-100.01, -101, -1000]) {
        await expectRefusedAndAbsent(t, { feature_id: t.ns.id('featai'), name: 'AI', type: 'ai_credit_system', default_markup }, `default markup ${default_markup}`);
      }
      for (const default_markup of [-100, -99.99, 0, 250]) {
        const markups = { default_markup, provider_markups: { openai: { markup: 10 }, anthropic: { markup: -100 } } };
        const created = await create(t, { feature_id: t.ns.id('featai'), name: 'AI', type: 'ai_credit_system', ...markups });
        expect(created, `features.create answers default markup ${default_markup} and the provider markups as sent`).toMatchObject(markups);
        expect(await get(t, created.id), `features.get reads default markup ${default_markup} and the provider markups as sent`).toMatchObject(markups);
      }
    },
  ),

  scenario(
    { id: 'features.duplicate-id', title: 'features.create of an existing id is refused with 409 duplicate_feature_id and leaves the feature as it was', rules: ['FEAT-DUPLICATE-ID'] },
    async (t) => {
      const original = await createFeature(t, 'boolean');
      const again = await t.client.call('features.create', { feature_id: original.id, name: 'Another name', type: 'metered', consumable: true });
      t.expectError(again, { status: 409, code: 'duplicate_feature_id' });
      expect(echoed(await get(t, original.id)), 'the refused create left the feature as it was').toEqual(echoed(original));
    },
  ),

  scenario(
    {
      id: 'features.list-and-unknown',
      title: 'features.list answers {list: [Feature]} with every feature as created; an unknown feature_id is 404 feature_not_found',
      rules: ['FEAT-LIST', 'FEAT-LIST-SHAPE', 'FEAT-GET', 'ERR-FEATURE-NOT-FOUND'],
    },
    async (t) => {
      const created = [await createFeature(t, 'boolean'), await createFeature(t, 'consumable'), await createFeature(t, 'allocated')];
      const { list } = t.expectOk(await t.client.call('features.list', {}));
      for (const feature of created) {
        const listed = list.find((candidate) => candidate.id === feature.id);
        expect(listed && echoed(listed), `features.list shows ${feature.id} as created`).toEqual(echoed(feature));
      }

      const unknown = t.ns.id('featnever');
      t.expectError(await t.client.call('features.get', { feature_id: unknown }), { status: 404, code: 'feature_not_found' });
      const customer = await createCustomer(t);
      t.expectError(await t.client.call('balances.check', { customer_id: customer.id, feature_id: unknown }), { status: 404, code: 'feature_not_found' });
    },
  ),
];
