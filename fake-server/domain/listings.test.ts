/** The listings without a socket: handlers called with inputs parsed by the spec's request schema. */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { testSeed } from '../../fixtures/random.ts';
import { type ListingStatusFilter, RecordListRequest } from '../../spec/listings.ts';
import { type OperationName, operations } from '../../spec/operations.ts';
import { Clock } from '../clock.ts';
import { IdGenerator } from '../ids.ts';
import { type RecordRow, TenantStore } from '../store/tenant-store.ts';
import type { DomainContext, OutputOf } from './context.ts';
import { handlers } from './handlers.ts';
import { forceState } from './lifecycle.ts';
import { recordMatchesStatuses } from './listings.ts';

type ListBody = z.input<typeof RecordListRequest>;
type ListName = 'subscriptions.list' | 'purchases.list';

let ctx: DomainContext;

function call<N extends OperationName>(name: N, body: z.input<(typeof operations)[N]['request']>): OutputOf<N> {
  const handler = handlers[name] as (ctx: DomainContext, input: unknown) => OutputOf<N>;
  return handler(ctx, operations[name].request.parse(body));
}

/** Attaches a plan a millisecond after the previous attach, so creation order is listing order. */
function attach(customerId: string, planId: string, entityId?: string): void {
  ctx.clock.advance(1);
  call('billing.attach', { customer_id: customerId, plan_id: planId, ...(entityId !== undefined && { entity_id: entityId }) });
}

interface Walk {
  readonly ids: string[];
  readonly pages: { readonly size: number; readonly hasMore: boolean; readonly nextCursor: string | null }[];
}

function walk(name: ListName, body: ListBody): Walk {
  const ids: string[] = [];
  const pages: Walk['pages'] = [];
  let cursor = body.start_cursor ?? '';
  do {
    const page = call(name, { ...body, start_cursor: cursor });
    ids.push(...page.list.map((record) => record.id));
    pages.push({ size: page.list.length, hasMore: page.has_more, nextCursor: page.next_cursor });
    cursor = page.next_cursor ?? '';
    if (pages.length > 1_000) throw new Error('the walk does not end');
  } while (pages.at(-1)!.hasMore);
  return { ids, pages };
}

/** What a listing must hold, from the store itself: matching records, newest first. */
function expected(kind: RecordRow['kind'], body: ListBody): string[] {
  const statuses = body.statuses ?? ['active', 'scheduled'];
  return [...ctx.store.records.values()]
    .filter((record) => record.kind === kind)
    .filter((record) => body.customer_id === undefined || record.customerId === body.customer_id)
    .filter((record) => body.entity_id === undefined || record.entityId === body.entity_id)
    .filter((record) => body.plan_id === undefined || record.planId === body.plan_id)
    .filter((record) => recordMatchesStatuses(record, statuses))
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    .map((record) => record.id);
}

function recordOf(customerId: string, planId: string, entityId: string | null = null): RecordRow {
  return [...ctx.store.records.values()].find((r) => r.customerId === customerId && r.planId === planId && r.entityId === entityId && r.status !== 'expired')!;
}

beforeEach(() => {
  ctx = { store: new TenantStore('org', 'sandbox'), clock: new Clock({ now: Date.UTC(2026, 4, 1), frozen: true }), ids: new IdGenerator(7) };
  call('features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false });
  for (const planId of ['p', 'q', 'r']) call('plans.create', { plan_id: planId, name: planId, group: 'main' });
  call('plans.create', { plan_id: 'addon', name: 'Add-on', add_on: true });
  call('plans.create', { plan_id: 'pack', name: 'Pack', price: { amount: 5, interval: 'one_off' } });
  for (const customerId of ['a', 'b']) call('customers.get_or_create', { customer_id: customerId });
  call('entities.create', { customer_id: 'a', entity_id: 'e', feature_id: 'seats' });
});

describe('pages', () => {
  beforeEach(() => {
    // p, then a long run of q/r replacing each other, p again on the customer and on its entity, and add-ons.
    attach('a', 'p');
    for (let i = 0; i < 12; i++) attach('a', i % 2 === 0 ? 'q' : 'r');
    attach('a', 'p');
    attach('a', 'addon');
    attach('a', 'p', 'e');
    attach('a', 'q', 'e');
    attach('a', 'pack');
  });

  it('[LIST-SHORT-PAGES, LIST-WALK-EVERY-MATCH-ONCE, LIST-PLAN-FILTER] pages first and filters afterwards: short and empty pages with has_more true, and the walk still finds every match once', () => {
    const body: ListBody = { customer_id: 'a', plan_id: 'p', statuses: ['active', 'expired'] };
    const all = expected('subscription', body);
    expect(all).toHaveLength(3);
    for (const limit of [1, 2, 3, 7, 200]) {
      const { ids, pages } = walk('subscriptions.list', { ...body, limit });
      expect(ids, `limit ${limit}`).toEqual(all);
      if (limit < 7) expect(pages.some((page) => page.size === 0 && page.hasMore), `limit ${limit}: an empty page before the end`).toBe(true);
      if (limit > 1 && limit < 200) expect(pages.some((page) => page.size < limit && page.hasMore), `limit ${limit}: a short page before the end`).toBe(true);
    }
    // The first window of 7 rows (pack is not a subscription) holds the two newest p records.
    expect(call('subscriptions.list', { ...body, limit: 7 }).list).toHaveLength(2);
  });

  it('[LIST-NEXT-CURSOR-NULL] next_cursor is null exactly on the last page, where has_more is false', () => {
    for (const limit of [1, 4, 200]) {
      const { pages } = walk('subscriptions.list', { customer_id: 'a', limit });
      expect(pages.slice(0, -1).every((page) => page.hasMore && page.nextCursor !== null)).toBe(true);
      expect(pages.at(-1)).toMatchObject({ hasMore: false, nextCursor: null });
    }
  });

  it('[LIST-CURSOR-CONTINUES] a cursor names a position: rows created after it was issued do not shift the rest of the walk', () => {
    const first = call('subscriptions.list', { customer_id: 'a', statuses: ['active', 'expired'], limit: 5 });
    attach('a', 'r');
    const rest = walk('subscriptions.list', { customer_id: 'a', statuses: ['active', 'expired'], limit: 5, start_cursor: first.next_cursor! });
    const before = expected('subscription', { customer_id: 'a', statuses: ['active', 'expired'] }).slice(1);
    expect([...first.list.map((record) => record.id), ...rest.ids]).toEqual(before);
  });

  it('[LIST-LIMIT-DEFAULT, LIST-START-CURSOR-DEFAULT] the defaults are a 50-row window from the first page', () => {
    for (let i = 0; i < 40; i++) attach('b', i % 2 === 0 ? 'q' : 'r');
    for (let i = 0; i < 20; i++) attach('a', i % 2 === 0 ? 'q' : 'r');
    const body: ListBody = { statuses: ['active', 'expired'] };
    const page = call('subscriptions.list', body);
    expect(page.list).toHaveLength(50);
    expect(page).toEqual(call('subscriptions.list', { ...body, limit: 50, start_cursor: '' }));
  });

  it('[ERR-INVALID-CURSOR] a start_cursor that is not one of ours is refused with invalid_cursor', () => {
    for (const cursor of ['nope!', Buffer.from('{"v":1}').toString('base64url')]) {
      expect(() => call('purchases.list', { start_cursor: cursor })).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    }
  });
});

describe('records and filters', () => {
  beforeEach(() => {
    attach('a', 'p');
    attach('a', 'addon');
    attach('a', 'pack');
    attach('a', 'p', 'e');
    attach('a', 'pack', 'e');
    attach('b', 'q');
    attach('b', 'pack');
  });

  it('[LIST-SUBSCRIPTIONS-RECURRING, LIST-PURCHASES-ONE-OFF, LIST-SUB-PLAN-FLAGS, LIST-RECORD-OWNER] recurring plans (add-ons included) are subscriptions, one-off plans purchases', () => {
    const subscriptions = call('subscriptions.list', { customer_id: 'a' }).list;
    expect(subscriptions.map((r) => [r.plan_id, r.entity_id, r.add_on, r.auto_enable, r.customer_id, r.scope]).sort()).toEqual([
      ['addon', null, true, false, 'a', 'customer'],
      ['p', null, false, false, 'a', 'customer'],
      ['p', 'e', false, false, 'a', 'entity'],
    ]);
    const purchases = call('purchases.list', { customer_id: 'a' }).list;
    expect(purchases.map((r) => [r.plan_id, r.entity_id, r.status, r.customer_id]).sort()).toEqual([
      ['pack', null, 'active', 'a'],
      ['pack', 'e', 'active', 'a'],
    ]);
  });

  it('[LIST-ACROSS-CUSTOMERS, LIST-CUSTOMER-FILTER, LIST-ENTITY-FILTER] customer_id narrows to a customer and its entities, entity_id to one entity, neither spans every customer', () => {
    expect(walk('purchases.list', { limit: 1 }).ids).toEqual(expected('purchase', {}));
    expect(new Set(call('purchases.list', {}).list.map((r) => r.customer_id))).toEqual(new Set(['a', 'b']));
    expect(call('purchases.list', { customer_id: 'b' }).list.map((r) => r.customer_id)).toEqual(['b']);
    expect(call('subscriptions.list', { customer_id: 'a', entity_id: 'e' }).list.map((r) => [r.plan_id, r.entity_id])).toEqual([['p', 'e']]);
    expect(call('subscriptions.list', { customer_id: 'nobody' })).toEqual({ list: [], has_more: false, next_cursor: null });
  });

  it('[LIST-STATUSES-FILTER, LIST-STATUSES-PAST-DUE, STATE-PAST-DUE-NOT-A-STATUS, STATE-DEFAULT-ACTIVE-SCHEDULED, STATE-EXPIRED-ONLY-ON-REQUEST] statuses pick records by state; past_due picks overdue records, which read active', () => {
    const overdue = recordOf('a', 'p');
    const scheduled = recordOf('a', 'addon');
    const expired = recordOf('b', 'q');
    forceState(ctx, overdue.id, 'past_due');
    forceState(ctx, scheduled.id, 'scheduled');
    forceState(ctx, expired.id, 'expired');
    const ids = (statuses?: ListingStatusFilter[]) => new Set(walk('subscriptions.list', statuses ? { statuses } : {}).ids);
    const entityRecord = recordOf('a', 'p', 'e').id;
    expect(ids()).toEqual(new Set([overdue.id, scheduled.id, entityRecord]));
    expect(ids(['past_due'])).toEqual(new Set([overdue.id]));
    expect(ids(['active'])).toEqual(new Set([overdue.id, entityRecord]));
    expect(ids(['scheduled'])).toEqual(new Set([scheduled.id]));
    expect(ids(['expired'])).toEqual(new Set([expired.id]));
    const shown = call('subscriptions.list', { statuses: ['past_due'] }).list[0]!;
    expect(shown).toMatchObject({ status: 'active', past_due: true });
  });
});

describe('the request', () => {
  it('[LIST-LIMIT-BOUNDS, LIST-STATUSES-MIN-ONE, LIST-STATUSES-ENUM, LIST-ENTITY-REQUIRES-CUSTOMER] bounds, enums and required-together fields are refused; defaults fill in', () => {
    for (const body of [{ limit: 0 }, { limit: 201 }, { limit: 1.5 }, { statuses: [] }, { statuses: ['canceled'] }, { entity_id: 'e' }]) {
      expect(RecordListRequest.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
    expect(RecordListRequest.parse({})).toEqual({ limit: 50, start_cursor: '', statuses: ['active', 'scheduled'] });
    expect(RecordListRequest.parse({ limit: 200, customer_id: 'a', entity_id: 'e', statuses: ['past_due'] }).limit).toBe(200);
  });
});

describe('any data, any query', () => {
  it('[LIST-WALK-EVERY-MATCH-ONCE, LIST-NEXT-CURSOR-NULL] walking every page gives exactly the matching records, newest first, once each', () => {
    const holders = [['a'], ['a', 'e'], ['b']] as const;
    const plans = ['p', 'q', 'r', 'addon', 'pack'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ holder: fc.constantFrom(...holders), plan: fc.constantFrom(...plans), state: fc.constantFrom('active', 'past_due', 'scheduled', 'expired' as const) }), { maxLength: 25 }),
        fc.record({
          kind: fc.constantFrom('subscriptions.list', 'purchases.list' as const),
          holder: fc.option(fc.constantFrom(...holders), { nil: undefined }),
          plan_id: fc.option(fc.constantFrom(...plans), { nil: undefined }),
          statuses: fc.option(fc.subarray(['active', 'scheduled', 'past_due', 'expired'] as ListingStatusFilter[], { minLength: 1 }), { nil: undefined }),
          limit: fc.integer({ min: 1, max: 8 }),
        }),
        (attaches, query) => {
          const held = ctx.store.records.size;
          for (const { holder, plan, state } of attaches) {
            const [customerId, entityId] = holder;
            try {
              attach(customerId, plan, entityId);
            } catch {
              continue; // already held: the attach is refused and nothing changes
            }
            const record = recordOf(customerId, plan, entityId ?? null);
            if (state !== 'active') forceState(ctx, record.id, state);
          }
          expect(ctx.store.records.size).toBeGreaterThanOrEqual(held);
          const body: ListBody = {
            ...(query.holder && { customer_id: query.holder[0], ...(query.holder[1] && { entity_id: query.holder[1] }) }),
            ...(query.plan_id && { plan_id: query.plan_id }),
            ...(query.statuses && { statuses: query.statuses }),
            limit: query.limit,
          };
          const { ids, pages } = walk(query.kind, body);
          expect(ids).toEqual(expected(query.kind === 'subscriptions.list' ? 'subscription' : 'purchase', body));
          expect(pages.every((page) => page.size <= query.limit && (page.nextCursor === null) === !page.hasMore)).toBe(true);
        },
      ),
      { seed: testSeed(), numRuns: 100 },
    );
  });
});
