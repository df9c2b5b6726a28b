/**
 * Conformance scenarios of customers.delete (a setup operation of the reference the interface does
 * not document, which a run's cleanup uses). It removes the customer it names and no other, with
 * what it holds: afterwards no documented read shows its entities, balances or pools, and a customer
 * created again under the ID reads, in every read of a customer, like one never seen.
 * Deletes that only build state are setup, with a precondition that they took effect, so a target
 * that keeps what it says it deleted blocks these checks, never fails them.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { inBatches, isRouteNotServed } from '../../framework/index.ts';
import {
  type T,
  deletionsOf,
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
  SETUP_WIDTH,
} from '../../support.ts';


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
        await expectDeleted(t, 'CUS-DELETE', deletionsOf(t).customer, customer.id);
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
  return { ...setup, licenseFlag: setup.flag, messages, flag, plan, entityIds: [own.id, seat!.entity_id] };
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

type Answer = Parameters<T['expectOk']>[0];

/** A read of a customer: what it is, how it is made for a customer, and (listings) the part of its answer about that customer. */
interface CustomerRead {
  readonly what: string;
  readonly read: (customerId: string) => Promise<Answer>;
  readonly own?: (body: unknown, customerId: string) => unknown;
}

/** Fields whose values the server makes for each record it creates: IDs and times, which tell two customers apart whatever they hold. */
const MADE_IDS = new Set(['id', 'stripe_id']);
const MADE_TIMES = new Set(['created_at', 'started_at', 'ended_at', 'canceled_at', 'expires_at', 'trial_ends_at', 'current_period_start', 'current_period_end', 'next_reset_at', 'resets_at']);

/**
 * A JSON value as it compares between two customers: the customer's own id, the IDs and times the
 * server makes masked (a time stays told from null), arrays as multisets (order is the listings' own rules').
 */
function masked(value: unknown, customerId: string): unknown {
  if (typeof value === 'string') return value === customerId ? '<customer>' : value;
  if (Array.isArray(value)) return value.map((item) => masked(item, customerId)).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      MADE_IDS.has(key) && typeof field === 'string' ? '<id>' : MADE_TIMES.has(key) && typeof field === 'number' ? '<time>' : masked(field, customerId),
    ]),
  );
}

/** An answer as it compares between two customers: a refusal by its status and code, a 200 by its (masked) body. */
function answerOf(read: CustomerRead, result: Answer, customerId: string): unknown {
  if (!result.ok) return { status: result.status, code: (result.body as { code?: unknown } | null)?.code };
  return { status: result.status, body: masked(read.own ? read.own(result.body, customerId) : result.body, customerId) };
}

interface ReadPair {
  readonly what: string;
  readonly again: unknown;
  readonly fresh: unknown;
  /** False when the target does not serve the read at all: then the two answers compare nothing. */
  readonly served: boolean;
}

/** Makes one read of both customers at once. */
async function readBoth(read: CustomerRead, againId: string, freshId: string): Promise<ReadPair> {
  const [again, fresh] = await Promise.all([read.read(againId), read.read(freshId)]);
  return { what: read.what, again: answerOf(read, again, againId), fresh: answerOf(read, fresh, freshId), served: fresh.ok || !isRouteNotServed(fresh.status, fresh.body) };
}

/** Each read of the customer created again answers as the same read of the customer never seen (each checked as soon as made, so its evidence is its own two calls). */
async function expectSameReads(t: T<'CUS-DELETE-CASCADES'>, reads: readonly CustomerRead[], againId: string, freshId: string, when: string): Promise<void> {
  for (const read of reads) {
    const { what, again, fresh, served } = await readBoth(read, againId, freshId);
    if (!served) {
      t.notVerified('CUS-DELETE-CASCADES', `${what} (${when}): the target does not serve it`);
      continue;
    }
    t.check('CUS-DELETE-CASCADES', () => expect(again, `${when}, ${what} of the customer created again answers as of a customer never seen`).toEqual(fresh));
  }
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
        'a customer created again under the ID of a deleted one (which held plans, a used and locked balance, an entity with a plan of its own, a seat of a license pool and, where paid plans attach, a purchase) reads like a customer never seen, created beside it: every read of a customer answers the same, also once both are given the same plans; its old entity IDs are free again',
      rules: ['CUS-DELETE-CASCADES', 'CUS-GET-OR-CREATE-NEW'],
      uses: ['paid-attach'],
    },
    async (t) => {
      const held = await customerHoldingEverything(t);
      const customerId = held.customerId;
      const [own, seat] = held.entityIds as [string, string];
      // What else a customer can hold: a plan of an entity's own, units held by a lock, and (where paid plans attach at once) a one-off purchase.
      await attach(t, customerId, held.plan.id, { entity_id: own });
      t.setup(await t.client.call('balances.check', { customer_id: customerId, feature_id: held.messages.id, required_balance: 2, lock: { lock_id: t.ns.id('lock'), enabled: true } }));
      const credits = t.has('paid-attach') ? await createFeature(t, 'allocated') : undefined;
      if (credits !== undefined) {
        const pack = await createPlan(t, { add_on: true, price: { amount: 10, interval: 'one_off' }, items: [{ feature_id: credits.id, included: 50 }] });
        await attach(t, customerId, pack.id);
      }
      // The customer never seen, beside it: the same name and email, so that only what the server makes tells them apart.
      const who = newCustomerBody(t);
      const fresh = t.setup(await t.client.call('customers.get_or_create', who), ['id']);

      const scenarioPlans = [held.plan.id, held.parentPlan.id, held.licensePlan.id];
      const features = [held.messages.id, held.flag.id, held.seatFeature.id, held.licenseFlag.id, ...(credits ? [credits.id] : [])];
      const ofCustomer = (rows: readonly { customer_id: string }[] | undefined, id: string) => (rows ?? []).filter((row) => row.customer_id === id);
      const allStatuses = ['active', 'scheduled', 'past_due', 'expired'] as const;
      // Every read interface.md (and the reference) has of a customer; listings keep only the rows about it, whatever else they hold (their filters are other rules').
      const customerReads: CustomerRead[] = [
        { what: 'customers.get', read: (id) => t.client.call('customers.get', { customer_id: id }) },
        ...features.map((featureId): CustomerRead => ({ what: `balances.check of ${featureId}`, read: (id) => t.client.call('balances.check', { customer_id: id, feature_id: featureId }) })),
        {
          what: "licenses.list (this scenario's pools)",
          read: (id) => t.client.call('licenses.list', { customer_id: id }),
          own: (body) => (body as { list?: { parent_plan_id: string; license_plan_id: string }[] }).list?.filter((pool) => scenarioPlans.includes(pool.parent_plan_id) || scenarioPlans.includes(pool.license_plan_id)),
        },
        { what: 'licenses.list_assignments', read: (id) => t.client.call('licenses.list_assignments', { customer_id: id }) },
        {
          what: 'subscriptions.list of every status',
          read: (id) => t.client.call('subscriptions.list', { customer_id: id, statuses: [...allStatuses], limit: 200 }),
          own: (body, id) => ofCustomer((body as { list?: { customer_id: string }[] }).list, id),
        },
        {
          what: 'purchases.list of every status',
          read: (id) => t.client.call('purchases.list', { customer_id: id, statuses: [...allStatuses], limit: 200 }),
          own: (body, id) => ofCustomer((body as { list?: { customer_id: string }[] }).list, id),
        },
        { what: `billing.preview_multi_update cancelling ${held.plan.id}`, read: (id) => t.client.call('billing.preview_multi_update', { customer_id: id, updates: [{ plan_id: held.plan.id, cancel_action: 'cancel_immediately' }] }) },
      ];
      // Reads naming an entity of the deleted customer: of the customer created again as of the one never seen, none finds it.
      const entityReads = held.entityIds.flatMap((entityId): CustomerRead[] => [
        { what: `entities.get of ${entityId}`, read: (id) => t.client.call('entities.get', { customer_id: id, entity_id: entityId }) },
        { what: `balances.check of ${held.licenseFlag.id} for ${entityId}`, read: (id) => t.client.call('balances.check', { customer_id: id, feature_id: held.licenseFlag.id, entity_id: entityId }) },
        { what: `licenses.list with entity ${entityId}`, read: (id) => t.client.call('licenses.list', { customer_id: id, entity_id: entityId }) },
      ]);
      const entitiesListRead: CustomerRead = {
        what: 'entities.list',
        read: (id) => t.client.call('entities.list', { customer_id: id, limit: 5000 }),
        own: (body, id) => ofCustomer((body as { list?: { customer_id: string }[] }).list, id),
      };

      // Every read once before the delete (a target that keeps answers until the data changes must see the delete), and
      // the control of the comparison: while the customer holds what it holds, these reads tell it from one never seen.
      const before = await inBatches([...customerReads, ...entityReads], SETUP_WIDTH / 2, (read) => readBoth(read, customerId, fresh.id));
      const tellApart = ['customers.get', 'licenses.list_assignments', 'subscriptions.list of every status', ...(credits ? ['purchases.list of every status'] : []), `entities.get of ${own}`, `entities.get of ${seat}`];
      const alike = before.filter((pair) => pair.served && tellApart.includes(pair.what) && isDeepStrictEqual(pair.again, pair.fresh)).map((pair) => pair.what);
      t.precondition('before the delete, the reads that show what the customer holds tell it from a customer never seen', () => expect(alike, 'reads alike').toEqual([]));
      await expectListedBeforeDelete(t, held);
      await deleteCustomer(t, customerId);

      const again = t.expectOk(await t.client.call('customers.get_or_create', { ...who, customer_id: customerId }), 'CUS-GET-OR-CREATE-NEW');
      t.check('CUS-GET-OR-CREATE-NEW', () => expect(again.id, 'customers.get_or_create creates the customer under the ID sent').toBe(customerId));
      t.check('CUS-DELETE-CASCADES', () =>
        expect(masked(again, customerId), 'customers.get_or_create answers the customer created again as it answered the customer never seen').toEqual(masked(fresh, fresh.id)),
      );
      await expectSameReads(t, [...customerReads, entitiesListRead, ...entityReads], customerId, fresh.id, 'created again');

      // Given the same plans, the two still read alike: no usage, lock or seat of the old customer comes back with them.
      await Promise.all(
        [customerId, fresh.id].map(async (id) => {
          await attach(t, id, held.parentPlan.id);
          await attach(t, id, held.plan.id);
        }),
      );
      await expectSameReads(t, [...customerReads, entitiesListRead], customerId, fresh.id, 'given the same plans');

      // The old entity IDs name nothing now: creating one again is accepted.
      const recreated = await t.client.call('entities.create', { customer_id: customerId, entity_id: own, feature_id: held.seatFeature.id, name: 'Again' });
      t.check('CUS-DELETE-CASCADES', () => expect(recreated.status, `entities.create of ${own}, an entity of the deleted customer, is accepted: ${JSON.stringify(recreated.body).slice(0, 200)}`).toBe(200));
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
