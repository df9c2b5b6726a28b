/**
 * Conformance scenarios of plans.delete (a setup operation of the reference the interface does not
 * document, which a run's cleanup uses). It removes a plan no customer holds any more. Deletes
 * that only build state are setup, with a precondition that they took effect, so a target that
 * keeps what it says it deleted blocks these checks, never fails them.
 */
import { type Deletion, type T, attach, createCustomer, createFeature, createPlan, expectDeleted, requireGone, scenario } from '../../support.ts';

function deletions(t: T) {
  return {
    plan: { kind: 'plan', remove: (id) => t.client.call('plans.delete', { plan_id: id }), read: (id) => t.client.call('plans.get', { plan_id: id }) },
  } satisfies Record<string, Deletion>;
}

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

      const deletePlan = (planId: string) => expectDeleted(t, 'PLAN-DELETE', deletions(t).plan, planId);
      await deletePlan(unused.id);
      t.setup(await t.client.call('plans.get', { plan_id: held.id }));

      // Its only customer goes first (CUS-DELETE proves that delete), as a cleanup does.
      t.setup(await t.client.call('customers.delete', { customer_id: customer.id }));
      requireGone(t, `customer ${customer.id}`, await t.client.call('customers.get', { customer_id: customer.id }));
      await deletePlan(held.id);
    },
  ),
];
