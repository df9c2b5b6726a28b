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
import type { RuleId } from '../../spec/rules/catalogue.ts';
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

/** A check of `rule` when the scenario declares it, otherwise a premise (the rule is proven elsewhere). */
function checkOrPremise(t: T, rule: RuleId, what: string, assertion: () => void): void {
  if (t.scenario.rules.includes(rule)) t.check(rule, assertion);
  else t.precondition(what, assertion);
}

/** One page; a refusal FAILs `rule`, or blocks when the listing is only read here (setup). */
async function listPage<N extends ListName>(t: T, name: N, body: ListBody, rule?: RuleId): Promise<Page<N>> {
  // Both listings take the same body (RecordListRequest).
  const result = await t.client.call(name as ListName, body);
  const page = (rule === undefined ? t.setup(result, ['list']) : t.expectOk(result, rule)) as z.output<Ops[N]['response']>;
  const rows = page.list as Row<N>[];
  // A missing list, or a record without an id, cannot be walked: that is the shape rule's FAIL, and blocks here.
  t.precondition(`${name}: a list of records with ids`, () => expect(rows.filter((row) => typeof row.id !== 'string')).toEqual([]));
  return { rows, hasMore: page.has_more, nextCursor: page.next_cursor };
}

/**
 * Every page of a listing, from `body.start_cursor` (the first page when absent) until has_more is
 * false. A walk that does not move on is charged by what it looks like: the first page answered
 * again for its own cursor (start_cursor ignored) is LIST-CURSOR-CONTINUES'; any other cursor already
 * followed lists records again, LIST-WALK-EVERY-MATCH-ONCE's (each a premise where not declared).
 */
async function walk<N extends ListName>(t: T, name: N, body: ListBody, rule?: RuleId): Promise<Page<N>[]> {
  const pages: Page<N>[] = [];
  const followed = new Set<string>();
  let cursor = body.start_cursor;
  for (;;) {
    const page = await listPage(t, name, cursor === undefined ? body : { ...body, start_cursor: cursor }, rule);
    pages.push(page);
    if (!page.hasMore) return pages;
    checkOrPremise(t, 'LIST-CURSOR-CONTINUES', `${name}: has_more is true, so next_cursor names the next page`, () =>
      expect(page.nextCursor, `${name}: has_more is true, so next_cursor must name the next page`).not.toBeNull(),
    );
    if (followed.has(page.nextCursor!)) {
      const first = pages[0]!;
      const ids = (p: Page<N>) => p.rows.map((row) => row.id);
      const firstAgain = pages.length > 1 && first.rows.length > 1 && page.nextCursor === first.nextCursor && JSON.stringify(ids(page)) === JSON.stringify(ids(first));
      const [stuck, what] = firstAgain
        ? (['LIST-CURSOR-CONTINUES', 'the page after the first cursor is the first page again: start_cursor is ignored'] as const)
        : (['LIST-WALK-EVERY-MATCH-ONCE', `page ${pages.length} answered a cursor already followed: the walk lists records again`] as const);
      checkOrPremise(t, stuck, `${name}: the walk moves on`, () => expect.fail(`${name}: ${what}`));
    }
    followed.add(page.nextCursor!);
    cursor = page.nextCursor!;
  }
}

/** The rows of a walk; that it lists every record once is LIST-WALK-EVERY-MATCH-ONCE's (a premise where not declared). */
async function walkRows<N extends ListName>(t: T, name: N, body: ListBody, rule?: RuleId): Promise<Row<N>[]> {
  const rows = (await walk(t, name, body, rule)).flatMap((page) => page.rows);
  const what = `${name} ${JSON.stringify(body)}`;
  expectNoDuplicates(t, rows, what);
  // The filters a walk relies on (rows without the field are the shape rule's, not judged here).
  if (body.customer_id !== undefined) {
    checkOrPremise(t, 'LIST-CUSTOMER-FILTER', `${what}: the customer's records only`, () =>
      expect(rows.filter((row) => row.customer_id !== undefined && row.customer_id !== body.customer_id).map(holdingOf), `${what}: records of other customers`).toEqual([]),
    );
  }
  if (body.plan_id !== undefined) {
    checkOrPremise(t, 'LIST-PLAN-FILTER', `${what}: the plan's records only`, () =>
      expect(rows.filter((row) => row.plan_id !== body.plan_id).map(holdingOf), `${what}: records of other plans`).toEqual([]),
    );
  }
  return rows;
}

/** A record by what it is: owner and plan. A holder has one live record of a plan at a time. */
function holding(customerId: string, entityId: string | null, planId: string): string {
  return `${customerId}/${entityId ?? '-'}/${planId}`;
}

function holdingOf(row: Row): string {
  return holding(row.customer_id, row.entity_id, row.plan_id);
}

/** A record by customer and plan only: what a filter by customer or plan can be judged on whatever entity_id reads (LIST-RECORD-OWNER's). */
function customerPlanOf(row: Row): string {
  return `${row.customer_id}/${row.plan_id}`;
}

/** The record ids of a walk by holding; that each holding is listed once is a premise. */
function idsByHolding(t: T, rows: readonly Row[]): Map<string, string> {
  const ids = new Map(rows.map((row) => [holdingOf(row), row.id]));
  t.precondition(`each holding listed once: ${rows.map(holdingOf).sort().join(', ')}`, () => expect(ids.size).toBe(rows.length));
  return ids;
}

function expectNoDuplicates(t: T, rows: readonly Row[], what: string): void {
  const ids = rows.map((row) => row.id);
  checkOrPremise(t, 'LIST-WALK-EVERY-MATCH-ONCE', `${what}: every record once`, () => expect(ids.filter((id, i) => ids.indexOf(id) !== i), `${what}: every record once`).toEqual([]));
}

/** On every page: at most `limit` rows (a premise), and next_cursor null exactly when has_more is false (LIST-NEXT-CURSOR-NULL). */
function expectPagesWellFormed(t: T, pages: readonly Page<ListName>[], limit: number, what: string): void {
  t.precondition(`${what}: at most limit = ${limit} rows a page`, () => {
    for (const page of pages) expect(page.rows.length).toBeLessThanOrEqual(limit);
  });
  // A page without either field is the record shape rule's deviation, not this one's.
  t.precondition(`${what}: every page says has_more and next_cursor`, () => {
    for (const page of pages) expect([page.hasMore, page.nextCursor]).not.toContain(undefined);
  });
  checkOrPremise(t, 'LIST-NEXT-CURSOR-NULL', `${what}: next_cursor is null on the last page`, () => {
    pages.forEach((page, i) => expect(page.nextCursor === null, `${what}, page ${i + 1}: next_cursor is null exactly when has_more is false (has_more ${page.hasMore})`).toBe(!page.hasMore));
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

/**
 * How a record in `state` reads: an overdue one status active (STATE-PAST-DUE-NOT-A-STATUS) and, for a
 * subscription, past_due true (STATE-PAST-DUE-READS-ACTIVE); any other its status and past_due false
 * (a premise: no rule of these scenarios is about it).
 */
function expectReadsAs(t: T, row: Row, state: State, what: string): void {
  if (state !== 'past_due') {
    t.precondition(`${what} reads ${state}`, () => {
      expect(row.status).toBe(state);
      if ('past_due' in row) expect(row.past_due).toBe(false);
    });
    return;
  }
  checkOrPremise(t, 'STATE-PAST-DUE-NOT-A-STATUS', `${what}: an overdue record reads active`, () =>
    expect(row.status, `${what}: status (past_due is not a status; an overdue record reads active)`).toBe('active'),
  );
  if ('past_due' in row) checkOrPremise(t, 'STATE-PAST-DUE-READS-ACTIVE', `${what}: past_due`, () => expect(row.past_due, `${what}: past_due`).toBe(true));
}

async function forceState(t: T, recordId: string, state: State): Promise<void> {
  if (state !== 'active') await t.control.call('records.force_state', { record_id: recordId, state });
}

// ── Builders ─────────────────────────────────────────────────────────────────

const oneOffPrice = { price: { amount: 5, interval: 'one_off' } } as const;

/** Main plans of one namespaced group: attaching one replaces (expires) the other the holder has. */
async function mainPlans(t: T, count: number, extra: Partial<typeof oneOffPrice> = {}): Promise<Plan[]> {
  const group = t.ns.id('grp');
  const plans: Plan[] = [];
  for (let i = 0; i < count; i++) plans.push(await createPlan(t, { group, ...extra }));
  return plans;
}

/** An add-on plan; that it is one (attaching it replaces nothing) is a premise (plans.create keeping add_on is PLAN-*'s). */
async function addOnPlan(t: T, extra: Partial<typeof oneOffPrice> = {}): Promise<Plan> {
  const plan = await createPlan(t, { add_on: true, ...extra });
  t.precondition(`${plan.id} is an add-on`, () => expect(plan.add_on).toBe(true));
  return plan;
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
  const addOn = await addOnPlan(t);
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

/** Premise: attaching another main plan of the group expired the customer's record of `planId` (PLAN-GROUP-EXCLUSIVE's). */
async function requireReplaced(t: T, customerId: string, planId: string): Promise<void> {
  const rows = await walkRows(t, 'subscriptions.list', { customer_id: customerId, statuses: EVERY_STATUS, limit: 200 });
  t.precondition(`the record of ${planId} was replaced: it reads expired`, () =>
    expect(rows.filter((row) => row.plan_id === planId && row.entity_id === null).map((row) => row.status)).toEqual(['expired']),
  );
}

/**
 * A customer that has held `count` records: two main plans of a group attached in turn, so one is
 * live and the rest expired; one-off plans with `oneOff` (purchase records), else recurring ones.
 */
async function customerWithHistory(t: T, count: number, oneOff = false): Promise<string> {
  const [first, second] = await mainPlans(t, 2, oneOff ? oneOffPrice : {});
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
      title: 'subscriptions.list lists recurring plans with add-ons, purchases.list one-off plans; each record names its plan flags, customer and entity, its scope, and no trial end without a trial',
      rules: [
        'LIST-SUBSCRIPTION-SHAPE',
        'LIST-PURCHASE-SHAPE',
        'LIST-SUB-PLAN-FLAGS',
        'LIST-RECORD-OWNER',
        'LIST-RECORD-SCOPE',
        'LIST-TRIAL-ENDS-NULL',
        'LIST-SUBSCRIPTIONS-RECURRING',
        'LIST-PURCHASES-ONE-OFF',
      ],
      needs: ['paid-attach'],
    },
    async (t) => {
      const { a, e, main, addOn, monthly, pack } = await recordsOfEachKind(t);
      const plans = new Map([main, addOn, monthly, pack].map((plan) => [plan.id, plan]));
      t.precondition('the plans differ in their flags', () => expect([main.add_on, addOn.add_on]).toEqual([false, true]));

      const subscriptions = await walkRows(t, 'subscriptions.list', { customer_id: a }, 'LIST-SUBSCRIPTIONS-RECURRING');
      t.check('LIST-SUBSCRIPTIONS-RECURRING', () =>
        expect(subscriptions.map((row) => row.plan_id).sort(), 'the recurring plans of a and of its entity, add-on included, and no one-off plan').toEqual([main.id, addOn.id, monthly.id, main.id].sort()),
      );
      for (const row of subscriptions) expectReadsAs(t, row, 'active', `subscription ${row.plan_id}`);
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

      const purchases = await walkRows(t, 'purchases.list', { customer_id: a }, 'LIST-PURCHASES-ONE-OFF');
      t.check('LIST-PURCHASES-ONE-OFF', () => expect(purchases.map((row) => row.plan_id), 'the one-off plan of a and of its entity, and no recurring plan').toEqual([pack.id, pack.id]));
      for (const row of purchases) expectReadsAs(t, row, 'active', `purchase ${row.plan_id}`);

      // Who holds each record: the entity filter (LIST-ENTITY-FILTER's) finds the entity's, the rest are a's own.
      const ofEntity = [...(await walkRows(t, 'subscriptions.list', { customer_id: a, entity_id: e })), ...(await walkRows(t, 'purchases.list', { customer_id: a, entity_id: e }))];
      t.precondition("the entity's records are its main plan and its pack", () => expect(ofEntity.map((row) => row.plan_id).sort()).toEqual([main.id, pack.id].sort()));
      const entityIds = new Set(ofEntity.map((row) => row.id));
      const all = [...subscriptions, ...purchases];
      t.precondition('every record has an id of its own', () => expect(new Set(all.map((row) => row.id)).size).toBe(all.length));
      t.check('LIST-RECORD-OWNER', () => {
        for (const row of all) {
          expect([row.customer_id, row.entity_id ?? null], `${row.plan_id}: owner`).toEqual([a, entityIds.has(row.id) ? e : null]);
        }
      });
      t.check('LIST-RECORD-SCOPE', () => {
        for (const row of all.filter((candidate) => !entityIds.has(candidate.id))) expect(row.scope, `${row.plan_id}: a customer-level record has scope customer`).toBe('customer');
      });
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
      id: 'listings.walk-short-and-empty-pages',
      title: 'a plan_id walk over interleaved records goes through short and empty pages to has_more false, and at every limit lists each match exactly once',
      rules: ['LIST-SHORT-PAGES', 'LIST-WALK-EVERY-MATCH-ONCE', 'LIST-CURSOR-CONTINUES', 'LIST-NEXT-CURSOR-NULL', 'LIST-PLAN-FILTER'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      const [p, q, r] = await mainPlans(t, 3);
      const x = await addOnPlan(t);
      const y = await addOnPlan(t);
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

      // The cursor moves on: the page after the first one's next_cursor is not the first page again.
      const [firstPage, secondPage] = await walk(t, 'subscriptions.list', { customer_id: customerId, statuses: EVERY_STATUS, limit: 2 }, 'LIST-CURSOR-CONTINUES');
      t.check('LIST-CURSOR-CONTINUES', () => {
        expect(secondPage, 'more than two records: a second page').toBeDefined();
        expect(secondPage!.rows.map((row) => row.id), 'the second page is not the first one again').not.toEqual(firstPage!.rows.map((row) => row.id));
      });

      const everything = await walkRows(t, 'subscriptions.list', { customer_id: customerId, statuses: EVERY_STATUS, limit: 200 });
      t.precondition('every record the customer ever held is listed, live or expired', () => expect(everything.length).toBe(steps.length));
      const expected = everything.filter((row) => row.plan_id === p!.id).map((row) => row.id).sort();
      t.precondition(`${matching} records of plan ${p!.id}`, () => expect(expected).toHaveLength(matching));

      const body: ListBody = { customer_id: customerId, plan_id: p!.id, statuses: EVERY_STATUS };
      const emptyPagesBeforeTheEnd: number[] = [];
      for (const limit of [1, 2, 3, 7, 200]) {
        const pages = await walk(t, 'subscriptions.list', { ...body, limit }, 'LIST-SHORT-PAGES');
        const rows = pages.flatMap((page) => page.rows);
        const what = `plan_id walk at limit ${limit}`;
        expectPagesWellFormed(t, pages, limit, what);
        expectNoDuplicates(t, rows, what);
        t.check('LIST-PLAN-FILTER', () => expect(rows.filter((row) => row.plan_id !== p!.id).map((row) => row.plan_id), `${what}: only plan ${p!.id}`).toEqual([]));
        t.check('LIST-SHORT-PAGES', () => expect(rows.map((row) => row.id).sort(), `${what}: every match, even past short and empty pages`).toEqual(expected));
        emptyPagesBeforeTheEnd.push(pages.filter((page) => page.rows.length === 0 && page.hasMore).length);
      }

      // The document allows short and empty pages but does not require them: a deployment that
      // filters before it pages passes the walks above without any, and that is conformant. The fake
      // pages first and filters afterwards (the design asks it to), so against it, the only target
      // with a control plane, this data must give empty pages before the end at limit 1. Asserting
      // that there proves the walks above really went through such pages, so that this scenario keeps
      // its power to catch a listing (or a client) that stops at the first short or empty page.
      if (t.has('control-plane')) t.check('LIST-SHORT-PAGES', () => expect(emptyPagesBeforeTheEnd[0], 'against the fake: empty pages with has_more true at limit 1').toBeGreaterThan(0));
    },
  ),

  scenario(
    {
      id: 'listings.walk-with-inserts',
      title: 'records created between two page calls never make a walk list a record that existed before its first page twice, or miss it',
      rules: ['LIST-WALK-CONCURRENT-INSERTS'],
      needs: ['paid-attach'],
    },
    async (t) => {
      for (const name of LISTINGS) {
        const priced = name === 'purchases.list' ? oneOffPrice : {};
        const customerId = (await createCustomer(t)).id;
        for (let i = 0; i < 6; i++) await attach(t, customerId, (await addOnPlan(t, priced)).id);
        const before = (await walkRows(t, name, { customer_id: customerId, limit: 200 })).map((row) => row.id);
        t.precondition(`${name}: the six records are listed`, () => expect(before).toHaveLength(6));
        // Premise: without inserts, a walk in pages of 2 moves on and lists each record once (other rules').
        const quiet = await walkRows(t, name, { customer_id: customerId, limit: 2 });
        t.precondition(`${name}: a walk in pages of 2 lists the six records`, () => expect(quiet.map((row) => row.id).sort()).toEqual([...before].sort()));

        const seen: string[] = [];
        let page = await listPage(t, name, { customer_id: customerId, limit: 2 }, 'LIST-WALK-CONCURRENT-INSERTS');
        seen.push(...page.rows.map((row) => row.id));
        for (let step = 0; page.hasMore && step < 20; step++) {
          // Between two page calls, another record of the customer.
          await attach(t, customerId, (await addOnPlan(t, priced)).id);
          page = await listPage(t, name, { customer_id: customerId, limit: 2, start_cursor: page.nextCursor ?? '' }, 'LIST-WALK-CONCURRENT-INSERTS');
          seen.push(...page.rows.map((row) => row.id));
        }
        t.check('LIST-WALK-CONCURRENT-INSERTS', () => {
          expect(page.hasMore, `${name}: the walk ends`).toBe(false);
          expect(
            before.map((id) => [id, seen.filter((candidate) => candidate === id).length]),
            `${name}: every record that existed before the first page is listed exactly once`,
          ).toEqual(before.map((id) => [id, 1]));
        });
      }
    },
  ),

  scenario(
    {
      id: 'listings.plan-filter-exact',
      title: 'plan_id matches exactly: a plan whose id starts with the filtered one is not listed, on either listing, within a customer or across customers',
      rules: ['LIST-PLAN-FILTER'],
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
      id: 'listings.default-limit-and-first-page',
      title: 'omitting limit and start_cursor is the same as limit 50 and start_cursor "", page after page, on both listings',
      rules: ['LIST-LIMIT-DEFAULT', 'LIST-START-CURSOR-DEFAULT'],
      needs: ['paid-attach'],
    },
    async (t) => {
      for (const name of LISTINGS) {
        // More than 50 records, so that a default other than 50 shows on the first page.
        const customerId = await customerWithHistory(t, 53, name === 'purchases.list');
        const body: ListBody = { customer_id: customerId, statuses: EVERY_STATUS };
        const ids = (pages: readonly Page<ListName>[]) => pages.map((page) => page.rows.map((row) => row.id));
        const fifty = await walk(t, name, { ...body, limit: 50 });
        t.precondition(`${name}: 53 records, in pages of 50 and 3`, () => expect(fifty.map((page) => page.rows.length)).toEqual([50, 3]));

        const fromEmpty = await walk(t, name, { ...body, limit: 50, start_cursor: '' }, 'LIST-START-CURSOR-DEFAULT');
        t.check('LIST-START-CURSOR-DEFAULT', () => expect(ids(fromEmpty), `${name}: start_cursor "" gives the same pages as no start_cursor`).toEqual(ids(fifty)));

        const byDefault = await walk(t, name, body, 'LIST-LIMIT-DEFAULT');
        t.check('LIST-LIMIT-DEFAULT', () => {
          expect(byDefault[0]!.rows, `${name}: the first default page holds 50 rows`).toHaveLength(50);
          expect(ids(byDefault), `${name}: the same pages without limit as with limit 50`).toEqual(ids(fifty));
        });
      }
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
      id: 'listings.limit-out-of-bounds',
      title: 'limit outside 1 to 200 is refused by both listings; 1 and 200 are accepted',
      rules: ['LIST-LIMIT-BOUNDS'],
      mutates: false,
    },
    async (t) => {
      for (const name of LISTINGS) {
        for (const limit of [1, 200]) await listPage(t, name, { limit });
        for (const limit of [0, 201, -1, 1.5, 1000]) t.expectError(await t.client.call(name, { limit }), { rule: 'LIST-LIMIT-BOUNDS' });
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
        await listPage(t, name, { customer_id: customerId, entity_id: entityId });
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
        await listPage(t, name, { start_cursor: '', limit: 1 });
        for (const start_cursor of cursors) t.expectError(await t.client.call(name, { start_cursor }), { status: 400, code: 'invalid_cursor', rule: 'ERR-INVALID-CURSOR' });
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
        'LIST-STATUSES-PAST-DUE',
        'LIST-CUSTOMER-FILTER',
        'LIST-ENTITY-FILTER',
        'LIST-PLAN-FILTER',
        'LIST-ACROSS-CUSTOMERS',
        'LIST-SHORT-PAGES',
        'STATE-DEFAULT-ACTIVE-SCHEDULED',
        'STATE-EXPIRED-ONLY-ON-REQUEST',
        'STATE-PAST-DUE-NOT-A-STATUS',
      ],
      needs: ['control-plane', 'paid-attach'],
    },
    async (t) => {
      const seats = await createFeature(t, 'allocated');
      // Premise: a cursor moves on (LIST-CURSOR-CONTINUES), which a walk at limit 1 cannot tell from a record listed twice.
      const probe = (await createCustomer(t)).id;
      for (let i = 0; i < 3; i++) await attach(t, probe, (await addOnPlan(t)).id);
      const probePages = await walk(t, 'subscriptions.list', { customer_id: probe, limit: 2 });
      t.precondition('the page after the first next_cursor is not the first page again', () =>
        expect(probePages[1]?.rows.map((row) => row.id)).not.toEqual(probePages[0]!.rows.map((row) => row.id)),
      );
      await checkProperty(
        t,
        fc.asyncProperty(datasets, fc.array(queries, { minLength: 2, maxLength: 3 }), async ({ entityCounts, held }, queryList) => {
          // Plans of this run only, so a query across customers meets no other run's records.
          const plans: Plan[] = [];
          for (const shape of PLAN_SHAPES) {
            plans.push(shape === 'main' ? await createPlan(t, { group: t.ns.id('grp') }) : await addOnPlan(t, shape === 'addOn' ? {} : oneOffPrice));
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
                t.precondition(`${kind} lists ${holdingOf(row)}, which this run attached, active`, () => {
                  expect(state).toBeDefined();
                  expect(row.status).toBe('active');
                });
                await forceState(t, row.id, state!);
                model.push({ id: row.id, kind, customerId, entityId: row.entity_id, planId: row.plan_id, state: state! });
              }
            }
          }
          t.precondition('every attached plan is listed once', () => expect(model.length).toBe(wanted.size));

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
            const matches = (record: ModelRecord) =>
              record.kind === query.kind &&
              (across || record.customerId === customer.id) &&
              (entityId === undefined || record.entityId === entityId) &&
              (planId === undefined || record.planId === planId) &&
              matchesStatuses(record.state, query.statuses);
            const expected = model.filter(matches);
            // What the same query lists walked per customer in one large page each (no short page can end it early):
            // a match found there but missing from a walk was lost to a walk that ended early (LIST-SHORT-PAGES).
            const inLargePages = new Set<string>();
            for (const { id } of across ? customers : [customer]) {
              for (const row of await walkRows(t, query.kind, { ...body, customer_id: id, limit: 200 })) inLargePages.add(row.id);
            }
            const orders: string[][] = [];
            for (const limit of across ? [200, 200] : query.limits) {
              const pages = await walk(t, query.kind, { ...body, ...(limit !== undefined && { limit }) }, across ? 'LIST-ACROSS-CUSTOMERS' : 'LIST-CUSTOMER-FILTER');
              const rows = pages.flatMap((page) => page.rows);
              const what = `${query.kind} ${JSON.stringify({ ...body, limit })}`;
              expectPagesWellFormed(t, pages, limit ?? 50, what);
              expectNoDuplicates(t, rows, what);
              const listed = new Set(rows.map((row) => row.id));
              // Each record listed that should not be is charged to the filter it slipped through; each one missing, to the filter that dropped it or to a walk that ended early.
              for (const row of rows) {
                const record = model.find((candidate) => candidate.id === row.id);
                if (record !== undefined && matches(record)) continue;
                t.check(extraRule(record, { customerId: across ? undefined : customer.id, entityId, planId, statuses: query.statuses, kind: query.kind }), () =>
                  expect.fail(`${what}: lists ${row.id} (${record ? `${holding(record.customerId, record.entityId, record.planId)} ${record.state}` : 'not of this run'}), which does not match`),
                );
              }
              for (const record of expected) {
                if (listed.has(record.id)) continue;
                t.check(inLargePages.has(record.id) ? 'LIST-SHORT-PAGES' : missingRule(record.state, query.statuses), () =>
                  expect.fail(`${what}: leaves out ${record.id} (${holding(record.customerId, record.entityId, record.planId)} ${record.state}), which matches`),
                );
              }
              orders.push(rows.map((row) => row.id));
            }
            // Ordering is not shown, but a cursor names a position in one order: if the order moved
            // with the page size, a walk could not list every record exactly once.
            t.check('LIST-WALK-EVERY-MATCH-ONCE', () => expect(orders[1], `${query.kind}: the same order whatever the limit`).toEqual(orders[0]));
          }
        }),
        15,
      );
    },
  ),
];

/** The rule a statuses filter's mismatch proves, from the states listed but not asked for or asked for but not listed. */
type StatusesRule = 'STATE-EXPIRED-ONLY-ON-REQUEST' | 'STATE-PAST-DUE-NOT-A-STATUS' | 'STATE-DEFAULT-ACTIVE-SCHEDULED' | 'LIST-STATUSES-PAST-DUE' | 'LIST-STATUSES-FILTER';
type FilterRule = StatusesRule | 'LIST-CUSTOMER-FILTER' | 'LIST-ENTITY-FILTER' | 'LIST-PLAN-FILTER';

function statusesRule(statuses: readonly ListingStatusFilter[] | undefined, wrong: readonly State[]): StatusesRule {
  if (statuses === undefined) {
    if (wrong.includes('expired')) return 'STATE-EXPIRED-ONLY-ON-REQUEST';
    if (wrong.includes('past_due')) return 'STATE-PAST-DUE-NOT-A-STATUS';
    return 'STATE-DEFAULT-ACTIVE-SCHEDULED';
  }
  if (statuses.includes('past_due') && (wrong.includes('past_due') || (wrong.includes('active') && !statuses.includes('active')))) return 'LIST-STATUSES-PAST-DUE';
  return 'LIST-STATUSES-FILTER';
}

interface Query {
  readonly customerId: string | undefined;
  readonly entityId: string | undefined;
  readonly planId: string | undefined;
  readonly statuses: readonly ListingStatusFilter[] | undefined;
  readonly kind: ListName;
}

/** The filter a record listed against the query slipped through (checked in the order a listing applies them). */
function extraRule(record: ModelRecord | undefined, query: Query): FilterRule {
  if (record === undefined) return query.customerId === undefined ? 'LIST-PLAN-FILTER' : 'LIST-CUSTOMER-FILTER';
  if (query.customerId !== undefined && record.customerId !== query.customerId) return 'LIST-CUSTOMER-FILTER';
  if (query.entityId !== undefined && record.entityId !== query.entityId) return 'LIST-ENTITY-FILTER';
  if (query.planId !== undefined && record.planId !== query.planId) return 'LIST-PLAN-FILTER';
  return statusesRule(query.statuses, [record.state]);
}

/** The rule a matching record left out even in large pages proves: the statuses filter (or default) that dropped its state. */
function missingRule(state: State, statuses: readonly ListingStatusFilter[] | undefined): StatusesRule {
  if (statuses === undefined) return state === 'past_due' ? 'STATE-PAST-DUE-NOT-A-STATUS' : 'STATE-DEFAULT-ACTIVE-SCHEDULED';
  if (state === 'past_due' && statuses.includes('past_due')) return 'LIST-STATUSES-PAST-DUE';
  return 'LIST-STATUSES-FILTER';
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
