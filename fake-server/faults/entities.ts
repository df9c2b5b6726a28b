/** Broken variants of the entities rules (entities.list, create, get, delete) and of the Errors rule about unknown entities. */
import type { OperationName } from '../../spec/operations.ts';
import { type DomainContext, DomainError, fail, type InputOf, type OperationHandler, type OutputOf } from '../domain/context.ts';
import { balancesAndFlags } from '../domain/balances.ts';
import { encodeCursor } from '../domain/cursor.ts';
import { getEntity, holdsAnyPlan, listEntitiesMatching, listFilter, recordsForPlanMatching } from '../domain/entities.ts';
import { grantsHeldBy } from '../domain/subjects.ts';
import type { EntityRow, RecordRow } from '../store/tenant-store.ts';
import { type Fault, type HandlerOverrides, rewriteOutput } from './fault.ts';

type JsonBody = Record<string, unknown>;
type ListInput = InputOf<'entities.list'>;
type EntityView = OutputOf<'entities.list'>['list'][number];

/** An `input` hook that rewrites (a copy of) the JSON object body of one operation. */
function rewriteBody(name: OperationName, rewrite: (body: JsonBody) => JsonBody): NonNullable<Fault['input']> {
  return (operation, body) => (operation === name && typeof body === 'object' && body !== null && !Array.isArray(body) ? rewrite({ ...body }) : body);
}

/** An `output` hook that rewrites every entity an operation answers (one, or each of a list). */
function rewriteEntities(names: readonly OperationName[], rewrite: (entity: EntityView) => unknown): NonNullable<Fault['output']> {
  return (operation, body) => {
    if (!names.includes(operation)) return body;
    const answer = body as { list?: EntityView[] };
    return answer.list === undefined ? rewrite(body as EntityView) : { ...answer, list: answer.list.map(rewrite) };
  };
}

/** entities.list with the real filters, except that `matches` decides the filter `field` instead. */
function listReplacing<F extends 'plans' | 'search' | 'processors'>(
  field: F,
  matches: (ctx: DomainContext, row: EntityRow, value: NonNullable<ListInput[F]>, input: ListInput) => boolean,
): HandlerOverrides {
  return {
    'entities.list': () => (ctx, input) => {
      const others = listFilter(ctx.store, { ...input, [field]: undefined });
      const value = input[field];
      return listEntitiesMatching(ctx, input, (row) => others(row) && (value === undefined || matches(ctx, row, value as NonNullable<ListInput[F]>, input)));
    },
  };
}

/** Plan matching that looks only at the records `keep` lets through. */
function planMatchingOnly(keep: (record: RecordRow) => boolean): HandlerOverrides {
  return listReplacing('plans', (ctx, row, plans, input) => holdsAnyPlan(recordsForPlanMatching(ctx.store, row, input.statuses).filter(keep), plans));
}

export const entitiesFaults: readonly Fault[] = [
  // ── The Entity resource ──
  {
    rule: 'ENT-LIST-SHAPE',
    breaks: 'entities.list answers without next_cursor',
    output: rewriteOutput('entities.list', ({ list }) => ({ list })),
  },
  {
    rule: 'ENT-BALANCES-MAP',
    breaks: "an entity's balances are keyed by position instead of by feature_id",
    output: rewriteEntities(['entities.list', 'entities.get', 'entities.create'], (entity) => ({
      ...entity,
      balances: Object.fromEntries(Object.values(entity.balances).map((balance, position) => [String(position), balance])),
    })),
  },
  {
    rule: 'ENT-EMBEDDED-SUBSCRIPTION-FIELDS',
    breaks: "a subscription embedded in a listed entity also carries the record's customer_id",
    output: rewriteEntities(['entities.list'], (entity) => ({
      ...entity,
      subscriptions: entity.subscriptions.map((subscription) => ({ ...subscription, customer_id: entity.customer_id })),
    })),
  },
  {
    // The plans stay where billing.attach put them (that is BILL-ATTACH-ENTITY's): only what the entity is shown to hold breaks.
    rule: 'ENT-OWN-PLANS-BALANCES',
    breaks: "an entity's balances leave out what its own plans grant: only the balances inherited from its customer are shown",
    handlers: {
      'entities.list': (real) => (ctx, input) => {
        const page = real(ctx, input);
        return { ...page, list: page.list.map((entity) => withInheritedBalancesOnly(ctx, entity)) };
      },
      'entities.get': (real) => (ctx, input) => withInheritedBalancesOnly(ctx, real(ctx, input)),
      'entities.create': (real) => (ctx, input) => withInheritedBalancesOnly(ctx, real(ctx, input)),
    },
  },

  // ── entities.list: listing and pagination ──
  {
    rule: 'ENT-LIST-ACROSS-ORG',
    breaks: 'entities.list without customer_id lists only the entities of one customer (that of the newest entity)',
    handlers: {
      'entities.list': (real) => (ctx, input) => {
        if (input.customer_id !== undefined) return real(ctx, input);
        const newest = ctx.store.entityIndex.newestFirst().next();
        return newest.done ? real(ctx, input) : real(ctx, { ...input, customer_id: ctx.store.entities.get(newest.value.id)!.customerId });
      },
    },
  },
  {
    rule: 'ENT-CURSOR-WALK',
    breaks: 'each next_cursor points one entity too far, so the first entity of every following page is never listed',
    handlers: {
      'entities.list': (real) => (ctx, input) => {
        const page = real(ctx, { ...input, limit: input.limit + 1 });
        const beyond = page.list[input.limit];
        if (beyond === undefined) return page;
        return { list: page.list.slice(0, input.limit), next_cursor: encodeCursor({ t: beyond.created_at, id: beyond.id }) };
      },
    },
  },
  {
    // An omitted start_cursor still gives the first page, so that every other listing of the suite is unaffected.
    rule: 'ENT-START-CURSOR-DEFAULT',
    breaks: 'an explicit empty start_cursor starts after the newest entity instead of at it',
    input: rewriteBody('entities.list', (body) => (body['start_cursor'] === '' ? { ...body, start_cursor: EXPLICIT_EMPTY_CURSOR } : body)),
    handlers: {
      'entities.list': (real) => (ctx, input) => {
        if (input.start_cursor !== EXPLICIT_EMPTY_CURSOR) return real(ctx, input);
        const first = { ...input, start_cursor: '' };
        const [newest] = real(ctx, { ...first, limit: 1 }).list;
        return newest === undefined ? real(ctx, first) : real(ctx, { ...first, start_cursor: encodeCursor({ t: newest.created_at, id: newest.id }) });
      },
    },
  },
  {
    rule: 'ENT-LIMIT-BOUNDS',
    breaks: 'a limit out of 1..5000, or not an integer, is rounded and clamped into range instead of refused',
    input: rewriteBody('entities.list', (body) => (typeof body['limit'] === 'number' ? { ...body, limit: Math.min(5000, Math.max(1, Math.round(body['limit']))) } : body)),
  },
  {
    rule: 'ENT-LIMIT-DEFAULT',
    breaks: 'without a limit, pages hold 20 entities instead of 50',
    input: rewriteBody('entities.list', (body) => ('limit' in body ? body : { ...body, limit: 20 })),
  },
  {
    rule: 'ENT-LIST-ORDER',
    breaks: 'entities created at the same time are ordered by id ascending instead of descending',
    handlers: {
      'entities.list': (real) => (ctx, input) => {
        const page = real(ctx, input);
        return { ...page, list: [...page.list].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
      },
    },
  },

  // ── entities.list: filters ──
  {
    rule: 'ENT-CUSTOMER-ID-MIN-LENGTH',
    breaks: 'an empty customer_id is ignored instead of refused',
    input: rewriteBody('entities.list', ({ customer_id: customerId, ...body }) => (customerId === '' ? body : { ...body, customer_id: customerId })),
  },
  {
    rule: 'ENT-CUSTOMER-FILTER',
    breaks: 'customer_id is ignored: every entity of the organisation is listed',
    input: rewriteBody('entities.list', ({ customer_id: customerId, ...body }) => (customerId === '' ? { ...body, customer_id: customerId } : body)),
  },
  {
    rule: 'ENT-PLAN-FILTER-INHERITED',
    breaks: "the plan filter looks only at the entity's own plans, not at those it inherits from its customer",
    handlers: planMatchingOnly((record) => record.entityId !== null),
  },
  {
    rule: 'ENT-PLAN-FILTER-DIRECT',
    breaks: "the plan filter looks only at the customer's plans, not at those attached to the entity itself",
    handlers: planMatchingOnly((record) => record.entityId === null),
  },
  {
    rule: 'ENT-PLAN-FILTER-VERSION',
    breaks: "the versions of a plan filter are ignored (once validated): any version of the plan matches",
    handlers: { 'entities.list': (real) => (ctx, input) => real(ctx, { ...input, ...(input.plans && { plans: input.plans.map(({ versions: _ignored, ...plan }) => plan) }) }) },
  },
  {
    rule: 'ENT-PLANS-FILTER-WIRE',
    breaks: 'only the first plan of `plans` is used',
    input: rewriteBody('entities.list', (body) => (Array.isArray(body['plans']) ? { ...body, plans: body['plans'].slice(0, 1) } : body)),
  },
  {
    rule: 'ENT-STATUSES-DEFAULT',
    breaks: 'without statuses, only active plans are hydrated and matched (scheduled ones are left out)',
    input: rewriteBody('entities.list', (body) => ('statuses' in body ? body : { ...body, statuses: ['active'] })),
  },
  {
    // Validated first (values outside the enum are still refused, ENT-STATUSES-ENUM's), then ignored.
    rule: 'ENT-STATUSES-FILTER',
    breaks: 'statuses is ignored: active and scheduled plans are always hydrated and matched',
    handlers: { 'entities.list': (real) => (ctx, input) => real(ctx, { ...input, statuses: ['active', 'scheduled'] }) },
  },
  {
    rule: 'ENT-STATUSES-ENUM',
    breaks: 'statuses other than active and scheduled are dropped instead of refused',
    input: rewriteBody('entities.list', (body) =>
      Array.isArray(body['statuses']) ? { ...body, statuses: body['statuses'].filter((status: unknown) => status === 'active' || status === 'scheduled') } : body,
    ),
  },
  {
    rule: 'ENT-SEARCH',
    breaks: 'search matches the entity id only, not its name',
    handlers: listReplacing('search', (_ctx, row, search) => row.id.toLowerCase().includes(search.trim().toLowerCase())),
  },
  {
    rule: 'ENT-SEARCH-WIRE',
    breaks: 'search is case-sensitive',
    handlers: listReplacing('search', (_ctx, row, search) => row.id.includes(search.trim()) || (row.name ?? '').includes(search.trim())),
  },
  {
    rule: 'ENT-PROCESSOR-FILTER',
    // Not "processors is ignored": a target that ignores the field cannot be told from one that reads it under
    // another name, which the wire-name probe makes SKIP (spec/wire-names.ts); this one reads it, and matches wrongly.
    breaks: 'processors [stripe] also lists the entities of customers without any processor (none counts as Stripe)',
    handlers: listReplacing('processors', (_ctx, _row, processors) => processors.includes('stripe')),
  },
  {
    rule: 'ENT-PROCESSORS-WIRE',
    breaks: 'only the first processor of `processors` is used',
    input: rewriteBody('entities.list', (body) => (Array.isArray(body['processors']) ? { ...body, processors: body['processors'].slice(0, 1) } : body)),
  },

  // ── entities.create, entities.get, entities.delete ──
  {
    rule: 'ENT-CREATE',
    breaks: 'entities.create stores and answers the entity without its name',
    handlers: { 'entities.create': (real) => (ctx, input) => real(ctx, { ...input, name: null }) },
  },
  {
    rule: 'ENT-CREATE-DUPLICATE',
    breaks: 'entities.create with an existing entity_id renames that entity and answers 200',
    handlers: {
      'entities.create': (real) => (ctx, input) => {
        const existing = ctx.store.entities.get(input.entity_id);
        if (existing === undefined) return real(ctx, input);
        existing.name = input.name ?? null;
        return getEntity(ctx, { entity_id: existing.id });
      },
    },
  },
  {
    rule: 'ENT-GET',
    breaks: 'entities.get answers the entity without its plans and balances',
    output: rewriteOutput('entities.get', (entity) => ({ ...entity, subscriptions: [], purchases: [], balances: {} })),
  },
  {
    rule: 'ENT-DETAIL-SHAPE',
    breaks: 'entities.create and entities.get answer the entity without its flags',
    output: rewriteEntities(['entities.create', 'entities.get'], ({ flags: _flags, ...entity }: EntityView & { flags?: unknown }) => entity),
  },
  {
    rule: 'ENT-DELETE',
    breaks: 'entities.delete answers success but keeps the entity',
    handlers: {
      'entities.delete': () => (ctx, input) => {
        getEntity(ctx, input); // an unknown entity is still answered 404
        return { success: true };
      },
    },
  },
  {
    rule: 'ENT-DELETE-SHAPE',
    breaks: 'entities.delete answers {deleted: true} instead of {success: true}',
    output: rewriteOutput('entities.delete', () => ({ deleted: true })),
  },
  {
    rule: 'ERR-ENTITY-NOT-FOUND',
    breaks: 'entities.get and entities.delete answer an unknown entity with 400 invalid_request instead of 404 entity_not_found',
    handlers: { 'entities.get': notFoundAsInvalid, 'entities.delete': notFoundAsInvalid },
  },
];

/** A start_cursor no client sends (outside the cursors' base64url alphabet): marks an explicit "" through validation to the handler. */
const EXPLICIT_EMPTY_CURSOR = '<explicit empty start_cursor>';

/** The entity with the balances of its customer's own (customer-level) active plans only. */
function withInheritedBalancesOnly<E extends { customer_id: string; balances: unknown }>(ctx: DomainContext, entity: E): E {
  return { ...entity, balances: balancesAndFlags(grantsHeldBy(ctx.store, { customerId: entity.customer_id, entityId: null })).balances };
}

function notFoundAsInvalid<N extends 'entities.get' | 'entities.delete'>(real: OperationHandler<N>): OperationHandler<N> {
  return (ctx, input) => {
    try {
      return real(ctx, input);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'entity_not_found') fail('invalid_request', error.message);
      throw error;
    }
  };
}
