/**
 * Scenarios of the plans and balances an entity holds: each plan embedded once, one-off plans among
 * purchases, nothing granted yet by a plan that is only scheduled, and a flag inherited from its customer.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createPlan, MONTHLY, scenario } from '../../support.ts';
import { forceState, recordIdOf } from './support.ts';

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
      t.check('ENT-OWN-PLANS-BALANCES', () => expect(listed, `entities.list of ${customer.id} lists ${entity.id}, with the plans it holds`).toBeDefined());
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
      t.check('ENT-OWN-PLANS-BALANCES', () => expect(listed, `entities.list of ${customer.id} lists ${entity.id}, with the plans it holds`).toBeDefined());
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
      await forceState(t, await recordIdOf(t, customer.id, scheduled.id, entity.id), 'scheduled');
      const { list } = t.setup(await t.client.call('entities.list', { customer_id: customer.id }), ['list']);
      const listed = list.find((candidate) => candidate.id === entity.id);
      // Balances found by feature_id, not by their key: how the map is keyed is ENT-BALANCES-MAP's.
      const granted = (feature: string) => Object.values(listed?.balances ?? {}).find((balance) => balance.feature_id === feature)?.granted ?? null;
      t.check('ENT-OWN-PLANS-BALANCES', () => {
        expect(listed, `entities.list of ${customer.id} lists ${entity.id}, with the balances it holds`).toBeDefined();
        expect(granted(now.id), "the active plan's feature is in the entity's balances").toBe(5);
      });
      t.check('ENT-OWN-PLANS-BALANCES', () => expect(granted(later.id), "the scheduled plan's feature is not, yet").toBeNull());
    },
  ),
  scenario(
    {
      id: 'entities.flag-inherited-from-customer',
      title:
        "an entity inherits its customer's boolean flag: entities.get and a check naming the entity show it while the customer holds the plan, and neither does once the customer's plan is replaced",
      rules: ['ENT-GET', 'CHECK-ENTITY-SCOPED', 'CHECK-ALLOWED-BOOLEAN-IN-PLAN', 'CHECK-DENIED-OTHERWISE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const seat = await createFeature(t, 'allocated');
      const group = t.ns.id('grp');
      const [flagged, plain] = [await createPlan(t, { group, items: [{ feature_id: flag.id }] }), await createPlan(t, { group })];
      const customer = await createCustomer(t);
      const entity = await createEntity(t, customer.id, seat.id);
      await attach(t, customer.id, flagged.id);
      const allowed = async (rule: 'CHECK-ENTITY-SCOPED' | 'CHECK-ALLOWED-BOOLEAN-IN-PLAN' | 'CHECK-DENIED-OTHERWISE', entityId?: string) =>
        t.expectOk(await t.client.call('balances.check', { customer_id: customer.id, feature_id: flag.id, required_balance: 1, ...(entityId !== undefined && { entity_id: entityId }) }), rule).allowed;
      const heldBy = async () => t.expectOk(await t.client.call('entities.get', { customer_id: customer.id, entity_id: entity.id }), 'ENT-GET').subscriptions.map((s) => s.plan_id);

      // The customer's own check first: the flag is the plan's (CHECK-ALLOWED-BOOLEAN-IN-PLAN), what the entity inherits.
      const atCustomer = await allowed('CHECK-ALLOWED-BOOLEAN-IN-PLAN');
      t.check('CHECK-ALLOWED-BOOLEAN-IN-PLAN', () => expect(atCustomer, "the customer's plan includes the flag").toBe(true));
      const [plans, atEntity] = [await heldBy(), await allowed('CHECK-ENTITY-SCOPED', entity.id)];
      t.check('ENT-GET', () => expect(plans, "entities.get shows the plan the entity inherits from its customer").toContain(flagged.id));
      t.check('CHECK-ENTITY-SCOPED', () => expect(atEntity, "a check naming the entity allows the flag it inherits").toBe(true));

      // The customer's plan is replaced by another of its group (PLAN-GROUP-EXCLUSIVE proves that): the entity inherits that one instead.
      await attach(t, customer.id, plain.id);
      const { subscriptions } = t.setup(await t.client.call('customers.get', { customer_id: customer.id }), ['subscriptions']);
      t.precondition(`${plain.id} replaced ${flagged.id} of the same group`, () =>
        expect(subscriptions.filter((s) => s.status === 'active').map((s) => s.plan_id)).toEqual([plain.id]),
      );
      const gone = await allowed('CHECK-DENIED-OTHERWISE');
      t.check('CHECK-DENIED-OTHERWISE', () => expect(gone, 'the customer no longer has the flag').toBe(false));
      const [plansAfter, atEntityAfter] = [await heldBy(), await allowed('CHECK-ENTITY-SCOPED', entity.id)];
      t.check('ENT-GET', () => expect(plansAfter, 'entities.get no longer shows the replaced plan').not.toContain(flagged.id));
      t.check('CHECK-ENTITY-SCOPED', () => expect(atEntityAfter, 'nor does a check naming the entity allow its flag').toBe(false));
    },
  ),
];
