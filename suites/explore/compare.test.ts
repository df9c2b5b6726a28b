/** The normative projection: what two answers are compared on, and which rule each difference fails. */
import { describe, expect, it } from 'vitest';
import { compareAnswers, type Answer, type CompareContext } from './compare.ts';
import { IdMap } from './ids.ts';

const context = (overrides: Partial<CompareContext> = {}): CompareContext => ({ operation: 'licenses.list', request: { customer_id: 'c' }, ids: new IdMap(), timeToleranceMs: 0, ...overrides });
const ok = (body: unknown): Answer => ({ status: 200, body });
const refused = (status: number, code: string): Answer => ({ status, body: { message: 'no', code, env: 'sandbox' } });
const pool = (over: Record<string, unknown> = {}) => ({ license_plan_id: 'seat', parent_plan_id: 'team', license_plan_name: 'Seat', granted: 3, usage: 1, remaining: 2, paid_quantity: 0, ...over });

describe('compareAnswers', () => {
  it('finds nothing in equal answers, whatever the order of a list', () => {
    const a = ok({ list: [pool(), pool({ parent_plan_id: 'extra' })] });
    const b = ok({ list: [pool({ parent_plan_id: 'extra' }), pool()] });
    const { differences } = compareAnswers(context(), a, b);
    expect(differences.filter((d) => d.kind !== 'order')).toEqual([]);
  });

  it("charges a refusal in a variant the conventions allow as the plain call's (its code rule), and a refusal of an envelope variant to the variant", () => {
    const attach = { operation: 'licenses.attach' as const, request: { customer_id: 'c', plan_id: 'seat', entities: [] }, codeRule: 'ERR-DUPLICATE-ENTITY-CODE' as const };
    const charset = { name: 'charset', rule: 'CONV-POST-JSON', answeredAsPlain: true } as const;
    const plain = compareAnswers(context({ ...attach, variant: charset }), refused(400, 'invalid_request'), refused(409, 'entity_already_exists'));
    expect(plain.differences.map((d) => [d.rule, d.kind])).toEqual([['ERR-DUPLICATE-ENTITY-CODE', 'code']]);
    const noKey = { name: 'no-key', rule: 'AUTH-BEARER-REQUIRED', codeRule: 'AUTH-NO-KEY-CODE' } as const;
    const envelope = compareAnswers(context({ ...attach, variant: noKey }), refused(401, 'no_secret_key'), refused(404, 'customer_not_found'));
    expect(envelope.differences.map((d) => [d.rule, d.kind])).toEqual([['AUTH-BEARER-REQUIRED', 'status']]);
  });

  it('pairs rows alike but for the IDs each side chose as the ID map knows them, not by the order of ties', () => {
    const record = (id: string) => ({ id, plan_id: 'pro', auto_enable: false, add_on: false, status: 'active', past_due: false, canceled_at: null, expires_at: null, trial_ends_at: null, started_at: 1, current_period_start: null, current_period_end: null, quantity: 1, scope: 'customer', customer_id: 'c', entity_id: null, created_at: 1 });
    const ids = new IdMap();
    ids.learn('t_b', 'm_a');
    ids.learn('t_a', 'm_b');
    const listing = (rows: unknown[]) => ok({ list: rows, has_more: false, next_cursor: null });
    const { differences } = compareAnswers(context({ operation: 'subscriptions.list', request: { customer_id: 'c' }, ids }), listing([record('m_a'), record('m_b')]), listing([record('t_a'), record('t_b')]));
    expect(differences.filter((d) => d.kind !== 'order')).toEqual([]);
  });

  it('pairs twin rows under two running clocks in order, not by a start a millisecond apart on each side', () => {
    // An add-on attached to two entities: two rows alike but for their IDs and starts, which each side's clock put 1 ms apart the other way.
    const record = (id: string, started: number) => ({ id, plan_id: 'extra', auto_enable: false, add_on: true, status: 'active', past_due: false, canceled_at: null, expires_at: null, trial_ends_at: null, started_at: started, current_period_start: null, current_period_end: null, quantity: 1, scope: 'entity' });
    const customer = (rows: unknown[]) => ok({ id: 'c', name: null, email: null, created_at: 1, env: 'sandbox', subscriptions: rows, purchases: [], balances: {}, flags: {} });
    const ids = new IdMap();
    const compare = () => compareAnswers(context({ operation: 'customers.get', request: { customer_id: 'c' }, ids, timeToleranceMs: 1_000 }), customer([record('m_1', 809), record('m_2', 808)]), customer([record('t_1', 808), record('t_2', 809)]));
    expect(compare().differences.filter((d) => d.kind === 'id')).toEqual([]);
    expect([ids.targetOf('m_1'), ids.targetOf('m_2')]).toEqual(['t_1', 't_2']);
    expect(compare().differences.filter((d) => d.kind === 'id')).toEqual([]);
  });

  it("charges a clock move seen in a balance that never resets to PLAN-ALLOCATED-PERSISTS, whatever lock expired with it; in one that resets, to the move's own rule", () => {
    const balance = (over: Record<string, unknown>) => ({ feature_id: 'seats', granted: 5, remaining: 1, usage: 4, unlimited: false, overage_allowed: false, max_purchase: null, next_reset_at: null, breakdown: [], ...over });
    const check = (model: Record<string, unknown>, target: Record<string, unknown>) =>
      compareAnswers(context({ operation: 'balances.check', request: { customer_id: 'c', feature_id: 'seats' }, writer: { operation: 'clock.advance', tags: ['lock-expiry'] } }), ok({ allowed: true, customer_id: 'c', balance: model }), ok({ allowed: true, customer_id: 'c', balance: target })).differences.filter((d) => d.path === 'balance.usage').map((d) => d.rule);
    expect(check(balance({}), balance({ usage: 0, remaining: 5 }))).toEqual(['PLAN-ALLOCATED-PERSISTS']);
    expect(check(balance({ next_reset_at: 2_000 }), balance({ next_reset_at: 2_000, usage: 0, remaining: 5 }))).toEqual(['CHECK-LOCK-WIRE']);
  });

  it('counts a value the model has and the target nulls as shown by the document, where only the null form is the reference’s', () => {
    const entry = (reset: unknown) => ({ feature_id: 'msg', granted: 10, usage: 0, remaining: 10, reset, price: null });
    const balance = (reset: unknown) => ({ feature_id: 'msg', granted: 10, remaining: 10, usage: 0, unlimited: false, overage_allowed: false, max_purchase: null, next_reset_at: 2_000, breakdown: [entry(reset)] });
    const check = (model: unknown, target: unknown) =>
      compareAnswers(context({ operation: 'balances.check', request: { customer_id: 'c', feature_id: 'msg' } }), ok({ allowed: true, customer_id: 'c', balance: balance(model) }), ok({ allowed: true, customer_id: 'c', balance: balance(target) })).differences.filter((d) => d.key === 'BalanceBreakdownEntry.reset');
    expect(check({ interval: 'month', resets_at: 2_000 }, null)).toEqual([expect.objectContaining({ rule: 'CHECK-BREAKDOWN-RESET', documented: true })]);
  });

  it("charges one counter alone to its own rule, several together to the last write's", () => {
    const one = compareAnswers(context(), ok({ list: [pool()] }), ok({ list: [pool({ usage: 2 })] })).differences;
    expect(one.map((d) => [d.rule, d.path])).toEqual([['LIC-POOL-USAGE', 'list[0].usage']]);
    const written = compareAnswers(context({ writer: { operation: 'licenses.release', tags: [] } }), ok({ list: [pool()] }), ok({ list: [pool({ usage: 2, remaining: 1 })] })).differences;
    expect(new Set(written.map((d) => d.rule))).toEqual(new Set(['LIC-RELEASE-FREES-SEAT']));
  });

  it('owns a refusal of what the model accepts by the call, and a success other than 200 by ERR-SUCCESS-200', () => {
    expect(compareAnswers(context({ intent: 'LIC-LIST-CUSTOMER-POOLS' }), ok({ list: [] }), refused(404, 'customer_not_found')).differences.map((d) => d.rule)).toEqual(['LIC-LIST-CUSTOMER-POOLS']);
    expect(compareAnswers(context(), ok({ list: [] }), { status: 201, body: { list: [] } }).differences.map((d) => d.rule)).toEqual(['ERR-SUCCESS-200']);
  });

  it('owns a read the model answers not found and the target answers, after a delete, by the delete', () => {
    const program = { id: 'p', name: 'P' };
    const read = (writer?: { operation: 'referral_programs.delete' | 'referral_programs.update'; tags: string[] }) =>
      compareAnswers(context({ operation: 'referral_programs.get', request: { referral_program_id: 'p' }, ...(writer && { writer }) }), refused(404, 'reward_program_not_found'), ok(program)).differences.map((d) => d.rule);
    expect(read({ operation: 'referral_programs.delete', tags: [] })).toEqual(['REF-PROGRAM-DELETE']);
    expect(read({ operation: 'referral_programs.update', tags: [] })).toEqual(['REF-UNKNOWN-PROGRAM']);
    expect(read()).toEqual(['REF-UNKNOWN-PROGRAM']);
  });

  it('owns an accepted request the model refuses by the bound the request breaks', () => {
    const body = { limit: 0 };
    const result = compareAnswers(context({ operation: 'subscriptions.list', request: body }), refused(400, 'invalid_inputs'), ok({ list: [], has_more: false, next_cursor: null }));
    expect(result.differences.map((d) => [d.rule, d.kind])).toEqual([['LIST-LIMIT-BOUNDS', 'status']]);
  });

  it('compares two refusals by their codes, for a SHOULD rule only', () => {
    const [difference] = compareAnswers(context(), refused(404, 'customer_not_found'), refused(404, 'not_found')).differences;
    expect([difference?.rule, difference?.documented]).toEqual(['ERR-CUSTOMER-NOT-FOUND', false]);
  });

  it('maps the IDs the target chooses, and fails an ID that changes', () => {
    const ids = new IdMap();
    const record = (id: string) => ({ id, plan_id: 'p', auto_enable: false, add_on: false, status: 'active', past_due: false, canceled_at: null, expires_at: null, trial_ends_at: null, started_at: 1, current_period_start: null, current_period_end: null, quantity: 1, scope: 'customer', customer_id: 'c', entity_id: null, created_at: 1 });
    const page = (id: string) => ok({ list: [record(id)], has_more: false, next_cursor: null });
    const ctx = context({ operation: 'subscriptions.list', request: {}, ids });
    expect(compareAnswers(ctx, page('model_1'), page('target_9')).differences).toEqual([]);
    expect(compareAnswers(ctx, page('model_1'), page('target_9')).differences).toEqual([]);
    expect(compareAnswers(ctx, page('model_1'), page('target_10')).differences.map((d) => [d.rule, d.kind])).toEqual([['LIST-SUBSCRIPTIONS-RECURRING', 'id']]);
  });

  it('pairs records alike but for their IDs as the ID map knows them, whichever order each side lists them in, and a first guess gives way', () => {
    const record = (id: string, status: string) => ({ id, plan_id: 'p', auto_enable: false, add_on: false, status, past_due: false, canceled_at: null, expires_at: null, trial_ends_at: null, started_at: 1, current_period_start: null, current_period_end: null, quantity: 1, scope: 'customer', customer_id: 'c', entity_id: null, created_at: 1 });
    const page = (...rows: object[]) => ok({ list: rows, has_more: false, next_cursor: null });
    const compare = (ids: IdMap, model: Answer, target: Answer) => compareAnswers(context({ operation: 'subscriptions.list', request: { customer_id: 'c' }, ids }), model, target).differences;
    // Told apart (one active) first, then alike (both expired), the target listing them the other way round.
    const apart = new IdMap();
    expect(compare(apart, page(record('m_a', 'active'), record('m_b', 'expired')), page(record('t_b', 'expired'), record('t_a', 'active')))).toEqual([]);
    expect(compare(apart, page(record('m_b', 'expired'), record('m_a', 'expired')), page(record('t_a', 'expired'), record('t_b', 'expired')))).toEqual([]);
    // Alike first (a guess), then told apart the other way round than guessed.
    const guessed = new IdMap();
    expect(compare(guessed, page(record('m_a', 'active'), record('m_b', 'active')), page(record('t_b', 'active'), record('t_a', 'active')))).toEqual([]);
    expect(compare(guessed, page(record('m_a', 'active'), record('m_b', 'expired')), page(record('t_a', 'active'), record('t_b', 'expired')))).toEqual([]);
    // Told apart twice, the other way round: a record that changed IDs.
    expect(compare(apart, page(record('m_a', 'active'), record('m_b', 'expired')), page(record('t_b', 'active'), record('t_a', 'expired'))).map((d) => d.kind)).toContain('id');
  });

  it('passes over a field the known differences of the 2.3.0 reference list', () => {
    const plan = { id: 'p', name: 'P', description: null, group: null, version: 1, version_slug: 'v1', active: true, add_on: false, auto_enable: false, price: null, items: [], created_at: 1, env: 'sandbox', archived: false, base_variant_id: null, config: { ignore_past_due: false }, billing_controls: {}, metadata: {} };
    const { version_slug: _slug, active: _active, ...old } = plan;
    expect(compareAnswers(context({ operation: 'plans.get', request: { plan_id: 'p' } }), ok(plan), ok(old)).differences).toEqual([]);
  });

  it("takes a refusal the reference's known difference explains as known only where that difference holds (plan_ids left out of a switch to checkout)", () => {
    const update = (request: Record<string, unknown>) => context({ operation: 'referral_programs.update', request });
    const known = (request: Record<string, unknown>, target: Answer) => compareAnswers(update(request), refused(400, 'invalid_inputs'), target).known?.id;
    expect(known({ referral_program_id: 'r', redeem_on: 'checkout' }, ok({ id: 'r' }))).toBe('DIFF-REFERRAL-CHECKOUT-WITHOUT-PLAN-IDS');
    // No plan_ids either, but no switch to checkout: a bound the reference keeps too, compared.
    expect(known({ referral_program_id: 'r', max_redemptions: 0 }, ok({ id: 'r' }))).toBeUndefined();
    expect(compareAnswers(update({ referral_program_id: 'r', max_redemptions: 0 }), refused(400, 'invalid_inputs'), refused(404, 'reward_program_not_found')).differences).not.toEqual([]);
  });

  it("compares a reference-only answer's documented fields for its SHOULD rule only", () => {
    const customer = (granted: number) => ({ id: 'c', name: null, email: null, created_at: 1, fingerprint: null, stripe_id: null, env: 'sandbox', metadata: {}, send_email_receipts: false, billing_controls: {}, subscriptions: [], purchases: [], licenses: [pool({ granted })], balances: {}, flags: {} });
    const differences = compareAnswers(context({ operation: 'customers.get', request: { customer_id: 'c' } }), ok(customer(3)), ok(customer(4))).differences;
    expect(differences.map((d) => [d.rule, d.documented])).toEqual([['CUS-GET', false]]);
  });

  it('compares timestamps within the tolerance when the clocks are not shared', () => {
    const entity = (created: number) => ok({ list: [{ id: 'e', name: 'E', customer_id: 'c', feature_id: 'f', created_at: created, env: 'sandbox', subscriptions: [], purchases: [], balances: {}, invoices: [] }], next_cursor: null });
    expect(compareAnswers(context({ operation: 'entities.list', request: {}, timeToleranceMs: 1000 }), entity(10_000), entity(10_500)).differences).toEqual([]);
    expect(compareAnswers(context({ operation: 'entities.list', request: {} }), entity(10_000), entity(10)).differences.map((d) => d.rule)).toEqual(['CONV-TIMESTAMPS-MS']);
  });

  it('fails a key beyond the fields an embedded subscription carries "only"', () => {
    const sub = { plan_id: 'p', auto_enable: false, add_on: false, status: 'active', past_due: false, canceled_at: null, expires_at: null, trial_ends_at: null, started_at: 1, current_period_start: null, current_period_end: null, quantity: 1 };
    const entity = (subscription: Record<string, unknown>) => ok({ list: [{ id: 'e', name: 'E', customer_id: 'c', feature_id: 'f', created_at: 1, env: 'sandbox', subscriptions: [subscription], purchases: [], balances: {}, invoices: [] }], next_cursor: null });
    const differences = compareAnswers(context({ operation: 'entities.list', request: {} }), entity(sub), entity({ ...sub, customer_id: 'c' })).differences;
    expect(differences.map((d) => [d.rule, d.kind])).toEqual([['ENT-EMBEDDED-SUBSCRIPTION-FIELDS', 'extra']]);
  });

  it('charges a listed row a filter of the request excludes to that filter', () => {
    const record = (plan: string) => ({ id: plan, plan_id: plan, auto_enable: false, add_on: false, status: 'active', past_due: false, canceled_at: null, expires_at: null, trial_ends_at: null, started_at: 1, current_period_start: null, current_period_end: null, quantity: 1, scope: 'customer', customer_id: 'c', entity_id: null, created_at: 1 });
    const request = { customer_id: 'c', plan_id: 'a' };
    const differences = compareAnswers(context({ operation: 'subscriptions.list', request }), ok({ list: [record('a')], has_more: false, next_cursor: null }), ok({ list: [record('a'), record('b')], has_more: false, next_cursor: null })).differences;
    expect(differences.map((d) => [d.rule, d.kind])).toEqual([['LIST-PLAN-FILTER', 'membership']]);
  });
});
