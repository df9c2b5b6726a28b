/**
 * Scenarios of the document's conventions: every operation a POST of JSON, snake_case requests and
 * answers (with the camelCase spellings the document uses), money in major units, and timestamps in
 * Unix milliseconds.
 */
import { expect } from 'vitest';
import { PLAN_DOCUMENTED_SPELLINGS } from '../../../spec/common.ts';
import { operations } from '../../../spec/operations.ts';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, createReferralProgram, createReward, licenseEntities, scenario, type T } from '../../support.ts';
import { isRouteNotServed } from '../../framework/index.ts';
import { documentedCalls, freshFeature, referralProgramCall } from './support.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

const JSON_CONTENT_TYPE = /^application\/json\b/i;

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

export const conventionsScenarios = [
  scenario(
    {
      id: 'envelope.post-json',
      title: 'every operation is a POST of a JSON body to /v1/<resource>.<action>, answered with JSON (errors included); another method is not served',
      rules: ['CONV-POST-JSON'],
    },
    async (t) => {
      // The client sends every call as POST {base_url}/v1/<resource>.<action> with Content-Type: application/json.
      // A documented read whose body carries nothing first (entities.list, which every target serves): a target that serves no request at all blocks here.
      t.setup(await t.client.call('entities.list', {}));
      const { featureId, body } = freshFeature(t);
      const created = t.expectOk(await t.client.call('features.create', body));
      t.check('CONV-POST-JSON', () => expect(created.id, 'the JSON body was read: the feature has the ID it named').toBe(featureId));
      // Each documented operation once, with a valid request: every 200 must be JSON. An operation the
      // target does not serve (an unknown route), or whose request it refuses, says nothing about how a
      // 200 answers: left out, and said so.
      const calls = [...(await documentedCalls(t)).calls, await referralProgramCall(t)];
      const served = new Set<string>();
      for (const { operation, body: request } of calls) {
        const result = await t.client.call(operation, request as never);
        if (!result.ok && isRouteNotServed(result.status, result.body)) continue;
        if (!result.ok && result.status < 500) {
          t.notVerified('CONV-POST-JSON', `${operation}: its request was refused (${result.status} ${JSON.stringify(result.body)?.slice(0, 160)}), so no 200 of it was seen`);
          continue;
        }
        t.setup(result);
        served.add(operation);
      }
      const answered = t.evidence.filter((e) => e.response?.status === 200 && served.has(e.label));
      t.precondition('every documented operation served answered 200', () => expect(new Set(answered.map((e) => e.label)).size).toBe(served.size));
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
      // Right after attaching, the unused share of the period is (almost) all of it: about 20, never 2000 or 0.2.
      // How many entries the refund comes in is PREV-ONE-ENTRY-PER-SUBSCRIPTION's: every entry and line is judged.
      const entries = preview.subscriptions;
      const lines = entries.flatMap((entry) => entry.line_items ?? []);
      t.check('CONV-MONEY-MAJOR-UNITS', () => {
        const lineSum = lines.reduce((sum, line) => sum + line.total, 0);
        const entrySum = entries.reduce((sum, entry) => sum + entry.total, 0);
        for (const [what, amount] of [['total', preview.total], ["the sum of the entries' totals", entrySum], ["the sum of the line items' totals", lineSum]] as const) {
          expect(Math.abs(amount), `${what} ${amount}: a refund of a 20-a-month plan is in tens of the major unit`).toBeGreaterThanOrEqual(10);
          expect(Math.abs(amount), `${what} ${amount}: a refund of a 20-a-month plan is in tens of the major unit`).toBeLessThanOrEqual(30);
        }
        for (const [i, entry] of entries.entries()) {
          expect(Math.abs(entry.total), `subscriptions[${i}].total ${entry.total}: no amount of a 20-a-month plan's preview is in the hundreds`).toBeLessThanOrEqual(30);
          for (const [j, line] of (entry.line_items ?? []).entries()) {
            for (const [field, amount] of [['subtotal', line.subtotal], ['total', line.total]] as const) {
              expect(Math.abs(amount), `subscriptions[${i}].line_items[${j}].${field} ${amount}: no amount of a 20-a-month plan's preview is in the hundreds`).toBeLessThanOrEqual(30);
            }
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
      const programId = await createReferralProgram(t, await createReward(t, consumable.id));
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
        ['referral_programs.get', { referral_program_id: programId }],
      ] as const) {
        // A listing the target does not serve has no timestamps to judge: left out.
        const result = await t.client.call(operation, body as never);
        if (!result.ok && isRouteNotServed(result.status, result.body)) continue;
        t.setup(result);
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
      id: 'balances.next-reset-of-allocated-ms',
      title: 'the balance of an allocated feature, which never resets, has no next reset, not a zero timestamp',
      rules: ['CONV-TIMESTAMPS-MS'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { items: [{ feature_id: seats.id, included: 3 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const { balance } = t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: seats.id }), ['balance']);
      t.precondition('the customer has a balance of the allocated feature', () => expect(balance).not.toBeNull());
      const nextReset = balance!.next_reset_at;
      t.check('CONV-TIMESTAMPS-MS', () => {
        if (nextReset === null || nextReset === undefined) return;
        expect(Number.isInteger(nextReset), `next_reset_at ${nextReset} is an integer`).toBe(true);
        expect(nextReset, 'next_reset_at is Unix milliseconds (> 10^12)').toBeGreaterThan(1e12);
      });
    },
  ),
];
