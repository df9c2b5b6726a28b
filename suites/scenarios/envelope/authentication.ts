/**
 * Scenarios of Authentication: the bearer key on every documented operation, the codes of a missing
 * or unknown key, tenants that never see each other's data, and the x-api-version header every request
 * carries.
 */
import { expect } from 'vitest';
import { seededFaker } from '../../../fixtures/factories.ts';
import { MIN_SECRET_RUN } from '../../framework/evidence.ts';
import { type HeaderOverrides, isRouteNotServed } from '../../framework/index.ts';
import { MONTHLY, attach, createCustomer, createEntity, createFeature, createPlan, createReferralProgram, createReward, scenario, type T } from '../../support.ts';
import type { OperationName } from '../../../spec/operations.ts';
import { codeOf, type DocumentedCall, documentedCalls, expectRefusal, rawCall, referralProgramCall } from './support.ts';

type AuthRule = 'AUTH-BEARER-REQUIRED' | 'AUTH-SECRET-KEY';

/** A request's credentials: the Authorization header's value (null leaves it out) and any other headers sent with it. */
interface Credentials {
  readonly authorization: string | null;
  readonly others?: HeaderOverrides;
  /** How the report shows it: never the key itself. */
  readonly shown: string;
}

/**
 * Sends each call's valid request with each of `credentials`: each must be refused with a 4xx,
 * checked as `rule`. Then the same request with the run's key must be accepted (the positive
 * control), which also shows that the refused creates created nothing (they name the same fresh
 * IDs). An operation the target does not serve refuses every request, with the key too: it says
 * nothing about the key and is left out. So is one whose request the target refuses with the key as
 * well (its refusals say nothing about the key): the rule is then partly verified, the next
 * operation asked all the same. `perCall` credentials beyond the common ones are spread over the
 * calls by turns, a few each, so that every one meets reads and writes without multiplying the calls.
 */
async function refusedWithout(t: T<AuthRule>, rule: AuthRule, common: readonly Credentials[], calls: readonly DocumentedCall[], perCall: readonly Credentials[] = []): Promise<void> {
  for (const [index, { operation, body }] of calls.entries()) {
    const turn = perCall.length === 0 ? [] : [perCall[index % perCall.length]!, perCall[(index + 1) % perCall.length]!];
    for (const { authorization, others, shown } of [...common, ...new Set(turn)]) {
      const result = await rawCall(t, operation, body, { ...others, authorization });
      t.check(rule, () => expectRefusal(result, `${operation} with ${shown}`));
    }
    const control = await t.client.call(operation, body as never);
    if (!control.ok && isRouteNotServed(control.status, control.body)) continue;
    if (!control.ok && control.status < 500) {
      t.notVerified(rule, `${operation}: the same request with the key was refused too (${control.status} ${JSON.stringify(control.body)?.slice(0, 160)}), so its refusals without one say nothing`);
      continue;
    }
    t.setup(control);
  }
}

const WITHOUT_BEARER_KEY = (t: T): Credentials[] => [
  { authorization: null, shown: 'no Authorization header' },
  { authorization: 'Basic dXNlcjpwYXNzd29yZA==', shown: 'Authorization Basic …' },
  { authorization: 'Bearer', shown: 'Authorization "Bearer" without a token' },
  { authorization: t.apiKey, shown: 'Authorization <the key> without "Bearer "' },
];

/**
 * The caller's key where the document does not take it: every endpoint requires it in
 * `Authorization: Bearer`, so a request carrying it only elsewhere (headers some services read, the
 * scheme of another kind of token) has no bearer key.
 */
const KEY_ELSEWHERE = (t: T): Credentials[] => [
  { authorization: null, others: { 'x-api-key': t.apiKey }, shown: 'the key in X-API-Key and no Authorization header' },
  { authorization: null, others: { 'api-key': t.apiKey }, shown: 'the key in Api-Key and no Authorization header' },
  { authorization: `Token ${t.apiKey}`, shown: 'Authorization Token <the key>' },
  { authorization: 'Bearer', others: { 'x-api-key': t.apiKey }, shown: 'Authorization "Bearer" without a token and the key in X-API-Key' },
];

const NOT_A_SECRET_KEY = (t: T): Credentials[] => [
  { authorization: `Bearer am_sk_test_${seededFaker(t.seed, 'envelope.secret-key').string.alphanumeric(42)}`, shown: 'Bearer <a well-formed key the service does not know>' },
  { authorization: 'Bearer not-a-secret-key', shown: 'Bearer not-a-secret-key' },
];

/**
 * Tokens one step from the caller's key, none of them that key: the token is the caller's secret key,
 * so each is refused. The key with a character changed, with the case of a letter changed, with a
 * character more, its prefix alone, and its publishable twin where the key has the reference's
 * `am_sk_` form (the reference's publishable keys differ in that prefix only). Changes fall in the
 * key's middle, so that what is left of it on either side is a run the reports redact (evidence.ts):
 * no report shows more of the key than its public prefix.
 */
function nearKeys(t: T): Credentials[] {
  const key = t.apiKey;
  const near: [string, string][] = [
    [`${key}0`, 'the key with a character more'],
    [key.slice(0, key.lastIndexOf('_') + 1), "the key's prefix alone"],
  ];
  const redactedAround = (at: number) => at >= MIN_SECRET_RUN && key.length - at - 1 >= MIN_SECRET_RUN;
  const middle = Math.floor(key.length / 2);
  if (redactedAround(middle)) near.push([`${key.slice(0, middle)}${key[middle] === 'x' ? 'y' : 'x'}${key.slice(middle + 1)}`, 'the key with a character changed']);
  const letter = [...key].findIndex((c, at) => at >= middle && redactedAround(at) && c.toLowerCase() !== c.toUpperCase());
  if (letter >= 0) {
    const c = key[letter]!;
    near.push([`${key.slice(0, letter)}${c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()}${key.slice(letter + 1)}`, 'the key with a letter in another case']);
  }
  if (key.startsWith('am_sk_')) near.push([`am_pk_${key.slice('am_sk_'.length)}`, 'the publishable twin of the key (am_pk_ for am_sk_)']);
  return near.filter(([token]) => token !== key && token !== '').map(([token, shown]) => ({ authorization: `Bearer ${token}`, shown: `Bearer <${shown}>` }));
}

export const authenticationScenarios = [
  scenario(
    {
      id: 'envelope.bearer-required',
      title:
        'every documented operation but referral_programs.update refuses a request without an Authorization: Bearer key (none, Basic, the key without "Bearer ", the key only in another header or under another scheme), and accepts it with one',
      rules: ['AUTH-BEARER-REQUIRED'],
    },
    async (t) => {
      await refusedWithout(t, 'AUTH-BEARER-REQUIRED', WITHOUT_BEARER_KEY(t), (await documentedCalls(t)).calls, KEY_ELSEWHERE(t));
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
      title:
        "every documented operation but referral_programs.update refuses a bearer token that is not the caller's secret key (unknown, malformed, one step from the key: a character changed or more, a letter in another case, its prefix, its publishable twin), and accepts the caller's key",
      rules: ['AUTH-SECRET-KEY'],
    },
    async (t) => {
      await refusedWithout(t, 'AUTH-SECRET-KEY', NOT_A_SECRET_KEY(t), (await documentedCalls(t)).calls, nearKeys(t));
    },
  ),
  scenario(
    {
      id: 'envelope.auth-referral-program',
      // Apart from the other eleven operations: a target refusing to build a referral program blocks only this.
      title: "referral_programs.update refuses a request without a bearer key or with a token that is not a secret key of the service, and accepts the caller's key",
      rules: ['AUTH-BEARER-REQUIRED', 'AUTH-SECRET-KEY'],
    },
    async (t) => {
      const call = await referralProgramCall(t);
      await refusedWithout(t, 'AUTH-BEARER-REQUIRED', WITHOUT_BEARER_KEY(t), [call], KEY_ELSEWHERE(t));
      await refusedWithout(t, 'AUTH-SECRET-KEY', NOT_A_SECRET_KEY(t), [call], nearKeys(t));
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
      title:
        "another tenant's key sees none of this tenant's features, plans, customers and entities, by every read that names them (a plan's version too, a customer's balance), also right after this tenant read them",
      rules: ['AUTH-TENANT-ISOLATION'],
      needs: ['other-tenant'],
    },
    async (t) => {
      const [seat, feature] = [await createFeature(t, 'allocated'), await createFeature(t, 'boolean')];
      const plan = await createPlan(t, { items: [{ feature_id: feature.id }] });
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);
      const asOther = { authorization: `Bearer ${t.otherTenantKey}` };
      // Each read of this tenant's object, and the same read of an ID nothing names: what "not found" looks like to the other tenant.
      const unknown = { feature_id: t.ns.id('feat'), plan_id: t.ns.id('plan'), customer_id: t.ns.id('cus'), entity_id: t.ns.id('ent') };
      const reads = [
        ['features.get', { feature_id: feature.id }, { feature_id: unknown.feature_id }],
        ['plans.get', { plan_id: plan.id }, { plan_id: unknown.plan_id }],
        // A read by version is answered from what a service may keep per plan and version: kept per tenant too.
        ['plans.get', { plan_id: plan.id, version: 1 }, { plan_id: unknown.plan_id, version: 1 }],
        ['customers.get', { customer_id: customer.id }, { customer_id: unknown.customer_id }],
        ['entities.get', { customer_id: customer.id, entity_id: entity.id }, { customer_id: unknown.customer_id, entity_id: unknown.entity_id }],
        ['balances.check', { customer_id: customer.id, feature_id: feature.id, required_balance: 0 }, { customer_id: unknown.customer_id, feature_id: unknown.feature_id, required_balance: 0 }],
      ] as const;
      for (const [operation, body, unknownBody] of reads) {
        // Read by this tenant first: a service that keeps answers must keep them per tenant.
        t.setup(await t.client.call(operation, body as never));
        // "Not found" is how the read answers an ID that names nothing (CUS-GET-UNKNOWN, ERR-…-NOT-FOUND prove it).
        const notFound = await rawCall(t, operation, unknownBody, asOther);
        t.precondition(`${operation} of an unknown ID with another tenant's key reads as not found (404)`, () => expect(notFound.status).toBe(404));
        const result = await rawCall(t, operation, body, asOther);
        t.check('AUTH-TENANT-ISOLATION', () => expect(result.status, `${operation} ${JSON.stringify(body)} of this tenant's object with another tenant's key reads as not found: ${result.text.slice(0, 200)}`).toBe(404));
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
      // A read of each kind besides the create; entities.list is the documented listing every target serves.
      for (const operation of ['plans.get', 'entities.list'] as const) {
        const body = operation === 'plans.get' ? { plan_id: (withHeader.body as { id: string }).id } : { customer_id: (await createCustomer(t)).id };
        t.expectOk(await t.client.call(operation, body as never), 'AUTH-API-VERSION-HEADER');
      }
    },
  ),
  scenario(
    {
      id: 'envelope.same-ids-in-both-tenants',
      title:
        "another tenant creates features, a plan, a customer, an entity, a reward and a referral program under this tenant's IDs, uses a balance and deletes them all: each create is accepted, and this tenant's objects, balance and program read as before throughout",
      rules: ['AUTH-TENANT-ISOLATION'],
      // It writes with the other tenant's key: only on a fake (the control plane), since a vendor's
      // OTHER_TENANT_API_KEY may be the live key of the same organisation, that is, production.
      needs: ['other-tenant', 'control-plane'],
    },
    async (t) => {
      const [seat, messages] = [await createFeature(t, 'allocated'), await createFeature(t, 'consumable')];
      const plan = await createPlan(t, { items: [{ feature_id: messages.id, included: 10, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const entity = await createEntity(t, customer.id, seat.id, 'This tenant');
      t.setup(await t.client.call('balances.track', { customer_id: customer.id, feature_id: messages.id, value: 3 }));
      const reward = await createReward(t, messages.id);
      const program = await createReferralProgram(t, reward);
      const asOther = { authorization: `Bearer ${t.otherTenantKey}` };
      const metered = (id: string, consumable: boolean) => ({ feature_id: id, name: `Other ${id}`, type: 'metered', consumable, display: { singular: 'unit', plural: 'units' } });
      // The other tenant's objects under the same IDs, with values of its own; in the order a cleanup can undo.
      const creates: [OperationName, Record<string, unknown>, string][] = [
        ['features.create', metered(seat.id, false), 'feature_id'],
        ['features.create', metered(messages.id, true), 'feature_id'],
        ['plans.create', { plan_id: plan.id, name: 'Other tenant plan', items: [{ feature_id: messages.id, included: 5, reset: MONTHLY }] }, 'plan_id'],
        ['customers.get_or_create', { customer_id: customer.id, name: 'Other tenant' }, 'customer_id'],
        ['billing.attach', { customer_id: customer.id, plan_id: plan.id }, ''],
        ['entities.create', { customer_id: customer.id, entity_id: entity.id, feature_id: seat.id, name: 'Other tenant' }, ''],
        ['rewards.create', { feature_grant: { id: reward, name: 'Other tenant reward', grants: [{ feature_id: messages.id, included: 2, expiry: null }], promo_codes: [{ code: t.ns.code('OTHER'), max_uses: null }] } }, ''],
        ['referral_programs.create', { id: program, reward_id: reward, redeem_on: 'customer_creation', received_by: 'all' }, ''],
        ['balances.track', { customer_id: customer.id, feature_id: messages.id, value: 1 }, ''],
      ];
      const thisTenantReads = async (when: string) => {
        const read = async <O extends OperationName>(operation: O, body: Record<string, unknown>) => t.expectOk(await t.client.call(operation, body as never), 'AUTH-TENANT-ISOLATION') as Record<string, unknown>;
        const [ownPlan, ownEntity, ownProgram, ownCheck, ownFeature] = [
          await read('plans.get', { plan_id: plan.id }),
          await read('entities.get', { customer_id: customer.id, entity_id: entity.id }),
          await read('referral_programs.get', { referral_program_id: program }),
          await read('balances.check', { customer_id: customer.id, feature_id: messages.id, required_balance: 0 }),
          await read('features.get', { feature_id: seat.id }),
        ];
        t.check('AUTH-TENANT-ISOLATION', () =>
          expect(
            {
              plan: ((ownPlan.items ?? []) as { included?: number }[]).map((item) => item.included),
              entity: ownEntity.name,
              program: ownProgram.received_by,
              remaining: (ownCheck.balance as { remaining?: number } | null)?.remaining,
              feature: ownFeature.name,
            },
            `${when}, this tenant's objects are its own`,
          ).toEqual({ plan: [10], entity: 'This tenant', program: 'referrer', remaining: 7, feature: seat.name }),
        );
      };
      try {
        for (const [operation, body, idField] of creates) {
          const made = await rawCall(t, operation, body, asOther);
          if (made.status === 200) continue;
          // Refused: a create of the same kind under a fresh ID tells whether the ID was the reason or the other tenant refuses such writes at all.
          const fresh = idField === '' ? undefined : await rawCall(t, operation, { ...body, [idField]: t.ns.id('other') }, asOther);
          if (fresh?.status !== 200) {
            t.notVerified('AUTH-TENANT-ISOLATION', `${operation} with another tenant's key was refused (${made.status} ${made.text.slice(0, 160)}), so what the same IDs do there is not known`);
            return;
          }
          t.check('AUTH-TENANT-ISOLATION', () => expect(made.status, `${operation} under this tenant's ID is accepted in another tenant, as under a fresh ID: ${made.text.slice(0, 200)}`).toBe(200));
        }
        const otherCheck = await rawCall(t, 'balances.check', { customer_id: customer.id, feature_id: messages.id, required_balance: 0 }, asOther);
        t.check('AUTH-TENANT-ISOLATION', () =>
          expect((otherCheck.body as { balance?: { remaining?: number } | null }).balance?.remaining, "the other tenant's balance is of its own plan and use only").toBe(4),
        );
        await thisTenantReads("after the other tenant's creates");
      } finally {
        // The other tenant's objects go, in an order every delete accepts; their answers are judged through this tenant's reads below.
        for (const [operation, body] of [
          ['referral_programs.delete', { referral_program_id: program }],
          ['rewards.delete', { reward_id: reward }],
          ['customers.delete', { customer_id: customer.id }],
          ['plans.delete', { plan_id: plan.id, all_versions: true }],
          ['features.delete', { feature_id: messages.id }],
          ['features.delete', { feature_id: seat.id }],
        ] as const) {
          await rawCall(t, operation, body, asOther);
        }
      }
      await thisTenantReads("after the other tenant's deletes");
      t.setup(await t.client.call('customers.get', { customer_id: customer.id }));
    },
  ),
];
