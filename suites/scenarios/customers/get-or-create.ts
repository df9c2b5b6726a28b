/**
 * Scenarios of customers.get_or_create: a new id creates the customer, an existing one returns it
 * unchanged.
 */
import { expect } from 'vitest';
import type { Customer } from '../../../spec/customers.ts';
import { createCustomer, createFeature, createPlan, newCustomerBody, scenario, type T } from '../../support.ts';

/** The fields customers.get_or_create must keep; `created_at` only when the answer had one (its absence is CUS-SHAPE's). */
function kept(customer: Customer, metadata: Record<string, unknown>) {
  return { id: customer.id, name: customer.name, email: customer.email, metadata, ...(customer.created_at === undefined ? {} : { created_at: customer.created_at }) };
}

/** Answers compare `created_at` in one unit: each answer's, when it has one, is Unix milliseconds (CONV-TIMESTAMPS-MS proves it). */
function stampsInMilliseconds(t: T, ...customers: readonly { created_at?: unknown }[]): void {
  t.precondition('created_at is Unix milliseconds in every answer compared', () => {
    for (const { created_at } of customers) if (created_at !== undefined) expect(created_at).toBeGreaterThan(1e12);
  });
}

export const getOrCreateScenarios = [
  scenario(
    {
      id: 'customers.get-or-create-new',
      title: 'customers.get_or_create with a new id creates the customer with the fields sent and its auto-enable plans, and returns it',
      rules: ['CUS-GET-OR-CREATE-NEW', 'CUS-SHAPE'],
      // For a moment every new customer of the tenant gets the auto-enable plan.
      needs: ['exclusive-tenant'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const autoPlan = await createPlan(t, { group: t.ns.id('grp'), auto_enable: true, items: [{ feature_id: flag.id }] });
      const body = newCustomerBody(t, { metadata: { origin: 'conformance' } });
      // Every customer created while the plan is auto-enabled gets it: archive it at once.
      const result = await t.client.call('customers.get_or_create', body).finally(() => t.client.call('plans.update', { plan_id: autoPlan.id, archived: true }));
      const created = t.expectOk(result, 'CUS-GET-OR-CREATE-NEW');

      t.check('CUS-GET-OR-CREATE-NEW', () => {
        expect(created.id, 'the id sent').toBe(body.customer_id);
        expect(created.metadata, 'the customer keeps the metadata sent').toEqual({ origin: 'conformance' });
        expect({ name: created.name, email: created.email }, 'the customer keeps the name and email sent').toEqual({ name: body.name, email: body.email });
        expect(
          (created.subscriptions ?? []).filter((subscription) => subscription.plan_id === autoPlan.id),
          'the new customer holds the auto-enable plan',
        ).toMatchObject([{ status: 'active', auto_enable: true }]);
        expect(Object.keys(created.flags ?? {}), "…and the auto-enable plan's feature").toContain(flag.id);
      });

      // Read back through customers.get: a read that is setup here (CUS-GET is proven elsewhere).
      const fetched = t.setup(await t.client.call('customers.get', { customer_id: body.customer_id }));
      stampsInMilliseconds(t, created, fetched);
      t.check('CUS-GET-OR-CREATE-NEW', () => expect(fetched, 'customers.get finds the customer as it was created').toMatchObject(kept(created, { origin: 'conformance' })));
    },
  ),
  scenario(
    {
      id: 'customers.get-or-create-existing',
      title: 'customers.get_or_create with an existing id returns that customer unchanged, ignoring the fields sent',
      rules: ['CUS-GET-OR-CREATE-EXISTING', 'CUS-SHAPE'],
    },
    async (t) => {
      const original = await createCustomer(t, { metadata: { tier: 'first' } });
      const again = t.expectOk(
        await t.client.call('customers.get_or_create', {
          customer_id: original.id,
          name: `Renamed ${original.name}`,
          email: `renamed.${t.ns.id('mail').toLowerCase()}@example.com`,
          metadata: { tier: 'second' },
        }),
        'CUS-GET-OR-CREATE-EXISTING',
      );
      const unchanged = kept(original, { tier: 'first' });
      t.check('CUS-GET-OR-CREATE-EXISTING', () => expect(again, 'the existing customer comes back as it was').toMatchObject(unchanged));
      const fetched = t.setup(await t.client.call('customers.get', { customer_id: original.id }));
      stampsInMilliseconds(t, original, fetched);
      t.check('CUS-GET-OR-CREATE-EXISTING', () => expect(fetched, 'and it was not updated').toMatchObject(unchanged));
    },
  ),
];
