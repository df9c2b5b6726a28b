/** Scenarios of entities.delete. */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createPlan, scenario } from '../../support.ts';
import { expectCodedError, listIds } from './support.ts';

export const deleteScenarios = [
  scenario(
    {
      id: 'entities.delete',
      title: 'entities.delete deletes the entity: it is then gone from entities.get (404 entity_not_found) and entities.list (neither its own plan nor search finds it), and a second delete is 404',
      rules: ['ENT-DELETE', 'ENT-DELETE-SHAPE', 'ERR-ENTITY-NOT-FOUND'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const doomed = await createEntity(t, customer.id, seat.id, 'Doomed');
      const kept = await createEntity(t, customer.id, seat.id, 'Kept');
      // The doomed entity holds a plan of its own; before the delete, the plan filter and search find it (premises, other rules').
      const ownPlan = await createPlan(t, { add_on: true });
      await attach(t, customer.id, ownPlan.id, { entity_id: doomed.id });
      const byOwnPlan = () => listIds(t, { customer_id: customer.id, plans: [{ id: ownPlan.id }] });
      const bySearch = () => listIds(t, { customer_id: customer.id, search: doomed.id });
      const [planBefore, searchBefore] = [await byOwnPlan(), await bySearch()];
      t.precondition(`before the delete, the plan filter and search find ${doomed.id}`, () => {
        expect(planBefore).toEqual([doomed.id]);
        expect(searchBefore).toEqual([doomed.id]);
      });

      // The answer's shape ({success: true}) is ENT-DELETE-SHAPE's, checked by the client.
      t.expectOk(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), 'ENT-DELETE');
      const gone = await t.client.call('entities.get', { customer_id: customer.id, entity_id: doomed.id });
      t.check('ENT-DELETE', () => expect(gone.ok, 'entities.get no longer finds a deleted entity').toBe(false));
      expectCodedError(t, gone, { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const listed = await listIds(t, { customer_id: customer.id });
      const [planAfter, searchAfter] = [await byOwnPlan(), await bySearch()];
      t.check('ENT-DELETE', () => {
        expect(listed, 'entities.list no longer lists a deleted entity').toEqual([kept.id]);
        expect(planAfter, 'a deleted entity is not matched by the plan it held').toEqual([]);
        expect(searchAfter, 'a deleted entity is not found by its id').toEqual([]);
      });
      expectCodedError(t, await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });

      const unknown = t.ns.id('ent');
      expectCodedError(t, await t.client.call('entities.get', { customer_id: customer.id, entity_id: unknown }), { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const checked = await t.client.call('balances.check', { customer_id: customer.id, entity_id: unknown, feature_id: seat.id });
      // That a check names an entity at all is CHECK-ENTITY-SCOPED's; the error it answers for an unknown one is this rule's.
      t.precondition('balances.check with an unknown entity_id is refused', () => expect(checked.ok).toBe(false));
      expectCodedError(t, checked, { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' });
      const untouched = t.setup(await t.client.call('entities.get', { customer_id: customer.id, entity_id: kept.id }));
      t.check('ENT-DELETE', () => expect(untouched.id, 'the other entity is untouched').toBe(kept.id));
    },
  ),
];
