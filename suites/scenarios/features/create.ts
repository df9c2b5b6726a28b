/**
 * Scenarios of features.create and the Feature resource: the four types read back as sent, consumable
 * on metered features only, display names, refusals, duplicates, and features.get and features.list.
 */
import { expect } from 'vitest';
import type { Feature } from '../../../spec/features.ts';
import { attach, createCustomer, createFeature, createPlan, scenario } from '../../support.ts';
import { consumableFeature, create, type CreateBody, expectRefusedAndAbsent, readFeature } from './support.ts';

/** The fields a create request sets, as the Feature must read them back. */
const ECHOED = ['id', 'name', 'type', 'consumable', 'archived', 'event_names', 'credit_schema', 'model_markups', 'default_markup', 'provider_markups'] as const;

/**
 * The echoed fields of `feature` that `reference` (an earlier answer about the same feature) has:
 * a field the earlier answer left out is a shape or wire rule's, not the rule comparing the two.
 */
function echoed(feature: Feature, reference: Feature = feature) {
  return Object.fromEntries(ECHOED.filter((key) => reference[key] !== undefined).map((key) => [key, feature[key]]));
}

export const createScenarios = [
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
      const answers: [CreateBody, Feature][] = [];
      for (const body of bodies) {
        const created = await create(t, 'FEAT-TYPES', body);
        t.check('FEAT-TYPES', () => expect(created, `features.create answers the ${body.type} feature as sent`).toMatchObject({ id: body.feature_id, name: body.name, type: body.type }));
        const got = t.expectOk(await t.client.call('features.get', { feature_id: body.feature_id }), 'FEAT-GET');
        t.check('FEAT-GET', () => expect(echoed(got, created), `features.get reads ${body.feature_id} as created`).toEqual(echoed(created)));
        answers.push([body, created]);
      }
      // The reference's wire name and default last, apart from the documented rules above.
      for (const [body, created] of answers) {
        t.check('FEAT-EVENT-NAMES-WIRE', () => expect(created.event_names, `event_names of ${body.feature_id}: as sent, [] when none were set`).toEqual(body.event_names ?? []));
      }
    },
  ),
  scenario(
    {
      id: 'features.consumable-metered',
      title: 'consumable is kept on metered features, true and false',
      rules: ['FEAT-CONSUMABLE-METERED', 'FEAT-GET'],
    },
    async (t) => {
      for (const consumable of [true, false]) {
        const feature = await create(t, 'FEAT-CONSUMABLE-METERED', { feature_id: t.ns.id('featmetered'), name: 'Metered', type: 'metered', consumable });
        t.check('FEAT-CONSUMABLE-METERED', () => expect(feature.consumable, `a metered feature created with consumable ${consumable}`).toBe(consumable));
        // Read back through the reference's features.get: its own (SHOULD) rule.
        const got = await readFeature(t, feature.id);
        t.check('FEAT-GET', () => expect(got.consumable, `features.get of a metered feature created with consumable ${consumable}`).toBe(feature.consumable));
      }
    },
  ),
  scenario(
    {
      id: 'features.consumable-only-metered',
      title: 'consumable true on a boolean feature or a credit system changes nothing: the create is refused, or the feature reads and works like one created without it',
      rules: ['FEAT-CONSUMABLE-ONLY-METERED'],
    },
    async (t) => {
      // The nearest valid request: the same boolean feature without consumable.
      const plain = t.setup(await t.client.call('features.create', { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean' }));
      const flaggedResult = await t.client.call('features.create', { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean', consumable: true });
      // The document says only that consumable is "applicable only to metered features": refusing it is as good as ignoring it.
      if (flaggedResult.ok) {
        const flagged = flaggedResult.body;
        t.check('FEAT-CONSUMABLE-ONLY-METERED', () =>
          expect({ ...echoed(flagged, plain), id: plain.id }, 'a boolean feature created with consumable true reads like one created without it').toEqual(echoed(plain)),
        );
        // …and it still gates access as a flag.
        const plan = await createPlan(t, { items: [{ feature_id: flagged.id }, { feature_id: plain.id }] });
        const customer = await createCustomer(t);
        await attach(t, customer.id, plan.id);
        // Measured against the same check of the plain flag (what a flag check answers is the CHECK rules').
        const gate = async (featureId: string) => {
          const check = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: featureId }));
          // Each feature's own id is masked: the two answers may differ in it alone.
          const own = <O extends { feature_id?: string }>(object: O | null | undefined) => object && { ...object, id: undefined, feature_id: object.feature_id === featureId };
          return { allowed: check.allowed, balance: own(check.balance), flag: own(check.flag) };
        };
        const [asFlagged, asPlain] = [await gate(flagged.id), await gate(plain.id)];
        t.check('FEAT-CONSUMABLE-ONLY-METERED', () => expect(asFlagged, 'the boolean feature created with consumable true gates access like the plain flag').toEqual(asPlain));
      } else {
        t.expectError(flaggedResult, { rule: 'FEAT-CONSUMABLE-ONLY-METERED' });
      }

      const metered = await consumableFeature(t);
      const schema = [{ metered_feature_id: metered.id, credit_cost: 1 }];
      const creditsDefault = t.setup(await t.client.call('features.create', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: schema }));
      const creditsResult = await t.client.call('features.create', { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', consumable: true, credit_schema: schema });
      if (creditsResult.ok) {
        t.check('FEAT-CONSUMABLE-ONLY-METERED', () => expect(creditsResult.body.consumable, 'consumable true on a credit system changes nothing').toBe(creditsDefault.consumable));
      } else {
        t.expectError(creditsResult, { rule: 'FEAT-CONSUMABLE-ONLY-METERED' });
      }
    },
  ),
  scenario(
    { id: 'features.display-round-trip', title: 'the display names sent to features.create are the ones features.create and features.get answer', rules: ['FEAT-DISPLAY-ROUND-TRIP', 'FEAT-GET'] },
    async (t) => {
      const bodies: CreateBody[] = [
        { feature_id: t.ns.id('featseats'), name: 'Seats', type: 'metered', consumable: false, display: { singular: 'seat', plural: 'seats' } },
        { feature_id: t.ns.id('featflag'), name: 'Single sign-on', type: 'boolean', display: { singular: 'SSO login', plural: 'SSO logins' } },
      ];
      for (const body of bodies) {
        const created = await create(t, 'FEAT-DISPLAY-ROUND-TRIP', body);
        t.check('FEAT-DISPLAY-ROUND-TRIP', () => expect(created.display, `features.create answers the display of ${body.feature_id} as sent`).toEqual(body.display));
        // Read back through the reference's features.get: its own (SHOULD) rule.
        const got = await readFeature(t, body.feature_id);
        t.check('FEAT-GET', () => expect(got.display, `features.get reads the display of ${body.feature_id} as created`).toEqual(created.display));
      }
    },
  ),
  scenario(
    {
      id: 'features.display-round-trip-large',
      title:
        'display names of non-ASCII text, short and over 100 KB of three- and four-byte characters (a body that reaches the service in many pieces), read back by features.create and features.get exactly as sent',
      rules: ['FEAT-DISPLAY-ROUND-TRIP', 'FEAT-GET'],
    },
    async (t) => {
      // A multi-byte character split between two pieces of a body must still decode as itself; a piece is 16 to 64 KB on most stacks.
      const large = '€🚀ü'.repeat(12_000);
      const body: CreateBody = { feature_id: t.ns.id('featintl'), name: 'Zähler – 計数 🚀', type: 'boolean', display: { singular: 'Zähler ✓ 計', plural: large } };
      const result = await t.client.call('features.create', body);
      // The document sets no bound on a display name's length; a service may refuse a body this large, which says nothing of how it reads text.
      if (!result.ok && result.status >= 400 && result.status < 500) {
        t.notVerified('FEAT-DISPLAY-ROUND-TRIP', `features.create of a ${Buffer.byteLength(JSON.stringify(body))}-byte body was refused (${result.status}), so its text was not read back`);
        return;
      }
      const created = t.expectOk(result, 'FEAT-DISPLAY-ROUND-TRIP');
      // Where the text read back first differs from what was sent (-1: nowhere), in UTF-16 code units.
      const differsAt = (read: string | undefined) => {
        const text = read ?? '';
        for (let i = 0; i < Math.max(text.length, large.length); i++) if (text.charCodeAt(i) !== large.charCodeAt(i)) return i;
        return -1;
      };
      t.check('FEAT-DISPLAY-ROUND-TRIP', () => {
        expect(created.display?.singular, 'features.create answers the short non-ASCII name as sent').toBe(body.display!.singular);
        expect({ length: created.display?.plural.length, firstDifference: differsAt(created.display?.plural) }, 'features.create answers the large name as sent').toEqual({ length: large.length, firstDifference: -1 });
      });
      const got = await readFeature(t, body.feature_id);
      t.check('FEAT-GET', () => expect({ name: got.name, length: got.display?.plural.length, firstDifference: differsAt(got.display?.plural) }, 'features.get reads them as created').toEqual({ name: body.name, length: large.length, firstDifference: -1 }));
    },
  ),
  scenario(
    {
      id: 'features.create-validation',
      title: 'features.create refuses a body without name or type, or with a type outside the enum, and creates nothing; every enum value is accepted',
      rules: ['FEAT-CREATE-REQUIRED-FIELDS', 'FEAT-TYPE-ENUM'],
    },
    async (t) => {
      await expectRefusedAndAbsent(t, 'FEAT-CREATE-REQUIRED-FIELDS', { feature_id: t.ns.id('featnoname'), type: 'boolean' });
      await expectRefusedAndAbsent(t, 'FEAT-CREATE-REQUIRED-FIELDS', { feature_id: t.ns.id('featnotype'), name: 'No type' });
      for (const type of ['gauge', 'Boolean', 'credit-system', '']) {
        await expectRefusedAndAbsent(t, 'FEAT-TYPE-ENUM', { feature_id: t.ns.id('featbadtype'), name: 'Bad type', type });
      }
      const metered = await consumableFeature(t);
      const accepted: CreateBody[] = [
        { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean' },
        { feature_id: t.ns.id('featmetered'), name: 'Metered', type: 'metered', consumable: true },
        { feature_id: t.ns.id('featcredits'), name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: metered.id, credit_cost: 1 }] },
        { feature_id: t.ns.id('featai'), name: 'AI', type: 'ai_credit_system' },
      ];
      // Accepted; what type the feature reads back is FEAT-TYPES's.
      for (const body of accepted) await create(t, 'FEAT-TYPE-ENUM', body);
    },
  ),
  scenario(
    { id: 'features.duplicate-id', title: 'features.create of an existing id is refused with 409 duplicate_feature_id and leaves the feature as it was', rules: ['FEAT-DUPLICATE-ID'] },
    async (t) => {
      const original = await createFeature(t, 'boolean');
      const duplicate = { name: 'Another name', type: 'metered', consumable: true } as const;
      t.expectError(await t.client.call('features.create', { feature_id: original.id, ...duplicate }), { status: 409, code: 'duplicate_feature_id', rule: 'FEAT-DUPLICATE-ID' });
      const kept = await readFeature(t, original.id);
      t.check('FEAT-DUPLICATE-ID', () => {
        expect({ type: kept.type, consumable: kept.consumable }, 'the refused create left the feature as it was').toEqual({ type: original.type, consumable: original.consumable });
        expect(kept.name, 'the refused create did not rename the feature').not.toBe(duplicate.name);
      });
      // The nearest valid request: the same body under a new id.
      t.setup(await t.client.call('features.create', { feature_id: t.ns.id('featmetered'), ...duplicate }));
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
      const answer = t.expectOk(await t.client.call('features.list', {}), 'FEAT-LIST');
      t.precondition('features.list answered a list', () => expect(Array.isArray(answer.list)).toBe(true));
      t.check('FEAT-LIST', () => {
        for (const feature of created) {
          const listed = answer.list.find((candidate) => candidate.id === feature.id);
          expect(listed && echoed(listed, feature), `features.list shows ${feature.id} as created`).toEqual(echoed(feature));
        }
      });

      // The nearest valid request: a feature that exists.
      const known = t.expectOk(await t.client.call('features.get', { feature_id: created[0]!.id }), 'FEAT-GET');
      t.check('FEAT-GET', () => expect(echoed(known, created[0]), 'features.get reads the feature as created').toEqual(echoed(created[0]!)));
      const unknown = t.ns.id('featnever');
      const notFound = { status: 404, code: 'feature_not_found', rule: 'ERR-FEATURE-NOT-FOUND' } as const;
      t.expectError(await t.client.call('features.get', { feature_id: unknown }), notFound);
      const customer = await createCustomer(t);
      t.expectError(await t.client.call('balances.check', { customer_id: customer.id, feature_id: unknown }), notFound);
    },
  ),
];
