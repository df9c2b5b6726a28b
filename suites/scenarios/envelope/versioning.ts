/**
 * Scenarios of Versioning (the header; plan versions are in plans/versions.ts): the default of
 * x-api-version, 2.4.0 accepted everywhere, and an unknown version refused without changing anything.
 */
import { expect } from 'vitest';
import { isRouteNotServed } from '../../framework/index.ts';
import { createCustomer, scenario } from '../../support.ts';
import { codeOf, createCustomerWithEntity, expectRefusal, freshFeature, rawCall } from './support.ts';

export const versioningScenarios = [
  scenario(
    {
      id: 'envelope.version-default',
      title: 'a request without x-api-version is either refused with a 4xx or served exactly as with 2.4.0, never differently',
      rules: ['VER-HEADER-DEFAULT'],
      // Two listings compared whole: alone where it can be, so a target listing other customers' records shows no other scenario's writes between them.
      uses: ['exclusive-tenant'],
    },
    async (t) => {
      const { feature, plan, customer } = await createCustomerWithEntity(t);
      // Documented reads every target serves (the listings of records are not served by every deployment).
      const reads = [
        ['plans.get', { plan_id: plan.id }],
        ['balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }],
        ['entities.list', { customer_id: customer.id }],
      ] as const;
      for (const [operation, body] of reads) {
        const without = await t.client.call(operation, body as never, { headers: { 'x-api-version': null } });
        const asked240 = await t.client.call(operation, body as never, { headers: { 'x-api-version': '2.4.0' } });
        // Served without the header but refused with 2.4.0 (the same body): whatever the default is, it is not 2.4.0 (exchanges 145, 147).
        if (without.ok && !asked240.ok && !isRouteNotServed(asked240.status, asked240.body) && asked240.status < 500) {
          t.check('VER-HEADER-DEFAULT', () => expect(asked240.status, `${operation} is served without x-api-version but refused with 2.4.0, so its default is not 2.4.0: ${JSON.stringify(asked240.body)?.slice(0, 200)}`).toBe(200));
        }
        const with240 = t.setup(asked240);
        t.check('VER-HEADER-DEFAULT', () => {
          if (without.ok) expect(without.body, `${operation} without x-api-version answers as with 2.4.0`).toEqual(with240);
          else expectRefusal(without, `${operation} without x-api-version is refused with a clear 4xx or served as 2.4.0`);
        });
      }
    },
  ),
  scenario(
    {
      id: 'envelope.version-default-served',
      title: 'a request without x-api-version is served rather than refused',
      rules: ['VER-HEADER-DEFAULT-SERVED'],
      mutates: false,
    },
    async (t) => {
      for (const [operation, body] of [['features.list', {}], ['plans.list', {}]] as const) {
        t.setup(await t.client.call(operation, body));
        t.expectOk(await t.client.call(operation, body, { headers: { 'x-api-version': null } }), 'VER-HEADER-DEFAULT-SERVED');
      }
    },
  ),
  scenario(
    {
      id: 'envelope.version-2-4-0',
      title: 'x-api-version 2.4.0 is accepted by creates, reads and listings',
      rules: ['VER-2-4-0-ACCEPTED'],
    },
    async (t) => {
      const v240 = { headers: { 'x-api-version': '2.4.0' } };
      // As with the header rule: refused with 2.4.0 but served without the header, 2.4.0 is what is refused.
      const { featureId, body } = freshFeature(t);
      const created = await t.client.call('features.create', body, v240);
      if (!created.ok) {
        const withoutHeader = await t.client.call('features.create', freshFeature(t).body, { headers: { 'x-api-version': null } });
        t.precondition('features.create is served at all', () => expect(withoutHeader.ok).toBe(true));
      }
      t.expectOk(created);
      const planId = t.ns.id('plan');
      t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: 'Version plan', items: [{ feature_id: featureId }] }, v240));
      t.expectOk(await t.client.call('plans.get', { plan_id: planId }, v240));
      const customer = await createCustomer(t);
      t.expectOk(await t.client.call('entities.list', { customer_id: customer.id }, v240));
      t.expectOk(await t.client.call('licenses.list', { customer_id: customer.id }, v240));
      t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: featureId }, v240));
    },
  ),
  scenario(
    {
      id: 'envelope.invalid-version',
      title: 'an x-api-version the service does not know is refused with 400 invalid_api_version, and changes nothing',
      rules: ['VER-INVALID-VERSION'],
    },
    async (t) => {
      const { featureId, body } = freshFeature(t);
      for (const [operation, request] of [['features.create', body], ['features.list', {}]] as const) {
        const result = await rawCall(t, operation, request, { 'x-api-version': '9.9.9' });
        const what = `${operation} with x-api-version 9.9.9: ${result.text.slice(0, 200)}`;
        t.check('VER-INVALID-VERSION', () => expect(result.status, what).toBe(400));
        const code = codeOf(t, result.body);
        t.check('VER-INVALID-VERSION', () => expect(code, what).toBe('invalid_api_version'));
      }
      // The refused create created nothing: the same create with a known version is accepted.
      t.setup(await t.client.call('features.create', body));
      t.setup(await t.client.call('features.get', { feature_id: featureId }));
    },
  ),
];
