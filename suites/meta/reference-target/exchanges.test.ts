/**
 * The reference-like target answers as the recorded reference does: every behaviour names exchanges
 * that exist under fixtures/, and the HTTP behaviours give the recorded status and body exactly
 * (the domain behaviours are held to their exchanges through the verdicts they cause, verdicts.test.ts,
 * and to the recorded refusals below).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isRouteNotServed } from '../../framework/checks.ts';
import { REFERENCE_BEHAVIOURS } from './behaviours.ts';
import { createReferenceLikeApp } from './target.ts';

const DIRS = ['../../../fixtures/reference-exchanges/', '../../../fixtures/reference-divergences/'].map((dir) => new URL(dir, import.meta.url));

function exchange(file: string): { request: { method: string; path: string; headers: Record<string, string>; body: unknown }; response: { status: number; body: unknown } } {
  const dir = DIRS.find((d) => existsSync(new URL(file, d)));
  if (dir === undefined) throw new Error(`${file} is in neither fixtures folder`);
  return JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
}

/** Sends a recorded request (its key replaced by the target's) and answers status and body. */
async function replay(file: string, body: unknown = exchange(file).request.body): Promise<{ status: number; body: unknown }> {
  const app = createReferenceLikeApp();
  const { request } = exchange(file);
  const headers = { ...request.headers, Authorization: `Bearer ${app.apiKey}` };
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const response = await app.fetch(new Request(`http://reference-like.invalid${request.path}`, { method: request.method, headers, ...(hasBody && { body: JSON.stringify(body ?? {}) }) }));
  return { status: response.status, body: await response.json() };
}

describe('the reference-like target', () => {
  it.each(REFERENCE_BEHAVIOURS.map((b) => [b.id, b] as const))('%s names exchanges that exist, or the passage it comes from', (_id, behaviour) => {
    for (const file of behaviour.exchanges) expect(() => exchange(file), file).not.toThrow();
    expect(behaviour.exchanges.length > 0 || behaviour.observed !== undefined).toBe(true);
  });

  it.each(['150-unknown.route-post.json', '151-customers.get-get-method.json', '153-subscriptions.list-not-in-this-version.json', '154-purchases.list-not-in-this-version.json', '147-customers.get-api-version-2.4.0.json', '146-customers.get-api-version-9.9.9.json'])(
    'answers %s as recorded',
    async (file) => {
      expect(await replay(file)).toEqual({ status: exchange(file).response.status, body: exchange(file).response.body });
    },
  );

  it('answers an unknown route in a way the suite recognises as not served', () => {
    const { response } = exchange('153-subscriptions.list-not-in-this-version.json');
    expect(isRouteNotServed(response.status, response.body)).toBe(true);
  });

  it('refuses a boolean reward grant with included 1 as recorded, and takes included null (155, 156)', async () => {
    const app = createReferenceLikeApp();
    const call = async (path: string, body: unknown) => {
      const response = await app.fetch(new Request(`http://reference-like.invalid/v1/${path}`, { method: 'POST', headers: { authorization: `Bearer ${app.apiKey}`, 'x-api-version': '2.3.0', 'content-type': 'application/json' }, body: JSON.stringify(body) }));
      return { status: response.status, body: await response.json() };
    };
    expect((await call('features.create', { feature_id: 'ex3dmil0_flag', name: 'Flag', type: 'boolean' })).status).toBe(200);
    const refused = exchange('155-rewards.create-boolean-grant-included-1.json');
    expect(await call('rewards.create', refused.request.body)).toEqual({ status: refused.response.status, body: refused.response.body });
    const accepted = exchange('156-rewards.create-boolean-grant-included-null.json');
    expect((await call('rewards.create', accepted.request.body)).status).toBe(200);
    // 157 and 158: the prepaid item refused, the plan created all the same.
    expect((await call('features.create', { feature_id: 'ex3dmil0_projects', name: 'Projects', type: 'metered', consumable: false })).status).toBe(200);
    const prepaid = exchange('157-plans.create-prepaid-included-not-multiple-of-billing-units.json');
    expect(await call('plans.create', prepaid.request.body)).toEqual({ status: prepaid.response.status, body: prepaid.response.body });
    expect((await call('plans.get', { plan_id: 'ex3dmil0_pp2' })).status).toBe(200);
    const divisible = exchange('159-plans.create-prepaid-included-multiple-of-billing-units.json');
    expect((await call('plans.create', divisible.request.body)).status).toBe(200);
    // 161: a boolean feature in a credit schema is accepted and echoed.
    const credit = exchange('161-features.create-credit-schema-boolean-feature.json');
    expect(await call('features.create', credit.request.body)).toMatchObject({ status: 200, body: { credit_schema: [{ metered_feature_id: 'ex3dmil0_flag', credit_cost: 1 }] } });
  });
});
