/**
 * Scenarios of the preview's request: which entity an update targets, the required fields and enums,
 * and updates refused (a plan not held, end of cycle without a cycle, one plan twice).
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createPlan, scenario, type T } from '../../support.ts';
import { cancelNow, CENT, monthly, type PreviewBody } from './support.ts';

/** The entities of the customer holding `planId` (own or inherited), as entities.list (documented) shows them, sorted. */
async function holdersOf(t: T, customerId: string, planId: string): Promise<string[]> {
  const { list } = t.setup(await t.client.call('entities.list', { customer_id: customerId, limit: 200 }), ['list']);
  return list
    .filter((entity) => (entity.subscriptions ?? []).some((subscription) => subscription.plan_id === planId && subscription.status === 'active'))
    .map((entity) => entity.id)
    .sort();
}

/**
 * The refund mode goes by a wire name the document does not show (the profile's, `refund_last_payment`
 * by default), and the reference at HEAD strips it silently: before PREV-REFUND-MODE-ENUM (MUST)
 * relies on it, the target must be seen reading it. Ten seconds into the period of a large price,
 * `full` refunds more than the default (prorated) does; with the field left out both previews are
 * the default. A target that does not read it makes the rule SKIP, naming the profile key.
 */
async function requireRefundModeRead(t: T, customerId: string, planId: string): Promise<void> {
  await t.control.call('clock.advance', { ms: 10_000 });
  await t.requireWireName('billing.preview_multi_update.refund_mode', async (send) => {
    const body = { customer_id: customerId, updates: cancelNow([planId]), ...(send && { refund_last_payment: 'full' as const }) };
    const { total } = t.setup(await t.client.call('billing.preview_multi_update', body), ['total']);
    const prorated = t.setup(await t.client.call('billing.preview_multi_update', { customer_id: customerId, updates: cancelNow([planId]) }), ['total']).total;
    return Math.abs(total - prorated) > CENT;
  });
}

export const requestsScenarios = [
  scenario(
    {
      id: 'preview.entity-scoping',
      title: "an update targets the plan of its own entity_id, overriding the request's, and otherwise the plan of the request's entity_id",
      rules: ['PREV-PER-UPDATE-ENTITY', 'PREV-REQUEST-ENTITY'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      const [holder, other] = [await createEntity(t, customer.id, seat.id), await createEntity(t, customer.id, seat.id)];
      await attach(t, customer.id, plan.id, { entity_id: holder.id });

      const own = [{ plan_id: plan.id, entity_id: holder.id, cancel_action: 'cancel_immediately' as const }];
      for (const [why, body, rule] of [
        ["the update's own entity_id", { customer_id: customer.id, updates: own }, 'PREV-PER-UPDATE-ENTITY'],
        ["the update's own entity_id over the request's", { customer_id: customer.id, entity_id: other.id, updates: own }, 'PREV-PER-UPDATE-ENTITY'],
        ["the request's entity_id", { customer_id: customer.id, entity_id: holder.id, updates: cancelNow([plan.id]) }, 'PREV-REQUEST-ENTITY'],
      ] as const) {
        // What each preview is measured against: the plan is the holder's alone (BILL-ATTACH-ENTITY), and the previews before changed nothing (PREV-NO-CHANGES).
        const holders = await holdersOf(t, customer.id, plan.id);
        t.precondition(`before previewing ${why}: the plan is held by ${holder.id} alone`, () => expect(holders).toEqual([holder.id]));
        const result = t.expectOk(await t.client.call('billing.preview_multi_update', body), rule);
        t.precondition(`${why}: a free plan previews no entry`, () => expect(result.subscriptions).toEqual([]));
      }
      const elsewhere = await t.client.call('billing.preview_multi_update', { customer_id: customer.id, entity_id: other.id, updates: cancelNow([plan.id]) });
      t.expectError(elsewhere, { rule: 'PREV-REQUEST-ENTITY' });
    },
  ),
  scenario(
    {
      id: 'preview.request-validation',
      title: 'billing.preview_multi_update refuses a missing customer_id or updates, an empty updates, an update without plan_id or cancel_action, and a value outside the cancel enum',
      rules: ['PREV-REQUIRED-FIELDS', 'PREV-UPDATE-FIELDS', 'PREV-UPDATES-MIN-ONE', 'PREV-CANCEL-ACTION-ENUM'],
    },
    async (t) => {
      const plan = await createPlan(t, { group: t.ns.id('grp') });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const valid = { customer_id: customer.id, updates: cancelNow([plan.id]) };
      // The nearest valid request is accepted (positive control), so the refusals below are about their one defect.
      t.setup(await t.client.call('billing.preview_multi_update', valid));
      type ValidationRule = Parameters<typeof t.check>[0];
      const expectRefused = async (why: string, body: Record<string, unknown>, rule: ValidationRule) => {
        const result = await t.client.call('billing.preview_multi_update', body as PreviewBody);
        t.check(rule, () => expect(result.ok, `${why} must be refused`).toBe(false));
        t.expectError(result, { rule });
      };
      await expectRefused('no customer_id', { updates: valid.updates }, 'PREV-REQUIRED-FIELDS');
      await expectRefused('no updates', { customer_id: customer.id }, 'PREV-REQUIRED-FIELDS');
      await expectRefused('updates []', { customer_id: customer.id, updates: [] }, 'PREV-UPDATES-MIN-ONE');
      await expectRefused('an update without cancel_action', { customer_id: customer.id, updates: [{ plan_id: plan.id }] }, 'PREV-UPDATE-FIELDS');
      await expectRefused('an update without plan_id', { customer_id: customer.id, updates: [{ cancel_action: 'cancel_immediately' }] }, 'PREV-UPDATE-FIELDS');
      const badAction = await t.client.call('billing.preview_multi_update', { ...valid, updates: [{ plan_id: plan.id, cancel_action: 'cancel_later' }] } as unknown as PreviewBody);
      t.expectError(badAction, { status: 400, code: 'invalid_inputs', rule: 'PREV-CANCEL-ACTION-ENUM' });
    },
  ),
  scenario(
    {
      id: 'preview.refund-mode-enum',
      title: 'a refund mode outside prorated and full is refused, once the target is seen reading the field; prorated and full are accepted',
      rules: ['PREV-REFUND-MODE-ENUM'],
      // The probe that the field is read needs a paid plan and ten seconds of its period.
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const plan = await createPlan(t, monthly(50_000, { group: t.ns.id('grp') }));
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      await requireRefundModeRead(t, customer.id, plan.id);
      const valid = { customer_id: customer.id, updates: cancelNow([plan.id]) };
      for (const refund_last_payment of ['prorated', 'full'] as const) t.setup(await t.client.call('billing.preview_multi_update', { ...valid, refund_last_payment }));
      for (const mode of ['partial', 'PRORATED', '']) {
        const result = await t.client.call('billing.preview_multi_update', { ...valid, refund_last_payment: mode } as unknown as PreviewBody);
        t.check('PREV-REFUND-MODE-ENUM', () => expect(result.ok, `refund mode ${JSON.stringify(mode)} must be refused`).toBe(false));
        t.expectError(result, { rule: 'PREV-REFUND-MODE-ENUM' });
      }
    },
  ),
  scenario(
    {
      id: 'preview.update-refusals',
      title:
        'the preview refuses an update of a plan the customer does not hold or no longer holds, cancel_end_of_cycle of a free (and, where paid plans attach, a one-off) plan, and two updates of one plan; the nearest valid updates are accepted',
      rules: ['PREV-TARGET-HELD', 'PREV-END-OF-CYCLE-NEEDS-CYCLE', 'PREV-ONE-UPDATE-PER-PLAN'],
      // None of the three needs a paid plan; a one-off and a monthly plan are added where they attach.
      uses: ['paid-attach'],
    },
    async (t) => {
      const paid = t.has('paid-attach');
      const free = await createPlan(t, { add_on: true });
      const otherFree = await createPlan(t, { add_on: true });
      const group = t.ns.id('grp');
      const [replaced, replacing] = [await createPlan(t, { group }), await createPlan(t, { group })];
      const never = await createPlan(t, { add_on: true });
      const pack = paid ? await createPlan(t, { add_on: true, price: { amount: 5, interval: 'one_off' } }) : undefined;
      const monthly = paid ? await createPlan(t, { add_on: true, price: { amount: 20, interval: 'month' } }) : undefined;
      const customer = await createCustomer(t);
      for (const plan of [free, otherFree, replaced, replacing, ...(pack ? [pack] : []), ...(monthly ? [monthly] : [])]) await attach(t, customer.id, plan.id);
      // Through the setup read customers.get (the listings are not this part's); the replacement itself is PLAN-GROUP-EXCLUSIVE's.
      const { subscriptions } = t.setup(await t.client.call('customers.get', { customer_id: customer.id }), ['subscriptions']);
      t.precondition(`${replacing.id} replaced ${replaced.id} of its group`, () => expect(subscriptions.filter((sub) => sub.status === 'active').map((sub) => sub.plan_id)).not.toContain(replaced.id));
      type Update = { plan_id: string; cancel_action: 'cancel_immediately' | 'cancel_end_of_cycle' };
      const previewOf = async (...updates: Update[]) => t.client.call('billing.preview_multi_update', { customer_id: customer.id, updates: updates as [Update, ...Update[]] });
      const now = (plan: { id: string }): Update => ({ plan_id: plan.id, cancel_action: 'cancel_immediately' });
      const atCycleEnd = (plan: { id: string }): Update => ({ plan_id: plan.id, cancel_action: 'cancel_end_of_cycle' });
      // The nearest valid requests.
      for (const plan of [free, replacing, ...(pack ? [pack] : []), ...(monthly ? [monthly] : [])]) t.setup(await previewOf(now(plan)));
      t.setup(await previewOf(now(free), now(otherFree)));
      if (monthly) t.setup(await previewOf(atCycleEnd(monthly)));

      for (const plan of [never, replaced]) t.expectError(await previewOf(now(plan)), { rule: 'PREV-TARGET-HELD', status: 404, code: 'cus_product_not_found' });
      for (const plan of [free, ...(pack ? [pack] : [])]) t.expectError(await previewOf(atCycleEnd(plan)), { rule: 'PREV-END-OF-CYCLE-NEEDS-CYCLE', status: 400 });
      // Refused either way the reference was seen to: 400 invalid_request (its source, observed-behaviour §3.6), or 404
      // cus_product_not_found when it folds the updates in order and the second finds the plan gone (exchange 179).
      t.expectError(await previewOf(now(free), now(free)), { rule: 'PREV-ONE-UPDATE-PER-PLAN', status: [400, 404] });
      if (monthly) t.expectError(await previewOf(now(monthly), atCycleEnd(monthly)), { rule: 'PREV-ONE-UPDATE-PER-PLAN', status: [400, 404] });
    },
  ),
];
