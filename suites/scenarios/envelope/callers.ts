/**
 * Scenarios of callers that differ: requests of the published client (autumn-js, known by its
 * User-Agent) mixed with plain ones, and requests pipelined on one connection. interface.md does
 * not tell callers apart, so what either changes, and what plain callers read after it, is the
 * document's.
 */
import { Client as UndiciClient } from 'undici';
import { expect } from 'vitest';
import { seededFaker } from '../../../fixtures/factories.ts';
import { operations } from '../../../spec/operations.ts';
import { PUBLISHED_CLIENT_HEADERS, attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, licenseEntities, oneConnection, scenario } from '../../support.ts';
import { expectPool } from '../licenses/support.ts';
import { expectEmbeddedFieldsOnly } from '../entities/support.ts';
import { balanceNow, spend, SPEND_RULES } from '../balances/support.ts';
import { codeOf, expectRefusal, parsedJson, rawCall, wireOf } from './support.ts';

const PUBLISHED_CLIENT = PUBLISHED_CLIENT_HEADERS;

/** User-Agents of callers that are not the published client: a browser, curl, another language's HTTP library. */
const OTHER_CALLERS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'curl/8.5.0',
  'python-requests/2.32.3',
] as const;

export const callersScenarios = [
  scenario(
    {
      id: 'envelope.published-client-refused-alike',
      title: "the published client is refused as a plain caller is: an unknown customer, plan, feature and entity with their codes, and a key the service does not know",
      rules: ['ERR-CUSTOMER-NOT-FOUND', 'ERR-PLAN-NOT-FOUND', 'ERR-FEATURE-NOT-FOUND', 'ERR-ENTITY-NOT-FOUND', 'AUTH-UNKNOWN-KEY-CODE'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const unknownKey = `am_sk_test_${seededFaker(t.seed, 'envelope.published-client-refused-alike').string.alphanumeric(42)}`;
      // Each caller in turn, the plain one first: the plain answer is what the rule says of every caller.
      for (const [caller, headers] of [['a plain caller', {}], ['the published client', PUBLISHED_CLIENT]] as const) {
        const asked = { headers };
        t.expectError(await t.client.call('customers.get', { customer_id: t.ns.id('cus') }, asked), { status: 404, code: 'customer_not_found', rule: 'ERR-CUSTOMER-NOT-FOUND' });
        t.expectError(await t.client.call('balances.check', { customer_id: t.ns.id('cus'), feature_id: seat.id }, asked), { status: 404, code: 'customer_not_found', rule: 'ERR-CUSTOMER-NOT-FOUND' });
        t.expectError(await t.client.call('plans.get', { plan_id: t.ns.id('plan') }, asked), { status: 404, code: 'product_not_found', rule: 'ERR-PLAN-NOT-FOUND' });
        t.expectError(await t.client.call('features.get', { feature_id: t.ns.id('feat') }, asked), { status: 404, code: 'feature_not_found', rule: 'ERR-FEATURE-NOT-FOUND' });
        t.expectError(await t.client.call('entities.get', { customer_id: customer.id, entity_id: t.ns.id('ent') }, asked), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
        const unknown = await rawCall(t, 'customers.get', { customer_id: customer.id }, { ...headers, authorization: `Bearer ${unknownKey}` });
        // Refusing it at all is AUTH-SECRET-KEY's; how it is refused is this rule's.
        t.precondition(`a key the service does not know is refused as unauthenticated, for ${caller}`, () => expect([401, 403]).toContain(unknown.status));
        t.check('AUTH-UNKNOWN-KEY-CODE', () => expect({ status: unknown.status, code: codeOf(t, unknown.body) }, `${caller}: the unknown key's refusal`).toEqual({ status: 401, code: 'invalid_secret_key' }));
      }
    },
  ),
  scenario(
    {
      id: 'envelope.published-client-mixed',
      title:
        "calls with the published client's User-Agent, mixed with plain ones, change what plain ones do: a check with send_event, a license attach and release",
      rules: ['EVT-AMOUNT-IS-REQUIRED-BALANCE', 'LIC-ATTACH-BATCH', 'LIC-RELEASE-FREES-SEAT', ...SPEND_RULES],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const messages = await createFeature(t, 'consumable');
      // A yearly reset, so that another scenario moving the shared clock does not refill the balance midway.
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 10, reset: { interval: 'year' } }] });
      await attach(t, setup.customerId, plan.id);
      const [first, second] = licenseEntities(t, setup, 2);
      // Plain calls first: the effects the client's calls are compared with.
      t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [first!] }));
      await expectPool(t, setup, 'LIC-ATTACH-BATCH', { usage: 1, remaining: 2 }, 'a plain attach of one entity takes one seat');
      await spend(t, setup.customerId, messages.id, 2, true);

      t.setup(await t.client.call('balances.check', { customer_id: setup.customerId, feature_id: messages.id, required_balance: 3, send_event: true }, { headers: PUBLISHED_CLIENT }));
      const used = (await balanceNow(t, setup.customerId, messages.id))?.usage;
      t.check('EVT-AMOUNT-IS-REQUIRED-BALANCE', () => expect(used, "the client's send_event of 3 units records 3, after a plain one of 2").toBe(5));

      t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [second!] }, { headers: PUBLISHED_CLIENT }));
      await expectPool(t, setup, 'LIC-ATTACH-BATCH', { usage: 2, remaining: 1 }, "the client's attach of one entity takes one seat");
      t.setup(await t.client.call('licenses.release', { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [first!.entity_id] }, { headers: PUBLISHED_CLIENT }));
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage: 1, remaining: 2 }, "the client's release of one entity frees one seat");
    },
  ),
  scenario(
    {
      id: 'envelope.published-client-listing',
      title:
        "entities.list embeds the documented subscription fields only, read plainly before and after the same read by the published client, and read by other callers (a browser, curl, another language's HTTP library)",
      rules: ['ENT-EMBEDDED-SUBSCRIPTION-FIELDS'],
    },
    async (t) => {
      // An entity with a plan embedded: its customer's, which it inherits.
      const [seat, flag] = [await createFeature(t, 'allocated'), await createFeature(t, 'boolean')];
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      await createEntity(t, customer.id, seat.id);
      const listing = (headers = {}) => t.client.call('entities.list', { customer_id: customer.id }, { headers });
      const plainBefore = await listing();
      t.expectOk(plainBefore, 'ENT-EMBEDDED-SUBSCRIPTION-FIELDS');
      expectEmbeddedFieldsOnly(t, plainBefore.exchange);
      // What the client is answered is not judged here: only that it leaves the plain answers as they were.
      t.setup(await listing(PUBLISHED_CLIENT));
      const plainAfter = await listing();
      t.expectOk(plainAfter, 'ENT-EMBEDDED-SUBSCRIPTION-FIELDS');
      expectEmbeddedFieldsOnly(t, plainAfter.exchange);
      // Any other caller is a plain one: a service that answers callers it takes for the published client otherwise must not take others for it.
      for (const userAgent of OTHER_CALLERS) {
        const answered = await listing({ 'user-agent': userAgent });
        // A deployment behind a filter of bots may turn some callers away before the service sees them: that says nothing of the listing.
        if (!answered.ok) {
          t.notVerified('ENT-EMBEDDED-SUBSCRIPTION-FIELDS', `entities.list with User-Agent ${userAgent} was refused (${answered.status}), so what it embeds for that caller is unknown`);
          continue;
        }
        t.expectOk(answered, 'ENT-EMBEDDED-SUBSCRIPTION-FIELDS');
        expectEmbeddedFieldsOnly(t, answered.exchange);
      }
    },
  ),
  scenario(
    {
      id: 'envelope.keys-on-one-connection',
      title:
        "requests with different keys over one keep-alive connection are each answered for their own key: this tenant's, the other tenant's, none, one the service does not know, and this tenant's again",
      rules: ['AUTH-TENANT-ISOLATION', 'AUTH-BEARER-REQUIRED', 'AUTH-SECRET-KEY'],
      needs: ['other-tenant'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const connection = oneConnection(t);
      try {
        // A service that remembers who a connection belongs to answers every later request on it as the first caller.
        const read = (authorization: string | null) =>
          t.client.raw({ path: operations['plans.get'].path, headers: { authorization }, body: JSON.stringify({ plan_id: plan.id }), dispatcher: connection.dispatcher, retry: false });
        const own = `Bearer ${t.apiKey}`;
        t.setup(await t.client.call('plans.get', { plan_id: plan.id }, { dispatcher: connection.dispatcher, retry: false }));
        const other = await read(`Bearer ${t.otherTenantKey}`);
        t.check('AUTH-TENANT-ISOLATION', () => expect(other.status, `plans.get of this tenant's plan with the other tenant's key, on the connection this tenant's key opened: ${other.text.slice(0, 200)}`).toBe(404));
        const none = await read(null);
        t.check('AUTH-BEARER-REQUIRED', () => expectRefusal(none, 'plans.get without a key, on a connection a key opened'));
        const unknown = await read(`Bearer am_sk_test_${'0'.repeat(8)}onetwoconnection${'0'.repeat(16)}`);
        t.check('AUTH-SECRET-KEY', () => expectRefusal(unknown, 'plans.get with a key the service does not know, on a connection a key opened'));
        const again = await read(own);
        t.precondition("this tenant's key reads its plan again on the same connection", () => expect(again.status).toBe(200));
        if (connection.connects() !== 1) {
          const why = `the target did not keep the connection open: the reads went over ${connection.connects()} connections`;
          for (const rule of ['AUTH-TENANT-ISOLATION', 'AUTH-BEARER-REQUIRED', 'AUTH-SECRET-KEY'] as const) t.notVerified(rule, why);
        }
      } finally {
        await connection.dispatcher.close();
      }
    },
  ),
  scenario(
    {
      id: 'envelope.pipelined-requests',
      title: 'two requests pipelined on one connection are each answered with their own JSON, in the order sent',
      rules: ['CONV-POST-JSON'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      // A read through the client first: its exchange says where the target answers and with which version.
      const sent = t.setup(await t.client.call('plans.get', { plan_id: plan.id }), ['id']);
      const { origin, prefix, headers } = wireOf(t, 'plans.get');
      const connection = new UndiciClient(origin, { pipelining: 2 });
      const answers: { status: number; text: string }[] = [];
      try {
        // Reads are safe to pipeline (idempotent) and answered at once (not blocking): both are on the socket before the first answer comes back.
        const send = (operation: 'plans.get' | 'features.get', body: unknown) =>
          connection.request({ method: 'POST', path: `${prefix}${operations[operation].path}`, headers, body: JSON.stringify(body), idempotent: true, blocking: false, signal: t.signal });
        const pending = [send('plans.get', { plan_id: sent.id }), send('features.get', { feature_id: flag.id })];
        for (const response of await Promise.all(pending)) answers.push({ status: response.statusCode, text: await response.body.text() });
      } finally {
        await connection.close();
      }
      t.check('CONV-POST-JSON', () => {
        expect(answers.map((answer) => answer.status), 'both pipelined requests answered 200').toEqual([200, 200]);
        expect(answers.map((answer) => (parsedJson(answer.text) as { id?: unknown } | undefined)?.id), 'each with its own JSON answer, in the order sent').toEqual([plan.id, flag.id]);
      });
    },
  ),
];
