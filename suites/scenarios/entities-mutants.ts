/**
 * Entity scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's entities that could be changed without any other scenario noticing.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, readBalance, scenario } from '../support.ts';

const MONTHLY = { interval: 'month' } as const;

export const entitiesMutantScenarios = [
  scenario(
    {
      id: 'entities.embedded-plans-once',
      title: "entities.list embeds each plan an entity holds once: its own plan and the one it inherits from its customer",
      rules: ['ENT-OWN-PLANS-BALANCES'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const inherited = await createPlan(t, { items: [{ feature_id: units.id, included: 10, reset: MONTHLY }] });
      const own = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, inherited.id);
      const entity = await createEntity(t, customer.id, seat.id);
      await attach(t, customer.id, own.id, { entity_id: entity.id });
      const { list } = t.setup(await t.client.call('entities.list', { customer_id: customer.id }), ['list']);
      const listed = list.find((candidate) => candidate.id === entity.id);
      t.precondition('entities.list of the customer lists the entity', () => expect(listed).toBeDefined());
      t.check('ENT-OWN-PLANS-BALANCES', () =>
        expect(listed!.subscriptions.map((subscription) => subscription.plan_id).sort(), 'its own plan and the inherited one, once each').toEqual([inherited.id, own.id].sort()),
      );
    },
  ),

  scenario(
    {
      id: 'entities.embedded-purchases-apart',
      title: 'entities.list embeds a one-off plan an entity inherits among its purchases, and a recurring one among its subscriptions, not the other way round',
      rules: ['ENT-OWN-PLANS-BALANCES'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const recurring = await createPlan(t, { items: [{ feature_id: units.id, included: 10, reset: MONTHLY }] });
      const pack = await createPlan(t, { add_on: true, price: { amount: 10, interval: 'one_off' }, items: [{ feature_id: units.id, included: 50 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, recurring.id);
      await attach(t, customer.id, pack.id);
      const entity = await createEntity(t, customer.id, seat.id);
      const { list } = t.setup(await t.client.call('entities.list', { customer_id: customer.id }), ['list']);
      const listed = list.find((candidate) => candidate.id === entity.id);
      t.precondition('entities.list of the customer lists the entity', () => expect(listed).toBeDefined());
      t.check('ENT-OWN-PLANS-BALANCES', () => {
        expect(listed!.subscriptions.map((record) => record.plan_id), 'the recurring plan, and only it, among the subscriptions').toEqual([recurring.id]);
        expect(listed!.purchases.map((record) => (record as { plan_id?: string }).plan_id), 'the one-off plan, and only it, among the purchases').toEqual([pack.id]);
      });
    },
  ),

  scenario(
    {
      id: 'entities.get-other-customers-entity',
      title: "entities.get of an entity under another customer's id answers that the entity is not found",
      rules: ['ERR-ENTITY-NOT-FOUND'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const [owner, stranger] = [await createCustomer(t), await createCustomer(t)];
      const entity = await createEntity(t, owner.id, seat.id);
      t.setup(await t.client.call('entities.get', { customer_id: owner.id, entity_id: entity.id }));
      t.expectError(await t.client.call('entities.get', { customer_id: stranger.id, entity_id: entity.id }), { rule: 'ERR-ENTITY-NOT-FOUND', status: 404, code: 'entity_not_found' });
    },
  ),

  scenario(
    {
      id: 'entities.delete-frees-only-its-seat',
      title: "deleting one of two licensed entities frees its seat only: the pool's usage drops by one, and the other entity stays assigned",
      rules: ['LIC-POOL-USAGE', 'LIC-ATTACH-SKIP-ASSIGNED'],
    },
    async (t) => {
      const pool = await createLicensePool(t, 3);
      const [gone, kept] = [await createEntity(t, pool.customerId, pool.seatFeature.id), await createEntity(t, pool.customerId, pool.seatFeature.id)];
      const assign = async (entities: readonly { id: string; name?: string | null }[]) =>
        t.setup(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: entities.map((e) => ({ entity_id: e.id, name: e.name ?? e.id })) }));
      const usage = async () => {
        const { list } = t.setup(await t.client.call('licenses.list', { customer_id: pool.customerId }), ['list']);
        return list.find((p) => p.license_plan_id === pool.licensePlan.id)?.usage;
      };
      await assign([gone, kept]);
      const before = await usage();
      t.precondition('both entities hold a seat', () => expect(before).toBe(2));
      t.setup(await t.client.call('entities.delete', { customer_id: pool.customerId, entity_id: gone.id }));
      const { list: left } = t.setup(await t.client.call('entities.list', { customer_id: pool.customerId }), ['list']);
      // That the deleted entity is gone is ENT-DELETE's.
      t.precondition('entities.list no longer lists the deleted entity', () => expect(left.map((e) => e.id)).not.toContain(gone.id));
      const after = await usage();
      t.check('LIC-POOL-USAGE', () => expect(after, 'one entity is left holding a seat').toBe(1));
      await assign([kept]);
      const again = await usage();
      t.check('LIC-ATTACH-SKIP-ASSIGNED', () => expect(again, 'the entity left still holds its seat, so attaching it again is skipped').toBe(1));
    },
  ),

  scenario(
    {
      id: 'entities.scheduled-plan-grants-nothing-yet',
      title: "an entity's balances hold the features of its active plans, not those of a plan that is only scheduled",
      rules: ['ENT-OWN-PLANS-BALANCES'],
      needs: ['control-plane'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const [now, later] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const active = await createPlan(t, { add_on: true, items: [{ feature_id: now.id, included: 5, reset: MONTHLY }] });
      const scheduled = await createPlan(t, { add_on: true, items: [{ feature_id: later.id, included: 5, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);
      for (const plan of [active, scheduled]) await attach(t, customer.id, plan.id, { entity_id: entity.id });
      const { list: records } = t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, entity_id: entity.id, plan_id: scheduled.id }), ['list']);
      t.precondition(`the entity holds ${scheduled.id}`, () => expect(records).toHaveLength(1));
      const forced = await t.control.call('records.force_state', { record_id: records[0]!.id, state: 'scheduled' });
      t.precondition(`the record of ${scheduled.id} is scheduled`, () => expect(forced.status).toBe('scheduled'));
      const { list } = t.setup(await t.client.call('entities.list', { customer_id: customer.id }), ['list']);
      const listed = list.find((candidate) => candidate.id === entity.id);
      t.precondition('entities.list of the customer lists the entity', () => expect(listed).toBeDefined());
      // The map keyed by feature_id is ENT-BALANCES-MAP's: a premise here.
      t.precondition("the active plan's feature is in the entity's balances, under its id", () => expect(listed!.balances[now.id]?.granted).toBe(5));
      t.check('ENT-OWN-PLANS-BALANCES', () => expect(listed!.balances[later.id] ?? null, "the scheduled plan's feature is not, yet").toBeNull());
    },
  ),

  scenario(
    {
      id: 'entities.list-order-by-time-first',
      title: 'entities.list lists a later entity first even when its id sorts lower: created_at decides before id',
      rules: ['ENT-LIST-ORDER'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const customer = await createCustomer(t);
      const base = t.ns.id('ent');
      const create = async (entityId: string) =>
        t.setup(await t.client.call('entities.create', { customer_id: customer.id, entity_id: entityId, feature_id: seat.id, name: `Entity ${entityId}` }), ['id', 'created_at']);
      const earlier = await create(`${base}b`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const later = await create(`${base}a`);
      t.precondition('the second entity was created later', () => expect(later.created_at).toBeGreaterThan(earlier.created_at));
      const { list } = t.setup(await t.client.call('entities.list', { customer_id: customer.id }), ['list']);
      t.precondition('entities.list lists both', () => expect(list.map((entity) => entity.id).sort()).toEqual([later.id, earlier.id].sort()));
      t.check('ENT-LIST-ORDER', () => expect(list.map((entity) => entity.id), 'the newer entity first, though its id sorts lower').toEqual([later.id, earlier.id]));
    },
  ),

  scenario(
    {
      id: 'entities.create-leaves-other-balances',
      title: "creating an entity for a seat feature the customer holds no balance of leaves the customer's balance of another feature untouched (as exchange 037 shows)",
      rules: ['ENT-CREATE'],
    },
    async (t) => {
      const [messages, seats] = [await createFeature(t, 'consumable'), await createFeature(t, 'allocated')];
      const plan = await createPlan(t, { items: [{ feature_id: messages.id, included: 120, reset: MONTHLY }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, plan.id);
      const messagesBalance = async () => {
        const balance = await readBalance(t, customer.id, messages.id);
        return { granted: balance?.granted, usage: balance?.usage, remaining: balance?.remaining };
      };
      const before = await messagesBalance();
      t.precondition('the customer holds 120 unused messages', () => expect(before).toEqual({ granted: 120, usage: 0, remaining: 120 }));
      const entityId = t.ns.id('ent');
      t.expectOk(await t.client.call('entities.create', { customer_id: customer.id, entity_id: entityId, feature_id: seats.id, name: 'Alpha' }), 'ENT-CREATE');
      const after = await messagesBalance();
      t.check('ENT-CREATE', () => expect(after, "the customer's messages are untouched").toEqual(before));
    },
  ),
];
