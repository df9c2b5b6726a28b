/** Scenarios of entities.delete. */
import { expect } from 'vitest';
import { MONTHLY, type T, attach, createCustomer, createEntity, createFeature, createPlan, scenario } from '../../support.ts';
import { holding, holdingOf, type ListBody, LISTINGS, plansOfEachKind, WALK_RULES, walkRows } from '../listings/support.ts';
import { listIds, planIds, plansHeld, requirePlanFilter, requireSearch } from './support.ts';

/** What an entity reads as, compared between two entities: the plans entities.get shows it holding, and its check of a feature (status, allowed, usage and remaining). */
async function entityReads(t: T, customerId: string, entityId: string, featureId: string) {
  const [got, check] = await Promise.all([
    t.client.call('entities.get', { customer_id: customerId, entity_id: entityId }),
    t.client.call('balances.check', { customer_id: customerId, entity_id: entityId, feature_id: featureId, required_balance: 0 }),
  ]);
  return {
    plans: got.ok ? planIds(got.body).sort() : got.status,
    check: check.ok ? { allowed: check.body.allowed, usage: check.body.balance?.usage ?? null, remaining: check.body.balance?.remaining ?? null } : check.status,
  };
}

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
  scenario(
    {
      id: 'deletes.entity-created-again',
      title:
        "after entities.delete of an entity holding a plan of its own with used units, a check of it answers 404 entity_not_found, and an entity created again under its ID reads like one never seen: no plan, no usage; its sibling keeps both",
      rules: ['ENT-DELETE', 'ERR-ENTITY-NOT-FOUND'],
    },
    async (t) => {
      const [seat, messages] = [await createFeature(t, 'allocated'), await createFeature(t, 'consumable')];
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 10, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      const [doomed, sibling] = [await createEntity(t, customer.id, seat.id, 'Doomed'), await createEntity(t, customer.id, seat.id, 'Sibling')];
      for (const [entity, used] of [[doomed, 4], [sibling, 1]] as const) {
        await attach(t, customer.id, plan.id, { entity_id: entity.id });
        t.setup(await t.client.call('balances.track', { customer_id: customer.id, entity_id: entity.id, feature_id: messages.id, value: used }));
      }
      // Read before the delete (a target that keeps answers until the data changes must see the delete), and the control of the comparison below.
      const held = await plansHeld(t, customer.id, doomed.id);
      t.precondition('before the delete, the entity holds its plan', () => expect(held).toEqual([plan.id]));
      t.setup(await t.client.call('balances.check', { customer_id: customer.id, entity_id: doomed.id, feature_id: messages.id, required_balance: 0 }));

      t.expectOk(await t.client.call('entities.delete', { customer_id: customer.id, entity_id: doomed.id }), 'ENT-DELETE');
      // Gone first (ENT-DELETE), so that a delete that kept the entity fails that rule, not the check's code below.
      const gone = await t.client.call('entities.get', { customer_id: customer.id, entity_id: doomed.id });
      t.check('ENT-DELETE', () => expect(gone.ok, 'entities.get no longer finds the deleted entity').toBe(false));
      const notFound = { status: 404, code: 'entity_not_found', rule: 'ERR-ENTITY-NOT-FOUND' } as const;
      t.expectError(await t.client.call('balances.check', { customer_id: customer.id, entity_id: doomed.id, feature_id: messages.id, required_balance: 0 }), notFound);

      // Created again beside one never seen, of the same customer and feature: only the old entity's leftovers can tell them apart.
      t.setup(await t.client.call('entities.create', { customer_id: customer.id, entity_id: doomed.id, feature_id: seat.id, name: 'Again' }));
      const fresh = await createEntity(t, customer.id, seat.id, 'Fresh');
      const [again, never] = [await entityReads(t, customer.id, doomed.id, messages.id), await entityReads(t, customer.id, fresh.id, messages.id)];
      t.check('ENT-DELETE', () => expect(again, 'the entity created again under a deleted ID reads as an entity never seen (no plan, no usage of the old one)').toEqual(never));
      const kept = await entityReads(t, customer.id, sibling.id, messages.id);
      t.check('ENT-DELETE', () => expect(kept, 'the sibling keeps its plan and its usage').toEqual({ plans: [plan.id], check: { allowed: true, usage: 1, remaining: 9 } }));
    },
  ),
  scenario(
    {
      id: 'deletes.entity-records-listed',
      title:
        "after entities.delete of one of two entities each holding a main plan, an add-on, a monthly plan and a one-off pack of its own, no listing of the customer that does not ask for expired records holds one (the default, each status asked alone or with others, by the other entity), and those listings keep the customer's own records and the other entity's",
      rules: ['STATE-EXPIRED-ONLY-ON-REQUEST', 'STATE-DEFAULT-ACTIVE-SCHEDULED', 'LIST-STATUSES-FILTER', 'LIST-CUSTOMER-FILTER', 'LIST-ENTITY-FILTER', ...WALK_RULES],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const { main, addOn, monthly, pack } = await plansOfEachKind(t);
      const customer = (await createCustomer(t)).id;
      const doomed = (await createEntity(t, customer, seat.id)).id;
      const kept = (await createEntity(t, customer, seat.id)).id;
      for (const entityId of [null, doomed, kept]) for (const plan of [main, addOn, monthly, pack]) await attach(t, customer, plan.id, entityId === null ? {} : { entity_id: entityId });
      t.setup(await t.client.call('entities.delete', { customer_id: customer, entity_id: doomed }));

      const asked: [ListBody, 'STATE-DEFAULT-ACTIVE-SCHEDULED' | 'LIST-STATUSES-FILTER' | 'LIST-ENTITY-FILTER'][] = [
        [{}, 'STATE-DEFAULT-ACTIVE-SCHEDULED'],
        [{ statuses: ['active'] }, 'LIST-STATUSES-FILTER'],
        [{ statuses: ['scheduled'] }, 'LIST-STATUSES-FILTER'],
        [{ statuses: ['active', 'scheduled'] }, 'LIST-STATUSES-FILTER'],
        [{ statuses: ['past_due'] }, 'LIST-STATUSES-FILTER'],
        [{ entity_id: kept }, 'LIST-ENTITY-FILTER'],
      ];
      for (const name of LISTINGS) {
        // The main plan, the add-on and the monthly plan are subscriptions; the pack is a purchase.
        const planIds = name === 'subscriptions.list' ? [main.id, addOn.id, monthly.id] : [pack.id];
        for (const [body, listingRule] of asked) {
          const what = `${name} ${JSON.stringify(body)}`;
          const rows = await walkRows(t, name, { customer_id: customer, ...body }, listingRule);
          t.check('STATE-EXPIRED-ONLY-ON-REQUEST', () => expect(rows.filter((row) => row.status === 'expired').map(holdingOf), `${what} does not ask for expired records, and holds none after an entity was deleted`).toEqual([]));
          // What is active and was not the deleted entity's stays listed where active records are asked for.
          if (body.statuses !== undefined && !body.statuses.includes('active')) continue;
          const owners = body.entity_id === undefined ? [null, kept] : [kept];
          t.check(listingRule, () => expect(rows.map(holdingOf), `${what} still lists the active records of ${owners.map((o) => o ?? 'the customer').join(' and ')}`).toEqual(expect.arrayContaining(owners.flatMap((owner) => planIds.map((planId) => holding(customer, owner, planId))))));
        }
        const expired = await walkRows(t, name, { customer_id: customer, statuses: ['expired'] }, 'LIST-STATUSES-FILTER');
        t.check('LIST-STATUSES-FILTER', () => expect(expired.filter((row) => row.status !== 'expired').map(holdingOf), `${name}: statuses ["expired"] lists expired records only`).toEqual([]));
      }
    },
  ),
];
