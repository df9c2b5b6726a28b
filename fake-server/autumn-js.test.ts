/**
 * The published client, autumn-js 1.3.13, drives the fake in its client-compatibility mode
 * (`clientCompat: 'autumn-js'`) through every call it offers among the operations the fake
 * implements. The client validates every answer it receives, so each call proves that the fake's
 * answer satisfies it; the fake also checks each answer against the spec (validateResponses). Every
 * other client method gets a 404 that names its operation.
 *
 * Document-strict (`clientCompat: 'none'`) the fake follows interface.md: where the client
 * disagrees, the disagreement is listed in KNOWN_CLIENT_DIFFERENCES, the client must refuse the
 * fake's answer there and nowhere else, and a request refused for it names the mode to use. With no
 * options (`auto`) the fake recognises the client by its User-Agent: the CLI started with no flag
 * serves it, and other clients get interface.md.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as sdk from 'autumn-js';
import { Autumn, ResponseValidationError } from 'autumn-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationForPath, operations } from '../spec/operations.ts';
import { KNOWN_CLIENT_DIFFERENCES, type KnownClientDifference } from '../spec/reference/differences.ts';
import { ruleById } from '../spec/rules/catalogue.ts';
import { createFakeServer, type FakeServer, type RequestLogEntry } from './index.ts';

/** How many of the client's methods post to an operation the fake implements (docs/app-teams.md lists the others). */
const CLIENT_METHODS_SERVED = 29;

let fake: FakeServer;
let autumn: Autumn;
/** Every request the compatible fake answered, to show that each served client method ran. */
const answered: RequestLogEntry[] = [];

beforeAll(async () => {
  fake = await createFakeServer({ validateResponses: true, clientCompat: 'autumn-js', onRequest: (entry) => void answered.push(entry) });
  // autumn-js fails open by default (a failed check reads as allowed); a test must see failures.
  autumn = new Autumn({ secretKey: fake.apiKey, serverURL: fake.url, failOpen: false });
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

const SDK_BUNDLE = readFileSync(createRequire(import.meta.url).resolve('autumn-js'), 'utf8');

/** Every method the client offers, by its name on the client (`entities.list`, `check`), with the path it posts to. */
function clientMethods(): { method: string; path: string }[] {
  const client = new Autumn({ secretKey: 'am_sk_test_x' });
  const methodsOf = (target: object) =>
    Object.entries(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(target)))
      .filter(([name, descriptor]) => name !== 'constructor' && typeof descriptor.value === 'function')
      .map(([name, descriptor]) => [name, descriptor.value as () => unknown] as const);
  const resources = Object.entries(Object.getOwnPropertyDescriptors(Autumn.prototype)).filter(([, descriptor]) => descriptor.get !== undefined);
  const all = [
    ...methodsOf(client),
    ...resources.flatMap(([resource]) => methodsOf((client as unknown as Record<string, object>)[resource]!).map(([name, fn]) => [`${resource}.${name}`, fn] as const)),
  ];
  // Each method calls one generated function, which posts to one path: read both from the client's bundle.
  return all.map(([method, fn]) => {
    const called = /unwrapAsync\((\w+)\(/.exec(fn.toString())?.[1];
    const job = new RegExp(`function ${called}\\(client, _?request, options\\) \\{\\s*return new APIPromise\\((\\$do\\d*)\\(`).exec(SDK_BUNDLE)?.[1];
    const body = SDK_BUNDLE.slice(SDK_BUNDLE.indexOf(`async function ${job}(`));
    const path = /pathToFunc\("([^"]+)"\)/.exec(body)?.[1];
    if (called === undefined || job === undefined || path === undefined) throw new Error(`cannot tell which path the client's ${method} posts to`);
    return { method, path };
  });
}

describe('autumn-js drives the fake in client-compat mode, and accepts every answer', () => {
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

  it('billing: previewMultiUpdate of an immediate cancellation, of a named plan and of the one the reference picks', async () => {
    const preview = await autumn.billing.previewMultiUpdate({ customerId: 'acme', updates: [{ planId: 'pro', cancelAction: 'cancel_immediately' }] });
    expect(preview).toMatchObject({ customerId: 'acme', total: -20, subscriptions: [{ planIds: ['pro'], outgoing: [{ planId: 'pro' }] }] });
 
    const picked = await autumn.billing.previewMultiUpdate({ customerId: 'acme', updates: [{ cancelAction: 'cancel_immediately' }] });
    const team = await autumn.billing.previewMultiUpdate({ customerId: 'acme', updates: [{ planId: 'team', cancelAction: 'cancel_immediately' }] });
    expect(picked, 'without a plan, the main recurring plan is picked, as the reference does').toEqual(team);
    expect(picked).not.toEqual(preview);
  });

  it('entities: create, get, list (subscriptions with their id; the client\'s status filter read as statuses), delete', async () => {
    const created = await autumn.entities.create({ customerId: 'acme', entityId: 'desk1', featureId: 'seats', name: 'Desk 1' });
    expect(created).toMatchObject({ id: 'desk1', customerId: 'acme', name: 'Desk 1' });
    const detail = await autumn.entities.get({ customerId: 'acme', entityId: 'desk1' });
    expect(detail.subscriptions.length).toBeGreaterThan(0);
    const listed = await autumn.entities.list({ customerId: 'acme' });
    const desk = listed.list.find((entity) => entity.id === 'desk1')!;
    expect(desk.subscriptions.map((subscription) => subscription.id).sort()).toEqual(detail.subscriptions.map((subscription) => subscription.id).sort());
    const scheduledOnly = await autumn.entities.list({ customerId: 'acme', subscriptionStatus: 'scheduled' });
    expect(scheduledOnly.list.find((entity) => entity.id === 'desk1')!.subscriptions).toEqual([]);
    expect(await autumn.entities.delete({ customerId: 'acme', entityId: 'desk1' })).toEqual({ success: true });
  });

  it('licenses: attach (a new entity, and one without a name), release (with and without the license plan)', async () => {
    expect(await autumn.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [{ entityId: 'seat1', name: 'Seat 1', featureId: 'seats' }] })).toEqual({ success: true });
    expect(await autumn.licenses.release({ customerId: 'acme', licensePlanId: 'seat', entityIds: ['seat1'] })).toEqual({ success: true });
    expect(await autumn.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [{ entityId: 'seat2', featureId: 'seats' }] })).toEqual({ success: true });
    expect((await autumn.entities.get({ customerId: 'acme', entityId: 'seat2' })).name).toBeNull();
    expect(await autumn.licenses.release({ customerId: 'acme', entityIds: ['seat2'] })).toEqual({ success: true });
    await expect(autumn.licenses.release({ customerId: 'acme', entityIds: ['seat2'] }), 'released already: the reference\'s error').rejects.toThrow(/no license to release/);
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
  it('deletes: a referral program, then its reward, a customer, then the plan and the feature only it used', async () => {
    await autumn.features.create({ featureId: 'gone_flag', name: 'Gone', type: 'boolean' });
    await autumn.plans.create({ planId: 'gone_plan', name: 'Gone', items: [{ featureId: 'gone_flag' }] });
    await autumn.customers.getOrCreate({ customerId: 'gone_cus' });
    await autumn.billing.attach({ customerId: 'gone_cus', planId: 'gone_plan' });
    await autumn.rewards.create({ featureGrant: { id: 'gone_grant', name: 'Gone', grants: [{ featureId: 'gone_flag', included: null, expiry: null }], promoCodes: [{ code: 'GONE', maxUses: 1 }] } });
    await autumn.referrals.createProgram({ id: 'gone_program', rewardId: 'gone_grant', redeemOn: 'customer_creation', receivedBy: 'referrer' });
    expect(await autumn.referrals.deleteProgram({ referralProgramId: 'gone_program' })).toEqual({ success: true });
    expect(await autumn.rewards.delete({ rewardId: 'gone_grant' })).toEqual({ success: true });
    expect(await autumn.customers.delete({ customerId: 'gone_cus' })).toEqual({ success: true });
    expect(await autumn.plans.delete({ planId: 'gone_plan', allVersions: true })).toEqual({ success: true });
    expect(await autumn.features.delete({ featureId: 'gone_flag' })).toEqual({ success: true });
    await expect(autumn.customers.get({ customerId: 'gone_cus' })).rejects.toThrow(/not found/);
  });

  it('every client method the fake serves ran above and was answered 200; every other one gets a 404 naming its operation', async () => {
    const methods = clientMethods();
    const served = methods.filter(({ path }) => operationForPath(path) !== undefined);
    const ok = new Set(answered.filter((entry) => entry.status === 200).map((entry) => entry.path));
    expect(served.filter(({ path }) => !ok.has(path)).map(({ method }) => method), 'served client methods the drive did not run').toEqual([]);
    expect(served.length, 'the client methods the fake serves').toBe(CLIENT_METHODS_SERVED);
    for (const { method, path } of methods.filter(({ path }) => operationForPath(path) === undefined)) {
      const response = await fetch(`${fake.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
      const body = (await response.json()) as { code: string; message: string };
      expect({ method, status: response.status, code: body.code }).toEqual({ method, status: 404, code: 'route_not_found' });
      expect(body.message, method).toContain(`does not serve ${path.slice('/v1/'.length)}`);
      // The client's events.list reads what the fake keeps for its control plane: the 404 says where.
      if (method === 'events.list') expect(body.message).toContain('POST /_fake/events.list');
    }
  });
});

describe('document-strict (none), the fake follows interface.md where the client differs, and names the mode the client needs', () => {
  let strict: FakeServer;
  let client: Autumn;
  beforeAll(async () => {
    strict = await createFakeServer({ validateResponses: true, clientCompat: 'none' });
    client = new Autumn({ secretKey: strict.apiKey, serverURL: strict.url, failOpen: false });
    await client.features.create({ featureId: 'seats', name: 'Seats', type: 'metered', consumable: false });
    await client.plans.create({ planId: 'seat', name: 'Seat' });
    await client.plans.create({ planId: 'team', name: 'Team', licenses: [{ licensePlanId: 'seat', included: 2 }] });
    await client.customers.getOrCreate({ customerId: 'acme' });
    await client.billing.attach({ customerId: 'acme', planId: 'team' });
    await client.entities.create({ customerId: 'acme', entityId: 'desk1', featureId: 'seats', name: 'Desk 1' });
  });
  afterAll(() => strict.close());

  it('entities.list: the client refuses the answer only where the known difference says', async () => {
    await expectRefusedOnlyAt('CLIENT-ENTITY-SUBSCRIPTION-ID', 'entities.list', () => client.entities.list({ customerId: 'acme' }));
  });

  it('licenses.attach without a name and licenses.release without the license plan are refused, naming --client-compat autumn-js and why', async () => {
    await expect(client.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [{ entityId: 'seat9', featureId: 'seats' }] })).rejects.toThrow(
      /entities\.0\.name: .*autumn-js lets entities\[\]\.name be left out, which interface\.md requires: start the fake with --client-compat autumn-js \(clientCompat: 'autumn-js'\)/,
    );
    await expect(client.licenses.release({ customerId: 'acme', entityIds: ['desk1'] })).rejects.toThrow(/license_plan_id.*--client-compat autumn-js/);
  });

  it('a body no client mode would take either gets no such advice', async () => {
    await expect(client.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [] })).rejects.toThrow(/entities/);
    await expect(client.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [] })).rejects.not.toThrow(/client-compat/);
  });
});

describe('with no options, the CLI recognises autumn-js by its User-Agent and answers it as it expects; other clients get interface.md', () => {
  let url: string;
  let key: string;
  let stop: () => void;
  beforeAll(async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./cli.ts', import.meta.url).pathname, '--port', '0', '--ready-json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    stop = () => child.kill('SIGTERM');
    let output = '';
    const ready = await new Promise<{ url: string; keys: { key: string }[] }>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('\n')) resolve(JSON.parse(output.slice(0, output.indexOf('\n'))));
      });
      child.once('exit', (code) => reject(new Error(`besi-fake exited with ${code}: ${output}`)));
    });
    ({ url } = ready);
    key = ready.keys[0]!.key;
  }, 60_000);
  afterAll(() => stop());

  it('autumn-js: licenses.attach without a name, release without the plan, entities.list with its subscription ids and status filter', async () => {
    const client = new Autumn({ secretKey: key, serverURL: url, failOpen: false });
    await client.features.create({ featureId: 'seats', name: 'Seats', type: 'metered', consumable: false });
    await client.plans.create({ planId: 'seat', name: 'Seat' });
    await client.plans.create({ planId: 'team', name: 'Team', licenses: [{ licensePlanId: 'seat', included: 2 }] });
    await client.customers.getOrCreate({ customerId: 'acme' });
    await client.billing.attach({ customerId: 'acme', planId: 'team' });
    expect(await client.licenses.attach({ customerId: 'acme', planId: 'seat', entities: [{ entityId: 'seat1', featureId: 'seats' }] })).toEqual({ success: true });
    const listed = await client.entities.list({ customerId: 'acme', subscriptionStatus: 'active' });
    const held = listed.list.find((entity) => entity.id === 'seat1')!.subscriptions;
    expect(held.length).toBeGreaterThan(0);
    expect(held.filter((subscription) => typeof subscription.id !== 'string'), 'every embedded subscription has its id').toEqual([]);
    expect(await client.licenses.release({ customerId: 'acme', entityIds: ['seat1'] })).toEqual({ success: true });
  });

  it('another client (no autumn-js User-Agent) is answered as interface.md says, and told which mode would take the body', async () => {
    const response = await fetch(`${url}/v1/licenses.attach`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer_id: 'acme', plan_id: 'seat', entities: [{ entity_id: 'seat2', feature_id: 'seats' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe('invalid_inputs');
    expect(body.message).toMatch(/^entities\.0\.name: .*\. autumn-js lets entities\[\]\.name be left out, which interface\.md requires: start the fake with --client-compat autumn-js/);
  });
});


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
