/** Scenarios of entities.delete. */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createPlan, scenario } from '../../support.ts';
import { listIds, plansHeld, requirePlanFilter, requireSearch } from './support.ts';

export const deleteScenarios = [
  scenario(
    {
      id: 'entities.delete',
      title: 'entities.delete deletes the entity: it is then gone from entities.get (404 entity_not_found) and entities.list, a second delete is 404, and the other entity stays',
      rules: ['ENT-DELETE', 'ENT-DELETE-SHAPE', 'ERR-ENTITY-NOT-FOUND', 'ENT-CUSTOMER-FILTER'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const doomed = await createEntity(t, customer.id, seat.id, 'Doomed');
      const kept = await createEntity(t, customer.id, seat.id, 'Kept');

      // The answer's shape ({success: true}) is ENT-DELETE-SHAPE's, checked by the client.
      t.expectOk(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), 'ENT-DELETE');
      const gone = await t.client.call('entities.get', { customer_id: customer.id, entity_id: doomed.id });
      t.check('ENT-DELETE', () => expect(gone.ok, 'entities.get no longer finds a deleted entity').toBe(false));
      t.expectError(gone, { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const listed = await listIds(t, { customer_id: customer.id }, 'ENT-DELETE');
      t.check('ENT-DELETE', () => expect(listed, 'entities.list no longer lists a deleted entity').toEqual([kept.id]));
      t.expectError(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });

      const unknown = t.ns.id('ent');
      t.expectError(await t.client.call('entities.get', { customer_id: customer.id, entity_id: unknown }), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      // An unknown entity_id on a check: the reference's 404 entity_not_found is this rule's source (exchange 102).
      t.expectError(await t.client.call('balances.check', { customer_id: customer.id, entity_id: unknown, feature_id: seat.id }), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const untouched = t.setup(await t.client.call('entities.get', { customer_id: customer.id, entity_id: kept.id }));
      t.check('ENT-DELETE', () => expect(untouched.id, 'the other entity is untouched').toBe(kept.id));
    },
  ),
  scenario(
    {
      id: 'entities.delete-filters',
      title: "After entities.delete, neither the plan the entity held nor search finds it, and its plan does not pass to its customer (the sibling entity does not match it)",
      rules: ['ENT-DELETE', 'ENT-PLAN-FILTER-DIRECT', 'ENT-SEARCH', 'ENT-CUSTOMER-FILTER', 'BILL-ATTACH-ENTITY'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const doomed = await createEntity(t, customer.id, seat.id, 'Doomed');
      const kept = await createEntity(t, customer.id, seat.id, 'Kept');
      const ownPlan = await createPlan(t, { add_on: true });
      const unheld = await createPlan(t, { add_on: true });
      await attach(t, customer.id, ownPlan.id, { entity_id: doomed.id });
      // That the attach gave the plan to that entity only is BILL-ATTACH-ENTITY's (read through entities.get): the filter checks rest on it.
      const [doomedPlans, keptPlans] = [await plansHeld(t, customer.id, doomed.id), await plansHeld(t, customer.id, kept.id)];
      t.check('BILL-ATTACH-ENTITY', () => {
        expect(doomedPlans, `billing.attach with entity_id gave ${ownPlan.id} to ${doomed.id}`).toContain(ownPlan.id);
        expect(keptPlans, 'and not to its sibling (nor to its customer)').not.toContain(ownPlan.id);
      });
      // Both filters' wire names are not shown: the target must read them before the MUST rules rest on them.
      await requirePlanFilter(t, customer.id, unheld.id);
      await requireSearch(t, customer.id, t.ns.id('nobody').replace(/_/g, ''));

      // Before the delete, the plan filter and search find the entity: the controls that make "found by neither" mean something.
      const byOwnPlan = (rule: 'ENT-PLAN-FILTER-DIRECT' | 'ENT-DELETE') => listIds(t, { customer_id: customer.id, plans: [{ id: ownPlan.id }] }, rule);
      const bySearch = (rule: 'ENT-SEARCH' | 'ENT-DELETE') => listIds(t, { customer_id: customer.id, search: doomed.id }, rule);
      const planBefore = await byOwnPlan('ENT-PLAN-FILTER-DIRECT');
      t.check('ENT-PLAN-FILTER-DIRECT', () => expect(planBefore, 'a plan attached to an entity matches that entity only').toEqual([doomed.id]));
      const searchBefore = await bySearch('ENT-SEARCH');
      t.check('ENT-SEARCH', () => expect(searchBefore, 'search matches an id').toEqual([doomed.id]));

      t.expectOk(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), 'ENT-DELETE');
      const [planAfter, searchAfter] = [await byOwnPlan('ENT-DELETE'), await bySearch('ENT-DELETE')];
      t.check('ENT-DELETE', () => {
        expect(planAfter, 'a deleted entity is not matched by the plan it held').not.toContain(doomed.id);
        expect(searchAfter, 'a deleted entity is not found by its id').toEqual([]);
        expect(planAfter, 'the plan a deleted entity held ends with it: it does not pass to its customer, so the sibling entity does not match it').toEqual([]);
      });
    },
  ),
];
