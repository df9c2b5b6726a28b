/**
 * Conformance scenarios of the envelope rules: the conventions (POST + JSON, snake_case, units), the
 * bearer key and tenants, the x-api-version header, and error answers. The generated-body scenarios
 * (valid bodies and mutants from the OpenAPI export) are in generated-bodies.ts.
 */
import { expect } from 'vitest';
import { seededFaker } from '../../fixtures/factories.ts';
import { ErrorBody, PLAN_DOCUMENTED_SPELLINGS } from '../../spec/common.ts';
import { operations, type OperationName } from '../../spec/operations.ts';
import { TargetFault, type HeaderOverrides } from '../framework/index.ts';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, licenseEntities, scenario, type T } from '../support.ts';
import { createCustomerWithEntity } from './envelope-fixtures.ts';
import { generatedBodyScenarios } from './generated-bodies.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const JSON_CONTENT_TYPE = /^application\/json\b/i;

/**
 * Sends `body` to an operation as JSON with these header overrides, without the typed client's
 * checks. An answer that says nothing about the interface (a 5xx, a 429 beyond the retry budget, a
 * body that is not JSON) stops the scenario as ERROR, as the typed client's would.
 */
async function rawCall(t: T, operation: OperationName, body: unknown, headers: HeaderOverrides = {}) {
  const result = await t.client.raw({ path: operations[operation].path, headers, body: JSON.stringify(body) });
  const fault = result.exchange.fault;
  if (fault !== undefined) throw new TargetFault(`${operation}: the target's answer says nothing about the interface (${fault}, status ${result.status})`, result.exchange);
  return result;
}

/**
 * The error code of a raw refusal, read only from the documented error body `{message, code, env}`:
 * another body is ERR-BODY-SHAPE's deviation, a precondition here.
 */
function codeOf(t: T, body: unknown): unknown {
  t.precondition('the error body is {message, code, env} (ERR-BODY-SHAPE)', () => expect(ErrorBody.safeParse(body).success, JSON.stringify(body)?.slice(0, 200)).toBe(true));
  return (body as { code?: unknown } | null)?.code;
}

/** A feature id that nothing has created, and a body that would create it. */
function freshFeature(t: T) {
  const featureId = t.ns.id('feat');
  return { featureId, body: { feature_id: featureId, name: `Flag ${featureId}`, type: 'boolean' as const } };
}

/** The status is a 4xx (a refusal, not a success nor a server fault). */
function expectRefusal(result: { status: number; body: unknown }, why: string): void {
  const what = `${why}: expected a 4xx, got ${result.status} ${JSON.stringify(result.body)?.slice(0, 200)}`;
  expect(result.status, what).toBeGreaterThanOrEqual(400);
  expect(result.status, what).toBeLessThan(500);
}

type DocumentedCall = { readonly operation: OperationName; readonly body: Record<string, unknown> };

/**
 * A valid request for each of the twelve documented operations, over state built through setup
 * calls: a license pool, a boolean feature, a referral program. Creates name fresh IDs.
 */
async function documentedCalls(t: T): Promise<{ calls: DocumentedCall[]; seat: Record<string, unknown> }> {
  const pool = await createLicensePool(t, 2);
  const reward = t.setup(
    await t.client.call('rewards.create', {
      feature_grant: { id: t.ns.id('reward'), name: 'Auth reward', grants: [{ feature_id: pool.flag.id, included: 1, expiry: null }], promo_codes: [{ code: t.ns.code('AUTH'), max_uses: 1 }] },
    }),
    ['feature_grant'],
  );
  const program = t.setup(
    await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), reward_id: reward.feature_grant.id, redeem_on: 'customer_creation', received_by: 'referrer' }),
    ['id'],
  );
  const customer_id = pool.customerId;
  const [seat] = licenseEntities(t, pool, 1);
  const calls: DocumentedCall[] = [
    { operation: 'licenses.list', body: { customer_id } },
    { operation: 'licenses.attach', body: { customer_id, plan_id: pool.licensePlan.id, entities: [seat] } },
    { operation: 'licenses.release', body: { customer_id, license_plan_id: pool.licensePlan.id, entity_ids: [seat!.entity_id] } },
    { operation: 'subscriptions.list', body: { customer_id } },
    { operation: 'purchases.list', body: { customer_id } },
    { operation: 'entities.list', body: { customer_id } },
    { operation: 'billing.preview_multi_update', body: { customer_id, updates: [{ plan_id: pool.parentPlan.id, cancel_action: 'cancel_immediately' }] } },
    { operation: 'plans.create', body: { plan_id: t.ns.id('plan'), name: 'Auth plan' } },
    { operation: 'plans.get', body: { plan_id: pool.parentPlan.id } },
    { operation: 'balances.check', body: { customer_id, feature_id: pool.flag.id } },
    { operation: 'features.create', body: freshFeature(t).body },
    { operation: 'referral_programs.update', body: { referral_program_id: program.id, max_redemptions: 5 } },
  ];
  return { calls, seat: seat! };
}

/**
 * Sends every documented operation's valid request with each of `authorizations` (header values;
 * null leaves the header out): each must be refused with a 4xx, checked as `rule`. Then the same
 * request with the run's key must be accepted (the positive control, a setup step), which also
 * shows that the refused creates created nothing (they name the same fresh IDs).
 */
async function refusedOnEveryDocumentedOperation(t: T<'AUTH-BEARER-REQUIRED' | 'AUTH-SECRET-KEY'>, rule: 'AUTH-BEARER-REQUIRED' | 'AUTH-SECRET-KEY', authorizations: readonly (string | null)[]): Promise<void> {
  const { calls } = await documentedCalls(t);
  const shown = (authorization: string | null) => (authorization === null ? '(none)' : authorization.startsWith('Bearer ') ? 'Bearer <not a key of the service>' : authorization.replace(/ .*/, ' …'));
  for (const { operation, body } of calls) {
    for (const authorization of authorizations) {
      const result = await rawCall(t, operation, body, { authorization });
      t.check(rule, () => expectRefusal(result, `${operation} with Authorization ${shown(authorization)}`));
    }
    t.setup(await t.client.call(operation, body as never));
  }
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

/**
 * Sends a valid request that must succeed: its being a success (2xx) is a precondition, its status
 * being exactly 200 is `rule`'s.
 */
async function succeedsWith200(t: T<'ERR-SUCCESS-200' | 'ERR-SUCCESS-200-SETUP'>, rule: 'ERR-SUCCESS-200' | 'ERR-SUCCESS-200-SETUP', operation: OperationName, body: Record<string, unknown>): Promise<void> {
  const result = await rawCall(t, operation, body);
  t.precondition(`${operation} of a valid request succeeds`, () => {
    expect(result.status, `${operation}: ${result.text.slice(0, 200)}`).toBeGreaterThanOrEqual(200);
    expect(result.status, `${operation}: ${result.text.slice(0, 200)}`).toBeLessThan(300);
  });
  t.check(rule, () => expect(result.status, `${operation} answered a success with ${result.status}`).toBe(200));
}

/** Every integer-looking timestamp field of a JSON answer (`…_at`, `current_period_start/end`), with its path; metadata is user data and skipped. */
function timestampsOf(body: unknown, at = ''): [string, unknown][] {
  if (Array.isArray(body)) return body.flatMap((item, i) => timestampsOf(item, `${at}[${i}]`));
  if (body === null || typeof body !== 'object') return [];
  return Object.entries(body).flatMap(([key, value]): [string, unknown][] => {
    const here = at === '' ? key : `${at}.${key}`;
    if (key === 'metadata') return [];
    const isStamp = /_at$/.test(key) || key === 'current_period_start' || key === 'current_period_end';
    return isStamp && value !== null && typeof value !== 'object' ? [[here, value]] : timestampsOf(value, here);
  });
}

export const envelopeScenarios = [
  scenario(
    {
      id: 'envelope.post-json',
      title: 'every operation is a POST of a JSON body to /v1/<resource>.<action>, answered with JSON (errors included); another method is not served',
      rules: ['CONV-POST-JSON'],
    },
    async (t) => {
      // The client sends every call as POST {base_url}/v1/<resource>.<action> with Content-Type: application/json.
      // A documented read whose body carries nothing first: a target that serves no request at all blocks here.
      t.setup(await t.client.call('subscriptions.list', {}));
      const { featureId, body } = freshFeature(t);
      const created = t.expectOk(await t.client.call('features.create', body));
      t.check('CONV-POST-JSON', () => expect(created.id, 'the JSON body was read: the feature has the ID it named').toBe(featureId));
      // Each documented operation once, with a valid request (setup): every 200 must be JSON.
      const { calls } = await documentedCalls(t);
      for (const { operation, body: request } of calls) t.setup(await t.client.call(operation, request as never));
      const answered = t.evidence.filter((e) => e.response?.status === 200 && operations[e.label as OperationName]?.provenance === 'documented');
      t.precondition('every documented operation answered 200', () => expect(new Set(answered.map((e) => e.label)).size).toBe(calls.length));
      t.check('CONV-POST-JSON', () => {
        for (const exchange of answered) {
          expect(exchange.response?.headers['content-type'], `${exchange.label}: a 200 answers with a JSON content type`).toMatch(JSON_CONTENT_TYPE);
        }
      });

      const missing = await t.client.call('plans.get', { plan_id: t.ns.id('plan') });
      t.precondition('plans.get of an unknown plan is refused', () => expect(missing.ok).toBe(false));
      t.check('CONV-POST-JSON', () => {
        expect(missing.headers['content-type'], 'an error answers with a JSON content type').toMatch(JSON_CONTENT_TYPE);
        expect(missing.exchange.response?.body, 'an error answer is a JSON object').toBeTypeOf('object');
      });

      // The same operation asked with another method is not answered as a success.
      const path = operations['plans.get'].path;
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const other = await t.client.raw({ method, path, body: method === 'GET' ? undefined : JSON.stringify({ plan_id: t.ns.id('plan') }) });
        t.check('CONV-POST-JSON', () => expect(other.status >= 200 && other.status < 300, `${method} ${path} must not succeed: ${other.status} ${other.text.slice(0, 200)}`).toBe(false));
      }
    },
  ),

  scenario(
    {
      id: 'envelope.success-200',
      title: 'successful calls of the documented operations answer exactly 200, not another 2xx',
      rules: ['ERR-SUCCESS-200'],
    },
    async (t) => {
      // The documented creates come first, made here: a setup builder would block on a 201 before this rule is asked.
      const succeeded = (operation: OperationName, body: Record<string, unknown>) => succeedsWith200(t, 'ERR-SUCCESS-200', operation, body);
      const { featureId, body } = freshFeature(t);
      await succeeded('features.create', body);
      const planId = t.ns.id('plan');
      await succeeded('plans.create', { plan_id: planId, name: 'Success plan', items: [{ feature_id: featureId }] });
      await succeeded('plans.get', { plan_id: planId });
      const customer = await createCustomer(t);
      await attach(t, customer.id, planId);
      for (const operation of ['licenses.list', 'subscriptions.list', 'purchases.list', 'entities.list'] as const) await succeeded(operation, { customer_id: customer.id });
      await succeeded('balances.check', { customer_id: customer.id, feature_id: featureId });
      await succeeded('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: planId, cancel_action: 'cancel_immediately' }] });
    },
  ),

  scenario(
    {
      id: 'envelope.success-200-setup',
      title: 'successful calls of the setup operations answer exactly 200, not another 2xx',
      rules: ['ERR-SUCCESS-200-SETUP'],
    },
    async (t) => {
      // Built with documented operations only, so a setup operation's 201 is asked before anything blocks on it.
      const feature = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 2 }] });
      const succeeded = (operation: OperationName, body: Record<string, unknown>) => succeedsWith200(t, 'ERR-SUCCESS-200-SETUP', operation, body);
      const [customer_id, entity_id] = [t.ns.id('cus'), t.ns.id('ent')];
      await succeeded('customers.get_or_create', { customer_id });
      await succeeded('customers.get', { customer_id });
      await succeeded('billing.attach', { customer_id, plan_id: plan.id });
      await succeeded('entities.create', { customer_id, entity_id, feature_id: feature.id, name: 'Desk' });
      await succeeded('entities.get', { customer_id, entity_id });
      await succeeded('features.get', { feature_id: feature.id });
      await succeeded('plans.list', {});
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
      const planId = t.ns.id('plan');
      const plan = t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, ...snakeCaseFields }));
      t.check('CONV-SNAKE-CASE-REQUEST', () =>
        expect(
          { add_on: plan.add_on, free_trial: plan.free_trial && { duration_length: plan.free_trial.duration_length, duration_type: plan.free_trial.duration_type }, feature_id: plan.items?.[0]?.feature_id },
          'plans.create applied add_on, free_trial.duration_length/duration_type and items[].feature_id',
        ).toEqual({ add_on: true, free_trial: { duration_length: 7, duration_type: 'day' }, feature_id: feature.id }),
      );
    },
  ),

  scenario(
    {
      id: 'envelope.response-snake-case',
      title: 'plan answers spell every key snake_case, except the fields the document spells in camelCase, and keep to one spelling of those',
      // CONV-CONSISTENT-SPELLING is decided by every answer carrying such a field, here and in any other scenario (checks.ts `shapeVerdicts`).
      rules: ['CONV-RESPONSE-SNAKE-CASE', 'CONV-CONSISTENT-SPELLING'],
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
      t.setup(read);
      t.check('CONV-RESPONSE-SNAKE-CASE', () => {
        for (const exchange of [created, read.exchange]) {
          expect(offWireKeys(exchange.response?.body, documented), `${exchange.label}: keys that are neither snake_case nor a documented spelling`).toEqual([]);
        }
      });
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
      const customer = await createCustomer(t);
      const planId = t.ns.id('plan');
      const plan = t.expectOk(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, group: t.ns.id('grp'), price: { amount: 20, interval: 'month' } }));
      t.check('CONV-MONEY-MAJOR-UNITS', () => expect(plan.price?.amount, 'plans.create answers the price as given, in the major unit').toBe(20));
      await attach(t, customer.id, plan.id);

      const preview = t.setup(
        await t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        ['total', 'subscriptions'],
      );
      t.precondition('the paid plan previews as one processor subscription', () => expect(preview.subscriptions).toHaveLength(1));
      // Right after attaching, the unused share of the period is (almost) all of it: about 20, never 2000 or 0.2.
      const entry = preview.subscriptions[0]!;
      const lines = entry.line_items ?? [];
      t.check('CONV-MONEY-MAJOR-UNITS', () => {
        const lineSum = lines.reduce((sum, line) => sum + line.total, 0);
        for (const [what, amount] of [['total', preview.total], ['subscriptions[0].total', entry.total], ['the sum of subscriptions[0].line_items[].total', lineSum]] as const) {
          expect(Math.abs(amount), `${what} ${amount}: a refund of a 20-a-month plan is in tens of the major unit`).toBeGreaterThanOrEqual(10);
          expect(Math.abs(amount), `${what} ${amount}: a refund of a 20-a-month plan is in tens of the major unit`).toBeLessThanOrEqual(30);
        }
        for (const [i, line] of lines.entries()) {
          for (const [field, amount] of [['subtotal', line.subtotal], ['total', line.total]] as const) {
            expect(Math.abs(amount), `line_items[${i}].${field} ${amount}: no amount of a 20-a-month plan's preview is in the hundreds`).toBeLessThanOrEqual(30);
          }
        }
      });
    },
  ),

  scenario(
    {
      id: 'envelope.timestamps-ms',
      title: 'every timestamp of every answer is an integer count of Unix milliseconds, close to now',
      rules: ['CONV-TIMESTAMPS-MS'],
      // With a control plane, "now" is the fake's clock, which other scenarios may have moved forward.
      uses: ['control-plane'],
    },
    async (t) => {
      const before = await targetNow(t);
      const consumable = await createFeature(t, 'consumable');
      const pool = await createLicensePool(t, 2);
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: consumable.id, included: 10, reset: { interval: 'month' } }] });
      await attach(t, pool.customerId, plan.id);
      const entity = await createEntity(t, pool.customerId, pool.seatFeature.id);
      t.setup(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: licenseEntities(t, pool, 1) }));
      const reward = t.setup(
        await t.client.call('rewards.create', {
          feature_grant: { id: t.ns.id('reward'), name: 'Stamp reward', grants: [{ feature_id: consumable.id, included: 1, expiry: null }], promo_codes: [{ code: t.ns.code('STAMP'), max_uses: 1 }] },
        }),
        ['feature_grant'],
      );
      const program = t.setup(
        await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), reward_id: reward.feature_grant.id, redeem_on: 'customer_creation', received_by: 'referrer' }),
        ['id'],
      );
      const customer_id = pool.customerId;
      for (const [operation, body] of [
        ['plans.get', { plan_id: plan.id }],
        ['customers.get', { customer_id }],
        ['entities.get', { customer_id, entity_id: entity.id }],
        ['entities.list', { customer_id }],
        ['subscriptions.list', { customer_id }],
        ['purchases.list', { customer_id }],
        ['licenses.list', { customer_id }],
        ['balances.check', { customer_id, feature_id: consumable.id }],
        ['referral_programs.get', { referral_program_id: program.id }],
      ] as const) {
        t.setup(await t.client.call(operation, body as never));
      }
      const after = await targetNow(t);
      const stamps = t.evidence.filter((e) => e.response?.status === 200 && e.label !== 'raw').flatMap((e) => timestampsOf(e.response?.body).map(([path, stamp]) => [`${e.label} ${path}`, stamp] as const));
      t.precondition('the answers carry timestamps', () => expect(stamps.length).toBeGreaterThan(10));
      // Future stamps (next resets, period ends, trial ends) are at most a year or so ahead; past ones no older than the run.
      const YEAR_MS = 400 * DAY_MS;
      t.check('CONV-TIMESTAMPS-MS', () => {
        for (const [what, stamp] of stamps) {
          expect(Number.isInteger(stamp), `${what} ${String(stamp)} is an integer`).toBe(true);
          expect(stamp as number, `${what} is Unix milliseconds (> 10^12)`).toBeGreaterThan(1e12);
          expect(stamp as number, `${what} is milliseconds within a day before the run (${before}) and a year after it (${after})`).toBeGreaterThanOrEqual(before - DAY_MS);
          expect(stamp as number, `${what} is milliseconds within a day before the run (${before}) and a year after it (${after})`).toBeLessThanOrEqual(after + YEAR_MS);
        }
      });
    },
  ),

  scenario(
    {
      id: 'envelope.bearer-required',
      title: 'every documented operation refuses a request without an Authorization: Bearer key (none, Basic, the key without "Bearer "), and accepts it with one',
      rules: ['AUTH-BEARER-REQUIRED'],
    },
    async (t) => {
      await refusedOnEveryDocumentedOperation(t, 'AUTH-BEARER-REQUIRED', [null, 'Basic dXNlcjpwYXNzd29yZA==', 'Bearer', t.apiKey]);
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
      const body = { customer_id: t.ns.id('cus') };
      const control = await rawCall(t, 'customers.get', body);
      t.precondition('the same request with the key is not refused for its key', () => expect(control.status).not.toBe(401));
      for (const authorization of [null, 'Basic dXNlcjpwYXNzd29yZA==']) {
        const result = await rawCall(t, 'customers.get', body, { authorization });
        // Refusing it at all is AUTH-BEARER-REQUIRED's; how it is refused is this rule's.
        t.precondition('a request without a bearer key is refused as unauthenticated', () => expect([401, 403]).toContain(result.status));
        const code = codeOf(t, result.body);
        t.check('AUTH-NO-KEY-CODE', () => expect({ status: result.status, code }, `Authorization ${authorization ?? '(none)'}`).toEqual({ status: 401, code: 'no_secret_key' }));
      }
    },
  ),

  scenario(
    {
      id: 'envelope.secret-key',
      title: "every documented operation refuses a bearer token that is not a secret key of the service, and accepts the caller's key",
      rules: ['AUTH-SECRET-KEY'],
    },
    async (t) => {
      const unknownKey = `am_sk_test_${seededFaker(t.seed, 'envelope.secret-key').string.alphanumeric(42)}`;
      await refusedOnEveryDocumentedOperation(t, 'AUTH-SECRET-KEY', [`Bearer ${unknownKey}`, 'Bearer not-a-secret-key']);
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
      const body = { customer_id: t.ns.id('cus') };
      const control = await rawCall(t, 'customers.get', body);
      t.precondition('the same request with the key is not refused for its key', () => expect(control.status).not.toBe(401));
      const unknownKey = `am_sk_test_${seededFaker(t.seed, 'envelope.unknown-key-code').string.alphanumeric(42)}`;
      const result = await rawCall(t, 'customers.get', body, { authorization: `Bearer ${unknownKey}` });
      // Refusing it at all is AUTH-SECRET-KEY's; how it is refused is this rule's.
      t.precondition('a key the service does not know is refused as unauthenticated', () => expect([401, 403]).toContain(result.status));
      const code = codeOf(t, result.body);
      t.check('AUTH-UNKNOWN-KEY-CODE', () => expect({ status: result.status, code }).toEqual({ status: 401, code: 'invalid_secret_key' }));
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
      const unknownIds = { 'features.get': { feature_id: t.ns.id('feat') }, 'plans.get': { plan_id: t.ns.id('plan') }, 'customers.get': { customer_id: t.ns.id('cus') } };
      for (const [operation, body] of reads) {
        t.setup(await t.client.call(operation, body as never));
        // "Not found" is how the read answers an ID that names nothing (CUS-GET-UNKNOWN, ERR-…-NOT-FOUND prove it).
        const unknown = await rawCall(t, operation, unknownIds[operation], asOther);
        t.precondition(`${operation} of an unknown ID with another tenant's key reads as not found (404)`, () => expect(unknown.status).toBe(404));
        const result = await rawCall(t, operation, body, asOther);
        t.check('AUTH-TENANT-ISOLATION', () => expect(result.status, `${operation} of this tenant's object with another tenant's key reads as not found: ${result.text.slice(0, 200)}`).toBe(404));
      }
      for (const [operation, id] of [['features.list', feature.id], ['plans.list', plan.id]] as const) {
        const result = await rawCall(t, operation, {}, asOther);
        t.precondition(`${operation} with another tenant's key is answered`, () => expect(result.status).toBe(200));
        const ids = ((result.body as { list?: { id: string }[] }).list ?? []).map((item) => item.id);
        t.check('AUTH-TENANT-ISOLATION', () => expect(ids, `${operation} with another tenant's key does not list ${id}`).not.toContain(id));
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
      // The same create with and without the header: refused with it but served without, the header is
      // what is refused (this rule); refused both ways, the target serves nothing and the rule is blocked.
      const create = (headers: HeaderOverrides) => {
        const planId = t.ns.id('plan');
        return t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}` }, { headers });
      };
      const withHeader = await create({});
      t.check('AUTH-API-VERSION-HEADER', () => expect(withHeader.exchange.request.headers['x-api-version'], 'the request carried x-api-version').toBeTruthy());
      if (!withHeader.ok) {
        const withoutHeader = await create({ 'x-api-version': null });
        t.precondition('plans.create is served at all, with or without the header', () => expect(withoutHeader.ok).toBe(true));
      }
      t.expectOk(withHeader, 'AUTH-API-VERSION-HEADER');
      for (const operation of ['plans.get', 'subscriptions.list'] as const) {
        const body = operation === 'plans.get' ? { plan_id: (withHeader.body as { id: string }).id } : { customer_id: (await createCustomer(t)).id };
        t.expectOk(await t.client.call(operation, body as never), 'AUTH-API-VERSION-HEADER');
      }
    },
  ),

  scenario(
    {
      id: 'envelope.version-default',
      title: 'a request without x-api-version is either refused with a 4xx or served exactly as with 2.4.0, never differently',
      rules: ['VER-HEADER-DEFAULT'],
      // Two listings compared whole: alone where it can be, so a target listing other customers' records shows no other scenario's writes between them.
      uses: ['exclusive-tenant'],
    },
    async (t) => {
      const { plan, customer } = await createCustomerWithEntity(t);
      const reads = [
        ['plans.get', { plan_id: plan.id }],
        ['subscriptions.list', { customer_id: customer.id }],
        ['entities.list', { customer_id: customer.id }],
      ] as const;
      for (const [operation, body] of reads) {
        const without = await t.client.call(operation, body as never, { headers: { 'x-api-version': null } });
        const with240 = t.setup(await t.client.call(operation, body as never, { headers: { 'x-api-version': '2.4.0' } }));
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
      t.expectOk(await t.client.call('subscriptions.list', { customer_id: customer.id }, v240));
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

  scenario(
    {
      id: 'envelope.customer-not-found',
      // customers.get of an unknown customer is CUS-GET-UNKNOWN's (customers.get-unknown).
      title: 'an unknown customer_id is answered 404 customer_not_found by the operations that take one, and is not created',
      rules: ['ERR-CUSTOMER-NOT-FOUND'],
    },
    async (t) => {
      const feature = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 1 }] });
      const customerId = t.ns.id('cus');
      const calls = [
        () => t.client.call('licenses.list', { customer_id: customerId }),
        () => t.client.call('billing.preview_multi_update', { customer_id: customerId, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        () => t.client.call('balances.check', { customer_id: customerId, feature_id: feature.id }),
        () => t.client.call('billing.attach', { customer_id: customerId, plan_id: plan.id }),
      ];
      for (const call of calls) t.expectError(await call(), { status: 404, code: 'customer_not_found' });
      // The positive control: the customer, once created, is found by the same calls.
      await createCustomer(t, { customer_id: customerId });
      t.setup(await t.client.call('licenses.list', { customer_id: customerId }));
    },
  ),

  ...generatedBodyScenarios,
];
