/**
 * Scenarios of paging through subscriptions.list and purchases.list: short and empty pages, records
 * created during a walk, the default limit and first page, and the bounds of limit and start_cursor.
 */
import { expect } from 'vitest';
import type { Plan } from '../../../spec/plans.ts';
import { inBatches, isRouteNotServed, SetupNotServed } from '../../framework/index.ts';
import { attach, createCustomer, createEntity, createFeature, createPlan, requireNotRead, scenario, SETUP_WIDTH, type T } from '../../support.ts';
import { addOnPlan, EVERY_STATUS, expectNoDuplicates, expectPagesWellFormed, type ListBody, LISTINGS, type ListName, listPage, mainPlans, oneOffPrice, type Page, recordIds, type Row, walk, WALK_RULES, walkRows } from './support.ts';

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

export const pagesScenarios = [
  scenario(
    {
      id: 'listings.walk-short-and-empty-pages',
      title: 'a plan_id walk over interleaved records goes through short and empty pages to has_more false, and at every limit lists each match exactly once',
      rules: ['LIST-SHORT-PAGES', 'LIST-WALK-EVERY-MATCH-ONCE', 'LIST-CURSOR-CONTINUES', 'LIST-NEXT-CURSOR-NULL', 'LIST-PLAN-FILTER', 'LIST-CUSTOMER-FILTER'],
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
      const expected = everything.filter((row) => row.plan_id === p!.id).map((row) => row.id).sort();
      t.check('LIST-WALK-EVERY-MATCH-ONCE', () => {
        expect(everything.length, 'a walk of every status lists every record the customer ever held, live or expired').toBe(steps.length);
        expect(expected, `the ${matching} records of plan ${p!.id} among them`).toHaveLength(matching);
      });

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
      // The quiet walks before the inserts are checked as the rules they rest on.
      rules: ['LIST-WALK-CONCURRENT-INSERTS', ...WALK_RULES, 'LIST-CUSTOMER-FILTER'],
      needs: ['paid-attach'],
    },
    async (t) => {
      for (const name of LISTINGS) {
        const priced = name === 'purchases.list' ? oneOffPrice : {};
        const customerId = (await createCustomer(t)).id;
        for (let i = 0; i < 6; i++) await attach(t, customerId, (await addOnPlan(t, priced)).id);
        // Without inserts, a walk (in one page, then in pages of 2) lists each of the six records once.
        const listed = await walkRows(t, name, { customer_id: customerId, limit: 200 });
        t.check('LIST-WALK-EVERY-MATCH-ONCE', () => expect(listed, `${name}: the walk lists the six records`).toHaveLength(6));
        const before = recordIds(listed);
        const quiet = await walkRows(t, name, { customer_id: customerId, limit: 2 });
        t.check('LIST-WALK-EVERY-MATCH-ONCE', () => expect(recordIds(quiet).sort(), `${name}: a walk in pages of 2 lists the six records`).toEqual([...before].sort()));

        const seen: string[] = [];
        let page = await listPage(t, name, { customer_id: customerId, limit: 2 }, 'LIST-WALK-CONCURRENT-INSERTS');
        seen.push(...recordIds(page.rows));
        for (let step = 0; page.hasMore && step < 20; step++) {
          // Between two page calls, another record of the customer.
          await attach(t, customerId, (await addOnPlan(t, priced)).id);
          page = await listPage(t, name, { customer_id: customerId, limit: 2, start_cursor: page.nextCursor ?? '' }, 'LIST-WALK-CONCURRENT-INSERTS');
          seen.push(...recordIds(page.rows));
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
      id: 'listings.default-limit-and-first-page',
      title: 'omitting limit and start_cursor is the same as limit 50 and start_cursor "", page after page, on both listings',
      rules: ['LIST-LIMIT-DEFAULT', 'LIST-START-CURSOR-DEFAULT', ...WALK_RULES],
      needs: ['paid-attach'],
    },
    async (t) => {
      for (const name of LISTINGS) {
        // More than 50 records, so that a default other than 50 shows on the first page.
        const customerId = await customerWithHistory(t, 53, name === 'purchases.list');
        const body: ListBody = { customer_id: customerId, statuses: EVERY_STATUS };
        const ids = (pages: readonly Page<ListName>[]) => pages.map((page) => page.rows.map((row) => row.id));
        const fifty = await walk(t, name, { ...body, limit: 50 });
        t.check('LIST-WALK-EVERY-MATCH-ONCE', () => expect(fifty.flatMap((page) => page.rows), `${name}: a walk of every status lists the 53 records`).toHaveLength(53));

        const fromEmpty = await walk(t, name, { ...body, limit: 50, start_cursor: '' }, 'LIST-START-CURSOR-DEFAULT');
        t.check('LIST-START-CURSOR-DEFAULT', () => expect(ids(fromEmpty), `${name}: start_cursor "" gives the same pages as no start_cursor`).toEqual(ids(fifty)));

        const byDefault = await walk(t, name, body, 'LIST-LIMIT-DEFAULT');
        // Short pages are allowed, so the pages are compared with those of limit 50, not counted.
        t.check('LIST-LIMIT-DEFAULT', () => {
          byDefault.forEach((page, i) => expect(page.rows.length, `${name}, default page ${i + 1}: at most 50 rows`).toBeLessThanOrEqual(50));
          expect(ids(byDefault), `${name}: the same pages without limit as with limit 50`).toEqual(ids(fifty));
        });
      }
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
        for (const limit of [1, 200]) await listPage(t, name, { limit }, 'LIST-LIMIT-BOUNDS');
        for (const limit of [0, 201, -1, 1.5, 1000]) t.expectError(await t.client.call(name, { limit }), { rule: 'LIST-LIMIT-BOUNDS' });
      }
    },
  ),
  scenario(
    {
      id: 'listings.invalid-cursor',
      title: 'a start_cursor that is neither "" nor a next_cursor of the service is refused with 400 invalid_cursor, by every listing the target serves (entities.list too)',
      rules: ['ERR-INVALID-CURSOR'],
      mutates: false,
    },
    async (t) => {
      const cursors = ['not a cursor!', Buffer.from('hello').toString('base64url'), Buffer.from(JSON.stringify({ page: 2 })).toString('base64url')];
      let asked = 0;
      for (const name of [...LISTINGS, 'entities.list'] as const) {
        // The nearest valid request first; a listing the target does not serve is left out (as a rule about it would be SKIP).
        const first = await t.client.call(name, { start_cursor: '', limit: 1 });
        if (!first.ok && isRouteNotServed(first.status, first.body)) continue;
        t.expectOk(first, 'ERR-INVALID-CURSOR');
        for (const start_cursor of cursors) t.expectError(await t.client.call(name, { start_cursor }), { status: 400, code: 'invalid_cursor', rule: 'ERR-INVALID-CURSOR' });
        asked++;
      }
      if (asked === 0) throw new SetupNotServed('the target serves none of the listings start_cursor belongs to');
    },
  ),
  scenario(
    {
      id: 'listings.cursor-near-miss',
      title: 'a next_cursor of the service with a character outside base64url before or after it is refused with 400 invalid_cursor; the cursor itself is accepted',
      rules: ['ERR-INVALID-CURSOR', 'LIST-CURSOR-CONTINUES'],
    },
    async (t) => {
      const feature = await createFeature(t, 'boolean');
      const customer = await createCustomer(t);
      for (let i = 0; i < 2; i++) await attach(t, customer.id, (await createPlan(t, { add_on: true, items: [{ feature_id: feature.id }] })).id);
      const first = await listPage(t, 'subscriptions.list', { customer_id: customer.id, limit: 1 }, 'LIST-CURSOR-CONTINUES');
      const cursor = first.nextCursor;
      t.check('LIST-CURSOR-CONTINUES', () => expect(cursor, 'a first page of limit 1 of two records has more, named by a next_cursor').toEqual(expect.any(String)));
      // The nearest valid request: the cursor as the service gave it.
      await listPage(t, 'subscriptions.list', { customer_id: customer.id, limit: 1, start_cursor: cursor! }, 'ERR-INVALID-CURSOR');
      for (const start_cursor of [`!${cursor}`, `${cursor}!`]) {
        t.expectError(await t.client.call('subscriptions.list', { customer_id: customer.id, limit: 1, start_cursor }), { status: 400, code: 'invalid_cursor', rule: 'ERR-INVALID-CURSOR' });
      }
    },
  ),
  scenario(
    {
      id: 'listings.walk-across-customer-delete',
      title:
        'a plan_id walk over the records of 60 customers, with two customers deleted between two page calls (one whose record the page before listed, one not listed yet), lists each remaining record once and none of a deleted customer after its delete',
      rules: [...WALK_RULES, 'LIST-PLAN-FILTER', 'CUS-DELETE-CASCADES'],
    },
    async (t) => {
      const count = 60;
      const plan = await createPlan(t, { group: t.ns.id('grp') });
      // Asked first, so that a target not serving the listing is SKIP before the customers are made.
      await listPage(t, 'subscriptions.list', { plan_id: plan.id }, 'LIST-PLAN-FILTER');
      const customers = await inBatches(Array.from({ length: count }), SETUP_WIDTH, async () => {
        const customer = await createCustomer(t);
        await attach(t, customer.id, plan.id);
        return customer.id;
      });
      const body: ListBody = { plan_id: plan.id, limit: 25 };
      // Pages until one lists some of them (other scenarios may have added newer records meanwhile).
      const before: Row<'subscriptions.list'>[] = [];
      let page = await listPage(t, 'subscriptions.list', body, 'LIST-WALK-EVERY-MATCH-ONCE');
      for (before.push(...page.rows); before.length === 0 && page.hasMore; before.push(...page.rows)) {
        page = await listPage(t, 'subscriptions.list', { ...body, start_cursor: page.nextCursor ?? '' }, 'LIST-WALK-EVERY-MATCH-ONCE');
      }
      const seen = new Set(before.map((row) => row.customer_id));
      t.check('LIST-WALK-EVERY-MATCH-ONCE', () => {
        expect(before.length, 'the first pages list records of the plan').toBeGreaterThan(0);
        expect(page.hasMore, `a page of 25 does not hold the ${count} records`).toBe(true);
      });
      const [listed, ahead] = [before.at(-1)!.customer_id, customers.find((id) => !seen.has(id))!];
      for (const customerId of [listed, ahead]) {
        t.setup(await t.client.call('customers.delete', { customer_id: customerId }));
        requireNotRead(t, `customer ${customerId}`, await t.client.call('customers.get', { customer_id: customerId }));
      }
      const rest = await walkRows(t, 'subscriptions.list', { ...body, start_cursor: page.nextCursor! }, 'LIST-WALK-EVERY-MATCH-ONCE');
      t.check('CUS-DELETE-CASCADES', () => expect(rest.map((row) => row.customer_id), `a customer deleted before the walk reached its record (${ahead}) is not listed`).not.toContain(ahead));
      const walked = [...before, ...rest];
      expectNoDuplicates(t, walked, `subscriptions.list ${JSON.stringify(body)} across two deletes`);
      t.check('LIST-WALK-EVERY-MATCH-ONCE', () =>
        expect(walked.map((row) => row.customer_id).sort(), 'the walk goes on from its cursor and lists the record of every remaining customer').toEqual(customers.filter((id) => id !== ahead).sort()),
      );
    },
  ),
];
