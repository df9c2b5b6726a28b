/** State the envelope scenarios share: a customer holding a plan, with an entity tied to the plan's feature. */
import { attach, createCustomer, createEntity, createFeature, createPlan, type T } from '../support.ts';

export async function createCustomerWithEntity(t: T) {
  const feature = await createFeature(t, 'allocated');
  const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 2 }] });
  const customer = await createCustomer(t);
  await attach(t, customer.id, plan.id);
  const entity = await createEntity(t, customer.id, feature.id);
  return { feature, plan, customer, entity };
}
