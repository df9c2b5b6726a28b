/**
 * Conformance scenarios of customers.delete (a setup operation of the reference the interface does
 * not document, which a run's cleanup uses). It removes the customer it names and no other, with
 * what it holds: afterwards no documented read shows its entities, balances or pools, and a customer
 * created again under the ID starts new.
 * Deletes that only build state are setup, with a precondition that they took effect, so a target
 * that keeps what it says it deleted blocks these checks, never fails them.
 */
import { expect } from 'vitest';
import {
  type Deletion,
  type T,
  MONTHLY,
  attach,
  createCustomer,
  createEntity,
  createFeature,
  createLicensePool,
  createPlan,
  expectDeleted,
  licenseEntities,
  newCustomerBody,
  requireNotRead,
  scenario,
} from '../../support.ts';

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

/** A customer holding what a delete must take with it: a plan with a used consumable balance and a flag, an entity of its own, and a license pool with a seat assigned. */
async function customerHoldingEverything(t: T) {
  const messages = await createFeature(t, 'consumable');
  const flag = await createFeature(t, 'boolean');
  const setup = await createLicensePool(t, 3);
  const plan = await createPlan(t, { add_on: true, items: [{ feature_id: messages.id, included: 10, reset: MONTHLY }, { feature_id: flag.id }] });
  await attach(t, setup.customerId, plan.id);
  t.setup(await t.client.call('balances.track', { customer_id: setup.customerId, feature_id: messages.id, value: 4 }));
  const own = await createEntity(t, setup.customerId, setup.seatFeature.id);
  const [seat] = licenseEntities(t, setup, 1);
  t.setup(await t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [seat!] }));
  return { ...setup, messages, flag, plan, entityIds: [own.id, seat!.entity_id] };
}

/** The entities entities.list shows of one customer (only that customer's, whatever else the listing holds: its filter is ENT-CUSTOMER-FILTER's). */
async function listedEntitiesOf(t: T<'CUS-DELETE-CASCADES'>, body: { customer_id?: string; search?: string }, customerId: string): Promise<string[]> {
  const { list } = t.expectOk(await t.client.call('entities.list', { ...body, limit: 200 }), 'CUS-DELETE-CASCADES');
  return (list ?? []).filter((entity) => entity.customer_id === customerId).map((entity) => entity.id);
}

/** The control of "listed none after the delete": before it, entities.list lists the customer's entities. */
async function expectListedBeforeDelete(t: T<'CUS-DELETE-CASCADES'>, held: { readonly customerId: string; readonly entityIds: readonly string[] }): Promise<void> {
  const before = await listedEntitiesOf(t, { customer_id: held.customerId }, held.customerId);
  t.check('CUS-DELETE-CASCADES', () => expect(before.sort(), "before the delete, entities.list lists the customer's entities").toEqual([...held.entityIds].sort()));
}

/** Deletes a customer (setup: CUS-DELETE proves the delete) and requires that customers.get no longer finds it. */
async function deleteCustomer(t: T, customerId: string): Promise<void> {
  t.setup(await t.client.call('customers.delete', { customer_id: customerId }));
  requireNotRead(t, `customer ${customerId}`, await t.client.call('customers.get', { customer_id: customerId }));
}

export const customerDeleteLeftoverScenarios = [
  scenario(
    {
      id: 'deletes.customer-leaves-nothing',
      title:
        "after customers.delete no read shows what the customer held, also where it was read just before: entities.list and entities.get no longer find its entities, and checks, licenses.list, licenses.attach and previews of it answer 404 customer_not_found; another customer's are untouched",
      rules: ['CUS-DELETE-CASCADES', 'ERR-CUSTOMER-NOT-FOUND'],
    },
    async (t) => {
      const held = await customerHoldingEverything(t);
      const bystander = await createCustomer(t);
      await attach(t, bystander.id, held.plan.id);
      const bystanderEntity = await createEntity(t, bystander.id, held.seatFeature.id);
      const customerId = held.customerId;
      // Every read once before the delete: a target that keeps answers until the data changes must see the delete.
      const check = (body: { customer_id: string; feature_id: string; entity_id?: string }) => t.client.call('balances.check', { ...body, required_balance: 0 });
      t.setup(await check({ customer_id: customerId, feature_id: held.messages.id }));
      t.setup(await check({ customer_id: customerId, feature_id: held.flag.id, entity_id: held.entityIds[0]! }));
      t.setup(await t.client.call('licenses.list', { customer_id: customerId }));
      t.setup(await t.client.call('entities.get', { customer_id: customerId, entity_id: held.entityIds[0]! }));
      await expectListedBeforeDelete(t, held);

      await deleteCustomer(t, customerId);

      const [ofCustomer, bySearch] = [await listedEntitiesOf(t, { customer_id: customerId }, customerId), await listedEntitiesOf(t, { search: held.entityIds[0]! }, customerId)];
      t.check('CUS-DELETE-CASCADES', () => {
        expect(ofCustomer, "entities.list with the deleted customer's id lists none of its entities").toEqual([]);
        expect(bySearch, 'entities.list across the organisation does not find its entity by id').toEqual([]);
      });
      for (const entityId of held.entityIds) {
        const entity = await t.client.call('entities.get', { customer_id: customerId, entity_id: entityId });
        t.check('CUS-DELETE-CASCADES', () => expect(entity.ok, `entities.get of ${entityId}, an entity of the deleted customer, finds nothing: ${entity.status}`).toBe(false));
        const entityCheck = await check({ customer_id: customerId, feature_id: held.flag.id, entity_id: entityId });
        t.check('CUS-DELETE-CASCADES', () => expect(entityCheck.ok, `a check of ${entityId}, an entity of the deleted customer, is refused: ${entityCheck.status}`).toBe(false));
      }

      const notFound = { status: 404, code: 'customer_not_found', rule: 'ERR-CUSTOMER-NOT-FOUND' } as const;
      t.expectError(await check({ customer_id: customerId, feature_id: held.messages.id }), notFound);
      t.expectError(await t.client.call('licenses.list', { customer_id: customerId }), notFound);
      const [seat] = licenseEntities(t, held, 1);
      t.expectError(await t.client.call('licenses.attach', { customer_id: customerId, plan_id: held.licensePlan.id, entities: [seat!] }), notFound);
      t.expectError(await t.client.call('billing.preview_multi_update', { customer_id: customerId, updates: [{ plan_id: held.plan.id, cancel_action: 'cancel_immediately' }] }), notFound);

      // The other customer on the same plan, with an entity of the same feature, keeps both.
      const kept = await check({ customer_id: bystander.id, feature_id: held.messages.id });
      const keptEntities = await listedEntitiesOf(t, { customer_id: bystander.id }, bystander.id);
      t.check('CUS-DELETE-CASCADES', () => {
        expect(kept.ok && kept.body.balance?.remaining, "another customer's balance of the same plan is untouched").toBe(10);
        expect(keptEntities, "another customer's entity stays").toEqual([bystanderEntity.id]);
      });
    },
  ),
  scenario(
    {
      id: 'deletes.customer-created-again',
      title:
        'a customer created again under the ID of a deleted one is new: none of the old plans, balances, usage, entities or license pools, its old entity IDs free again, and a plan attached anew starts unused',
      rules: ['CUS-DELETE-CASCADES', 'CUS-GET-OR-CREATE-NEW'],
    },
    async (t) => {
      const held = await customerHoldingEverything(t);
      const customerId = held.customerId;
      await expectListedBeforeDelete(t, held);
      await deleteCustomer(t, customerId);

      const again = t.expectOk(await t.client.call('customers.get_or_create', newCustomerBody(t, { customer_id: customerId })), 'CUS-GET-OR-CREATE-NEW');
      t.check('CUS-GET-OR-CREATE-NEW', () => expect(again.id, 'customers.get_or_create creates the customer under the ID sent').toBe(customerId));
      const readBalance = async (featureId: string) => t.expectOk(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0 }), 'CUS-DELETE-CASCADES');
      const [messages, flag] = [await readBalance(held.messages.id), await readBalance(held.flag.id)];
      const pools = t.expectOk(await t.client.call('licenses.list', { customer_id: customerId }), 'CUS-DELETE-CASCADES');
      const entities = await listedEntitiesOf(t, { customer_id: customerId }, customerId);
      t.check('CUS-DELETE-CASCADES', () => {
        expect((again.subscriptions ?? []).map((s) => s.plan_id), 'the new customer holds none of the old plans').not.toEqual(expect.arrayContaining([held.plan.id]));
        expect((again.subscriptions ?? []).map((s) => s.plan_id)).not.toContain(held.parentPlan.id);
        expect(messages.balance ?? null, 'nor their balances').toBeNull();
        expect(flag.allowed, 'nor their flags').toBe(false);
        expect(pools.list ?? [], 'nor their license pools').toEqual([]);
        expect(entities, 'nor the old entities').toEqual([]);
      });
      // The old entity IDs name nothing now: creating one again is accepted.
      const recreated = await t.client.call('entities.create', { customer_id: customerId, entity_id: held.entityIds[0]!, feature_id: held.seatFeature.id, name: 'Again' });
      t.check('CUS-DELETE-CASCADES', () => expect(recreated.status, `entities.create of ${held.entityIds[0]}, an entity of the deleted customer, is accepted: ${JSON.stringify(recreated.body).slice(0, 200)}`).toBe(200));

      await attach(t, customerId, held.plan.id);
      const fresh = await readBalance(held.messages.id);
      t.check('CUS-DELETE-CASCADES', () => expect(fresh.balance, 'the plan attached anew starts with its whole balance, the old usage gone with the old customer').toMatchObject({ granted: 10, usage: 0, remaining: 10 }));
    },
  ),
  scenario(
    {
      id: 'deletes.customer-entity-records',
      title: "after customers.delete, subscriptions.list across customers lists no record the customer's entities held, as it did just before",
      rules: ['CUS-DELETE-CASCADES'],
    },
    async (t) => {
      const [seat, flag] = [await createFeature(t, 'allocated'), await createFeature(t, 'boolean')];
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);
      // A record of the entity's, not the customer's: a delete that takes only the customer-level records leaves it.
      await attach(t, customer.id, plan.id, { entity_id: entity.id });
      const recordsOfPlan = async () => {
        const { list } = t.expectOk(await t.client.call('subscriptions.list', { plan_id: plan.id, limit: 200 }), 'CUS-DELETE-CASCADES');
        return (list ?? []).filter((record) => record.customer_id === customer.id).map((record) => record.plan_id);
      };
      const before = await recordsOfPlan();
      t.check('CUS-DELETE-CASCADES', () => expect(before, "before the delete, the entity's record of the plan is listed").toEqual([plan.id]));
      await deleteCustomer(t, customer.id);
      const after = await recordsOfPlan();
      t.check('CUS-DELETE-CASCADES', () => expect(after, "after the delete, no record of the deleted customer's entity is listed").toEqual([]));
    },
  ),
];
