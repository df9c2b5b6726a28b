/**
 * Conformance scenarios of the envelope rules: the conventions (POST + JSON, snake_case, units), the
 * bearer key and tenants, the x-api-version header, and error answers. The generated-body scenarios
 * (valid bodies and mutants from the OpenAPI export) are in generated-bodies.ts.
 */
import { expect } from 'vitest';
import { seededFaker } from '../../fixtures/factories.ts';
import { PLAN_DOCUMENTED_SPELLINGS } from '../../spec/common.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import type { HeaderOverrides } from '../framework/index.ts';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../support.ts';
import { createCustomerWithEntity } from './envelope-fixtures.ts';
import { generatedBodyScenarios } from './generated-bodies.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const JSON_CONTENT_TYPE = /^application\/json\b/i;

/** Sends `body` to an operation as JSON with these header overrides, without the typed client's checks. */
function rawCall(t: T, operation: OperationName, body: unknown, headers: HeaderOverrides = {}) {
  return t.client.raw({ path: operations[operation].path, headers, body: JSON.stringify(body) });
}

function expectRefused(result: { status: number; body: unknown }, why: string): void {
  expect(result.status, `${why}: expected a 4xx, got ${result.status} ${JSON.stringify(result.body)}`).toBeGreaterThanOrEqual(400);
  expect(result.status, `${why}: expected a 4xx, got ${result.status} ${JSON.stringify(result.body)}`).toBeLessThan(500);
}

function codeOf(body: unknown): unknown {
  return (body as { code?: unknown } | null)?.code;
}

/** A feature id that nothing has created, and a body that would create it. */
function freshFeature(t: T) {
  const featureId = t.ns.id('feat');
  return { featureId, body: { feature_id: featureId, name: `Flag ${featureId}`, type: 'boolean' as const } };
}

/** Asserts that the feature was not created: the refused call changed nothing. */
async function expectNoFeature(t: T, featureId: string): Promise<void> {
  t.expectError(await t.client.call('features.get', { feature_id: featureId }));
}

/**
 * Keys of a response body, at every depth, that are neither snake_case nor one of the operation's
 * documented spellings (DESIGN decision 2). `metadata` holds user data and is not looked into.
 */
function offWireKeys(body: unknown, documented: ReadonlySet<string>, at = ''): string[] {
  if (Array.isArray(body)) return body.flatMap((item, i) => offWireKeys(item, documented, `${at}[${i}]`));
  if (body === null || typeof body !== 'object') return [];
  return Object.entries(body).flatMap(([key, value]) => {
    const here = at === '' ? key : `${at}.${key}`;
    const own = SNAKE_CASE.test(key) || documented.has(key) ? [] : [here];
    return key === 'metadata' ? own : [...own, ...offWireKeys(value, documented, here)];
  });
}

/** Now, as the target sees it: the fake's clock when the control plane is there (other scenarios may move it), else the wall clock. */
async function targetNow(t: T): Promise<number> {
  return t.has('control-plane') ? (await t.control.call('clock.get', {})).now : Date.now();
}

export const envelopeScenarios = [
  scenario(
    {
      id: 'envelope.post-json',
      title: 'an operation is a POST of a JSON body to /v1/<resource>.<action>, answered with JSON, errors included',
      rules: ['CONV-POST-JSON'],
    },
    async (t) => {
      // The client sends every call as POST {base_url}/v1/<resource>.<action> with Content-Type: application/json.
      const { featureId, body } = freshFeature(t);
      const created = await t.client.call('features.create', body);
      expect(t.expectOk(created), 'the fields of the JSON body took effect').toMatchObject({ id: featureId, name: body.name, type: 'boolean' });
      expect(created.headers['content-type'], 'a 200 answers with a JSON content type').toMatch(JSON_CONTENT_TYPE);
      expect(t.expectOk(await t.client.call('features.get', { feature_id: featureId }))).toMatchObject({ id: featureId, name: body.name });

      const missing = t.expectError(await t.client.call('features.get', { feature_id: t.ns.id('feat') }));
      expect(missing.headers['content-type'], 'an error answers with a JSON content type').toMatch(JSON_CONTENT_TYPE);
      expect(missing.exchange.response?.body, 'an error answer is a JSON object').toBeTypeOf('object');
    },
  ),

  scenario(
    {
      id: 'envelope.success-200',
      title: 'successful creates, reads and listings answer exactly 200 with the documented body',
      rules: ['ERR-SUCCESS-200'],
    },
    async (t) => {
      // expectOk requires status 200 (not 201 or 204), and the client checks the body against the spec.
      // One create checked here first: the setup calls below would only block on another status.
      t.expectOk(await t.client.call('features.create', { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean' }), 'ERR-SUCCESS-200');
      const { feature, plan, customer, entity } = await createCustomerWithEntity(t);
      t.expectOk(await t.client.call('plans.get', { plan_id: plan.id }));
      t.expectOk(await t.client.call('entities.list', { customer_id: customer.id }));
      const check = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, entity_id: entity.id, feature_id: feature.id }));
      expect(check.allowed).toBe(true);
    },
  ),

  scenario(
    {
      id: 'envelope.snake-case-request',
      title: 'request fields spelled snake_case, at every depth, take effect',
      rules: ['CONV-SNAKE-CASE-REQUEST'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const snakeCaseFields = {
        add_on: true,
        free_trial: { duration_length: 7, duration_type: 'day' as const, card_required: false },
        items: [{ feature_id: feature.id, included: 5, reset: { interval: 'month' as const } }],
      };
      const plan = await createPlan(t, snakeCaseFields);
      expect(plan, 'plans.create applied add_on, free_trial.duration_length/duration_type/card_required and items[].feature_id').toMatchObject(snakeCaseFields);
      expect(t.expectOk(await t.client.call('plans.get', { plan_id: plan.id }))).toMatchObject(snakeCaseFields);
    },
  ),

  scenario(
    {
      id: 'envelope.response-snake-case',
      title: 'plan answers spell every key snake_case, except the fields the document spells in camelCase',
      rules: ['CONV-RESPONSE-SNAKE-CASE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, {
        price: { amount: 10, interval: 'month' },
        free_trial: { duration_length: 14, duration_type: 'day', card_required: true },
        items: [{ feature_id: feature.id, included: 100, reset: { interval: 'month' }, price: { amount: 0.5, interval: 'month', billing_method: 'usage_based' } }],
        metadata: { keptAsGiven: 'metadata keys are user data' },
      });
      const documented = new Set<string>(Object.values(PLAN_DOCUMENTED_SPELLINGS));
      const created = t.evidence.findLast((exchange) => exchange.label === 'plans.create')!;
      const read = await t.client.call('plans.get', { plan_id: plan.id });
      t.expectOk(read);
      for (const exchange of [created, read.exchange]) {
        expect(offWireKeys(exchange.response?.body, documented), `${exchange.label}: keys that are neither snake_case nor a documented spelling`).toEqual([]);
      }
    },
  ),

  scenario(
    {
      id: 'envelope.money-major-units',
      title: 'a plan of amount 20 reads 20, and cancelling it at once previews a refund in tens (major unit), not thousands',
      rules: ['CONV-MONEY-MAJOR-UNITS'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 20, interval: 'month' } });
      expect(plan.price?.amount, 'plans.create answers the price as given, in the major unit').toBe(20);
      expect(t.expectOk(await t.client.call('plans.get', { plan_id: plan.id })).price?.amount).toBe(20);
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);

      const preview = t.expectOk(
        await t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
      );
      expect(preview.subscriptions, 'the paid plan has one processor subscription').toHaveLength(1);
      // Right after attaching, the unused share of the period is (almost) all of it: about 20, never 2000 or 0.2.
      for (const [what, amount] of [['total', preview.total], ['subscriptions[0].total', preview.subscriptions[0]!.total]] as const) {
        expect(Math.abs(amount), `${what} ${amount}: a refund of a 20-a-month plan is in tens of the major unit`).toBeGreaterThanOrEqual(10);
        expect(Math.abs(amount), `${what} ${amount}: a refund of a 20-a-month plan is in tens of the major unit`).toBeLessThanOrEqual(30);
      }
    },
  ),

  scenario(
    {
      id: 'envelope.timestamps-ms',
      title: 'timestamps are integer Unix milliseconds close to now',
      rules: ['CONV-TIMESTAMPS-MS'],
      // With a control plane, "now" is the fake's clock, which other scenarios may have moved forward.
      uses: ['control-plane'],
    },
    async (t) => {
      const before = await targetNow(t);
      const { plan, customer, entity } = await createCustomerWithEntity(t);
      const subscription = t.expectOk(await t.client.call('customers.get', { customer_id: customer.id })).subscriptions.find((s) => s.plan_id === plan.id);
      const after = await targetNow(t);
      const stamps = {
        'plans.create created_at': plan.created_at,
        'customers.get_or_create created_at': customer.created_at,
        'entities.create created_at': entity.created_at,
        'customers.get subscriptions[].started_at': subscription?.started_at,
      };
      for (const [what, stamp] of Object.entries(stamps)) {
        expect(Number.isInteger(stamp), `${what} ${stamp} is an integer`).toBe(true);
        expect(stamp, `${what} is milliseconds within a day of now (${before}…${after})`).toBeGreaterThanOrEqual(before - DAY_MS);
        expect(stamp, `${what} is milliseconds within a day of now (${before}…${after})`).toBeLessThanOrEqual(after + DAY_MS);
      }
    },
  ),

  scenario(
    {
      id: 'envelope.bearer-required',
      title: 'a request without an Authorization: Bearer header is refused, and changes nothing',
      rules: ['AUTH-BEARER-REQUIRED'],
    },
    async (t) => {
      const { featureId, body } = freshFeature(t);
      for (const authorization of [null, 'Basic dXNlcjpwYXNzd29yZA==', 'Bearer']) {
        expectRefused(await rawCall(t, 'features.create', body, { authorization }), `features.create with Authorization ${authorization ?? '(none)'}`);
      }
      expectRefused(await rawCall(t, 'features.list', {}, { authorization: null }), 'features.list without Authorization');
      await expectNoFeature(t, featureId);
    },
  ),

  scenario(
    {
      id: 'envelope.no-key-code',
      title: 'a request without a bearer key is refused with 401 no_secret_key',
      rules: ['AUTH-NO-KEY-CODE'],
      mutates: false,
    },
    async (t) => {
      for (const authorization of [null, 'Basic dXNlcjpwYXNzd29yZA==']) {
        const result = await rawCall(t, 'customers.get', { customer_id: t.ns.id('cus') }, { authorization });
        expect({ status: result.status, code: codeOf(result.body) }, `Authorization ${authorization ?? '(none)'}`).toEqual({ status: 401, code: 'no_secret_key' });
      }
    },
  ),

  scenario(
    {
      id: 'envelope.secret-key',
      title: 'a bearer token that is not a secret key of the service is refused, and changes nothing',
      rules: ['AUTH-SECRET-KEY'],
    },
    async (t) => {
      const unknownKey = `am_sk_test_${seededFaker(t.seed, 'envelope.secret-key').string.alphanumeric(42)}`;
      const { featureId, body } = freshFeature(t);
      for (const token of [unknownKey, 'not-a-secret-key']) {
        expectRefused(await rawCall(t, 'features.create', body, { authorization: `Bearer ${token}` }), 'features.create with a token that is no secret key');
      }
      await expectNoFeature(t, featureId);
    },
  ),

  scenario(
    {
      id: 'envelope.unknown-key-code',
      title: 'a well-formed secret key the service does not know is refused with 401 invalid_secret_key',
      rules: ['AUTH-UNKNOWN-KEY-CODE'],
      mutates: false,
    },
    async (t) => {
      const unknownKey = `am_sk_test_${seededFaker(t.seed, 'envelope.unknown-key-code').string.alphanumeric(42)}`;
      const result = await rawCall(t, 'customers.get', { customer_id: t.ns.id('cus') }, { authorization: `Bearer ${unknownKey}` });
      expect({ status: result.status, code: codeOf(result.body) }).toEqual({ status: 401, code: 'invalid_secret_key' });
    },
  ),

  scenario(
    {
      id: 'envelope.tenant-isolation',
      title: "another tenant's key sees none of this tenant's features, plans and customers",
      rules: ['AUTH-TENANT-ISOLATION'],
      needs: ['other-tenant'],
    },
    async (t) => {
      const feature = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id }] });
      const customer = await createCustomer(t);
      const asOther = { authorization: `Bearer ${t.otherTenantKey}` };
      const reads = [
        ['features.get', { feature_id: feature.id }],
        ['plans.get', { plan_id: plan.id }],
        ['customers.get', { customer_id: customer.id }],
      ] as const;
      for (const [operation, body] of reads) {
        const result = await rawCall(t, operation, body, asOther);
        expect(result.status, `${operation} of this tenant's object with another tenant's key reads as not found: ${result.text.slice(0, 200)}`).toBe(404);
      }
      for (const [operation, id] of [['features.list', feature.id], ['plans.list', plan.id]] as const) {
        const result = await rawCall(t, operation, {}, asOther);
        expect(result.status, `${operation} with another tenant's key`).toBe(200);
        const ids = ((result.body as { list?: { id: string }[] }).list ?? []).map((item) => item.id);
        expect(ids, `${operation} with another tenant's key does not list ${id}`).not.toContain(id);
      }
    },
  ),

  scenario(
    {
      id: 'envelope.api-version-header',
      title: 'requests carrying the x-api-version header are served by operations of every kind',
      rules: ['AUTH-API-VERSION-HEADER'],
    },
    async (t) => {
      // Created here, not through the setup builder: a refusal of the header must fail this rule, not block it.
      const feature = t.expectOk(await t.client.call('features.create', { feature_id: t.ns.id('featflag'), name: 'Flag', type: 'boolean' }), 'AUTH-API-VERSION-HEADER');
      const read = await t.client.call('features.get', { feature_id: feature.id });
      const listed = await t.client.call('features.list', {});
      for (const { exchange } of [read, listed]) expect(exchange.request.headers['x-api-version'], `${exchange.label} carried x-api-version`).toBeTruthy();
      expect(t.expectOk(read).id).toBe(feature.id);
      expect(t.expectOk(listed).list.map((item) => item.id)).toContain(feature.id);
    },
  ),

  scenario(
    {
      id: 'envelope.version-default',
      title: 'a request without x-api-version is served exactly as with 2.4.0',
      rules: ['VER-HEADER-DEFAULT'],
    },
    async (t) => {
      const { plan, customer } = await createCustomerWithEntity(t);
      const reads = [
        ['plans.get', { plan_id: plan.id }],
        ['customers.get', { customer_id: customer.id }],
        ['entities.list', { customer_id: customer.id }],
      ] as const;
      for (const [operation, body] of reads) {
        const without = t.expectOk(await t.client.call(operation, body, { headers: { 'x-api-version': null } }));
        const with240 = t.expectOk(await t.client.call(operation, body, { headers: { 'x-api-version': '2.4.0' } }));
        expect(without, `${operation} without x-api-version answers as with 2.4.0`).toEqual(with240);
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
      const { featureId, body } = freshFeature(t);
      t.expectOk(await t.client.call('features.create', body, v240));
      t.expectOk(await t.client.call('features.get', { feature_id: featureId }, v240));
      const customer = t.expectOk(await t.client.call('customers.get_or_create', { customer_id: t.ns.id('cus') }, v240));
      t.expectOk(await t.client.call('entities.list', { customer_id: customer.id }, v240));
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
        expect({ status: result.status, code: codeOf(result.body) }, `${operation} with x-api-version 9.9.9`).toEqual({ status: 400, code: 'invalid_api_version' });
      }
      await expectNoFeature(t, featureId);
    },
  ),

  scenario(
    {
      id: 'envelope.customer-not-found',
      title: 'an unknown customer_id is answered 404 customer_not_found by every operation that takes one, and is not created',
      rules: ['ERR-CUSTOMER-NOT-FOUND'],
    },
    async (t) => {
      const feature = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 1 }] });
      const customerId = t.ns.id('cus');
      const calls = [
        () => t.client.call('licenses.list', { customer_id: customerId }),
        () => t.client.call('licenses.attach', { customer_id: customerId, plan_id: plan.id, entities: [{ entity_id: t.ns.id('ent'), name: 'Seat' }] }),
        () => t.client.call('licenses.release', { customer_id: customerId, license_plan_id: plan.id, entity_ids: [t.ns.id('ent')] }),
        () => t.client.call('billing.preview_multi_update', { customer_id: customerId, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        () => t.client.call('balances.check', { customer_id: customerId, feature_id: feature.id }),
        () => t.client.call('billing.attach', { customer_id: customerId, plan_id: plan.id }),
      ];
      for (const call of calls) t.expectError(await call(), { status: 404, code: 'customer_not_found' });
      t.expectError(await t.client.call('customers.get', { customer_id: customerId }), { status: 404, code: 'customer_not_found' });
    },
  ),

  ...generatedBodyScenarios,
];
