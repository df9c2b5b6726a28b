/**
 * Conformance scenarios of features.delete (a setup operation of the reference the interface does
 * not document, which a run's cleanup uses). It refuses a feature a plan uses, until that plan is
 * deleted first (the order a cleanup follows). Deletes that only build state are setup, with a
 * precondition that they took effect, so a target that keeps what it says it deleted blocks these
 * checks, never fails them.
 */
import { expect } from 'vitest';
import { type Deletion, type T, createFeature, createPlan, expectDeleted, requireGone, scenario } from '../../support.ts';

function deletions(t: T) {
  return {
    feature: { kind: 'feature', remove: (id) => t.client.call('features.delete', { feature_id: id }), read: (id) => t.client.call('features.get', { feature_id: id }) },
  } satisfies Record<string, Deletion>;
}

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
      const deleteFeature = (featureId: string) => expectDeleted(t, 'FEAT-DELETE-IN-USE', deletions(t).feature, featureId);
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
