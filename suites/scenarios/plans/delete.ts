/**
 * Conformance scenarios of plans.delete (a setup operation of the reference the interface does not
 * document, which a run's cleanup uses). It removes a plan no customer holds any more, its latest
 * version only unless all_versions is sent, and plans.get, plans.list and billing.attach then answer
 * as for a plan that never was. Deletes
 * that only build state are setup, with a precondition that they took effect, so a target that
 * keeps what it says it deleted blocks these checks, never fails them.
 */
import { expect } from 'vitest';
import { deletionsOf, attach, createCustomer, createFeature, createPlan, expectDeleted, requireGone, requireNotRead, scenario } from '../../support.ts';
import { monthly } from './support.ts';


export const planDeleteScenarios = [
  scenario(
    {
      id: 'deletes.plan',
      title: 'plans.delete removes a plan no customer holds, and one whose only customer was deleted: plans.get then answers 404',
      rules: ['PLAN-DELETE', 'PLAN-DELETE-SHAPE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const unused = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const held = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, held.id);

      const deletePlan = (planId: string) => expectDeleted(t, 'PLAN-DELETE', deletionsOf(t).plan, planId);
      await deletePlan(unused.id);
      t.setup(await t.client.call('plans.get', { plan_id: held.id }));

      // Its only customer goes first (CUS-DELETE proves that delete), as a cleanup does.
      t.setup(await t.client.call('customers.delete', { customer_id: customer.id }));
      requireGone(t, `customer ${customer.id}`, await t.client.call('customers.get', { customer_id: customer.id }));
      await deletePlan(held.id);
    },
  ),
];

export const planVersionDeleteScenarios = [
  scenario(
    {
      id: 'deletes.plan-latest-version',
      title:
        'plans.delete of a plan with two versions deletes the latest only: plans.get then answers version 1 and version 2 reads as not found; with all_versions every version goes, from plans.get, plans.list and billing.attach',
      rules: ['PLAN-DELETE-LATEST-VERSION', 'PLAN-DELETE', 'ERR-PLAN-NOT-FOUND', 'PLAN-LIST'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [monthly(feature.id, 5)] });
      const holder = await createCustomer(t);
      await attach(t, holder.id, plan.id);
      // A change of items while a customer is on the plan makes version 2 (PLAN-UPDATE-NEW-VERSION proves it).
      const latest = t.setup(await t.client.call('plans.update', { plan_id: plan.id, items: [monthly(feature.id, 8)] }));
      t.precondition('plans.update of the items made version 2', () => expect(latest.version).toBe(plan.version + 1));
      // Its only customer goes first, as a cleanup does: no version is held then.
      t.setup(await t.client.call('customers.delete', { customer_id: holder.id }));
      requireNotRead(t, `customer ${holder.id}`, await t.client.call('customers.get', { customer_id: holder.id }));

      t.expectOk(await t.client.call('plans.delete', { plan_id: plan.id }), 'PLAN-DELETE-LATEST-VERSION');
      const read = await t.client.call('plans.get', { plan_id: plan.id });
      // That the delete removed something at all is PLAN-DELETE's: the version it named is no longer the plan's.
      t.check('PLAN-DELETE', () => expect(read.ok && read.body.version, 'plans.get no longer answers the deleted version').not.toBe(latest.version));
      const left = t.expectOk(read, 'PLAN-DELETE-LATEST-VERSION');
      t.check('PLAN-DELETE-LATEST-VERSION', () => {
        expect(left.version, 'plans.get answers the version before the deleted one').toBe(plan.version);
        expect((left.items ?? []).map((item) => item.included), 'with its own items').toEqual([5]);
      });
      t.expectError(await t.client.call('plans.get', { plan_id: plan.id, version: latest.version }), { status: 404, code: 'product_not_found', rule: 'ERR-PLAN-NOT-FOUND' });
      const listed = t.expectOk(await t.client.call('plans.list', {}), 'PLAN-LIST');
      t.check('PLAN-LIST', () => expect((listed.list ?? []).filter((p) => p.id === plan.id).map((p) => p.version), 'plans.list lists the version left, once').toEqual([plan.version]));

      t.expectOk(await t.client.call('plans.delete', { plan_id: plan.id, all_versions: true }), 'PLAN-DELETE-LATEST-VERSION');
      const gone = await t.client.call('plans.get', { plan_id: plan.id });
      t.check('PLAN-DELETE-LATEST-VERSION', () => expect(gone.status, 'with all_versions no version is left').toBe(404));
      t.expectError(await t.client.call('plans.get', { plan_id: plan.id, version: plan.version }), { status: 404, code: 'product_not_found', rule: 'ERR-PLAN-NOT-FOUND' });
      const customer = await createCustomer(t);
      t.expectError(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: plan.id }), { status: 404, code: 'product_not_found', rule: 'ERR-PLAN-NOT-FOUND' });
      const after = t.expectOk(await t.client.call('plans.list', {}), 'PLAN-LIST');
      t.check('PLAN-LIST', () => expect((after.list ?? []).map((p) => p.id), 'plans.list no longer lists a deleted plan').not.toContain(plan.id));
    },
  ),
];
