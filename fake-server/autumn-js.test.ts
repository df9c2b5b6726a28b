/**
 * The published client, autumn-js 1.3.13, drives the fake through every call it offers among the
 * operations the fake implements. The client validates every answer it receives, so each call
 * proves that the fake's answer satisfies it; the fake also checks each answer against the spec
 * (validateResponses). Where the client disagrees with interface.md, interface.md wins: the
 * disagreement is listed in KNOWN_CLIENT_DIFFERENCES, and the client must refuse the fake's answer
 * there and nowhere else.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as sdk from 'autumn-js';
import { Autumn, ResponseValidationError } from 'autumn-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../spec/operations.ts';
import { KNOWN_CLIENT_DIFFERENCES, type KnownClientDifference } from '../spec/reference/differences.ts';
import { ruleById } from '../spec/rules/catalogue.ts';
import { createFakeServer, type FakeServer } from './index.ts';

let fake: FakeServer;
let autumn: Autumn;

beforeAll(async () => {
  fake = await createFakeServer({ validateResponses: true });
  autumn = new Autumn({ secretKey: fake.apiKey, serverURL: fake.url });
});
afterAll(() => fake.close());

/** The known client difference with this id. */
function difference(id: string): KnownClientDifference {
  const found = KNOWN_CLIENT_DIFFERENCES.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no known client difference ${id}`);
  return found;
}

/**
 * Runs a client call that a known response difference makes the client refuse: returns the paths
 * (indices as `*`) its validation refused, and the raw answer, which must match the spec.
 */
async function refusal(call: () => Promise<unknown>): Promise<{ paths: string[]; raw: unknown }> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof ResponseValidationError)) throw error;
    const issues = (error.cause as { issues: { path: (string | number)[] }[] }).issues;
    const paths = issues.map((issue) => issue.path.map((segment) => (typeof segment === 'number' ? '*' : segment)).join('.'));
    return { paths: [...new Set(paths)].sort(), raw: error.rawValue };
  }
  throw new Error('the client accepted the answer; the known difference no longer holds, so remove it');
}

async function expectRefusedOnlyAt(id: string, operation: keyof typeof operations, call: () => Promise<unknown>): Promise<void> {
  const { paths, raw } = await refusal(call);
  expect(paths, `${operation}: the client refuses the fake's answer exactly where ${id} says`).toEqual([...(difference(id).paths ?? [])].sort());
  expect(operations[operation].response.safeParse(raw).success, `${operation}: the refused answer matches the spec`).toBe(true);
}

describe('autumn-js drives the fake, and accepts every answer', () => {
  it('features: create (boolean, consumable, allocated), get, list', async () => {
    for (const feature of [
      { featureId: 'flag', name: 'Flag', type: 'boolean' },
      { featureId: 'messages', name: 'Messages', type: 'metered', consumable: true, display: { singular: 'message', plural: 'messages' } },
      { featureId: 'seats', name: 'Seats', type: 'metered', consumable: false },
    ] as const) {
      expect(await autumn.features.create(feature)).toMatchObject({ id: feature.featureId, type: feature.type });
    }
    expect(await autumn.features.get({ featureId: 'messages' })).toMatchObject({ id: 'messages', consumable: true, display: { singular: 'message', plural: 'messages' } });
    expect((await autumn.features.list()).list.map((feature) => feature.id)).toEqual(expect.arrayContaining(['flag', 'messages', 'seats']));
  });

  it('plans: create (license plan, parent offering it, paid add-on with a trial), get, list, update', async () => {
    await autumn.plans.create({ planId: 'seat', name: 'Seat', items: [{ featureId: 'flag' }] });
    const team = await autumn.plans.create({
      planId: 'team',
      name: 'Team',
      group: 'main',
      items: [{ featureId: 'messages', included: 100, reset: { interval: 'month' } }],
      licenses: [{ licensePlanId: 'seat', included: 3 }],
    });
    expect(team).toMatchObject({ id: 'team', version: 1, items: [{ featureId: 'messages', included: 100 }] });
    const pro = await autumn.plans.create({
      planId: 'pro',
      name: 'Pro',
      addOn: true,
      price: { amount: 20, interval: 'month' },
      freeTrial: { durationLength: 7, durationType: 'day', cardRequired: false },
    });
    expect(pro).toMatchObject({ addOn: true, price: { amount: 20, interval: 'month' }, freeTrial: { durationLength: 7 } });
    expect(await autumn.plans.get({ planId: 'team' })).toMatchObject({ id: 'team', group: 'main' });
    expect((await autumn.plans.list()).list.map((plan) => plan.id)).toEqual(expect.arrayContaining(['seat', 'team', 'pro']));
    expect(await autumn.plans.update({ planId: 'pro', freeTrial: null })).toMatchObject({ id: 'pro', version: 2 });
  });

  it('customers: getOrCreate, get; billing: attach', async () => {
    expect(await autumn.customers.getOrCreate({ customerId: 'acme', name: 'Acme', email: 'billing@acme.example' })).toMatchObject({ id: 'acme', name: 'Acme' });
    for (const planId of ['team', 'pro']) expect(await autumn.billing.attach({ customerId: 'acme', planId })).toMatchObject({ customerId: 'acme', paymentUrl: null });
    const customer = await autumn.customers.get({ customerId: 'acme' });
    expect(customer.subscriptions.map((subscription) => subscription.planId).sort()).toEqual(['pro', 'team']);
  });

  it('billing: previewMultiUpdate of an immediate cancellation', async () => {
    const preview = await autumn.billing.previewMultiUpdate({ customerId: 'acme', updates: [{ planId: 'pro', cancelAction: 'cancel_immediately' }] });
    expect(preview).toMatchObject({ customerId: 'acme', total: -20, subscriptions: [{ planIds: ['pro'], outgoing: [{ planId: 'pro' }] }] });
  });

  it('entities: create and get (reference shape) are accepted; list answers as interface.md says, which the client refuses only where the known difference says; delete', async () => {
    const created = await autumn.entities.create({ customerId: 'acme', entityId: 'desk1', featureId: 'seats', name: 'Desk 1' });
    expect(created).toMatchObject({ id: 'desk1', customerId: 'acme', name: 'Desk 1' });
    expect((await autumn.entities.get({ customerId: 'acme', entityId: 'desk1' })).subscriptions.length).toBeGreaterThan(0);
    await expectRefusedOnlyAt('CLIENT-ENTITY-SUBSCRIPTION-ID', 'entities.list', () => autumn.entities.list({ customerId: 'acme' }));
    expect(await autumn.entities.delete({ customerId: 'acme', entityId: 'desk1' })).toEqual({ success: true });
  });

  it('licenses: attach (a new entity), release', async () => {
    expect(await autumn.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [{ entityId: 'seat1', name: 'Seat 1', featureId: 'seats' }] })).toEqual({ success: true });
    expect(await autumn.licenses.release({ customerId: 'acme', licensePlanId: 'seat', entityIds: ['seat1'] })).toEqual({ success: true });
  });

  it('balances: check, check with send_event, track, check with a lock, finalize', async () => {
    expect(await autumn.check({ customerId: 'acme', featureId: 'messages' })).toMatchObject({ allowed: true, balance: { remaining: 100 } });
    expect(await autumn.check({ customerId: 'acme', featureId: 'messages', requiredBalance: 2, sendEvent: true })).toMatchObject({ balance: { usage: 2 } });
    expect(await autumn.track({ customerId: 'acme', featureId: 'messages', value: 3 })).toMatchObject({ value: 3, balance: { usage: 5 } });
    expect(await autumn.check({ customerId: 'acme', featureId: 'messages', requiredBalance: 4, lock: { lockId: 'hold1', enabled: true } })).toMatchObject({ allowed: true });
    expect(await autumn.balances.finalize({ lockId: 'hold1', action: 'confirm' })).toMatchObject({ success: true });
  });

  it('rewards: create; referral programs: create, get, update', async () => {
    const reward = await autumn.rewards.create({
      featureGrant: { id: 'grant5', name: '5 messages', grants: [{ featureId: 'messages', included: 5, expiry: null }], promoCodes: [{ code: 'FIVE', maxUses: 10 }] },
    });
    expect(reward).toMatchObject({ featureGrant: { id: 'grant5' } });
    expect(await autumn.referrals.createProgram({ id: 'friends', rewardId: 'grant5', redeemOn: 'customer_creation', receivedBy: 'referrer' })).toMatchObject({ id: 'friends' });
    expect(await autumn.referrals.getProgram({ referralProgramId: 'friends' })).toMatchObject({ rewardId: 'grant5', maxRedemptions: null });
    expect(await autumn.referrals.updateProgram({ referralProgramId: 'friends', redeemOn: 'checkout', planIds: ['pro'], maxRedemptions: 3 })).toMatchObject({
      redeemOn: 'checkout',
      planIds: ['pro'],
      maxRedemptions: 3,
    });
  });
});

const SDK_BUNDLE = readFileSync(createRequire(import.meta.url).resolve('autumn-js'), 'utf8');

/** The wire form of a request part the client builds from its camelCase input. */
function clientWire(schema: string, input: unknown): Record<string, unknown> {
  return (sdk as unknown as Record<string, { parse: (value: unknown) => Record<string, unknown> }>)[`${schema}$outboundSchema`]!.parse(input);
}

/** How each request difference is shown: what the client sends, and that interface.md's form differs. */
const REQUEST_CHECKS: Readonly<Record<string, () => void>> = {
  'CLIENT-ENTITIES-LIST-STATUS-FILTER': () => {
    const wire = clientWire('ListEntitiesParams', { customerId: 'acme', subscriptionStatus: 'scheduled' });
    expect(wire).toMatchObject({ subscription_status: 'scheduled' });
    expect(wire).not.toHaveProperty('statuses');
  },
  'CLIENT-LICENSE-ATTACH-NAME-OPTIONAL': () => {
    const entity = clientWire('AttachLicenseEntity', { entityId: 'seat2' });
    expect(operations['licenses.attach'].request.safeParse({ customer_id: 'acme', plan_id: 'seat', entities: [entity] }).success).toBe(false);
  },
  'CLIENT-LICENSE-RELEASE-PLAN-OPTIONAL': () => {
    const body = clientWire('ReleaseLicenseParams', { customerId: 'acme', entityIds: ['seat1'] });
    expect(operations['licenses.release'].request.safeParse(body).success).toBe(false);
  },
  'CLIENT-PREVIEW-PLAN-ID-OPTIONAL': () => {
    const update = clientWire('PreviewMultiUpdateUpdate', { cancelAction: 'cancel_immediately' });
    expect(operations['billing.preview_multi_update'].request.safeParse({ customer_id: 'acme', updates: [update] }).success).toBe(false);
  },
};

/** The response differences the drive above exercises. */
const EXERCISED_RESPONSE_DIFFERENCES = new Set(['CLIENT-ENTITY-SUBSCRIPTION-ID', 'CLIENT-ENTITY-DETAIL-SUBSCRIPTION-ID']);

describe('known client differences (spec/reference/differences.ts)', () => {
  it('each concerns a rule of the catalogue and an operation of the table', () => {
    for (const entry of KNOWN_CLIENT_DIFFERENCES) {
      expect(ruleById.has(entry.rule), `${entry.id}: rule ${entry.rule}`).toBe(true);
      expect(Object.hasOwn(operations, entry.operation), `${entry.id}: operation ${entry.operation}`).toBe(true);
      expect(entry.kind === 'response', `${entry.id}: paths exactly for response differences`).toBe(entry.paths !== undefined);
    }
  });

  it.each(KNOWN_CLIENT_DIFFERENCES.map((entry) => [entry.id, entry] as const))('%s still holds', (_id, entry) => {
    if (entry.kind === 'missing') {
      expect(SDK_BUNDLE, `the client calls no /v1/${entry.operation}`).not.toContain(`"/v1/${entry.operation}"`);
      expect(SDK_BUNDLE, 'the client bundle names the paths it calls this way').toContain('"/v1/licenses.attach"');
    } else if (entry.kind === 'request') {
      expect(REQUEST_CHECKS[entry.id], `${entry.id} has a check`).toBeDefined();
      REQUEST_CHECKS[entry.id]!();
    } else {
      expect(EXERCISED_RESPONSE_DIFFERENCES.has(entry.id), `${entry.id} is exercised by the drive`).toBe(true);
      expect((sdk as Record<string, unknown>)[`${entry.sdkSchema}$inboundSchema`], `the client exports ${entry.sdkSchema}`).toBeDefined();
    }
  });
});
