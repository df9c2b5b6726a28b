/**
 * Scenarios of a customer with more live records than the largest page holds: a walk of
 * subscriptions.list or purchases.list with limit 200 (the most a page may ask for) must go on past
 * its first page, and a walk with the default limit must list the same records.
 */
import { expect } from 'vitest';
import { inBatches } from '../../framework/index.ts';
import { attach, createCustomer, createPlan, scenario, SETUP_WIDTH, type T } from '../../support.ts';
import { expectNoDuplicates, expectPagesWellFormed, type ListName, oneOffPrice, walk, WALK_RULES } from './support.ts';

/** Live records of one customer: past one page of the largest limit, with a few to spare. */
const RECORDS = 205;
const MAX_LIMIT = 200;

/**
 * A customer holding `count` add-on plans of its own, made and attached side by side (an add-on
 * replaces nothing, so every one stays live): one record each, recurring ones (subscriptions) or,
 * with `oneOff`, purchases.
 */
async function customerWithAddOns(t: T, count: number, oneOff: boolean): Promise<{ customerId: string; planIds: string[] }> {
  const customerId = (await createCustomer(t)).id;
  const plans = await inBatches(Array.from({ length: count }), SETUP_WIDTH, () => createPlan(t, { add_on: true, ...(oneOff ? oneOffPrice : {}) }));
  t.precondition(`the ${count} plans are add-ons`, () => expect(plans.filter((plan) => plan.add_on !== true).map((plan) => plan.id)).toEqual([]));
  await inBatches(plans, SETUP_WIDTH, (plan) => attach(t, customerId, plan.id));
  return { customerId, planIds: plans.map((plan) => plan.id) };
}

/**
 * Walks the customer's listing with limit 200 and with the default limit; each walk must list every
 * one of its records once. Rows of other plans (an auto-enable plan another scenario made meanwhile)
 * are not judged here.
 */
async function checkWalksPast200(t: T, name: ListName, oneOff: boolean): Promise<void> {
  const { customerId, planIds } = await customerWithAddOns(t, RECORDS, oneOff);
  const mine = new Set(planIds);
  const expected = [...planIds].sort();
  for (const limit of [MAX_LIMIT, undefined]) {
    const what = `${name} of ${customerId} with ${limit === undefined ? 'the default limit' : `limit ${limit}`}`;
    const pages = await walk(t, name, { customer_id: customerId, ...(limit !== undefined && { limit }) }, 'LIST-WALK-EVERY-MATCH-ONCE');
    expectPagesWellFormed(t, pages, limit ?? 50, what);
    const rows = pages.flatMap((page) => page.rows);
    expectNoDuplicates(t, rows, what);
    t.check('LIST-WALK-EVERY-MATCH-ONCE', () =>
      expect(rows.filter((row) => mine.has(row.plan_id)).map((row) => row.plan_id).sort(), `${what}: a walk until has_more is false lists the ${RECORDS} live records, one per plan`).toEqual(expected),
    );
  }
}

const RULES = [...WALK_RULES, 'LIST-SHORT-PAGES', 'LIST-NEXT-CURSOR-NULL'] as const;

export const past200Scenarios = [
  scenario(
    {
      id: 'listings.subscriptions-past-200',
      title: `subscriptions.list of a customer with ${RECORDS} live subscriptions: a walk with limit ${MAX_LIMIT} goes past its first page and lists each once, as a walk with the default limit does`,
      rules: [...RULES],
    },
    (t) => checkWalksPast200(t, 'subscriptions.list', false),
  ),
  scenario(
    {
      id: 'listings.purchases-past-200',
      title: `purchases.list of a customer with ${RECORDS} live purchases: a walk with limit ${MAX_LIMIT} goes past its first page and lists each once, as a walk with the default limit does`,
      rules: [...RULES],
      needs: ['paid-attach'],
    },
    (t) => checkWalksPast200(t, 'purchases.list', true),
  ),
];
