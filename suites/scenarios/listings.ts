/**
 * Conformance scenarios of `subscriptions.list` and `purchases.list`, and of the States rules about
 * the records they list.
 *
 * The organisation is shared with other scenarios running at the same time, so every listing is
 * bounded to this scenario's own data: its customers, or (across customers) its own namespaced plans
 * through `plan_id`. Record states the public API cannot produce (past due, scheduled, and expired
 * purchases) come from the fake's control plane (`records.force_state`), or, for one scenario, from a
 * pre-provisioned fixture of the target profile. An expired subscription needs neither: attaching a
 * main plan of the same group replaces (expires) the one held.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { z } from 'zod';
import { DEFAULT_LISTING_STATUSES, type ListingStatusFilter } from '../../spec/listings.ts';
import type { Plan } from '../../spec/plans.ts';
import type { RecordFixture } from '../framework/config.ts';
import { attach, checkProperty, createCustomer, createEntity, createFeature, createPlan, scenario, type Ops, type T } from '../support.ts';

type ListName = 'subscriptions.list' | 'purchases.list';
type ListBody = z.input<Ops['subscriptions.list']['request']>;
type Row<N extends ListName = ListName> = z.output<Ops[N]['response']>['list'][number];

interface Page<N extends ListName> {
  readonly rows: Row<N>[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

const LISTINGS: readonly ListName[] = ['subscriptions.list', 'purchases.list'];
/** Every status a record can have: a listing with these holds every record, live or expired. */
const EVERY_STATUS: ListingStatusFilter[] = ['active', 'scheduled', 'expired'];

async function listPage<N extends ListName>(t: T, name: N, body: ListBody): Promise<Page<N>> {
  // Both listings take the same body (RecordListRequest).
  const page = t.expectOk(await t.client.call(name as ListName, body)) as z.output<Ops[N]['response']>;
  return { rows: page.list as Row<N>[], hasMore: page.has_more, nextCursor: page.next_cursor };
}

/**
 * Every page of a listing, from `body.start_cursor` (the first page when absent) until has_more is
 * false. It asserts only what a walk needs to go on: a next_cursor while has_more is true, and one
 * it has not followed already (so a cursor that does not move fails the walk instead of looping).
 */
async function walk<N extends ListName>(t: T, name: N, body: ListBody): Promise<Page<N>[]> {
  const pages: Page<N>[] = [];
  const followed = new Set<string>();
  let cursor = body.start_cursor;
  for (;;) {
    const page = await listPage(t, name, cursor === undefined ? body : { ...body, start_cursor: cursor });
    pages.push(page);
    if (!page.hasMore) return pages;
    expect(page.nextCursor, `${name}: has_more is true, so next_cursor must name the next page`).not.toBeNull();
    expect(followed.has(page.nextCursor!), `${name}: next_cursor moves on (page ${pages.length} answered a cursor already followed)`).toBe(false);
    followed.add(page.nextCursor!);
    cursor = page.nextCursor!;
  }
}

async function walkRows<N extends ListName>(t: T, name: N, body: ListBody): Promise<Row<N>[]> {
  return (await walk(t, name, body)).flatMap((page) => page.rows);
}

/** A record by what it is: owner and plan. A holder has one live record of a plan at a time. */
function holding(customerId: string, entityId: string | null, planId: string): string {
  return `${customerId}/${entityId ?? '-'}/${planId}`;
}

function holdingOf(row: Row): string {
  return holding(row.customer_id, row.entity_id, row.plan_id);
}

/** The holdings of a walk, sorted, duplicates kept (so a record listed twice shows). */
function holdings(rows: readonly Row[]): string[] {
  return rows.map(holdingOf).sort();
}

/** The record ids of a walk by holding; fails when a holding is listed twice. */
function idsByHolding(rows: readonly Row[]): Map<string, string> {
  const ids = new Map(rows.map((row) => [holdingOf(row), row.id]));
  expect(ids.size, `each holding listed once: ${holdings(rows).join(', ')}`).toBe(rows.length);
  return ids;
}

function expectNoDuplicates(rows: readonly Row[], what: string): void {
  const ids = rows.map((row) => row.id);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i), `${what}: every record once`).toEqual([]);
}

/** On every page: at most `limit` rows, and next_cursor null exactly when has_more is false. */
function expectPagesWellFormed(pages: readonly Page<ListName>[], limit: number, what: string): void {
  pages.forEach((page, i) => {
    expect(page.rows.length, `${what}, page ${i + 1}: at most limit = ${limit} rows`).toBeLessThanOrEqual(limit);
    expect(page.nextCursor === null, `${what}, page ${i + 1}: next_cursor is null exactly when has_more is false (has_more ${page.hasMore})`).toBe(!page.hasMore);
  });
}

// ── Record states ────────────────────────────────────────────────────────────

/** What a record is in: a status, or `past_due` for an overdue record (which reads `status: active`). */
type State = 'active' | 'past_due' | 'scheduled' | 'expired';
const STATES: readonly State[] = ['active', 'past_due', 'scheduled', 'expired'];

/**
 * States rules 1 and 2: a filter value matches records in that state; `active` also matches overdue
 * records, since they read `status: active`; omitted, the filter is `active` and `scheduled`.
 */
function matchesStatuses(state: State, statuses: readonly ListingStatusFilter[] = DEFAULT_LISTING_STATUSES): boolean {
  return statuses.some((status) => status === state || (status === 'active' && state === 'past_due'));
}

/** How a record in `state` reads: its status, and for a subscription its past_due flag. */
function expectReadsAs(row: Row, state: State, what: string): void {
  expect(row.status, `${what}: status (past_due is not a status; an overdue record reads active)`).toBe(state === 'past_due' ? 'active' : state);
  if ('past_due' in row) expect(row.past_due, `${what}: past_due`).toBe(state === 'past_due');
}

async function forceState(t: T, recordId: string, state: State): Promise<void> {
  if (state !== 'active') await t.control.call('records.force_state', { record_id: recordId, state });
}

// ── Builders ─────────────────────────────────────────────────────────────────

const oneOffPrice = { price: { amount: 5, interval: 'one_off' } } as const;

/** Main plans of one namespaced group: attaching one replaces (expires) the other the holder has. */
async function mainPlans(t: T, count: number): Promise<Plan[]> {
  const group = t.ns.id('grp');
  const plans: Plan[] = [];
  for (let i = 0; i < count; i++) plans.push(await createPlan(t, { group }));
  return plans;
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
  const [main] = await mainPlans(t, 1);
  const addOn = await createPlan(t, { add_on: true });
  const monthly = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 12, interval: 'month' } });
  const pack = await createPlan(t, oneOffPrice);
  const a = (await createCustomer(t)).id;
  const b = (await createCustomer(t)).id;
  const e = (await createEntity(t, a, seats.id)).id;
  for (const plan of [main!, addOn, monthly, pack]) await attach(t, a, plan.id);
  for (const plan of [main!, pack]) await attach(t, a, plan.id, { entity_id: e });
  for (const plan of [main!, pack]) await attach(t, b, plan.id);
  return { a, b, e, main: main!, addOn, monthly, pack };
}

/** A customer that has held `count` records: two main plans of a group attached in turn, so one is live and the rest expired. */
async function customerWithHistory(t: T, count: number): Promise<string> {
  const [first, second] = await mainPlans(t, 2);
  const customerId = (await createCustomer(t)).id;
  for (let i = 0; i < count; i++) await attach(t, customerId, (i % 2 === 0 ? first : second)!.id);
  return customerId;
}

// ── Property: any data, any query ────────────────────────────────────────────

/** Plans of a random dataset: two main plans in groups of their own (so neither replaces the other), an add-on, and a one-off. */
const PLAN_SHAPES = ['main', 'main', 'addOn', 'oneOff'] as const;

const datasets = fc
  .array(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 3 })
  .chain((entityCounts) => {
    const holders = entityCounts.reduce((sum, entities) => sum + 1 + entities, 0);
    const states = fc.array(fc.option(fc.constantFrom(...STATES), { nil: null, freq: 3 }), { minLength: PLAN_SHAPES.length, maxLength: PLAN_SHAPES.length });
    return fc.record({ entityCounts: fc.constant(entityCounts), held: fc.array(states, { minLength: holders, maxLength: holders }) });
  });

const queries = fc.record({
  kind: fc.constantFrom(...LISTINGS),
  scope: fc.constantFrom('across', 'customer', 'entity'),
  customer: fc.nat(),
  entity: fc.nat(),
  plan: fc.option(fc.nat({ max: PLAN_SHAPES.length - 1 }), { nil: undefined }),
  // Half the queries take the default statuses.
  statuses: fc.option(fc.subarray(['active', 'scheduled', 'past_due', 'expired'] as ListingStatusFilter[], { minLength: 1 }), { nil: undefined, freq: 2 }),
  limits: fc.tuple(fc.constantFrom(1, 2, 3, 7, 200), fc.constantFrom(1, 2, 3, 7, 200, undefined)),
});

interface ModelRecord {
  readonly id: string;
  readonly kind: ListName;
  readonly customerId: string;
  readonly entityId: string | null;
  readonly planId: string;
  readonly state: State;
}

export const listingsScenarios = [
  scenario(
    {
      id: 'listings.records-of-each-kind',
      title: 'subscriptions.list lists recurring plans with add-ons, purchases.list one-off plans; each record names its plan flags, customer and entity',
      rules: ['LIST-SUBSCRIPTION-SHAPE', 'LIST-PURCHASE-SHAPE', 'LIST-SUB-PLAN-FLAGS', 'LIST-RECORD-OWNER', 'LIST-SUBSCRIPTIONS-RECURRING', 'LIST-PURCHASES-ONE-OFF'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const { a, e, main, addOn, monthly, pack } = await recordsOfEachKind(t);
      const plans = new Map([main, addOn, monthly, pack].map((plan) => [plan.id, plan]));

      const subscriptions = await walkRows(t, 'subscriptions.list', { customer_id: a });
      expect(holdings(subscriptions), 'the recurring plans of a and of its entity, add-on included, and no one-off plan').toEqual(
        [holding(a, null, main.id), holding(a, null, addOn.id), holding(a, null, monthly.id), holding(a, e, main.id)].sort(),
      );
      for (const row of subscriptions) {
        const plan = plans.get(row.plan_id)!;
        expect([row.add_on, row.auto_enable], `${row.plan_id}: add_on and auto_enable are the plan's flags`).toEqual([plan.add_on, plan.auto_enable]);
        expectReadsAs(row, 'active', `subscription ${row.plan_id}`);
      }
      // Not a tautology: the flags differ between the plans, so swapped or constant flags fail above.
      expect([main.add_on, addOn.add_on]).toEqual([false, true]);

      const purchases = await walkRows(t, 'purchases.list', { customer_id: a });
      expect(holdings(purchases), 'the one-off plans of a and of its entity, and no recurring plan').toEqual([holding(a, null, pack.id), holding(a, e, pack.id)].sort());
      for (const row of purchases) expectReadsAs(row, 'active', `purchase ${row.plan_id}`);
      expect(new Set([...subscriptions, ...purchases].map((row) => row.id)).size, 'every record has an id of its own').toBe(subscriptions.length + purchases.length);
    },
  ),

  scenario(
    {
      id: 'listings.customer-and-entity-scope',
      title: 'customer_id narrows a listing to one customer and its entities, entity_id to one entity, and without customer_id a listing spans every customer',
      rules: ['LIST-CUSTOMER-FILTER', 'LIST-ENTITY-FILTER', 'LIST-ACROSS-CUSTOMERS'],
      needs: ['paid-attach'],
    },
    async (t) => {
      const { a, b, e, main, addOn, monthly, pack } = await recordsOfEachKind(t);

      expect(holdings(await walkRows(t, 'subscriptions.list', { customer_id: b })), "b's own subscriptions only").toEqual([holding(b, null, main.id)]);
      expect(holdings(await walkRows(t, 'purchases.list', { customer_id: b })), "b's own purchases only").toEqual([holding(b, null, pack.id)]);
      expect(holdings(await walkRows(t, 'subscriptions.list', { customer_id: a })), "a's subscriptions, its entity's included").toEqual(
        [holding(a, null, main.id), holding(a, null, addOn.id), holding(a, null, monthly.id), holding(a, e, main.id)].sort(),
      );

      expect(holdings(await walkRows(t, 'subscriptions.list', { customer_id: a, entity_id: e })), "the entity's subscriptions only").toEqual([holding(a, e, main.id)]);
      expect(holdings(await walkRows(t, 'purchases.list', { customer_id: a, entity_id: e })), "the entity's purchases only").toEqual([holding(a, e, pack.id)]);

      // Across customers, bounded to this scenario's plans: the organisation holds other data.
      expect(holdings(await walkRows(t, 'subscriptions.list', { plan_id: main.id, limit: 200 })), 'the main plan of every customer').toEqual(
        [holding(a, null, main.id), holding(a, e, main.id), holding(b, null, main.id)].sort(),
      );
      expect(holdings(await walkRows(t, 'purchases.list', { plan_id: pack.id, limit: 200 })), 'the pack of every customer').toEqual(
        [holding(a, null, pack.id), holding(a, e, pack.id), holding(b, null, pack.id)].sort(),
      );
    },
  ),

  scenario(
    {
      id: 'listings.walk-short-and-empty-pages',
      title: 'a plan_id walk over interleaved records goes through short and empty pages to has_more false, and at every limit lists each match exactly once',
      rules: ['LIST-SHORT-PAGES', 'LIST-WALK-EVERY-MATCH-ONCE', 'LIST-CURSOR-CONTINUES', 'LIST-NEXT-CURSOR-NULL', 'LIST-PLAN-FILTER'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const [p, q, r] = await mainPlans(t, 3);
      const x = await createPlan(t, { add_on: true });
      const y = await createPlan(t, { add_on: true });
      const customerId = (await createCustomer(t)).id;
      const e = (await createEntity(t, customerId, seats.id)).id;

      // The matches (plan p, on the customer and on its entity) sit between long runs of other
      // records: q and r replacing each other, add-ons, and the entity's own plans. A service that
      // pages before it filters answers short and empty pages here.
      const churn = (n: number): [string | null, Plan][] => Array.from({ length: n }, (_, i) => [null, i % 2 === 0 ? q! : r!]);
      const steps: [string | null, Plan][] = [
        [null, p!], ...churn(14), [null, p!], [null, x], [e, p!], [null, q!], [e, q!], [null, p!], [e, r!], [null, y], ...churn(13), [e, p!], [null, p!],
      ];
      for (const [entityId, plan] of steps) await attach(t, customerId, plan.id, entityId === null ? {} : { entity_id: entityId });
      const matching = steps.filter(([, plan]) => plan === p).length;

      const everything = await walkRows(t, 'subscriptions.list', { customer_id: customerId, statuses: EVERY_STATUS, limit: 200 });
      expect(everything.length, 'every record the customer ever held is listed, live or expired').toBe(steps.length);
      const expected = everything.filter((row) => row.plan_id === p!.id).map((row) => row.id).sort();
      expect(expected).toHaveLength(matching);

      const body: ListBody = { customer_id: customerId, plan_id: p!.id, statuses: EVERY_STATUS };
      const emptyPagesBeforeTheEnd: number[] = [];
      for (const limit of [1, 2, 3, 7, 200]) {
        const pages = await walk(t, 'subscriptions.list', { ...body, limit });
        const rows = pages.flatMap((page) => page.rows);
        const what = `plan_id walk at limit ${limit}`;
        expectPagesWellFormed(pages, limit, what);
        expectNoDuplicates(rows, what);
        expect(rows.every((row) => row.plan_id === p!.id), `${what}: only plan ${p!.id}`).toBe(true);
        expect(rows.map((row) => row.id).sort(), `${what}: every match, even past short and empty pages`).toEqual(expected);
        emptyPagesBeforeTheEnd.push(pages.filter((page) => page.rows.length === 0 && page.hasMore).length);
      }

      // The document allows short and empty pages but does not require them: a deployment that
      // filters before it pages passes the walks above without any, and that is conformant. The fake
      // pages first and filters afterwards (the design asks it to), so against it, the only target
      // with a control plane, this data must give empty pages before the end at limit 1. Asserting
      // that there proves the walks above really went through such pages, so that this scenario keeps
      // its power to catch a listing (or a client) that stops at the first short or empty page.
      if (t.has('control-plane')) expect(emptyPagesBeforeTheEnd[0], 'against the fake: empty pages with has_more true at limit 1').toBeGreaterThan(0);
    },
  ),

  scenario(
    {
      id: 'listings.default-limit-and-first-page',
      title: 'omitting limit and start_cursor is the same as limit 50 and start_cursor "", page after page',
      rules: ['LIST-LIMIT-DEFAULT', 'LIST-START-CURSOR-DEFAULT'],
    },
    async (t) => {
      // More than 50 records, so that a default other than 50 shows on the first page.
      const customerId = await customerWithHistory(t, 53);
      const body: ListBody = { customer_id: customerId, statuses: EVERY_STATUS };
      const byDefault = await walk(t, 'subscriptions.list', body);
      const explicit = await walk(t, 'subscriptions.list', { ...body, limit: 50, start_cursor: '' });
      const ids = (pages: readonly Page<ListName>[]) => pages.map((page) => page.rows.map((row) => row.id));
      expect(ids(byDefault), 'the same pages with the defaults as with limit 50 from ""').toEqual(ids(explicit));
      expect(byDefault.map((page) => page.hasMore)).toEqual(explicit.map((page) => page.hasMore));
      expectPagesWellFormed(byDefault, 50, 'default limit');
      expect(byDefault.flatMap((page) => page.rows).length, 'the default walk lists every record').toBe(53);
    },
  ),

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
      const addOn = await createPlan(t, { add_on: true });
      const c = (await createCustomer(t)).id;
      const e = (await createEntity(t, c, seats.id)).id;
      await attach(t, c, replaced!.id);
      for (const plan of [overdue!, current!, addOn]) await attach(t, c, plan.id);
      await attach(t, c, overdue!.id, { entity_id: e });

      const ids = idsByHolding(await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: EVERY_STATUS }));
      const overdueHoldings = [holding(c, null, overdue!.id), holding(c, e, overdue!.id)];
      for (const key of overdueHoldings) await forceState(t, ids.get(key)!, 'past_due');

      const pastDue = await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: ['past_due'] });
      expect(holdings(pastDue), 'statuses ["past_due"]: exactly the overdue records').toEqual(overdueHoldings.sort());
      for (const row of pastDue) expectReadsAs(row, 'past_due', `overdue ${holdingOf(row)}`);

      const byDefault = await walkRows(t, 'subscriptions.list', { customer_id: c });
      expect(holdings(byDefault), 'the default listing: live records, overdue ones included, the replaced one left out').toEqual(
        [...overdueHoldings, holding(c, null, current!.id), holding(c, null, addOn.id)].sort(),
      );
      for (const row of byDefault) expectReadsAs(row, overdueHoldings.includes(holdingOf(row)) ? 'past_due' : 'active', holdingOf(row));

      const expired = await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: ['expired'] });
      expect(holdings(expired), 'the replaced record appears when expired ones are asked for').toEqual([holding(c, null, replaced!.id)]);
      expectReadsAs(expired[0]!, 'expired', 'the replaced record');
    },
  ),

  scenario(
    {
      id: 'listings.statuses-filter',
      title: 'each statuses filter lists exactly the subscriptions and purchases in those states; the default is active (overdue included) and scheduled',
      rules: ['LIST-STATUSES-FILTER', 'STATE-DEFAULT-ACTIVE-SCHEDULED', 'STATE-EXPIRED-ONLY-ON-REQUEST', 'LIST-STATUSES-PAST-DUE', 'STATE-PAST-DUE-NOT-A-STATUS'],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const c = (await createCustomer(t)).id;
      const planIds = new Map<string, State>();
      for (const state of STATES) {
        planIds.set((await createPlan(t, { add_on: true })).id, state);
        planIds.set((await createPlan(t, { add_on: true, ...oneOffPrice })).id, state);
      }
      for (const planId of planIds.keys()) await attach(t, c, planId);
      for (const name of LISTINGS) {
        const rows = await walkRows(t, name, { customer_id: c, statuses: EVERY_STATUS });
        expect(rows, `${name}: one record of each of its plans`).toHaveLength(STATES.length);
        for (const row of rows) await forceState(t, row.id, planIds.get(row.plan_id)!);
      }

      const filters: (ListingStatusFilter[] | undefined)[] = [undefined, ['active'], ['scheduled'], ['past_due'], ['expired'], ['scheduled', 'expired'], ['past_due', 'expired']];
      for (const name of LISTINGS) {
        for (const statuses of filters) {
          const rows = await walkRows(t, name, { customer_id: c, ...(statuses && { statuses }) });
          const what = `${name} statuses ${statuses ? JSON.stringify(statuses) : '(default)'}`;
          const listed = rows.map((row) => planIds.get(row.plan_id)).sort();
          expect(listed, `${what}: the records in exactly these states`).toEqual(STATES.filter((state) => matchesStatuses(state, statuses)).sort());
          for (const row of rows) expectReadsAs(row, planIds.get(row.plan_id)!, `${what}, ${row.plan_id}`);
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
      expect(holdings(await walkRows(t, 'subscriptions.list', { customer_id: c })), 'default: the live plan only').toEqual([holding(c, null, current!.id)]);
      const expired = await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: ['expired'] });
      expect(holdings(expired), 'statuses ["expired"]: the replaced plan only').toEqual([holding(c, null, old!.id)]);
      expect(expired[0]!.status).toBe('expired');
      expect(holdings(await walkRows(t, 'subscriptions.list', { customer_id: c, statuses: ['active', 'expired'] })), 'both').toEqual(
        [holding(c, null, old!.id), holding(c, null, current!.id)].sort(),
      );
    },
  ),

  scenario(
    {
      id: 'listings.limit-out-of-bounds',
      title: 'limit outside 1 to 200 is refused by both listings; 1 and 200 are accepted',
      rules: ['LIST-LIMIT-BOUNDS'],
      mutates: false,
    },
    async (t) => {
      for (const name of LISTINGS) {
        for (const limit of [0, 201, -1, 1.5, 1000]) t.expectError(await t.client.call(name, { limit }));
        for (const limit of [1, 200]) expect((await listPage(t, name, { limit })).rows.length, `${name} limit ${limit}`).toBeLessThanOrEqual(limit);
      }
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
      const refused = [[], ['canceled'], ['trialing'], ['ACTIVE'], ['pastdue'], ['active', 'paused']];
      for (const name of LISTINGS) {
        for (const statuses of refused) t.expectError(await t.client.call(name, { statuses: statuses as ListingStatusFilter[], limit: 1 }));
        for (const status of ['active', 'scheduled', 'past_due', 'expired'] as const) await listPage(t, name, { statuses: [status], limit: 1 });
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
        t.expectError(await t.client.call(name, { entity_id: entityId }));
        expect((await listPage(t, name, { customer_id: customerId, entity_id: entityId })).rows, `${name}: the new entity holds nothing`).toEqual([]);
      }
    },
  ),

  scenario(
    {
      id: 'listings.invalid-cursor',
      title: 'a start_cursor that is neither "" nor a next_cursor of the service is refused with 400 invalid_cursor',
      rules: ['ERR-INVALID-CURSOR'],
      mutates: false,
    },
    async (t) => {
      const cursors = ['not a cursor!', Buffer.from('hello').toString('base64url'), Buffer.from(JSON.stringify({ page: 2 })).toString('base64url')];
      for (const name of LISTINGS) {
        for (const start_cursor of cursors) t.expectError(await t.client.call(name, { start_cursor }), { status: 400, code: 'invalid_cursor' });
      }
    },
  ),

  scenario(
    {
      id: 'listings.walk-property',
      title: 'for random customers, entities, plans and record states, every walk of a random query lists exactly the matching records once, in the same order at any limit',
      rules: [
        'LIST-WALK-EVERY-MATCH-ONCE',
        'LIST-NEXT-CURSOR-NULL',
        'LIST-STATUSES-FILTER',
        'LIST-CUSTOMER-FILTER',
        'LIST-ENTITY-FILTER',
        'LIST-PLAN-FILTER',
        'LIST-ACROSS-CUSTOMERS',
        'STATE-DEFAULT-ACTIVE-SCHEDULED',
      ],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      await checkProperty(
        t,
        fc.asyncProperty(datasets, fc.array(queries, { minLength: 2, maxLength: 3 }), async ({ entityCounts, held }, queryList) => {
          // Plans of this run only, so a query across customers meets no other run's records.
          const plans: Plan[] = [];
          for (const shape of PLAN_SHAPES) {
            plans.push(await createPlan(t, shape === 'main' ? { group: t.ns.id('grp') } : shape === 'addOn' ? { add_on: true } : oneOffPrice));
          }
          const customers: { id: string; entities: string[] }[] = [];
          for (const count of entityCounts) {
            const id = (await createCustomer(t)).id;
            const entities: string[] = [];
            for (let i = 0; i < count; i++) entities.push((await createEntity(t, id, seats.id)).id);
            customers.push({ id, entities });
          }
          const holders = customers.flatMap(({ id, entities }) => [{ customerId: id, entityId: null as string | null }, ...entities.map((entityId) => ({ customerId: id, entityId }))]);

          const wanted = new Map<string, State>();
          for (const [h, states] of held.entries()) {
            const { customerId, entityId } = holders[h]!;
            for (const [p, state] of states.entries()) {
              if (state === null) continue;
              await attach(t, customerId, plans[p]!.id, entityId === null ? {} : { entity_id: entityId });
              wanted.set(holding(customerId, entityId, plans[p]!.id), state);
            }
          }
          const model: ModelRecord[] = [];
          for (const { id: customerId } of customers) {
            for (const kind of LISTINGS) {
              for (const row of await walkRows(t, kind, { customer_id: customerId, statuses: EVERY_STATUS, limit: 200 })) {
                const state = wanted.get(holdingOf(row));
                expect(state, `${kind} lists ${holdingOf(row)}, which this run attached`).toBeDefined();
                await forceState(t, row.id, state!);
                model.push({ id: row.id, kind, customerId, entityId: row.entity_id, planId: row.plan_id, state: state! });
              }
            }
          }
          expect(model.length, 'every attached plan is listed once').toBe(wanted.size);

          for (const query of queryList) {
            const customer = customers[query.customer % customers.length]!;
            const entityId = query.scope === 'entity' && customer.entities.length > 0 ? customer.entities[query.entity % customer.entities.length]! : undefined;
            // Across customers, a query is bounded to one of this run's plans, and walked in large pages.
            const across = query.scope === 'across';
            const planId = plans[query.plan ?? (across ? query.customer % plans.length : -1)]?.id;
            const body: ListBody = {
              ...(!across && { customer_id: customer.id }),
              ...(entityId !== undefined && { entity_id: entityId }),
              ...(planId !== undefined && { plan_id: planId }),
              ...(query.statuses && { statuses: query.statuses }),
            };
            const expected = model.filter(
              (record) =>
                record.kind === query.kind &&
                (across || record.customerId === customer.id) &&
                (entityId === undefined || record.entityId === entityId) &&
                (planId === undefined || record.planId === planId) &&
                matchesStatuses(record.state, query.statuses),
            );
            const orders: string[][] = [];
            for (const limit of across ? [200, 200] : query.limits) {
              const pages = await walk(t, query.kind, { ...body, ...(limit !== undefined && { limit }) });
              const rows = pages.flatMap((page) => page.rows);
              const what = `${query.kind} ${JSON.stringify({ ...body, limit })}`;
              expectPagesWellFormed(pages, limit ?? 50, what);
              expectNoDuplicates(rows, what);
              expect(rows.map((row) => row.id).sort(), `${what}: exactly the matching records`).toEqual(expected.map((record) => record.id).sort());
              for (const row of rows) {
                const record = expected.find((candidate) => candidate.id === row.id)!;
                expect(holdingOf(row), `${what}: record ${row.id}`).toBe(holding(record.customerId, record.entityId, record.planId));
                expectReadsAs(row, record.state, `${what}: record ${row.id}`);
              }
              orders.push(rows.map((row) => row.id));
            }
            // Ordering is not shown, but a cursor names a position in one order: if the order moved
            // with the page size, a walk could not list every record exactly once.
            expect(orders[1], `${query.kind}: the same order whatever the limit`).toEqual(orders[0]);
          }
        }),
        15,
      );
    },
  ),
];

/**
 * The past-due checks against a deployment without a control plane, on a profile's pre-provisioned
 * overdue subscription. Only what holds whatever else the customer has is checked: the past_due
 * filter lists only overdue records, the fixture among them, reading active; the default listing
 * includes it and lists nothing expired.
 */
async function pastDueFixture(t: T, fixture: RecordFixture): Promise<void> {
  const isFixture = (row: Row) => (fixture.record_id === undefined ? holdingOf(row) === holding(fixture.customer_id, fixture.entity_id ?? null, fixture.plan_id) : row.id === fixture.record_id);
  const body: ListBody = { customer_id: fixture.customer_id, ...(fixture.entity_id !== undefined && { entity_id: fixture.entity_id }) };
  const pastDue = await walkRows(t, 'subscriptions.list', { ...body, statuses: ['past_due'] });
  expect(pastDue.some(isFixture), 'statuses ["past_due"] lists the overdue fixture').toBe(true);
  for (const row of pastDue) expectReadsAs(row, 'past_due', `overdue ${holdingOf(row)}`);
  const byDefault = await walkRows(t, 'subscriptions.list', body);
  const listed = byDefault.find(isFixture);
  expect(listed, 'the default listing includes the overdue fixture').toBeDefined();
  expectReadsAs(listed!, 'past_due', 'the overdue fixture');
  expect(byDefault.filter((row) => row.status === 'expired').map(holdingOf), 'the default listing holds nothing expired').toEqual([]);
}
