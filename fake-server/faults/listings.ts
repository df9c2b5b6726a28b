/** Broken variants of the listings rules (subscriptions.list, purchases.list) and of the States rules about them. */
import { DEFAULT_LISTING_STATUSES } from '../../spec/listings.ts';
import type { OperationName } from '../../spec/operations.ts';
import { type DomainContext, DomainError, fail, type InputOf, type OperationHandler, type OutputOf } from '../domain/context.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { planOfRecord } from '../domain/billing.ts';
import { addInterval } from '../clock.ts';
import { purchaseRecordView, recordPage } from '../domain/listings.ts';
import type { RecordKind } from '../store/tenant-store.ts';
import type { Fault, HandlerOverrides } from './fault.ts';

const LISTINGS = ['subscriptions.list', 'purchases.list'] as const;
type ListingName = (typeof LISTINGS)[number];
type ListInput = InputOf<'subscriptions.list'>;
type ListOutput = OutputOf<'subscriptions.list'> | OutputOf<'purchases.list'>;
type Body = Record<string, unknown>;

function isListing(operation: OperationName): operation is ListingName {
  return (LISTINGS as readonly string[]).includes(operation);
}

/** An `input` hook that rewrites (a copy of) the JSON object body of both listings. */
function rewriteListBody(rewrite: (body: Body) => Body): NonNullable<Fault['input']> {
  return (operation, body) => (isListing(operation) && typeof body === 'object' && body !== null && !Array.isArray(body) ? rewrite({ ...body }) : body);
}

/** An `output` hook that rewrites every record of both listings. */
function rewriteRecords(rewrite: (record: Body, operation: ListingName) => Body): NonNullable<Fault['output']> {
  return (operation, body) => {
    if (!isListing(operation)) return body;
    const page = body as { list: Body[] };
    return { ...page, list: page.list.map((record) => rewrite(record, operation)) };
  };
}

/** Wraps both listings' handlers alike: `wrap(real, ctx, input)` answers instead of the real handler. */
function onListings(wrap: (real: OperationHandler<ListingName>, ctx: DomainContext, input: ListInput) => ListOutput): HandlerOverrides {
  const wrapped = (real: OperationHandler<ListingName>) => (ctx: DomainContext, input: ListInput) => wrap(real, ctx, input);
  return { 'subscriptions.list': wrapped as never, 'purchases.list': wrapped as never };
}

/** The position an offset cursor (LIST-WALK-CONCURRENT-INSERTS' fault) names: rows counted from the newest, not a row. */
const OFFSET_CURSOR_ID = '#offset';

/**
 * A listing whose next_cursor counts the index rows before the next page instead of naming where the
 * page stopped: a record created between two page calls shifts the count, so the walk lists a row again.
 */
function offsetCursors(kind: RecordKind): (real: OperationHandler<ListingName>) => OperationHandler<ListingName> {
  return (real) => (ctx, input) => {
    const keys = [...ctx.store.recordIndex(kind, input.customer_id).newestFirst()];
    const position = decodeCursor(input.start_cursor);
    const start = position?.id === OFFSET_CURSOR_ID ? (position.t === 0 ? '' : encodeCursor(keys[position.t - 1] ?? { t: 0, id: '' })) : input.start_cursor;
    const page = real(ctx, { ...input, start_cursor: start });
    const next = page.next_cursor === null ? undefined : decodeCursor(page.next_cursor);
    if (next === undefined) return page;
    const offset = keys.findIndex((key) => key.t === next.t && key.id === next.id) + 1;
    return { ...page, next_cursor: encodeCursor({ t: offset, id: OFFSET_CURSOR_ID }) };
  };
}

export const listingsFaults: readonly Fault[] = [
  // ── Shapes and record meanings ──
  {
    rule: 'LIST-SUBSCRIPTION-SHAPE',
    breaks: 'subscription records leave out their fields whose value is null (canceled_at, expires_at, trial_ends_at, …) instead of sending null',
    output: rewriteRecords((record, operation) => (operation === 'subscriptions.list' ? Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null)) : record)),
  },
  {
    rule: 'LIST-PURCHASE-SHAPE',
    breaks: "purchase records carry only the reference's embedded fields (plan_id, expires_at, started_at, quantity, scope): no id, status, customer_id, entity_id or created_at",
    output: rewriteRecords((record, operation) =>
      operation === 'purchases.list' ? { plan_id: record['plan_id'], expires_at: record['expires_at'], started_at: record['started_at'], quantity: record['quantity'], scope: record['scope'] } : record,
    ),
  },
  {
    rule: 'LIST-SUB-PLAN-FLAGS',
    breaks: 'subscription records swap the plan flags: add_on carries auto_enable and auto_enable carries add_on',
    output: rewriteRecords((record, operation) => (operation === 'subscriptions.list' ? { ...record, add_on: record['auto_enable'], auto_enable: record['add_on'] } : record)),
  },
  {
    rule: 'LIST-RECORD-OWNER',
    breaks: "records held by an entity read as the customer's own: entity_id is always null",
    output: rewriteRecords((record) => ({ ...record, entity_id: null })),
  },
  {
    rule: 'LIST-RECORD-SCOPE',
    breaks: 'every record reads scope "entity", customer-level ones too',
    output: rewriteRecords((record) => ({ ...record, scope: 'entity' })),
  },
  {
    rule: 'LIST-TRIAL-ENDS-NULL',
    breaks: 'a subscription without a trial reads trial_ends_at 14 days after its start',
    output: rewriteRecords((record, operation) =>
      operation === 'subscriptions.list' && record['trial_ends_at'] === null ? { ...record, trial_ends_at: (record['started_at'] as number) + 14 * 24 * 3600 * 1000 } : record,
    ),
  },
  {
    rule: 'LIST-CURRENT-PERIOD',
    breaks: 'current_period_start stays the start of the first period (started_at) however many periods have passed',
    output: rewriteRecords((record, operation) =>
      operation === 'subscriptions.list' && record['current_period_start'] !== null ? { ...record, current_period_start: record['started_at'] } : record,
    ),
  },
  {
    rule: 'LIST-TRIAL-ENDS-WHILE-TRIALING',
    breaks: 'trial_ends_at keeps the end of a trial that is over instead of reading null',
    handlers: onListings((real, ctx, input) => {
      const page = real(ctx, input);
      const ended = (id: string) => {
        const row = ctx.store.records.get(id);
        const trial = row && planOfRecord(ctx, row).free_trial;
        return row && trial ? addInterval(row.startedAt, trial.duration_type, trial.duration_length) : null;
      };
      return { ...page, list: page.list.map((record) => ('trial_ends_at' in record && record.trial_ends_at === null ? { ...record, trial_ends_at: ended(record.id) } : record)) } as ListOutput;
    }),
  },
  {
    rule: 'LIST-SUBSCRIPTIONS-RECURRING',
    breaks: 'subscriptions.list leaves add-ons out',
    output: (operation, body) => (operation === 'subscriptions.list' ? { ...(body as Body), list: (body as OutputOf<'subscriptions.list'>).list.filter((record) => !record.add_on) } : body),
  },
  {
    rule: 'LIST-PURCHASES-ONE-OFF',
    breaks: 'purchases.list also lists the recurring plans of its window, as purchases',
    handlers: {
      'purchases.list': (real) => (ctx, input) => {
        const page = real(ctx, input);
        return { ...page, list: [...page.list, ...recordPage(ctx.store, 'subscription', input).rows.map(purchaseRecordView)] };
      },
    },
  },

  // ── Filters ──
  {
    rule: 'LIST-ACROSS-CUSTOMERS',
    breaks: 'customer_id is required: a listing without it is refused instead of spanning every customer',
    handlers: onListings((real, ctx, input) => (input.customer_id === undefined ? fail('invalid_inputs', 'customer_id: Invalid input: expected string, received undefined') : real(ctx, input))),
  },
  {
    rule: 'LIST-CUSTOMER-FILTER',
    breaks: 'customer_id is ignored: the listing spans every customer',
    handlers: onListings((real, ctx, input) => real(ctx, { ...input, customer_id: undefined })),
  },
  {
    rule: 'LIST-ENTITY-FILTER',
    breaks: "entity_id is ignored: the listing holds all of the customer's records",
    handlers: onListings((real, ctx, input) => real(ctx, { ...input, entity_id: undefined })),
  },
  {
    rule: 'LIST-ENTITY-REQUIRES-CUSTOMER',
    breaks: 'entity_id without customer_id is accepted (and dropped) instead of refused',
    input: rewriteListBody(({ entity_id: entityId, ...body }) => (body['customer_id'] === undefined ? body : { ...body, entity_id: entityId })),
  },
  {
    rule: 'LIST-PLAN-FILTER',
    breaks: 'plan_id is ignored: records of every plan are listed',
    handlers: onListings((real, ctx, input) => real(ctx, { ...input, plan_id: undefined })),
  },
  {
    rule: 'LIST-STATUSES-FILTER',
    breaks: 'the statuses filter is ignored: every listing holds the default active and scheduled records',
    handlers: onListings((real, ctx, input) => real(ctx, { ...input, statuses: [...DEFAULT_LISTING_STATUSES] })),
  },
  {
    rule: 'LIST-STATUSES-ENUM',
    breaks: 'values outside the statuses enum are dropped instead of refused (a filter of only unknown values lists the defaults)',
    input: rewriteListBody((body) => {
      if (!Array.isArray(body['statuses'])) return body;
      const known = body['statuses'].filter((status) => ['active', 'scheduled', 'past_due', 'expired'].includes(status as string));
      if (known.length === body['statuses'].length) return body;
      const { statuses: _statuses, ...rest } = body;
      return known.length === 0 ? rest : { ...rest, statuses: known };
    }),
  },
  {
    rule: 'LIST-STATUSES-PAST-DUE',
    breaks: 'the past_due filter matches every active record, overdue or not',
    handlers: onListings((real, ctx, input) => real(ctx, { ...input, statuses: input.statuses.map((status) => (status === 'past_due' ? 'active' : status)) })),
  },

  // ── Pagination ──
  {
    rule: 'LIST-START-CURSOR-DEFAULT',
    breaks: 'an explicit empty start_cursor is refused as an invalid cursor instead of naming the first page',
    input: rewriteListBody((body) => (body['start_cursor'] === '' ? { ...body, start_cursor: 'empty' } : body)),
  },
  {
    rule: 'LIST-CURSOR-CONTINUES',
    // A cursor that is not one of ours is still refused (ERR-INVALID-CURSOR): only a valid one is ignored.
    breaks: 'a valid start_cursor is ignored: every call answers the first page again',
    handlers: onListings((real, ctx, input) => {
      decodeCursor(input.start_cursor);
      return real(ctx, { ...input, start_cursor: '' });
    }),
  },
  {
    rule: 'LIST-NEXT-CURSOR-NULL',
    breaks: 'the last page still carries a next_cursor although has_more is false',
    handlers: onListings((real, ctx, input) => {
      const page = real(ctx, input);
      return page.has_more ? page : { ...page, next_cursor: encodeCursor({ t: 0, id: 'end' }) };
    }),
  },
  {
    rule: 'LIST-SHORT-PAGES',
    breaks: 'has_more is derived from a full page: a page the filters left short ends the listing',
    handlers: onListings((real, ctx, input) => {
      const page = real(ctx, input);
      return page.list.length < input.limit ? { ...page, has_more: false, next_cursor: null } : page;
    }),
  },
  {
    rule: 'LIST-WALK-EVERY-MATCH-ONCE',
    breaks: "next_cursor points just before the page's last record, which the next page then lists again",
    handlers: onListings((real, ctx, input) => {
      const page = real(ctx, input);
      const last = page.list.at(-1);
      if (!page.has_more || last === undefined) return page;
      // The key right after (created_at, id) in the index order: the walk resumes at `last` itself.
      return { ...page, next_cursor: encodeCursor({ t: last.created_at, id: `${last.id}\u0000` }) };
    }),
  },

  {
    rule: 'LIST-WALK-CONCURRENT-INSERTS',
    breaks: 'next_cursor is an offset from the newest record, so a record created between two page calls makes the walk list one again',
    handlers: { 'subscriptions.list': offsetCursors('subscription') as never, 'purchases.list': offsetCursors('purchase') as never },
  },

  // ── Limits ──
  {
    rule: 'LIST-LIMIT-BOUNDS',
    breaks: 'a limit outside 1 to 200 is clamped into range instead of refused',
    input: rewriteListBody((body) => (typeof body['limit'] === 'number' ? { ...body, limit: Math.min(200, Math.max(1, Math.round(body['limit']))) } : body)),
  },
  {
    rule: 'LIST-LIMIT-DEFAULT',
    breaks: 'an omitted limit defaults to 20 rows instead of 50',
    input: rewriteListBody((body) => ('limit' in body ? body : { ...body, limit: 20 })),
  },
  {
    rule: 'LIST-STATUSES-MIN-ONE',
    breaks: 'an empty statuses array is accepted and read as the default instead of refused',
    input: rewriteListBody(({ statuses, ...body }) => (Array.isArray(statuses) && statuses.length === 0 ? body : { ...body, ...(statuses !== undefined && { statuses }) })),
  },

  // ── States ──
  {
    rule: 'STATE-PAST-DUE-NOT-A-STATUS',
    breaks: 'an overdue record reads status "past_due" instead of "active"',
    handlers: onListings((real, ctx, input) => {
      const page = real(ctx, input);
      const overdue = (id: string) => ctx.store.records.get(id)?.pastDue === true;
      return { ...page, list: page.list.map((record) => (overdue(record.id) ? { ...record, status: 'past_due' as never } : record)) } as ListOutput;
    }),
  },
  {
    rule: 'STATE-PAST-DUE-READS-ACTIVE',
    breaks: 'an overdue subscription reads past_due false, listed or embedded in an entity',
    output: (operation, body) => {
      if (operation !== 'entities.list') return rewriteRecords((record, listing) => (listing === 'subscriptions.list' ? { ...record, past_due: false } : record))(operation, body);
      const page = body as { list: { subscriptions: Body[] }[] };
      return { ...page, list: page.list.map((entity) => ({ ...entity, subscriptions: entity.subscriptions.map((subscription) => ({ ...subscription, past_due: false })) })) };
    },
  },
  {
    rule: 'STATE-DEFAULT-ACTIVE-SCHEDULED',
    breaks: 'the default listing holds active records only, leaving scheduled ones out',
    input: rewriteListBody((body) => ('statuses' in body ? body : { ...body, statuses: ['active'] })),
  },
  {
    rule: 'STATE-EXPIRED-ONLY-ON-REQUEST',
    breaks: 'the default listing holds expired records too',
    input: rewriteListBody((body) => ('statuses' in body ? body : { ...body, statuses: ['active', 'scheduled', 'expired'] })),
  },

  // ── Errors ──
  {
    rule: 'ERR-INVALID-CURSOR',
    breaks: 'a start_cursor that is not one of ours is read as the first page instead of refused',
    input: rewriteListBody((body) => {
      if (typeof body['start_cursor'] !== 'string') return body;
      try {
        decodeCursor(body['start_cursor']);
        return body;
      } catch (error) {
        if (error instanceof DomainError) return { ...body, start_cursor: '' };
        throw error;
      }
    }),
  },
];
