/**
 * Scenarios of the plans and balances an entity holds: each plan embedded once, one-off plans among
 * purchases, and nothing granted yet by a plan that is only scheduled.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createPlan, MONTHLY, scenario } from '../../support.ts';

export const hydrationScenarios = [
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
];
