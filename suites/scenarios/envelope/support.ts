/** Builders and checks that several envelope scenario modules share. */
import { expect } from 'vitest';
import { ErrorBody } from '../../../spec/common.ts';
import { type OperationName, operations } from '../../../spec/operations.ts';
import { type HeaderOverrides, SetupNotServed, TargetFault } from '../../framework/index.ts';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, createReferralProgram, createReward, licenseEntities, type T } from '../../support.ts';

export async function createCustomerWithEntity(t: T) {
  const feature = await createFeature(t, 'allocated');
  const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 2 }] });
  const customer = await createCustomer(t);
  await attach(t, customer.id, plan.id);
  const entity = await createEntity(t, customer.id, feature.id);
  return { feature, plan, customer, entity };
}

/**
 * Sends `body` to an operation as JSON with these header overrides, without the typed client's
 * checks. An answer that says nothing about the interface (a 5xx, a 429 beyond the retry budget, a
 * body that is not JSON) stops the scenario as ERROR, as the typed client's would.
 */
export async function rawCall(t: T, operation: OperationName, body: unknown, headers: HeaderOverrides = {}) {
  const result = await t.client.raw({ path: operations[operation].path, headers, body: JSON.stringify(body) });
  const fault = result.exchange.fault;
  if (fault !== undefined) throw new TargetFault(`${operation}: the target's answer says nothing about the interface (${fault}, status ${result.status})`, result.exchange);
  return result;
}

/**
 * The error code of a raw refusal, read only from the documented error body `{message, code, env}`:
 * another body is ERR-BODY-SHAPE's deviation, a precondition here.
 */
export function codeOf(t: T, body: unknown): unknown {
  t.precondition('the error body is {message, code, env} (ERR-BODY-SHAPE)', () => expect(ErrorBody.safeParse(body).success, JSON.stringify(body)?.slice(0, 200)).toBe(true));
  return (body as { code?: unknown } | null)?.code;
}

/** A feature id that nothing has created, and a body that would create it. */
export function freshFeature(t: T) {
  const featureId = t.ns.id('feat');
  return { featureId, body: { feature_id: featureId, name: `Flag ${featureId}`, type: 'boolean' as const } };
}

/** The status is a 4xx (a refusal, not a success nor a server fault). */
export function expectRefusal(result: { status: number; body: unknown }, why: string): void {
  const what = `${why}: expected a 4xx, got ${result.status} ${JSON.stringify(result.body)?.slice(0, 200)}`;
  expect(result.status, what).toBeGreaterThanOrEqual(400);
  expect(result.status, what).toBeLessThan(500);
}

export type DocumentedCall = { readonly operation: OperationName; readonly body: Record<string, unknown> };

/**
 * A valid request for eleven of the twelve documented operations, over state built through setup
 * calls: a license pool and its boolean feature, and a free add-on beside the pool's parent plan for
 * the preview to cancel (the reference refuses to preview a license-backed plan: exchange 138).
 * Creates name fresh IDs. The twelfth, referral_programs.update, needs a referral program of its own
 * (referralProgramCall), so that a target refusing to build one leaves the other eleven asked.
 */
export async function documentedCalls(t: T): Promise<{ calls: DocumentedCall[]; seat: Record<string, unknown> }> {
  const pool = await createLicensePool(t, 2);
  const customer_id = pool.customerId;
  const addOn = await createPlan(t, { add_on: true, items: [{ feature_id: pool.flag.id }] });
  await attach(t, customer_id, addOn.id);
  const [seat] = licenseEntities(t, pool, 1);
  const calls: DocumentedCall[] = [
    { operation: 'licenses.list', body: { customer_id } },
    { operation: 'licenses.attach', body: { customer_id, plan_id: pool.licensePlan.id, entities: [seat] } },
    { operation: 'licenses.release', body: { customer_id, license_plan_id: pool.licensePlan.id, entity_ids: [seat!.entity_id] } },
    { operation: 'subscriptions.list', body: { customer_id } },
    { operation: 'purchases.list', body: { customer_id } },
    { operation: 'entities.list', body: { customer_id } },
    { operation: 'billing.preview_multi_update', body: { customer_id, updates: [{ plan_id: addOn.id, cancel_action: 'cancel_immediately' }] } },
    { operation: 'plans.create', body: { plan_id: t.ns.id('plan'), name: 'Auth plan' } },
    { operation: 'plans.get', body: { plan_id: pool.parentPlan.id } },
    { operation: 'balances.check', body: { customer_id, feature_id: pool.flag.id } },
    { operation: 'features.create', body: freshFeature(t).body },
  ];
  return { calls, seat: seat! };
}

/**
 * A referral program (setup: a reward granting a metered feature, the reference's most permissive
 * grant; a boolean grant must have `included: null` there) and a valid referral_programs.update of it.
 */
export async function referralProgramCall(t: T): Promise<DocumentedCall> {
  const units = await createFeature(t, 'consumable');
  const programId = await createReferralProgram(t, await createReward(t, units.id));
  return { operation: 'referral_programs.update', body: { referral_program_id: programId, max_redemptions: 5 } };
}

/** A raw answer's text as JSON, or undefined when it is not JSON (the answer is then judged as text). */
export function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Where and how the scenario's last call, an `operation`, reached the target: its origin, the path
 * before the operation's, and the headers a request sent past the client needs (the key, JSON, the
 * run's API version). A host under .invalid never resolves (RFC 2606): the target is in this
 * process, with no socket of its own, and the scenario is skipped.
 */
export function wireOf(t: T, operation: OperationName): { readonly origin: string; readonly prefix: string; readonly headers: Record<string, string> } {
  const exchange = t.evidence.at(-1)!;
  const url = new URL(exchange.request.url);
  if (url.hostname.endsWith('.invalid')) throw new SetupNotServed(`the target at ${url.origin} is reached in-process, without a connection of its own`);
  return {
    origin: url.origin,
    prefix: url.pathname.slice(0, url.pathname.length - operations[operation].path.length),
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json', 'x-api-version': exchange.request.headers['x-api-version'] ?? '' },
  };
}
