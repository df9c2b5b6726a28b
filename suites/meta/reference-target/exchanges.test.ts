/**
 * The reference-like target answers as the recorded reference does: every recorded exchange of
 * fixtures/reference-exchanges/ and fixtures/reference-divergences/ is sent to one reference-like app
 * in recording order (state builds up as it did), and its status and error code must be the
 * recorded ones. So a request the reference refuses, and the suite sends, shows up here rather than
 * in a vendor's report. What the recording does not hold (the setup of 155-182, made without
 * recording it) is sent first, as each exchange's case describes it; what varies between runs (a
 * cursor, a timestamp) is taken from this run. The exchanges left out are listed with why.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isRouteNotServed } from '../../framework/checks.ts';
import { REFERENCE_BEHAVIOURS } from './behaviours.ts';
import { createReferenceLikeApp, type ReferenceLikeTarget } from './target.ts';

const DIRS = ['../../../fixtures/reference-exchanges/', '../../../fixtures/reference-divergences/'].map((dir) => new URL(dir, import.meta.url));

interface Recorded {
  readonly request: { readonly method: string; readonly path: string; readonly headers: Record<string, string>; readonly body: unknown };
  readonly response: { readonly status: number; readonly body: unknown };
}

function exchange(file: string): Recorded {
  const dir = DIRS.find((d) => existsSync(new URL(file, d)));
  if (dir === undefined) throw new Error(`${file} is in neither fixtures folder`);
  return JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Recorded;
}

/** Every recorded exchange of both folders, in recording order. */
const FILES = DIRS.flatMap((dir) => readdirSync(dir).filter((file) => /^\d{3}-.*\.json$/.test(file))).sort();

/** Exchanges not compared, and why: each is a behaviour the reference-like target does not take on. */
const LEFT_OUT: Readonly<Record<string, string>> = {
  '122-referral_programs.update-redeem-on-checkout-without-plan-ids.json':
    'interface.md decides it ("plan_ids … required when redeem_on is checkout"): the reference counts the [""] it stored for the null of 116 as a plan, and the fake holds to the document',
  '148-customers.get-api-version-2025-05-05.json':
    'a CalVer version maps to a pre-2.0 version whose customer shape (products, features) interface.md does not describe; the fake serves the 2.x versions only (DESIGN decision 4)',
};

type Call = readonly [operation: string, body: Record<string, unknown>];

const month = { interval: 'month' };

/**
 * The setup each exchange's case names but the recording does not hold (IDs as recorded), sent
 * before it; each must answer 200.
 */
const SETUP: Readonly<Record<string, readonly Call[]>> = {
  '155-rewards.create-boolean-grant-included-1.json': [['features.create', { feature_id: 'ex3dmil0_flag', name: 'Flag', type: 'boolean' }]],
  '157-plans.create-prepaid-included-not-multiple-of-billing-units.json': [['features.create', { feature_id: 'ex3dmil0_projects', name: 'Projects', type: 'metered', consumable: false }]],
  '160-billing.attach-reattach-after-new-version.json': [
    ['plans.create', { plan_id: 'ex3dmil0_ver', name: 'Versioned', items: [{ feature_id: 'ex3dmil0_flag' }] }],
    ['customers.get_or_create', { customer_id: 'ex3dmil0_cus1' }],
    ['billing.attach', { customer_id: 'ex3dmil0_cus1', plan_id: 'ex3dmil0_ver' }],
    ['plans.update', { plan_id: 'ex3dmil0_ver', items: [{ feature_id: 'ex3dmil0_flag' }, { feature_id: 'ex3dmil0_projects', included: 5 }] }],
  ],
  '162-billing.attach-attach-to-entity.json': [
    ['features.create', { feature_id: 'ex3dmil0_seats', name: 'Seats', type: 'metered', consumable: false }],
    ['plans.create', { plan_id: 'ex3dmil0_entplan', name: 'Entity plan', add_on: true, items: [{ feature_id: 'ex3dmil0_flag' }] }],
    ['customers.get_or_create', { customer_id: 'ex3dmil0_cus2' }],
    ['entities.create', { customer_id: 'ex3dmil0_cus2', entity_id: 'ex3dmil0_e1', name: 'E1', feature_id: 'ex3dmil0_seats' }],
    ['entities.create', { customer_id: 'ex3dmil0_cus2', entity_id: 'ex3dmil0_e2', name: 'E2', feature_id: 'ex3dmil0_seats' }],
  ],
  '166-customers.delete-customer-with-plan.json': [
    ['features.create', { feature_id: 'ex4j7j2d_msgs', name: 'Messages', type: 'metered', consumable: true }],
    ['plans.create', { plan_id: 'ex4j7j2d_free', name: 'Free', items: [{ feature_id: 'ex4j7j2d_msgs', included: 100, reset: month }] }],
    ['customers.get_or_create', { customer_id: 'ex4j7j2d_cus' }],
    ['billing.attach', { customer_id: 'ex4j7j2d_cus', plan_id: 'ex4j7j2d_free' }],
  ],
  '168-features.delete-unused-feature.json': [['features.create', { feature_id: 'ex4j7j2d_gone', name: 'Gone', type: 'boolean' }]],
  '170-plans.delete-unused-plan.json': [['plans.create', { plan_id: 'ex4j7j2d_unused', name: 'Unused' }]],
  '172-referral_programs.delete-program.json': [
    ['rewards.create', { feature_grant: { id: 'ex4j7j2d_rw', name: 'Reward', grants: [{ feature_id: 'ex4j7j2d_msgs', included: 5, expiry: null }], promo_codes: [{ code: 'EX4J7J2D', max_uses: 1 }] } }],
    ['referral_programs.create', { id: 'ex4j7j2d_prog', reward_id: 'ex4j7j2d_rw', redeem_on: 'customer_creation', received_by: 'referrer' }],
  ],
  '174-plans.create-usage-price-max-purchase-0.json': [['features.create', { feature_id: 'ex174_msgs', name: 'Ex174 Messages', type: 'metered', consumable: true }]],
  '178-balances.check-lock-expires-in-2-days.json': [
    ['plans.create', { plan_id: 'ex174_free', name: 'Ex174 Free', items: [{ feature_id: 'ex174_msgs', included: 100, reset: month }] }],
    ['customers.get_or_create', { customer_id: 'ex174_cus_lock' }],
    ['billing.attach', { customer_id: 'ex174_cus_lock', plan_id: 'ex174_free' }],
  ],
  '179-billing.preview_multi_update-same-free-plan-twice.json': [
    ['plans.create', { plan_id: 'ex174_freeaddon', name: 'Ex174 Free Add-on', add_on: true, items: [{ feature_id: 'ex174_msgs', included: 10, reset: month }] }],
    ['customers.get_or_create', { customer_id: 'ex174_cus_prev' }],
    ['billing.attach', { customer_id: 'ex174_cus_prev', plan_id: 'ex174_freeaddon' }],
  ],
  '181-entities.list-statuses-scheduled-active-plan-only.json': [
    ['features.create', { feature_id: 'ex174_seats', name: 'Ex174 Seats', type: 'metered', consumable: false }],
    ['customers.get_or_create', { customer_id: 'ex174_cus_sched' }],
    ['billing.attach', { customer_id: 'ex174_cus_sched', plan_id: 'ex174_free' }],
    ['entities.create', { customer_id: 'ex174_cus_sched', entity_id: 'ex174_sched_e1', name: 'Ex174 Sched E1', feature_id: 'ex174_seats' }],
  ],
  '182-balances.check-customer-level-entity-add-on-grant.json': [
    ['features.create', { feature_id: 'ex174_units', name: 'Ex174 Units', type: 'metered', consumable: true }],
    ['plans.create', { plan_id: 'ex174_addon5', name: 'Ex174 Add-on 5', add_on: true, items: [{ feature_id: 'ex174_units', included: 5, reset: month }] }],
    ['customers.get_or_create', { customer_id: 'ex174_cus_entgrant' }],
    ['entities.create', { customer_id: 'ex174_cus_entgrant', entity_id: 'ex174_holder', name: 'Ex174 Holder', feature_id: 'ex174_seats' }],
    ['billing.attach', { customer_id: 'ex174_cus_entgrant', plan_id: 'ex174_addon5', entity_id: 'ex174_holder' }],
  ],
};

/** Beyond status and code: the fields (dot paths) of a 200 that show the behaviour the exchange records, compared with the recording. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  '064-licenses.attach-two-entities.json': ['success'],
  '174-plans.create-usage-price-max-purchase-0.json': ['items.0.price.max_purchase'],
  '175-plans.get-max-purchase-0-read-back.json': ['items.0.price.max_purchase'],
  '181-entities.list-statuses-scheduled-active-plan-only.json': ['list.0.id', 'list.0.subscriptions.0.plan_id', 'list.0.subscriptions.0.status'],
  '182-balances.check-customer-level-entity-add-on-grant.json': ['allowed', 'balance.granted', 'balance.remaining', 'balance.usage'],
};

const DAY_MS = 24 * 60 * 60 * 1000;

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** Sends one request as recorded: the run's key for `<API_KEY>`, a string body as its raw bytes. */
async function send(app: ReferenceLikeTarget, request: Recorded['request'], body: unknown = request.body): Promise<Answer> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, value.replace('<API_KEY>', app.apiKey)]));
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && body !== undefined;
  const response = await app.fetch(new Request(`http://reference-like.invalid${request.path}`, { method: request.method, headers, ...(hasBody && { body: typeof body === 'string' ? body : JSON.stringify(body) }) }));
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: compared as text
  }
  return { status: response.status, body: parsed };
}

function call(app: ReferenceLikeTarget, [operation, body]: Call): Promise<Answer> {
  const request = { method: 'POST', path: `/v1/${operation}`, headers: { Authorization: 'Bearer <API_KEY>', 'x-api-version': '2.3.0', 'Content-Type': 'application/json' }, body };
  return send(app, request);
}

function at(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined), body);
}

function codeOf(body: unknown): unknown {
  return (body as { code?: unknown } | null)?.code;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The recorded body with what varies between runs taken from this run: a `start_cursor` the
 * recording got from an earlier answer is the one this run got there; a lock's `expires_at` keeps its
 * distance from now (2 days in 178).
 */
function thisRun(file: string, body: unknown, cursors: ReadonlyMap<string, string>, now: number): unknown {
  if (!isRecord(body)) return body;
  const cursor = typeof body['start_cursor'] === 'string' ? cursors.get(body['start_cursor']) : undefined;
  if (cursor !== undefined) return { ...body, start_cursor: cursor };
  if (file.startsWith('178-') && isRecord(body['lock'])) return { ...body, lock: { ...body['lock'], expires_at: now + 2 * DAY_MS } };
  return body;
}

interface Replayed {
  readonly file: string;
  readonly expected: { readonly status: number; readonly code: unknown; readonly fields: Record<string, unknown> };
  readonly got: { readonly status: number; readonly code: unknown; readonly fields: Record<string, unknown>; readonly message?: unknown };
  readonly setupRefused?: string;
}

/** Replays every exchange of FILES (but LEFT_OUT) against one fresh reference-like app, in order. */
async function replayAll(): Promise<Replayed[]> {
  const app = createReferenceLikeApp();
  const cursors = new Map<string, string>();
  const out: Replayed[] = [];
  for (const file of FILES) {
    if (LEFT_OUT[file] !== undefined) continue;
    const refused: string[] = [];
    for (const setup of SETUP[file] ?? []) {
      const answer = await call(app, setup);
      if (answer.status !== 200) refused.push(`${setup[0]} ${JSON.stringify(setup[1])} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    const recorded = exchange(file);
    const answer = await send(app, recorded.request, thisRun(file, recorded.request.body, cursors, app.fake.clock.now()));
    const recordedCursor = isRecord(recorded.response.body) ? recorded.response.body['next_cursor'] : undefined;
    const cursor = isRecord(answer.body) ? answer.body['next_cursor'] : undefined;
    if (typeof recordedCursor === 'string' && typeof cursor === 'string') cursors.set(recordedCursor, cursor);
    const fields = (body: unknown) => Object.fromEntries((FIELDS[file] ?? []).map((path) => [path, at(body, path)]));
    out.push({
      file,
      expected: { status: recorded.response.status, code: codeOf(recorded.response.body), fields: fields(recorded.response.body) },
      got: { status: answer.status, code: codeOf(answer.body), fields: fields(answer.body), ...(answer.status === recorded.response.status ? {} : { message: (answer.body as { message?: unknown } | null)?.message }) },
      ...(refused.length > 0 ? { setupRefused: refused.join('; ') } : {}),
    });
  }
  return out;
}

describe('the reference-like target', () => {
  it.each(REFERENCE_BEHAVIOURS.map((b) => [b.id, b] as const))('%s names exchanges that exist, or the passage it comes from', (_id, behaviour) => {
    for (const file of behaviour.exchanges) expect(() => exchange(file), file).not.toThrow();
    expect(behaviour.exchanges.length > 0 || behaviour.observed !== undefined).toBe(true);
  });

  it('answers every recorded exchange with the recorded status and code, but those left out (each with why)', async () => {
    const replayed = await replayAll();
    expect(replayed.length + Object.keys(LEFT_OUT).length).toBe(FILES.length);
    for (const file of Object.keys(LEFT_OUT)) expect(FILES, `${file} is left out, so it must exist`).toContain(file);
    expect(replayed.filter((r) => r.setupRefused !== undefined).map((r) => `${r.file}: setup refused: ${r.setupRefused}`)).toEqual([]);
    const differing = replayed.filter((r) => r.got.status !== r.expected.status || r.got.code !== r.expected.code || !isDeepStrictEqual(r.got.fields, r.expected.fields));
    const shown = (side: Replayed['got']) => `${side.status} ${String(side.code ?? '')} ${JSON.stringify(side.fields)}`;
    expect(differing.map((r) => `${r.file}: recorded ${shown(r.expected)}, answered ${shown(r.got)} ${String(r.got.message ?? '')}`)).toEqual([]);
  }, 60_000);

  it('answers an unknown route in a way the suite recognises as not served', () => {
    const { response } = exchange('153-subscriptions.list-not-in-this-version.json');
    expect(isRouteNotServed(response.status, response.body)).toBe(true);
  });

  it('holds every answer for its latency setting', async () => {
    const app = createReferenceLikeApp({ latencyMs: 120 });
    const started = performance.now();
    const answer = await call(app, ['features.list', {}]);
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });
});
