/**
 * Conformance scenarios of features.delete (a setup operation of the reference the interface does
 * not document, which a run's cleanup uses). It refuses a feature a plan uses, until that plan is
 * deleted first (the order a cleanup follows); a deleted feature is listed and accepted nowhere
 * afterwards. Deletes that only build state are setup, with a
 * precondition that they took effect, so a target that keeps what it says it deleted blocks these
 * checks, never fails them.
 */
import { expect } from 'vitest';
import { deletionsOf, createCustomer, createFeature, createPlan, expectDeleted, requireGone, requireNotRead, scenario } from '../../support.ts';


export const featureDeleteScenarios = [
  scenario(
    {
      id: 'deletes.feature-in-use',
      title: 'features.delete refuses a feature two plans use (one archived), which stays; a feature no plan uses, and the first once both plans are deleted, are deleted',
      rules: ['FEAT-DELETE-IN-USE', 'FEAT-DELETE-SHAPE'],
    },
    async (t) => {
      const used = await createFeature(t, 'consumable');
      const unused = await createFeature(t, 'consumable');
      const item = { feature_id: used.id, included: 10, reset: { interval: 'month' as const } };
      const plans = [await createPlan(t, { items: [item] }), await createPlan(t, { items: [item] })];
      t.setup(await t.client.call('plans.update', { plan_id: plans[1]!.id, archived: true }));

      const refuse = async (why: string) => {
        t.expectError(await t.client.call('features.delete', { feature_id: used.id }), { rule: 'FEAT-DELETE-IN-USE' });
        const still = await t.client.call('features.get', { feature_id: used.id });
        t.check('FEAT-DELETE-IN-USE', () => expect(still.status, `the refused feature stays (${why})`).toBe(200));
      };
      await refuse('two plans use it');
      // The nearest valid request: a feature no plan uses.
      const deleteFeature = (featureId: string) => expectDeleted(t, 'FEAT-DELETE-IN-USE', deletionsOf(t).feature, featureId);
      await deleteFeature(unused.id);

      // Its plans go first (PLAN-DELETE proves that delete), as a cleanup does: one left is still a user, archived or not.
      for (const [i, plan] of plans.entries()) {
        t.setup(await t.client.call('plans.delete', { plan_id: plan.id }));
        requireGone(t, `plan ${plan.id}`, await t.client.call('plans.get', { plan_id: plan.id }));
        if (i === 0) await refuse('an archived plan still uses it');
      }
      await deleteFeature(used.id);
    },
  ),
];

export const featureDeleteLeftoverScenarios = [
  scenario(
    {
      id: 'deletes.feature-created-again',
      title:
        'a feature deleted once no plan uses it and created again under its ID as another type is the new feature: read and listed once as it, and checked as it for a customer of its old holder\'s ID, with nothing of the old one',
      rules: ['FEAT-DELETE-IN-USE', 'FEAT-GET', 'FEAT-LIST', 'CHECK-BALANCE-NULL', 'CHECK-ALLOWED-BOOLEAN-IN-PLAN', 'CHECK-DENIED-OTHERWISE'],
    },
    async (t) => {
      // The old feature: consumable units a plan granted and a customer used.
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [{ feature_id: units.id, included: 10, reset: { interval: 'month' } }] });
      const holder = await createCustomer(t);
      t.setup(await t.client.call('billing.attach', { customer_id: holder.id, plan_id: plan.id }));
      t.setup(await t.client.call('balances.track', { customer_id: holder.id, feature_id: units.id, value: 4 }));
      // No plan uses the units once the customer and then the plan are gone.
      t.setup(await t.client.call('customers.delete', { customer_id: holder.id }));
      t.setup(await t.client.call('plans.delete', { plan_id: plan.id }));
      t.expectOk(await t.client.call('features.delete', { feature_id: units.id }), 'FEAT-DELETE-IN-USE');

      // The same ID again, as a boolean flag of another name.
      const name = `Flag again ${units.id}`;
      t.expectOk(await t.client.call('features.create', { feature_id: units.id, name, type: 'boolean' }), 'FEAT-GET');
      const again = t.expectOk(await t.client.call('features.get', { feature_id: units.id }), 'FEAT-GET');
      t.check('FEAT-GET', () => expect({ id: again.id, name: again.name, type: again.type }, 'the feature reads as created the second time').toEqual({ id: units.id, name, type: 'boolean' }));
      const listed = t.expectOk(await t.client.call('features.list', {}), 'FEAT-LIST').list.filter((feature) => feature.id === units.id);
      t.check('FEAT-LIST', () => expect(listed.map((feature) => [feature.id, feature.name, feature.type]), 'features.list lists it once, as the new feature').toEqual([[units.id, name, 'boolean']]));

      // A customer of the same ID as the old holder, without a plan: no balance, not allowed; with a plan including the flag: allowed.
      const customer = await createCustomer(t, { customer_id: holder.id });
      const without = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: units.id }), 'CHECK-BALANCE-NULL');
      t.check('CHECK-BALANCE-NULL', () => expect(without.balance, 'no balance of the old units is left for a customer of the same ID').toBeNull());
      t.check('CHECK-DENIED-OTHERWISE', () => expect(without.allowed, 'a flag no plan of the customer includes is not allowed').toBe(false));
      const flagPlan = await createPlan(t, { items: [{ feature_id: units.id }] });
      t.setup(await t.client.call('billing.attach', { customer_id: customer.id, plan_id: flagPlan.id }));
      const withPlan = t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: units.id }), 'CHECK-ALLOWED-BOOLEAN-IN-PLAN');
      t.check('CHECK-ALLOWED-BOOLEAN-IN-PLAN', () => expect(withPlan.allowed, 'the new flag, included in the plan, is allowed').toBe(true));
    },
  ),
  scenario(
    {
      id: 'deletes.feature-leaves-nothing',
      title:
        'after features.delete of a feature no plan uses, features.list no longer lists it, and balances.check, plans.create and entities.create naming it answer 404 feature_not_found, also where it was read just before',
      rules: ['FEAT-LIST', 'ERR-FEATURE-NOT-FOUND'],
    },
    async (t) => {
      const doomed = await createFeature(t, 'allocated');
      const kept = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      // Read once before the delete: a target that keeps answers until the data changes must see the delete.
      t.setup(await t.client.call('balances.check', { customer_id: customer.id, feature_id: doomed.id, required_balance: 0 }));
      const before = t.expectOk(await t.client.call('features.list', {}), 'FEAT-LIST');
      t.check('FEAT-LIST', () => expect((before.list ?? []).map((f) => f.id), 'features.list lists the feature before its delete').toContain(doomed.id));

      t.setup(await t.client.call('features.delete', { feature_id: doomed.id }));
      requireNotRead(t, `feature ${doomed.id}`, await t.client.call('features.get', { feature_id: doomed.id }));

      const after = t.expectOk(await t.client.call('features.list', {}), 'FEAT-LIST');
      t.check('FEAT-LIST', () => {
        const ids = (after.list ?? []).map((f) => f.id);
        expect(ids, 'features.list no longer lists a deleted feature').not.toContain(doomed.id);
        expect(ids, 'and still lists the others').toContain(kept.id);
      });
      const notFound = { status: 404, code: 'feature_not_found', rule: 'ERR-FEATURE-NOT-FOUND' } as const;
      t.expectError(await t.client.call('balances.check', { customer_id: customer.id, feature_id: doomed.id, required_balance: 0 }), notFound);
      const planId = t.ns.id('plan');
      t.expectError(await t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, items: [{ feature_id: doomed.id, included: 3 }] }), notFound);
      const entityId = t.ns.id('ent');
      t.expectError(await t.client.call('entities.create', { customer_id: customer.id, entity_id: entityId, feature_id: doomed.id, name: `Entity ${entityId}` }), notFound);
      // The nearest valid requests: the same with a feature that exists.
      await createPlan(t, { plan_id: planId, items: [{ feature_id: kept.id, included: 3 }] });
      t.setup(await t.client.call('entities.create', { customer_id: customer.id, entity_id: entityId, feature_id: kept.id, name: `Entity ${entityId}` }));
    },
  ),
];
