/**
 * Scenarios of Errors that every operation shares: success is exactly 200, for the documented
 * operations and the setup ones, and an unknown customer is 404 customer_not_found wherever one is
 * named. The error codes of one operation's conditions are with that operation's scenarios.
 */
import { expect } from 'vitest';
import type { OperationName } from '../../../spec/operations.ts';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../../support.ts';
import { freshFeature, rawCall } from './support.ts';

/**
 * Sends a valid request that must succeed: its being a success (2xx) is a precondition, its status
 * being exactly 200 is `rule`'s.
 */
async function succeedsWith200(t: T<'ERR-SUCCESS-200' | 'ERR-SUCCESS-200-SETUP'>, rule: 'ERR-SUCCESS-200' | 'ERR-SUCCESS-200-SETUP', operation: OperationName, body: Record<string, unknown>): Promise<void> {
  const result = await rawCall(t, operation, body);
  t.precondition(`${operation} of a valid request succeeds`, () => {
    expect(result.status, `${operation}: ${result.text.slice(0, 200)}`).toBeGreaterThanOrEqual(200);
    expect(result.status, `${operation}: ${result.text.slice(0, 200)}`).toBeLessThan(300);
  });
  t.check(rule, () => expect(result.status, `${operation} answered a success with ${result.status}`).toBe(200));
}

export const errorsScenarios = [
  scenario(
    {
      id: 'envelope.success-200',
      title: 'successful calls of the documented operations answer exactly 200, not another 2xx',
      rules: ['ERR-SUCCESS-200'],
    },
    async (t) => {
      // The documented creates come first, made here: a setup builder would block on a 201 before this rule is asked.
      const succeeded = (operation: OperationName, body: Record<string, unknown>) => succeedsWith200(t, 'ERR-SUCCESS-200', operation, body);
      const { featureId, body } = freshFeature(t);
      await succeeded('features.create', body);
      const planId = t.ns.id('plan');
      await succeeded('plans.create', { plan_id: planId, name: 'Success plan', items: [{ feature_id: featureId }] });
      await succeeded('plans.get', { plan_id: planId });
      const customer = await createCustomer(t);
      await attach(t, customer.id, planId);
      for (const operation of ['licenses.list', 'subscriptions.list', 'purchases.list', 'entities.list'] as const) await succeeded(operation, { customer_id: customer.id });
      await succeeded('balances.check', { customer_id: customer.id, feature_id: featureId });
      await succeeded('billing.preview_multi_update', { customer_id: customer.id, updates: [{ plan_id: planId, cancel_action: 'cancel_immediately' }] });
    },
  ),
  scenario(
    {
      id: 'envelope.success-200-setup',
      title: 'successful calls of the setup operations answer exactly 200, not another 2xx',
      rules: ['ERR-SUCCESS-200-SETUP'],
    },
    async (t) => {
      // Built with documented operations only, so a setup operation's 201 is asked before anything blocks on it.
      const feature = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 2 }] });
      const succeeded = (operation: OperationName, body: Record<string, unknown>) => succeedsWith200(t, 'ERR-SUCCESS-200-SETUP', operation, body);
      const [customer_id, entity_id] = [t.ns.id('cus'), t.ns.id('ent')];
      await succeeded('customers.get_or_create', { customer_id });
      await succeeded('customers.get', { customer_id });
      await succeeded('billing.attach', { customer_id, plan_id: plan.id });
      await succeeded('entities.create', { customer_id, entity_id, feature_id: feature.id, name: 'Desk' });
      await succeeded('entities.get', { customer_id, entity_id });
      await succeeded('features.get', { feature_id: feature.id });
      await succeeded('plans.list', {});
    },
  ),
  scenario(
    {
      id: 'envelope.customer-not-found',
      // customers.get of an unknown customer is CUS-GET-UNKNOWN's (customers.get-unknown).
      title: 'an unknown customer_id is answered 404 customer_not_found by the operations that take one, and is not created',
      rules: ['ERR-CUSTOMER-NOT-FOUND'],
    },
    async (t) => {
      const feature = await createFeature(t, 'allocated');
      const plan = await createPlan(t, { items: [{ feature_id: feature.id, included: 1 }] });
      const customerId = t.ns.id('cus');
      const calls = [
        () => t.client.call('licenses.list', { customer_id: customerId }),
        () => t.client.call('billing.preview_multi_update', { customer_id: customerId, updates: [{ plan_id: plan.id, cancel_action: 'cancel_immediately' }] }),
        () => t.client.call('balances.check', { customer_id: customerId, feature_id: feature.id }),
        () => t.client.call('billing.attach', { customer_id: customerId, plan_id: plan.id }),
      ];
      for (const call of calls) t.expectError(await call(), { status: 404, code: 'customer_not_found' });
      // The positive control: the customer, once created, is found by the same calls.
      await createCustomer(t, { customer_id: customerId });
      t.setup(await t.client.call('licenses.list', { customer_id: customerId }));
    },
  ),
];
