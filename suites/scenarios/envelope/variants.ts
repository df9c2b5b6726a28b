/**
 * Scenarios of requests that vary where the conventions leave room: the media type of the JSON body
 * spelled in other cases and with a charset, text outside ASCII, and IDs that differ only in case
 * (two IDs, two objects; entity IDs of a license batch are in licenses/attach.ts).
 */
import { Readable } from 'node:stream';
import { request } from 'undici';
import { expect } from 'vitest';
import { operations } from '../../../spec/operations.ts';
import { createFeature, createPlan, newCustomerBody, scenario, type T } from '../../support.ts';
import { requireSearch } from '../entities/support.ts';
import { parsedJson, wireOf } from './support.ts';

/** Media types a JSON body may be sent as: HTTP media types are case-insensitive and take parameters. */
const JSON_MEDIA_TYPES = ['Application/JSON', 'application/json; charset=utf-8', 'APPLICATION/JSON;charset=UTF-8'];

/** Names outside ASCII: accents, a typographic apostrophe, CJK and an emoji (four bytes in UTF-8). */
const NON_ASCII = 'Zoë’s 東京 café 🚀';

/** A POST of `body` to an operation with a Content-Type of our choosing; the raw answer, parsed or not. */
function postAs(t: T, operation: keyof typeof operations, body: unknown, contentType: string) {
  return t.client.raw({ path: operations[operation].path, headers: { 'content-type': contentType }, body: JSON.stringify(body) });
}

export const variantsScenarios = [
  scenario(
    {
      id: 'envelope.json-media-type-variants',
      title: 'a JSON body sent as Application/JSON, or with a charset parameter, is read as with application/json',
      rules: ['CONV-POST-JSON'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const body = { plan_id: plan.id };
      const plain = await postAs(t, 'plans.get', body, 'application/json');
      t.precondition('plans.get with Content-Type application/json answers the plan', () => expect((parsedJson(plain.text) as { id?: unknown } | undefined)?.id).toBe(plan.id));
      for (const contentType of JSON_MEDIA_TYPES) {
        const variant = await postAs(t, 'plans.get', body, contentType);
        t.check('CONV-POST-JSON', () => {
          expect(variant.status, `Content-Type ${contentType}, answered as application/json is: ${variant.text.slice(0, 200)}`).toBe(plain.status);
          expect((parsedJson(variant.text) as { id?: unknown } | undefined)?.id, `Content-Type ${contentType}: the body was read as JSON`).toBe(plan.id);
        });
      }
      // A create, too: the fields of a body sent so take effect.
      const featureId = t.ns.id('feat');
      const created = await postAs(t, 'features.create', { feature_id: featureId, name: `Flag ${featureId}`, type: 'boolean' }, JSON_MEDIA_TYPES[1]!);
      t.check('CONV-POST-JSON', () => expect((parsedJson(created.text) as { id?: unknown } | undefined)?.id, `features.create sent as ${JSON_MEDIA_TYPES[1]}`).toBe(featureId));
    },
  ),
  scenario(
    {
      id: 'envelope.body-framing',
      title:
        'a JSON body sent in chunks (Transfer-Encoding: chunked, no Content-Length), split inside a multi-byte character, or with whitespace around and inside it, is read as the same body sent in one piece',
      rules: ['CONV-POST-JSON'],
    },
    async (t) => {
      const featureId = t.ns.id('feat');
      const body = { feature_id: featureId, name: `Zoë’s 東京 ${featureId}`, type: 'boolean' };
      const { origin, prefix, headers } = (t.setup(await t.client.call('plans.list', {})), wireOf(t, 'plans.list'));
      // HTTP/1.1 servers read chunked bodies (RFC 9112 §6.1); pieces of 5 bytes cut the three-byte 東 and 京 apart.
      const bytes = Buffer.from(JSON.stringify(body));
      const pieces = Array.from({ length: Math.ceil(bytes.length / 5) }, (_, i) => bytes.subarray(i * 5, i * 5 + 5));
      const chunked = await request(`${origin}${prefix}${operations['features.create'].path}`, { method: 'POST', headers, body: Readable.from(pieces), signal: t.signal });
      const chunkedText = await chunked.body.text();
      t.check('CONV-POST-JSON', () => {
        expect(chunked.statusCode, `features.create with its body in ${pieces.length} chunks: ${chunkedText.slice(0, 200)}`).toBe(200);
        expect((parsedJson(chunkedText) as { name?: unknown } | undefined)?.name, 'the name read from the chunks is the one sent').toBe(body.name);
      });
      // JSON text may have whitespace around and between its tokens (RFC 8259 §2).
      const spaced = await t.client.raw({ path: operations['features.get'].path, body: `\n  ${JSON.stringify({ feature_id: featureId }, null, 2)}\n\t ` });
      t.check('CONV-POST-JSON', () => expect((parsedJson(spaced.text) as { id?: unknown } | undefined)?.id, `features.get of a body with whitespace around and inside it: ${spaced.status} ${spaced.text.slice(0, 200)}`).toBe(featureId));
    },
  ),
  scenario(
    {
      id: 'envelope.non-ascii-text',
      title: 'names outside ASCII (accents, CJK, an emoji) round-trip through features, plans and entities, the answers stay JSON, and entities.list search finds such a name',
      rules: ['CONV-POST-JSON', 'PLAN-CREATE-THEN-GET', 'FEAT-GET', 'ENT-SEARCH', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const featureId = t.ns.id('feat');
      const feature = await postAs(t, 'features.create', { feature_id: featureId, name: NON_ASCII, type: 'metered', consumable: false }, 'application/json');
      // Its being a success at all is a premise; answering exactly 200 is ERR-SUCCESS-200's.
      t.precondition('features.create of a name outside ASCII succeeds', () => expect(feature.status >= 200 && feature.status < 300, `${feature.status} ${feature.text.slice(0, 200)}`).toBe(true));
      t.check('CONV-POST-JSON', () => expect(parsedJson(feature.text), `features.create answers JSON for a name outside ASCII: ${feature.text.slice(0, 200)}`).toBeDefined());
      const readFeature = t.expectOk(await t.client.call('features.get', { feature_id: featureId }), 'FEAT-GET');
      t.check('FEAT-GET', () => expect(readFeature.name, 'the name reads back as sent').toBe(NON_ASCII));

      const planId = t.ns.id('plan');
      t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: NON_ASCII, description: NON_ASCII }), 'PLAN-CREATE-THEN-GET');
      const plan = t.expectOk(await t.client.call('plans.get', { plan_id: planId }), 'PLAN-CREATE-THEN-GET');
      t.check('PLAN-CREATE-THEN-GET', () => expect({ name: plan.name, description: plan.description }, 'name and description read back as sent').toEqual({ name: NON_ASCII, description: NON_ASCII }));

      const customer = t.setup(await t.client.call('customers.get_or_create', newCustomerBody(t, { name: NON_ASCII })), ['id']);
      const entityId = t.ns.id('ent');
      t.setup(await t.client.call('entities.create', { customer_id: customer.id, entity_id: entityId, feature_id: featureId, name: `${NON_ASCII} ${entityId}` }));
      await requireSearch(t, customer.id, t.ns.id('nobody').replace(/_/g, ''));
      const found = t.expectOk(await t.client.call('entities.list', { customer_id: customer.id, search: `${NON_ASCII} ${entityId}` }), 'ENT-SEARCH');
      t.check('ENT-SEARCH', () => expect((found.list ?? []).map((entity) => [entity.id, entity.name]), 'search by a name outside ASCII finds the entity, its name as sent').toEqual([[entityId, `${NON_ASCII} ${entityId}`]]));
    },
  ),
  scenario(
    {
      id: 'envelope.text-kept-as-sent',
      title: 'text a normalisation or case mapping would change (combining marks, an emoji joined by zero-width joiners, right-to-left script, ß and İ) is kept as sent in the names of features, plans, customers and entities (display names: features.display-round-trip-large)',
      rules: ['FEAT-GET', 'PLAN-CREATE-THEN-GET', 'CUS-GET-OR-CREATE-NEW', 'CUS-GET', 'ENT-CREATE', 'ENT-GET'],
    },
    async (t) => {
      // Each would read back otherwise under NFC or NFKC (é as one character, ß as ss, the joiners dropped) or a case mapping.
      const [decomposed, joined, rightToLeft, caseTraps] = ['Cafe\u0301 Zoe\u0308', 'team \u{1F469}\u200D\u{1F469}\u200D\u{1F467}', 'مرحبا بالعالم', 'Straße İstanbul ǅ ﬁ'];
      const featureId = t.ns.id('feat');
      t.expectOk(await t.client.call('features.create', { feature_id: featureId, name: decomposed, type: 'metered', consumable: false }), 'FEAT-GET');
      const feature = t.expectOk(await t.client.call('features.get', { feature_id: featureId }), 'FEAT-GET');
      t.check('FEAT-GET', () => expect(feature.name, 'the name reads back as sent, code unit by code unit').toBe(decomposed));

      const planId = t.ns.id('plan');
      t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: caseTraps, description: `${decomposed} ${rightToLeft}` }), 'PLAN-CREATE-THEN-GET');
      const plan = t.expectOk(await t.client.call('plans.get', { plan_id: planId }), 'PLAN-CREATE-THEN-GET');
      t.check('PLAN-CREATE-THEN-GET', () => expect({ name: plan.name, description: plan.description }, 'name and description read back as sent').toEqual({ name: caseTraps, description: `${decomposed} ${rightToLeft}` }));

      const customerName = `${decomposed} ${joined}`;
      const created = t.expectOk(await t.client.call('customers.get_or_create', newCustomerBody(t, { name: customerName })), 'CUS-GET-OR-CREATE-NEW');
      t.check('CUS-GET-OR-CREATE-NEW', () => expect(created.name, 'the new customer is returned with its name as sent').toBe(customerName));
      const customer = t.expectOk(await t.client.call('customers.get', { customer_id: created.id }), 'CUS-GET');
      t.check('CUS-GET', () => expect(customer.name, 'customers.get returns the name as sent').toBe(customerName));

      const seat = await createFeature(t, 'allocated');
      const entityId = t.ns.id('ent');
      const entityName = `${rightToLeft} ${caseTraps}`;
      const entity = t.expectOk(await t.client.call('entities.create', { customer_id: created.id, entity_id: entityId, feature_id: seat.id, name: entityName }), 'ENT-CREATE');
      t.check('ENT-CREATE', () => expect(entity.name, 'entities.create returns the name as sent').toBe(entityName));
      const read = t.expectOk(await t.client.call('entities.get', { customer_id: created.id, entity_id: entityId }), 'ENT-GET');
      t.check('ENT-GET', () => expect(read.name, 'entities.get returns the name as sent').toBe(entityName));
    },
  ),
  scenario(
    {
      id: 'envelope.ids-differing-in-case',
      title: 'IDs that differ only in case name different objects: two customers, two plans',
      rules: ['CUS-GET-OR-CREATE-NEW', 'PLAN-CREATE-THEN-GET'],
    },
    async (t) => {
      // Suffixes of namespaced IDs, so the run owns both.
      const customerBase = t.ns.id('cus');
      const created: { id: string; name?: string | null }[] = [];
      for (const [suffix, name] of [['_A', 'Upper'], ['_a', 'Lower']] as const) {
        created.push(t.expectOk(await t.client.call('customers.get_or_create', { ...newCustomerBody(t), customer_id: `${customerBase}${suffix}`, name }), 'CUS-GET-OR-CREATE-NEW'));
      }
      t.check('CUS-GET-OR-CREATE-NEW', () =>
        expect(created.map((customer) => [customer.id, customer.name]), 'a customer_id differing only in case creates a second customer').toEqual([[`${customerBase}_A`, 'Upper'], [`${customerBase}_a`, 'Lower']]),
      );

      const planBase = t.ns.id('plan');
      for (const suffix of ['_P', '_p']) t.expectOk(await t.client.call('plans.create', { plan_id: `${planBase}${suffix}`, name: `Plan${suffix}` }), 'PLAN-CREATE-THEN-GET');
      const plans: { id: string; name: string }[] = [];
      for (const suffix of ['_P', '_p']) plans.push(t.expectOk(await t.client.call('plans.get', { plan_id: `${planBase}${suffix}` }), 'PLAN-CREATE-THEN-GET'));
      t.check('PLAN-CREATE-THEN-GET', () => expect(plans.map((plan) => [plan.id, plan.name]), 'each plan reads back as its own').toEqual([[`${planBase}_P`, 'Plan_P'], [`${planBase}_p`, 'Plan_p']]));
    },
  ),
];
