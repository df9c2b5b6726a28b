/**
 * Scenarios of checks naming an entity: the entity's own plans and seats count, not a sibling's, and
 * an entity of another customer is never served. What a customer-level check (no entity_id) shows
 * of a grant only an entity holds, interface.md does not say (the reference shows it, summed, and
 * denies: exchange 182, observed-behaviour §8.10), so no rule here asks it.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createLicensePool, createPlan, MONTHLY, scenario, type T } from '../../support.ts';
import { ask, balanceNow, customerHolding, expectGranted, SPEND_RULES, spend } from './support.ts';

/** The usage of a balance, read through a check of 0 units (a read); undefined when no balance is shown. */
async function usageOf(t: T, customerId: string, featureId: string, entityId?: string): Promise<number | undefined> {
  const { balance } = t.setup(
    await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0, ...(entityId !== undefined && { entity_id: entityId }) }),
    ['balance'],
  );
  return balance?.usage;
}

export const entityScopeScenarios = [
  scenario(
    {
      id: 'balances.check-entity-scoped',
      title: "with entity_id a check answers for that entity: its own plans and seats count, not a sibling's",
      rules: ['CHECK-ENTITY-SCOPED', ...SPEND_RULES],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: MONTHLY }] });
      const customerId = await customerHolding(t, []);
      const [holder, sibling] = [await createEntity(t, customerId, seats.id), await createEntity(t, customerId, seats.id)];
      await attach(t, customerId, plan.id, { entity_id: holder.id });
      // Premise (BILL-ATTACH-ENTITY's), read through the documented entities.list (which no rule here
      // owns): the attach gave the plan to the holder, not to the sibling.
      const { list: entities } = t.setup(await t.client.call('entities.list', { customer_id: customerId, limit: 200 }), ['list']);
      t.precondition(`${plan.id} is held by ${holder.id} only`, () =>
        expect(entities.filter((entity) => (entity.subscriptions ?? []).some((record) => record.plan_id === plan.id)).map((entity) => entity.id)).toEqual([holder.id]),
      );

      // Checks of 0 units (they use nothing), judged on the grant they show: whether `allowed` follows it is other rules'.
      const scoped = (entityId?: string) => ask(t, 'CHECK-ENTITY-SCOPED', { customer_id: customerId, feature_id: units.id, required_balance: 0, ...(entityId !== undefined && { entity_id: entityId }) });
      const own = await scoped(holder.id);
      t.check('CHECK-ENTITY-SCOPED', () => {
        expect(own.entity_id, 'the result names the entity').toBe(holder.id);
        expect(own.balance, "the entity's own grant").toMatchObject({ granted: 5, usage: 0 });
      });
      const other = await scoped(sibling.id);
      t.check('CHECK-ENTITY-SCOPED', () => expect(other.balance?.granted ?? 0, "a sibling entity holds no grant of the entity's plan").toBe(0));
      await spend(t, customerId, units.id, 2, true, holder.id);
      const untouched = await scoped(sibling.id);
      t.check('CHECK-ENTITY-SCOPED', () => expect(untouched.balance?.usage ?? 0, "the entity's usage is not the sibling's").toBe(0));
      t.expectError(await t.client.call('balances.check', { customer_id: customerId, entity_id: t.ns.id('nobody'), feature_id: units.id }), { rule: 'CHECK-ENTITY-SCOPED' });

      // A license seat grants its entity, not the customer. The seat entity is created with
      // entities.create and attached without feature_id (licenses.attach creating it is another rule's).
      const pool = await createLicensePool(t, 1);
      const seat = await createEntity(t, pool.customerId, pool.seatFeature.id);
      t.setup(await t.client.call('licenses.attach', { customer_id: pool.customerId, plan_id: pool.licensePlan.id, entities: [{ entity_id: seat.id, name: seat.name ?? seat.id }] }));
      const { list: pools } = t.setup(await t.client.call('licenses.list', { customer_id: pool.customerId }), ['list']);
      t.precondition('the seat entity took the one seat', () => expect(pools.find((p) => p.license_plan_id === pool.licensePlan.id)?.usage).toBe(1));
      const seated = await ask(t, 'CHECK-ENTITY-SCOPED', { customer_id: pool.customerId, entity_id: seat.id, feature_id: pool.flag.id });
      // The flag shows as allowed or as its flag object (either alone is another rule's fault).
      t.check('CHECK-ENTITY-SCOPED', () => expect(seated.allowed || seated.flag != null, "the licensed entity has the seat plan's flag").toBe(true));
      const unseatedEntity = await createEntity(t, pool.customerId, pool.seatFeature.id);
      const unseated = await ask(t, 'CHECK-ENTITY-SCOPED', { customer_id: pool.customerId, entity_id: unseatedEntity.id, feature_id: pool.flag.id });
      t.check('CHECK-ENTITY-SCOPED', () => expect(unseated.flag ?? null, 'an entity of the same customer without a seat does not').toBeNull());
    },
  ),
  scenario(
    {
      id: 'balances.check-entity-of-another-customer',
      title: "a check of customer A naming an entity of customer B neither shows B's balance nor allows on it, and a send_event through it uses nothing of B's",
      rules: ['CHECK-ENTITY-OWN-CUSTOMER'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: MONTHLY }] });
      const a = await customerHolding(t, []);
      const b = await customerHolding(t, []);
      const entity = await createEntity(t, b, seats.id);
      await attach(t, b, plan.id, { entity_id: entity.id });
      // The positive control, through the setup read entities.get: B's entity has its 5 units.
      await expectGranted(t, b, units.id, 5, entity.id);

      for (const sendEvent of [false, true]) {
        const result = await t.client.call('balances.check', { customer_id: a, entity_id: entity.id, feature_id: units.id, required_balance: 2, send_event: sendEvent });
        t.check('CHECK-ENTITY-OWN-CUSTOMER', () => {
          if (!result.ok) return expect(result.status, "refusing A's check of B's entity is fine: a 4xx").toBeLessThan(500);
          expect(result.body.allowed, `A's check${sendEvent ? ' with send_event' : ''} of B's entity is not allowed`).toBe(false);
          expect(result.body.balance ?? null, "and does not show B's balance").toBeNull();
          expect(Object.values(result.body.balances ?? {}).filter((balance) => balance !== null), 'nor any balance in the map').toEqual([]);
        });
      }
      const after = await balanceNow(t, b, units.id, entity.id);
      t.check('CHECK-ENTITY-OWN-CUSTOMER', () => expect(after?.usage, "nothing of B's entity was used").toBe(0));
    },
  ),
  scenario(
    {
      id: 'subjects.entity-of-another-customer-beside-own-balance',
      title: "a check of customer A naming an entity of customer B is not served from A's own balance either: not allowed (or refused), and a send_event through it uses nothing of A's or of B's",
      rules: ['CHECK-ENTITY-OWN-CUSTOMER'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const units = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { add_on: true, items: [{ feature_id: units.id, included: 5, reset: { interval: 'month' } }] });
      const [a, b] = [await createCustomer(t), await createCustomer(t)];
      await attach(t, a.id, plan.id);
      const entity = await createEntity(t, b.id, seats.id);
      await attach(t, b.id, plan.id, { entity_id: entity.id });
      // Premises, through the setup reads customers.get and entities.get: A and the entity of B each have 5 units.
      await expectGranted(t, a.id, units.id, 5);
      await expectGranted(t, b.id, units.id, 5, entity.id);
      const result = await t.client.call('balances.check', { customer_id: a.id, entity_id: entity.id, feature_id: units.id, required_balance: 2, send_event: true });
      t.check('CHECK-ENTITY-OWN-CUSTOMER', () => {
        if (!result.ok) return expect(result.status, "refusing A's check of B's entity is fine: a 4xx").toBeLessThan(500);
        expect(result.body.allowed, "A's check of B's entity is not allowed, though A has units of its own").toBe(false);
      });
      const [ofA, ofEntity] = [await usageOf(t, a.id, units.id), await usageOf(t, b.id, units.id, entity.id)];
      t.check('CHECK-ENTITY-OWN-CUSTOMER', () => expect({ ofA, ofEntity }, "the send_event through B's entity used nothing of A's or of the entity's").toEqual({ ofA: 0, ofEntity: 0 }));
    },
  ),
  scenario(
    {
      id: 'balances.entity-own-plan-keeps-customer-flag',
      title: "an entity that holds a plan of its own is allowed its customer's boolean feature exactly as a sibling holding none is",
      rules: ['CHECK-ALLOWED-BOOLEAN-IN-PLAN'],
    },
    async (t) => {
      const [seats, flag, ownFlag] = [await createFeature(t, 'allocated'), await createFeature(t, 'boolean'), await createFeature(t, 'boolean')];
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const addOn = await createPlan(t, { add_on: true, items: [{ feature_id: ownFlag.id }] });
      const customerId = await customerHolding(t, [plan]);
      const [holder, sibling] = [await createEntity(t, customerId, seats.id), await createEntity(t, customerId, seats.id)];
      await attach(t, customerId, addOn.id, { entity_id: holder.id });
      const allowedTo = async (featureId: string, entityId?: string) =>
        t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 1, ...(entityId !== undefined && { entity_id: entityId }) }), ['allowed']).allowed;
      // Whether an entity inherits its customer's plans for checks is the target's to show through the sibling; its own plan
      // only adds to what the entity holds, so the holder is answered as the sibling is.
      const [ofCustomer, ofSibling, ofHolder, ownOfHolder] = [await allowedTo(flag.id), await allowedTo(flag.id, sibling.id), await allowedTo(flag.id, holder.id), await allowedTo(ownFlag.id, holder.id)];
      t.check('CHECK-ALLOWED-BOOLEAN-IN-PLAN', () => {
        expect(ofCustomer, "the customer's plan includes the flag").toBe(true);
        expect(ofHolder, `the entity with a plan of its own (allowed its own flag: ${String(ownOfHolder)}), as its sibling without one (allowed: ${String(ofSibling)})`).toBe(ofSibling);
      });
    },
  ),
];
