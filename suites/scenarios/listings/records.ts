/**
 * Scenarios of the records subscriptions.list and purchases.list hold: one listing per kind of plan,
 * each record's plan flags (of its own plan version), owner and scope, and the customer and entity
 * filters.
 */
import { expect } from 'vitest';
import type { Plan } from '../../../spec/plans.ts';
import { attach, createCustomer, createEntity, createFeature, createPlan, scenario, type T } from '../../support.ts';
import { expectReadsAs, LISTINGS, type ListName, listPage, oneOffPrice, plansOfEachKind, type Row, WALK_RULES, walkRows } from './support.ts';

/** A record by customer and plan only: what a filter by customer or plan can be judged on whatever entity_id reads (LIST-RECORD-OWNER's). */
function customerPlanOf(row: Row): string {
  return `${row.customer_id}/${row.plan_id}`;
}

interface RecordsOfEachKind {
  readonly a: string;
  readonly b: string;
  /** An entity of customer a. */
  readonly e: string;
  readonly main: Plan;
  readonly addOn: Plan;
  readonly monthly: Plan;
  readonly pack: Plan;
}

/**
 * Customer a holds a free main plan, a free add-on, a paid monthly plan and a one-off pack; its entity e
 * holds the main plan and the pack; customer b holds the main plan and the pack.
 */
async function recordsOfEachKind(t: T): Promise<RecordsOfEachKind> {
  const seats = await createFeature(t, 'allocated');
  const { main, addOn, monthly, pack } = await plansOfEachKind(t);
  const a = (await createCustomer(t)).id;
  const b = (await createCustomer(t)).id;
  const e = (await createEntity(t, a, seats.id)).id;
  for (const plan of [main, addOn, monthly, pack]) await attach(t, a, plan.id);
  for (const plan of [main, pack]) await attach(t, a, plan.id, { entity_id: e });
  for (const plan of [main, pack]) await attach(t, b, plan.id);
  return { a, b, e, main, addOn, monthly, pack };
}

/**
 * Who holds each record of one listing: the entity filter finds the entity's one record (of
 * `entityPlanId`), the rest are a's own (LIST-RECORD-OWNER); a's own have scope customer
 * (LIST-RECORD-SCOPE); every record reads active, as just attached, and has an id of its own (the
 * listing's shape rule).
 */
async function expectOwnersAndScope(t: T, name: ListName, { a, e }: RecordsOfEachKind, rows: readonly Row[], entityPlanId: string): Promise<void> {
  const shapeRule = name === 'purchases.list' ? 'LIST-PURCHASE-SHAPE' : 'LIST-SUBSCRIPTION-SHAPE';
  for (const row of rows) expectReadsAs(t, row, 'active', `${name}: ${row.plan_id}`, shapeRule);
  t.check(shapeRule, () => expect(new Set(rows.map((row) => row.id)).size, `${name}: every record has an id of its own`).toBe(rows.length));
  const ofEntity = await walkRows(t, name, { customer_id: a, entity_id: e }, 'LIST-ENTITY-FILTER');
  t.check('LIST-ENTITY-FILTER', () => expect(ofEntity.map((row) => row.plan_id), `${name}: the entity's one record`).toEqual([entityPlanId]));
  const entityIds = new Set(ofEntity.map((row) => row.id));
  t.check('LIST-RECORD-OWNER', () => {
    for (const row of rows) expect([row.customer_id, row.entity_id ?? null], `${name}: ${row.plan_id}: owner`).toEqual([a, entityIds.has(row.id) ? e : null]);
  });
  t.check('LIST-RECORD-SCOPE', () => {
    for (const row of rows.filter((candidate) => !entityIds.has(candidate.id))) expect(row.scope, `${name}: ${row.plan_id}: a customer-level record has scope customer`).toBe('customer');
  });
}

export const recordsScenarios = [
  scenario(
    {
      id: 'listings.records-of-each-kind',
      title: 'subscriptions.list lists the recurring plans with add-ons and no one-off plan; each record names its plan flags, customer and entity, its scope, and no trial end without a trial',
      rules: [
        'LIST-SUBSCRIPTION-SHAPE',
        'LIST-SUB-PLAN-FLAGS',
        'LIST-RECORD-OWNER',
        'LIST-RECORD-SCOPE',
        'LIST-TRIAL-ENDS-NULL',
        'LIST-SUBSCRIPTIONS-RECURRING',
        // What the walks rest on: checked as the rules that state it.
        ...WALK_RULES,
        'LIST-CUSTOMER-FILTER',
        'LIST-ENTITY-FILTER',
      ],
      needs: ['paid-attach'],
    },
    async (t) => {
      const records = await recordsOfEachKind(t);
      const { a, main, addOn, monthly, pack } = records;
      const plans = new Map([main, addOn, monthly, pack].map((plan) => [plan.id, plan]));
      t.precondition('the plans differ in their flags', () => expect([main.add_on, addOn.add_on]).toEqual([false, true]));
      const subscriptions = await walkRows(t, 'subscriptions.list', { customer_id: a }, 'LIST-SUBSCRIPTIONS-RECURRING');
      t.check('LIST-SUBSCRIPTIONS-RECURRING', () =>
        expect(subscriptions.map((row) => row.plan_id).sort(), 'the recurring plans of a and of its entity, add-on included, and no one-off plan').toEqual([main.id, addOn.id, monthly.id, main.id].sort()),
      );
      t.check('LIST-SUB-PLAN-FLAGS', () => {
        for (const row of subscriptions) {
          const plan = plans.get(row.plan_id)!;
          expect([row.add_on, row.auto_enable], `${row.plan_id}: add_on and auto_enable are the plan's flags`).toEqual([plan.add_on, plan.auto_enable]);
        }
      });
      t.check('LIST-TRIAL-ENDS-NULL', () => {
        // A missing trial_ends_at is the shape rule's: only a value is judged.
        for (const row of subscriptions) expect(row.trial_ends_at ?? null, `${row.plan_id}: no trial, so trial_ends_at is null`).toBeNull();
      });
      await expectOwnersAndScope(t, 'subscriptions.list', records, subscriptions, main.id);
    },
  ),
  scenario(
    {
      id: 'listings.purchase-records',
      // Apart from the subscriptions: a target that serves one listing and not the other has the other's rules decided.
      title: 'purchases.list lists the one-off plans and no recurring plan; each record names its customer and entity, and its scope',
      rules: ['LIST-PURCHASE-SHAPE', 'LIST-RECORD-OWNER', 'LIST-RECORD-SCOPE', 'LIST-PURCHASES-ONE-OFF', ...WALK_RULES, 'LIST-CUSTOMER-FILTER', 'LIST-ENTITY-FILTER'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const records = await recordsOfEachKind(t);
      const { a, pack } = records;
      const purchases = await walkRows(t, 'purchases.list', { customer_id: a }, 'LIST-PURCHASES-ONE-OFF');
      t.check('LIST-PURCHASES-ONE-OFF', () => expect(purchases.map((row) => row.plan_id), 'the one-off plan of a and of its entity, and no recurring plan').toEqual([pack.id, pack.id]));
      await expectOwnersAndScope(t, 'purchases.list', records, purchases, pack.id);
    },
  ),
  scenario(
    {
      id: 'listings.customer-and-entity-scope',
      title: 'customer_id narrows a listing to one customer and its entities, entity_id to one entity, and without customer_id a listing spans every customer',
      rules: ['LIST-CUSTOMER-FILTER', 'LIST-ENTITY-FILTER', 'LIST-ACROSS-CUSTOMERS', ...WALK_RULES, 'LIST-PLAN-FILTER'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const { a, b, e, main, addOn, monthly, pack } = await recordsOfEachKind(t);
      const customers = (rows: readonly Row[]) => [...new Set(rows.map((row) => row.customer_id))];
      // Which kind of record each listing holds is LIST-SUBSCRIPTIONS-RECURRING's and LIST-PURCHASES-ONE-OFF's: only its own kind is judged here.
      const ofKind = (name: ListName, rows: readonly Row[]) => rows.filter((row) => (name === 'purchases.list' ? [pack.id] : [main.id, addOn.id, monthly.id]).includes(row.plan_id));

      for (const [customerId, name, held] of [
        [b, 'subscriptions.list', main.id],
        [b, 'purchases.list', pack.id],
        [a, 'subscriptions.list', main.id],
        [a, 'purchases.list', pack.id],
      ] as const) {
        const rows = ofKind(name, await walkRows(t, name, { customer_id: customerId }, 'LIST-CUSTOMER-FILTER'));
        t.check('LIST-CUSTOMER-FILTER', () => {
          expect(customers(rows), `${name} of ${customerId}: that customer's records only`).toEqual([customerId]);
          expect(rows.map((row) => row.plan_id), `${name} of ${customerId}: its ${held}`).toContain(held);
        });
      }

      for (const [name, planId] of [
        ['subscriptions.list', main.id],
        ['purchases.list', pack.id],
      ] as const) {
        const rows = ofKind(name, await walkRows(t, name, { customer_id: a, entity_id: e }, 'LIST-ENTITY-FILTER'));
        t.check('LIST-ENTITY-FILTER', () => expect(rows.map((row) => row.plan_id), `${name}: the entity's one record only`).toEqual([planId]));
      }

      // Across customers, bounded to this scenario's plans (the organisation holds other data); plan_id is LIST-PLAN-FILTER's.
      for (const [name, planId] of [
        ['subscriptions.list', main.id],
        ['purchases.list', pack.id],
      ] as const) {
        const rows = await walkRows(t, name, { plan_id: planId, limit: 200 }, 'LIST-ACROSS-CUSTOMERS');
        t.check('LIST-ACROSS-CUSTOMERS', () =>
          expect(rows.map(customerPlanOf).sort(), `${name}: the plan of every customer, a's entity included`).toEqual([`${a}/${planId}`, `${a}/${planId}`, `${b}/${planId}`].sort()),
        );
      }
    },
  ),
  scenario(
    {
      id: 'listings.record-flags-of-its-plan-version',
      title: 'a subscription record on a later version of a plan carries the flags of that version, not of the first',
      rules: ['LIST-SUB-PLAN-FLAGS', 'LIST-SUBSCRIPTIONS-RECURRING'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const other = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const early = await createCustomer(t);
      await attach(t, early.id, plan.id);
      // A change of items while a customer is on the plan makes version 2; the flag changes with it.
      const updated = t.setup(await t.client.call('plans.update', { plan_id: plan.id, items: [{ feature_id: other.id }], add_on: true }), ['add_on']);
      t.precondition('plans.update made the plan an add-on', () => expect([plan.add_on, updated.add_on]).toEqual([false, true]));
      const late = await createCustomer(t);
      await attach(t, late.id, plan.id);
      const { rows } = await listPage(t, 'subscriptions.list', { customer_id: late.id }, 'LIST-SUB-PLAN-FLAGS');
      const record = rows.find((row) => row.plan_id === plan.id);
      t.check('LIST-SUBSCRIPTIONS-RECURRING', () => expect(record, `subscriptions.list lists the customer's plan ${plan.id}`).toBeDefined());
      t.check('LIST-SUB-PLAN-FLAGS', () => expect(record!.add_on, 'the record of the customer attached after the change is an add-on').toBe(true));
    },
  ),
  scenario(
    {
      id: 'plans.one-off-item-price-purchase',
      title: 'a plan without a base price whose only price is a one-off item price is a one-off plan: purchases.list lists it',
      rules: ['LIST-PURCHASES-ONE-OFF'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const pack = await createPlan(t, { add_on: true, items: [{ feature_id: seats.id, included: 0, price: { amount: 3, interval: 'one_off', billing_method: 'prepaid' } }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, pack.id, { feature_quantities: [{ feature_id: seats.id, quantity: 2 }] });
      const { list } = t.setup(await t.client.call('purchases.list', { customer_id: customer.id, limit: 200 }), ['list']);
      t.check('LIST-PURCHASES-ONE-OFF', () => expect(list.map((row) => row.plan_id), 'the pack bought once is a purchase').toContain(pack.id));
    },
  ),
  scenario(
    {
      id: 'listings.plan-filter-exact',
      title: 'plan_id matches exactly: a plan whose id starts with the filtered one is not listed, on either listing, within a customer or across customers',
      rules: ['LIST-PLAN-FILTER', ...WALK_RULES, 'LIST-CUSTOMER-FILTER'],
      needs: ['paid-attach'],
    },
    async (t) => {
      for (const name of LISTINGS) {
        // Main plans of groups of their own: neither replaces the other, whatever add_on handling (other rules').
        const priced = name === 'purchases.list' ? oneOffPrice : {};
        const pro = await createPlan(t, { group: t.ns.id('grp'), ...priced });
        const annual = await createPlan(t, { group: t.ns.id('grp'), ...priced, plan_id: `${pro.id}_annual` });
        const customerId = (await createCustomer(t)).id;
        for (const plan of [pro, annual]) await attach(t, customerId, plan.id);
        for (const body of [{ customer_id: customerId, plan_id: pro.id }, { plan_id: pro.id, limit: 200 }]) {
          // Across customers the listing is LIST-ACROSS-CUSTOMERS' subject: a read here.
          const rows = await walkRows(t, name, body, 'customer_id' in body ? 'LIST-PLAN-FILTER' : undefined);
          t.check('LIST-PLAN-FILTER', () => expect(rows.map((row) => row.plan_id), `${name} ${JSON.stringify(body)}: ${pro.id} only, not ${annual.id}`).toEqual([pro.id]));
        }
      }
    },
  ),
  scenario(
    {
      id: 'listings.entity-requires-customer',
      title: 'entity_id without customer_id is refused by both listings, even for a real entity; with its customer it is accepted',
      rules: ['LIST-ENTITY-REQUIRES-CUSTOMER'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const customerId = (await createCustomer(t)).id;
      const entityId = (await createEntity(t, customerId, seats.id)).id;
      for (const name of LISTINGS) {
        t.expectError(await t.client.call(name, { entity_id: entityId }), { rule: 'LIST-ENTITY-REQUIRES-CUSTOMER' });
        await listPage(t, name, { customer_id: customerId, entity_id: entityId }, 'LIST-ENTITY-REQUIRES-CUSTOMER');
      }
    },
  ),
];
