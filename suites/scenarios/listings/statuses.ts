/**
 * Scenarios of the statuses filter and the States rules about listed records: past_due is a filter
 * reading active, the default lists active and scheduled records, and expired ones appear only when
 * asked for, as soon as they expire.
 */
import { expect } from 'vitest';
import type { ListingStatusFilter } from '../../../spec/listings.ts';
import type { RecordFixture } from '../../framework/config.ts';
import { attach, createCustomer, createEntity, createFeature, createPlan, scenario, type T } from '../../support.ts';
import {
  addOnPlan,
  DAY,
  EVERY_STATUS,
  expectReadsAs,
  forceState,
  holding,
  holdingOf,
  type ListBody,
  LISTINGS,
  listPage,
  mainPlans,
  matchesStatuses,
  now,
  oneOffPrice,
  recordOf,
  type Row,
  type State,
  STATES,
  statusesRule,
  walkRows,
} from './support.ts';

/** A customer holding a free plan, and its record (setup; that the record is listed is a premise). */
async function holdFreePlan(t: T) {
  const plan = await createPlan(t, { group: t.ns.id('grp') });
  const customer = await createCustomer(t);
  await attach(t, customer.id, plan.id);
  const held = await recordOf(t, customer.id, plan.id);
  t.precondition('the customer holds the plan', () => expect(held).toBeDefined());
  return { customer, plan, held: held! };
}

/** The record ids of a walk by holding; that each holding is listed once is a premise. */
function idsByHolding(t: T, rows: readonly Row[]): Map<string, string> {
  const ids = new Map(rows.map((row) => [holdingOf(row), row.id]));
  t.precondition(`each holding listed once: ${rows.map(holdingOf).sort().join(', ')}`, () => expect(ids.size).toBe(rows.length));
  return ids;
}

/** Premise: attaching another main plan of the group expired the customer's record of `planId` (PLAN-GROUP-EXCLUSIVE's). */
async function requireReplaced(t: T, customerId: string, planId: string): Promise<void> {
  const rows = await walkRows(t, 'subscriptions.list', { customer_id: customerId, statuses: EVERY_STATUS, limit: 200 });
  t.precondition(`the record of ${planId} was replaced: it reads expired`, () =>
    expect(rows.filter((row) => row.plan_id === planId && row.entity_id === null).map((row) => row.status)).toEqual(['expired']),
  );
}

/**
 * The past-due checks against a deployment without a control plane, on a profile's pre-provisioned
 * overdue subscription. Only what holds whatever else the customer has is checked: the past_due
 * filter lists only overdue records, the fixture among them, reading active; the default listing
 * includes it and lists nothing expired.
 */
async function pastDueFixture(t: T, fixture: RecordFixture): Promise<void> {
  const isFixture = (row: Row) => (fixture.record_id === undefined ? holdingOf(row) === holding(fixture.customer_id, fixture.entity_id ?? null, fixture.plan_id) : row.id === fixture.record_id);
  const body: ListBody = { customer_id: fixture.customer_id, ...(fixture.entity_id !== undefined && { entity_id: fixture.entity_id }) };
  const pastDue = await walkRows(t, 'subscriptions.list', { ...body, statuses: ['past_due'] }, 'LIST-STATUSES-PAST-DUE');
  t.check('LIST-STATUSES-PAST-DUE', () => expect(pastDue.some(isFixture), 'statuses ["past_due"] lists the overdue fixture').toBe(true));
  for (const row of pastDue) expectReadsAs(t, row, 'past_due', `overdue ${holdingOf(row)}`);
  const byDefault = await walkRows(t, 'subscriptions.list', body, 'STATE-EXPIRED-ONLY-ON-REQUEST');
  const listed = byDefault.find(isFixture);
  t.check('STATE-PAST-DUE-NOT-A-STATUS', () => expect(listed, 'the default listing (active and scheduled) includes the overdue fixture').toBeDefined());
  expectReadsAs(t, listed!, 'past_due', 'the overdue fixture');
  t.check('STATE-EXPIRED-ONLY-ON-REQUEST', () => expect(byDefault.filter((row) => row.status === 'expired').map(holdingOf), 'the default listing holds nothing expired').toEqual([]));
}

export const statusesScenarios = [
  scenario(
    {
      id: 'listings.past-due-subscriptions',
      title: 'an overdue subscription reads status active with past_due true; statuses ["past_due"] lists exactly the overdue ones; the default listing includes them and leaves expired ones out',
      rules: ['STATE-PAST-DUE-NOT-A-STATUS', 'STATE-PAST-DUE-READS-ACTIVE', 'LIST-STATUSES-PAST-DUE', 'STATE-EXPIRED-ONLY-ON-REQUEST'],
      needs: [['control-plane', 'fixture:past_due_subscription']],
    },
    async (t) => {
      if (!t.has('control-plane')) {
        await pastDueFixture(t, t.fixtures.past_due_subscription!);
        return;
      }
      const seats = await createFeature(t, 'allocated');
      const [replaced, overdue] = await mainPlans(t, 2);
      const [current] = await mainPlans(t, 1);
      const addOn = await addOnPlan(t);
      const c = (await createCustomer(t)).id;
      const e = (await createEntity(t, c, seats.id)).id;
      await attach(t, c, replaced!.id);
      for (const plan of [overdue!, current!, addOn]) await attach(t, c, plan.id);
      await attach(t, c, overdue!.id, { entity_id: e });
      await requireReplaced(t, c, replaced!.id);

      const ids = idsByHolding(t, await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: EVERY_STATUS }));
      const idOf = (key: string) => ids.get(key)!;
      t.precondition('statuses with expired lists the replaced record', () => expect(ids.has(holding(c, null, replaced!.id))).toBe(true));
      const overdueIds = [holding(c, null, overdue!.id), holding(c, e, overdue!.id)].map(idOf).sort();
      t.precondition('the records to make overdue are listed', () => expect(overdueIds.every((id) => id !== undefined)).toBe(true));
      for (const id of overdueIds) await forceState(t, id, 'past_due');

      const pastDue = await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: ['past_due'] }, 'LIST-STATUSES-PAST-DUE');
      t.check('LIST-STATUSES-PAST-DUE', () => expect(pastDue.map((row) => row.id).sort(), 'statuses ["past_due"]: exactly the overdue records').toEqual(overdueIds));
      for (const row of pastDue) expectReadsAs(t, row, 'past_due', `overdue ${row.plan_id}`);

      const byDefault = await walkRows(t, 'subscriptions.list', { customer_id: c }, 'STATE-EXPIRED-ONLY-ON-REQUEST');
      const listed = byDefault.map((row) => row.id);
      t.check('STATE-EXPIRED-ONLY-ON-REQUEST', () => expect(listed, 'the default listing leaves the replaced record out').not.toContain(idOf(holding(c, null, replaced!.id))));
      t.check('STATE-PAST-DUE-NOT-A-STATUS', () => expect(listed, 'the default listing (active and scheduled) includes the overdue records').toEqual(expect.arrayContaining(overdueIds)));
      t.precondition('the default listing holds the live records', () => expect(listed.sort()).toEqual([...overdueIds, idOf(holding(c, null, current!.id)), idOf(holding(c, null, addOn.id))].sort()));
      for (const row of byDefault) expectReadsAs(t, row, overdueIds.includes(row.id) ? 'past_due' : 'active', row.plan_id);
    },
  ),
  scenario(
    {
      id: 'listings.statuses-filter',
      title: 'each statuses filter lists exactly the subscriptions and purchases in those states; the default is active (overdue included) and scheduled',
      rules: ['LIST-STATUSES-FILTER', 'STATE-DEFAULT-ACTIVE-SCHEDULED', 'STATE-EXPIRED-ONLY-ON-REQUEST', 'LIST-STATUSES-PAST-DUE', 'STATE-PAST-DUE-NOT-A-STATUS', 'STATE-PAST-DUE-READS-ACTIVE'],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const c = (await createCustomer(t)).id;
      const planIds = new Map<string, State>();
      for (const state of STATES) {
        planIds.set((await addOnPlan(t)).id, state);
        planIds.set((await addOnPlan(t, oneOffPrice)).id, state);
      }
      for (const planId of planIds.keys()) await attach(t, c, planId);
      for (const name of LISTINGS) {
        const rows = await walkRows(t, name, { customer_id: c, statuses: EVERY_STATUS });
        t.precondition(`${name}: one active record of each of its plans`, () => {
          expect(rows).toHaveLength(STATES.length);
          expect(rows.map((row) => row.status)).toEqual(STATES.map(() => 'active'));
        });
        for (const row of rows) await forceState(t, row.id, planIds.get(row.plan_id)!);
      }

      const filters: (ListingStatusFilter[] | undefined)[] = [undefined, ['active'], ['scheduled'], ['past_due'], ['expired'], ['scheduled', 'expired'], ['past_due', 'expired']];
      for (const name of LISTINGS) {
        for (const statuses of filters) {
          const rule = statuses === undefined ? 'STATE-DEFAULT-ACTIVE-SCHEDULED' : 'LIST-STATUSES-FILTER';
          const rows = await walkRows(t, name, { customer_id: c, ...(statuses && { statuses }) }, rule);
          const what = `${name} statuses ${statuses ? JSON.stringify(statuses) : '(default)'}`;
          const listed = rows.map((row) => planIds.get(row.plan_id)!);
          const expected = STATES.filter((state) => matchesStatuses(state, statuses));
          const extra = listed.filter((state) => !expected.includes(state));
          const missing = expected.filter((state) => !listed.includes(state));
          t.check(statusesRule(statuses, [...extra, ...missing]), () => expect(listed.sort(), `${what}: the records in exactly these states`).toEqual([...expected].sort()));
          for (const row of rows) expectReadsAs(t, row, planIds.get(row.plan_id)!, `${what}, ${row.plan_id}`);
        }
      }
    },
  ),
  scenario(
    {
      id: 'listings.replaced-plan-expired',
      title: 'a replaced main plan is expired: left out of the default listing, listed when statuses asks for expired',
      rules: ['STATE-EXPIRED-ONLY-ON-REQUEST', 'LIST-STATUSES-FILTER'],
    },
    async (t) => {
      const [old, current] = await mainPlans(t, 2);
      const c = (await createCustomer(t)).id;
      await attach(t, c, old!.id);
      await attach(t, c, current!.id);
      await requireReplaced(t, c, old!.id);
      const planIds = async (body: ListBody, rule: 'STATE-EXPIRED-ONLY-ON-REQUEST' | 'LIST-STATUSES-FILTER') =>
        (await walkRows(t, 'subscriptions.list', { customer_id: c, ...body }, rule)).map((row) => row.plan_id).sort();
      const byDefault = await planIds({}, 'STATE-EXPIRED-ONLY-ON-REQUEST');
      t.check('STATE-EXPIRED-ONLY-ON-REQUEST', () => expect(byDefault, 'default: the live plan only').toEqual([current!.id]));
      const expired = await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: ['expired'] }, 'LIST-STATUSES-FILTER');
      t.check('LIST-STATUSES-FILTER', () => {
        expect(expired.map((row) => row.plan_id), 'statuses ["expired"]: the replaced plan only').toEqual([old!.id]);
        expect(expired[0]!.status, 'reading expired').toBe('expired');
      });
      const both = await planIds({ statuses: ['active', 'expired'] }, 'LIST-STATUSES-FILTER');
      t.check('LIST-STATUSES-FILTER', () => expect(both, 'statuses ["active", "expired"]: both').toEqual([old!.id, current!.id].sort()));
    },
  ),
  scenario(
    {
      id: 'listings.statuses-refused',
      title: 'statuses must hold at least one value of active, scheduled, past_due, expired; each of those is accepted alone',
      rules: ['LIST-STATUSES-MIN-ONE', 'LIST-STATUSES-ENUM'],
      mutates: false,
    },
    async (t) => {
      const outOfEnum = [['canceled'], ['trialing'], ['ACTIVE'], ['pastdue'], ['active', 'paused']];
      for (const name of LISTINGS) {
        for (const status of ['active', 'scheduled', 'past_due', 'expired'] as const) await listPage(t, name, { statuses: [status], limit: 1 });
        t.expectError(await t.client.call(name, { statuses: [], limit: 1 }), { rule: 'LIST-STATUSES-MIN-ONE' });
        for (const statuses of outOfEnum) t.expectError(await t.client.call(name, { statuses: statuses as ListingStatusFilter[], limit: 1 }), { rule: 'LIST-STATUSES-ENUM' });
      }
    },
  ),
  scenario(
    {
      id: 'lifecycle.expiry-falls-due',
      title: 'a record due to expire in a day is listed by default until then, and no longer once its expiry has passed',
      rules: ['STATE-EXPIRED-ONLY-ON-REQUEST'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { customer, plan, held } = await holdFreePlan(t);
      const expiresAt = (await now(t)) + DAY;
      await t.control.call('records.force_state', { record_id: held.id, state: 'expired', at: expiresAt });
      const before = await recordOf(t, customer.id, plan.id);
      t.precondition('until its expiry the record is listed by default, active, with its expiry time', () => expect(before).toMatchObject({ status: 'active', expires_at: expiresAt }));
      await t.control.call('clock.advance', { ms: 2 * DAY });
      const byDefault = await recordOf(t, customer.id, plan.id);
      t.check('STATE-EXPIRED-ONLY-ON-REQUEST', () => expect(byDefault, 'the default listing leaves the expired record out').toBeUndefined());
    },
  ),
  scenario(
    {
      id: 'lifecycle.overdue-settled',
      title: 'a plan that was overdue and is paid up again no longer matches the past_due filter',
      rules: ['LIST-STATUSES-PAST-DUE'],
      needs: ['control-plane'],
    },
    async (t) => {
      const { customer, plan, held } = await holdFreePlan(t);
      const overdue = async () =>
        t.setup(await t.client.call('subscriptions.list', { customer_id: customer.id, plan_id: plan.id, statuses: ['past_due'] }), ['list']).list.map((record) => record.id);
      const neverOverdue = await overdue();
      // That the statuses filter filters at all is LIST-STATUSES-FILTER's.
      t.precondition('before it is overdue, the plan does not match the past_due filter', () => expect(neverOverdue).toEqual([]));
      await t.control.call('records.force_state', { record_id: held.id, state: 'past_due' });
      const whileOverdue = await overdue();
      // That an overdue plan matches is this rule's too, proven by listings.past-due-subscriptions above; here it is the premise.
      t.precondition('while overdue, the plan matches the past_due filter', () => expect(whileOverdue).toEqual([held.id]));
      await t.control.call('records.force_state', { record_id: held.id, state: 'active' });
      const settled = await overdue();
      t.check('LIST-STATUSES-PAST-DUE', () => expect(settled, 'paid up, the plan is not overdue any more').toEqual([]));
    },
  ),
];
