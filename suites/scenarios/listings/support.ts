/** Builders and checks that several listings scenario modules share. */
import { expect } from 'vitest';
import type { z } from 'zod';
import { DEFAULT_LISTING_STATUSES, type ListingStatusFilter } from '../../../spec/listings.ts';
import type { Plan } from '../../../spec/plans.ts';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { createPlan, type Ops, type T } from '../../support.ts';

export const DAY = 86_400_000;

/** The customer's subscription record of the plan, as the default listing shows it. */
export async function recordOf(t: T, customerId: string, planId: string) {
  const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customerId, plan_id: planId }), ['list']);
  return list.find((record) => record.plan_id === planId);
}

/**
 * The customer's live subscription of the plan as the setup read customers.get shows it (with its
 * record id): what a listing scenario's premises about state it built rest on, since no listing rule
 * owns that read.
 */
export async function heldSubscription(t: T, customerId: string, planId: string) {
  const { subscriptions } = t.setup(await t.client.call('customers.get', { customer_id: customerId }), ['subscriptions']);
  return subscriptions.find((record) => record.plan_id === planId && record.status === 'active');
}

export async function now(t: T): Promise<number> {
  return (await t.control.call('clock.get', {})).now;
}

export type ListName = 'subscriptions.list' | 'purchases.list';

export type ListBody = z.input<Ops['subscriptions.list']['request']>;

export type Row<N extends ListName = ListName> = z.output<Ops[N]['response']>['list'][number];

export interface Page<N extends ListName> {
  readonly rows: Row<N>[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

export const LISTINGS: readonly ListName[] = ['subscriptions.list', 'purchases.list'];

/** Every status a record can have: a listing with these holds every record, live or expired. */
export const EVERY_STATUS: ListingStatusFilter[] = ['active', 'scheduled', 'expired'];

/*
 * What a walk relies on is checked as the rule that states it, whichever scenario walks: a listing
 * scenario's premises are all about the listing it reads, so none may be a precondition (checks.ts,
 * "Preconditions"); a scenario that walks declares the rules its walk checks (WALK_RULES and the filters it uses).
 */
/** The rules every walk checks: its cursor moves on, and it lists each record once. */
export const WALK_RULES = ['LIST-CURSOR-CONTINUES', 'LIST-WALK-EVERY-MATCH-ONCE'] as const;

/** One page; a refusal FAILs `rule`, or blocks when the listing is only read here (setup). */
export async function listPage<N extends ListName>(t: T, name: N, body: ListBody, rule?: RuleId): Promise<Page<N>> {
  // Both listings take the same body (RecordListRequest).
  const result = await t.client.call(name as ListName, body);
  const page = (rule === undefined ? t.setup(result, ['list']) : t.expectOk(result, rule)) as z.output<Ops[N]['response']>;
  // A page without its list, has_more or next_cursor, or a record without an id, cannot be walked:
  // that is the shape rule's FAIL, and what reads the missing field is BLOCKED by it (checks.ts,
  // "Missing fields"). Any other deviation of the shape (a status outside the enum) is judged by the rules that read it.
  return { rows: page.list as Row<N>[], hasMore: page.has_more, nextCursor: page.next_cursor };
}

/**
 * Every page of a listing, from `body.start_cursor` (the first page when absent) until has_more is
 * false. A walk that does not move on is charged by what it looks like: the first page answered
 * again for its own cursor (start_cursor ignored) is LIST-CURSOR-CONTINUES'; any other cursor already
 * followed lists records again, LIST-WALK-EVERY-MATCH-ONCE's (WALK_RULES).
 */
export async function walk<N extends ListName>(t: T, name: N, body: ListBody, rule?: RuleId): Promise<Page<N>[]> {
  const pages: Page<N>[] = [];
  const followed = new Set<string>();
  let cursor = body.start_cursor;
  for (;;) {
    const page = await listPage(t, name, cursor === undefined ? body : { ...body, start_cursor: cursor }, rule);
    pages.push(page);
    if (!page.hasMore) return pages;
    t.check('LIST-CURSOR-CONTINUES', () =>
      expect(page.nextCursor, `${name}: has_more is true, so next_cursor must name the next page`).not.toBeNull(),
    );
    if (followed.has(page.nextCursor!)) {
      const first = pages[0]!;
      const ids = (p: Page<N>) => p.rows.map((row) => row.id);
      const firstAgain = pages.length > 1 && first.rows.length > 1 && page.nextCursor === first.nextCursor && JSON.stringify(ids(page)) === JSON.stringify(ids(first));
      const [stuck, what] = firstAgain
        ? (['LIST-CURSOR-CONTINUES', 'the page after the first cursor is the first page again: start_cursor is ignored'] as const)
        : (['LIST-WALK-EVERY-MATCH-ONCE', `page ${pages.length} answered a cursor already followed: the walk lists records again`] as const);
      t.check(stuck, () => expect.fail(`${name}: ${what}`));
    }
    followed.add(page.nextCursor!);
    cursor = page.nextCursor!;
  }
}

/**
 * The rows of a walk; that it lists every record once is LIST-WALK-EVERY-MATCH-ONCE's, that it keeps
 * to the customer or the plan asked for LIST-CUSTOMER-FILTER's or LIST-PLAN-FILTER's: a scenario
 * walking with those filters declares them.
 */
export async function walkRows<N extends ListName>(t: T, name: N, body: ListBody, rule?: RuleId): Promise<Row<N>[]> {
  const rows = (await walk(t, name, body, rule)).flatMap((page) => page.rows);
  const what = `${name} ${JSON.stringify(body)}`;
  expectNoDuplicates(t, rows, what);
  // The filters a walk relies on (rows without the field are the shape rule's, not judged here).
  if (body.customer_id !== undefined) {
    t.check('LIST-CUSTOMER-FILTER', () =>
      expect(rows.filter((row) => row.customer_id !== undefined && row.customer_id !== body.customer_id).map(holdingOf), `${what}: records of other customers`).toEqual([]),
    );
  }
  if (body.plan_id !== undefined) {
    t.check('LIST-PLAN-FILTER', () =>
      expect(rows.filter((row) => row.plan_id !== body.plan_id).map(holdingOf), `${what}: records of other plans`).toEqual([]),
    );
  }
  return rows;
}

/** A record by what it is: owner and plan. A holder has one live record of a plan at a time. */
export function holding(customerId: string, entityId: string | null, planId: string): string {
  return `${customerId}/${entityId ?? '-'}/${planId}`;
}

export function holdingOf(row: Row): string {
  return holding(row.customer_id, row.entity_id, row.plan_id);
}

/** The ids of the rows that carry one: a record without an id is the shape rule's deviation, not judged by the walk rules. */
export function recordIds(rows: readonly Row[]): string[] {
  return rows.map((row) => row.id).filter((id) => id !== undefined && id !== null);
}

export function expectNoDuplicates(t: T, rows: readonly Row[], what: string): void {
  const ids = recordIds(rows);
  t.check('LIST-WALK-EVERY-MATCH-ONCE', () => expect(ids.filter((id, i) => ids.indexOf(id) !== i), `${what}: every record once`).toEqual([]));
}

/**
 * On every page: at most `limit` rows (a page "may hold fewer than limit rows", never more:
 * LIST-SHORT-PAGES), and next_cursor null exactly when has_more is false (LIST-NEXT-CURSOR-NULL).
 */
export function expectPagesWellFormed(t: T, pages: readonly Page<ListName>[], limit: number, what: string): void {
  t.check('LIST-SHORT-PAGES', () => {
    pages.forEach((page, i) => expect(page.rows.length, `${what}, page ${i + 1}: at most limit = ${limit} rows`).toBeLessThanOrEqual(limit));
  });
  t.check('LIST-NEXT-CURSOR-NULL', () => {
    pages.forEach((page, i) => expect(page.nextCursor === null, `${what}, page ${i + 1}: next_cursor is null exactly when has_more is false (has_more ${page.hasMore})`).toBe(!page.hasMore));
  });
}

// ── Record states ────────────────────────────────────────────────────────────
/** What a record is in: a status, or `past_due` for an overdue record (which reads `status: active`). */
export type State = 'active' | 'past_due' | 'scheduled' | 'expired';

export const STATES: readonly State[] = ['active', 'past_due', 'scheduled', 'expired'];

/**
 * States rules 1 and 2: a filter value matches records in that state; `active` also matches overdue
 * records, since they read `status: active`; omitted, the filter is `active` and `scheduled`.
 */
export function matchesStatuses(state: State, statuses: readonly ListingStatusFilter[] = DEFAULT_LISTING_STATUSES): boolean {
  return statuses.some((status) => status === state || (status === 'active' && state === 'past_due'));
}

/**
 * How a record in `state` reads: an overdue one status active and, for a subscription, past_due true
 * (STATE-PAST-DUE-READS-ACTIVE says both; an overdue record reading status `past_due`, or a purchase,
 * which has no past_due, is STATE-PAST-DUE-NOT-A-STATUS's); any other its status and past_due false,
 * as a check of `rule`, the rule of the listing that listed it in that state.
 */
export function expectReadsAs(t: T, row: Row, state: State, what: string, rule: RuleId): void {
  if (state !== 'past_due') {
    t.check(rule, () => {
      expect(row.status, `${what}: status`).toBe(state);
      if ('past_due' in row) expect(row.past_due, `${what}: past_due`).toBe(false);
    });
    return;
  }
  const statusRule = (row.status as string) === 'past_due' || !('past_due' in row) ? 'STATE-PAST-DUE-NOT-A-STATUS' : 'STATE-PAST-DUE-READS-ACTIVE';
  t.check(statusRule, () => expect(row.status, `${what}: status (past_due is not a status; an overdue record reads active)`).toBe('active'));
  if ('past_due' in row) t.check('STATE-PAST-DUE-READS-ACTIVE', () => expect(row.past_due, `${what}: past_due`).toBe(true));
}

export async function forceState(t: T, recordId: string, state: State): Promise<void> {
  if (state !== 'active') await t.control.call('records.force_state', { record_id: recordId, state });
}

// ── Builders ─────────────────────────────────────────────────────────────────
export const oneOffPrice = { price: { amount: 5, interval: 'one_off' } } as const;

/** Main plans of one namespaced group: attaching one replaces (expires) the other the holder has. */
export async function mainPlans(t: T, count: number, extra: Partial<typeof oneOffPrice> = {}): Promise<Plan[]> {
  const group = t.ns.id('grp');
  const plans: Plan[] = [];
  for (let i = 0; i < count; i++) plans.push(await createPlan(t, { group, ...extra }));
  return plans;
}

/** An add-on plan; that it is one (attaching it replaces nothing) is a premise (plans.create keeping add_on is PLAN-*'s). */
export async function addOnPlan(t: T, extra: Partial<typeof oneOffPrice> = {}): Promise<Plan> {
  const plan = await createPlan(t, { add_on: true, ...extra });
  t.precondition(`${plan.id} is an add-on`, () => expect(plan.add_on).toBe(true));
  return plan;
}

/** A plan of each kind a holder's records come from: a free main plan, a free add-on, a paid monthly plan (its own group) and a one-off pack. */
export async function plansOfEachKind(t: T): Promise<{ readonly main: Plan; readonly addOn: Plan; readonly monthly: Plan; readonly pack: Plan }> {
  const [main] = await mainPlans(t, 1);
  const addOn = await addOnPlan(t);
  const monthly = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 12, interval: 'month' } });
  const pack = await createPlan(t, oneOffPrice);
  return { main: main!, addOn, monthly, pack };
}

/** The rule a statuses filter's mismatch proves, from the states listed but not asked for or asked for but not listed. */
export type StatusesRule = 'STATE-EXPIRED-ONLY-ON-REQUEST' | 'STATE-PAST-DUE-NOT-A-STATUS' | 'STATE-DEFAULT-ACTIVE-SCHEDULED' | 'LIST-STATUSES-PAST-DUE' | 'LIST-STATUSES-FILTER';

export function statusesRule(statuses: readonly ListingStatusFilter[] | undefined, wrong: readonly State[]): StatusesRule {
  if (statuses === undefined) {
    if (wrong.includes('expired')) return 'STATE-EXPIRED-ONLY-ON-REQUEST';
    if (wrong.includes('past_due')) return 'STATE-PAST-DUE-NOT-A-STATUS';
    return 'STATE-DEFAULT-ACTIVE-SCHEDULED';
  }
  if (statuses.includes('past_due') && (wrong.includes('past_due') || (wrong.includes('active') && !statuses.includes('active')))) return 'LIST-STATUSES-PAST-DUE';
  return 'LIST-STATUSES-FILTER';
}
