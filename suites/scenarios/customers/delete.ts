/**
 * Conformance scenarios of customers.delete (a setup operation of the reference the interface does
 * not document, which a run's cleanup uses). It removes the customer it names and no other.
 * Deletes that only build state are setup, with a precondition that they took effect, so a target
 * that keeps what it says it deleted blocks these checks, never fails them.
 */
import { expect } from 'vitest';
import { type Deletion, type T, attach, createCustomer, createFeature, createPlan, expectDeleted, scenario } from '../../support.ts';

function deletions(t: T) {
  return {
    customer: { kind: 'customer', remove: (id) => t.client.call('customers.delete', { customer_id: id }), read: (id) => t.client.call('customers.get', { customer_id: id }), code: 'customer_not_found' },
  } satisfies Record<string, Deletion>;
}

export const customerDeleteScenarios = [
  scenario(
    {
      id: 'deletes.customer',
      title: 'customers.delete removes the customer it names, also one holding a plan, and no other: customers.get then answers 404 customer_not_found',
      rules: ['CUS-DELETE', 'CUS-DELETE-SHAPE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const [holder, bare, bystander] = [await createCustomer(t), await createCustomer(t), await createCustomer(t)];
      await attach(t, holder.id, plan.id);
      await attach(t, bystander.id, plan.id);
      for (const customer of [holder, bare]) {
        t.setup(await t.client.call('customers.get', { customer_id: customer.id }));
        await expectDeleted(t, 'CUS-DELETE', deletions(t).customer, customer.id);
      }
      const kept = t.expectOk(await t.client.call('customers.get', { customer_id: bystander.id }), 'CUS-DELETE');
      t.check('CUS-DELETE', () => expect((kept.subscriptions ?? []).map((s) => s.plan_id), 'another customer on the same plan keeps it').toContain(plan.id));
    },
  ),
];
