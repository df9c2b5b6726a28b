/**
 * Scenarios of Errors that every operation shares: success is exactly 200, for the documented
 * operations and the setup ones, an unknown customer is 404 customer_not_found wherever one is
 * named, and a license request wrong in two ways is refused for the first in the reference's order.
 * The error codes of one operation's conditions are with that operation's scenarios.
 */
import { expect } from 'vitest';
import type { OperationName } from '../../../spec/operations.ts';
import { isRouteNotServed, SetupNotServed } from '../../framework/index.ts';
import { attach, createCustomer, createFeature, createLicensePool, createPlan, licenseEntities, scenario, type T } from '../../support.ts';
import { freshFeature, rawCall } from './support.ts';

/**
 * Sends a valid request that must succeed: its being a success (2xx) is a precondition, its status
 * being exactly 200 is `rule`'s. An operation the target does not serve (an unknown route) has no
 * success to judge: left out.
 */
async function succeedsWith200(t: T<'ERR-SUCCESS-200' | 'ERR-SUCCESS-200-SETUP'>, rule: 'ERR-SUCCESS-200' | 'ERR-SUCCESS-200-SETUP', operation: OperationName, body: Record<string, unknown>): Promise<void> {
  const result = await rawCall(t, operation, body);
  if (isRouteNotServed(result.status, result.body)) return;
  t.precondition(`${operation} of a valid request succeeds`, () => {
    expect(result.status, `${operation}: ${result.text.slice(0, 200)}`).toBeGreaterThanOrEqual(200);
    expect(result.status, `${operation}: ${result.text.slice(0, 200)}`).toBeLessThan(300);
  });
  t.check(rule, () => expect(result.status, `${operation} answered a success with ${result.status}`).toBe(200));
}

/** How a refusal is told apart: its status and error code. */
function refusalOf(result: Answer) {
  return { status: result.status, code: result.status === 200 ? undefined : (result.body as { code?: unknown } | null)?.code };
}

type Answer = { readonly status: number; readonly body: unknown };

/**
 * A request wrong in two ways is refused as the one that comes first in the reference's order: its
 * answer is the answer to `first` alone. Each way alone must be refused, and distinguishably (another
 * status or code), else which one won cannot be seen and the target is not asked (SKIP).
 */
async function expectFirstWins(t: T<'ERR-PRECEDENCE'>, what: string, first: Answer, second: Answer, both: Answer): Promise<void> {
  const [alone, other, combined] = [refusalOf(first), refusalOf(second), refusalOf(both)];
  if (first.status === 200 || second.status === 200 || JSON.stringify(alone) === JSON.stringify(other)) {
    throw new SetupNotServed(`${what}: the two wrongs alone are not refused distinguishably (${JSON.stringify(alone)} and ${JSON.stringify(other)}), so which one wins cannot be seen`);
  }
  t.check('ERR-PRECEDENCE', () => expect(combined, `${what}: refused as the first alone is, ${JSON.stringify(alone)}, not as the second, ${JSON.stringify(other)}`).toEqual(alone));
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
  scenario(
    {
      id: 'envelope.error-precedence',
      title:
        'license requests wrong in two ways are refused for the first wrong in the reference order: an invalid body before an unknown customer, an unknown customer before duplicate entities, an unknown entity before duplicates in a release',
      rules: ['ERR-PRECEDENCE'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 2);
      const [seat] = licenseEntities(t, setup, 1);
      t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [seat!] }));
      const unknownCustomer = t.ns.id('cus');
      const attachAs = (customerId: string, entities: unknown[], planId: unknown = setup.licensePlan.id) => rawCall(t, 'licenses.attach', { customer_id: customerId, plan_id: planId, entities });
      const [fresh] = licenseEntities(t, setup, 1);
      const twice = [fresh!, fresh!];

      await expectFirstWins(
        t,
        'licenses.attach with an invalid plan_id (a number) for an unknown customer',
        await attachAs(setup.customerId, [fresh!], 42),
        await attachAs(unknownCustomer, [fresh!]),
        await attachAs(unknownCustomer, [fresh!], 42),
      );
      await expectFirstWins(t, 'licenses.attach with one entity twice for an unknown customer', await attachAs(unknownCustomer, [fresh!]), await attachAs(setup.customerId, twice), await attachAs(unknownCustomer, twice));

      const unknownEntity = t.ns.id('ent');
      const release = (entityIds: string[]) => rawCall(t, 'licenses.release', { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: entityIds });
      // Refused ones release nothing: the assigned entity is named again and again.
      await expectFirstWins(t, 'licenses.release of an unknown entity and an assigned one twice', await release([unknownEntity]), await release([seat!.entity_id, seat!.entity_id]), await release([unknownEntity, seat!.entity_id, seat!.entity_id]));
    },
  ),
  scenario(
    {
      id: 'envelope.error-precedence-more-pairs',
      title:
        'more license requests wrong in two ways, each refused for the first wrong in the reference order: a missing or mistyped field before an unknown customer (attach and release), an unknown customer before insufficient capacity, and before duplicate IDs in a release',
      rules: ['ERR-PRECEDENCE'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 1);
      const [seat] = licenseEntities(t, setup, 1);
      t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [seat!] }));
      const unknownCustomer = t.ns.id('cus');
      const attachAs = (customerId: string, body: Record<string, unknown>) => rawCall(t, 'licenses.attach', { customer_id: customerId, plan_id: setup.licensePlan.id, ...body });
      const releaseAs = (customerId: string, body: Record<string, unknown>) => rawCall(t, 'licenses.release', { customer_id: customerId, license_plan_id: setup.licensePlan.id, ...body });
      const [fresh, other] = licenseEntities(t, setup, 2);

      // Each pair beside the nearest valid request of each wrong alone; refused requests change nothing, so the pool stays full.
      await expectFirstWins(t, 'licenses.attach without entities for an unknown customer', await attachAs(setup.customerId, {}), await attachAs(unknownCustomer, { entities: [fresh!] }), await attachAs(unknownCustomer, {}));
      await expectFirstWins(
        t,
        'licenses.attach of two new entities to a full pool for an unknown customer',
        await attachAs(unknownCustomer, { entities: [fresh!] }),
        await attachAs(setup.customerId, { entities: [fresh!, other!] }),
        await attachAs(unknownCustomer, { entities: [fresh!, other!] }),
      );
      await expectFirstWins(
        t,
        'licenses.release with entity_ids a string, not an array, for an unknown customer',
        await releaseAs(setup.customerId, { entity_ids: seat!.entity_id }),
        await releaseAs(unknownCustomer, { entity_ids: [seat!.entity_id] }),
        await releaseAs(unknownCustomer, { entity_ids: seat!.entity_id }),
      );
      await expectFirstWins(
        t,
        'licenses.release of an assigned entity twice for an unknown customer',
        await releaseAs(unknownCustomer, { entity_ids: [seat!.entity_id] }),
        await releaseAs(setup.customerId, { entity_ids: [seat!.entity_id, seat!.entity_id] }),
        await releaseAs(unknownCustomer, { entity_ids: [seat!.entity_id, seat!.entity_id] }),
      );
    },
  ),
];
