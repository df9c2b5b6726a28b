/**
 * Random datasets of customers, entities, plans and record states, walked with random queries at
 * several limits against a model of what each listing must hold.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { ListingStatusFilter } from '../../../spec/listings.ts';
import type { Plan } from '../../../spec/plans.ts';
import { attach, checkProperty, createCustomer, createEntity, createFeature, createPlan, scenario } from '../../support.ts';
import {
  addOnPlan,
  EVERY_STATUS,
  expectNoDuplicates,
  expectPagesWellFormed,
  forceState,
  holding,
  holdingOf,
  type ListBody,
  LISTINGS,
  type ListName,
  matchesStatuses,
  oneOffPrice,
  type State,
  STATES,
  type StatusesRule,
  statusesRule,
  walk,
  walkRows,
} from './support.ts';

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

type FilterRule = StatusesRule | 'LIST-CUSTOMER-FILTER' | 'LIST-ENTITY-FILTER' | 'LIST-PLAN-FILTER';

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

export const modelScenarios = [
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
