/**
 * Which rule owns a difference in the rows of a filtered listing. A row the target lists that one of
 * the request's filters excludes is that filter's failure, whatever wrote it; so the filters of the
 * documented listings are stated here once, each with its rule and the test a row must pass.
 */
import type { OperationName } from '../../spec/operations.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';

type Row = Readonly<Record<string, unknown>>;
type Request = Readonly<Record<string, unknown>>;

interface Filter {
  /** The request field (absent: the filter applies when the field is left out, its default). */
  readonly field: string;
  readonly rule: RuleId;
  /** Whether the row passes the filter the request sets. */
  readonly passes: (row: Row, request: Request) => boolean;
}

const RECORD_STATUSES = (row: Row, statuses: readonly string[]) =>
  statuses.some((status) => (status === 'past_due' ? row['status'] === 'active' && row['past_due'] === true : row['status'] === status));

const RECORD_FILTERS: readonly Filter[] = [
  { field: 'customer_id', rule: 'LIST-CUSTOMER-FILTER', passes: (row, request) => row['customer_id'] === request['customer_id'] },
  { field: 'entity_id', rule: 'LIST-ENTITY-FILTER', passes: (row, request) => row['entity_id'] === request['entity_id'] },
  { field: 'plan_id', rule: 'LIST-PLAN-FILTER', passes: (row, request) => row['plan_id'] === request['plan_id'] },
  {
    field: 'statuses',
    rule: 'LIST-STATUSES-FILTER',
    passes: (row, request) => RECORD_STATUSES(row, (request['statuses'] as string[] | undefined) ?? ['active', 'scheduled']),
  },
];

/** The statuses filter, refined: past_due matching, the default set, expired only when asked for. */
function statusesRule(row: Row, request: Request): RuleId {
  const statuses = request['statuses'] as string[] | undefined;
  if (statuses === undefined) return row['status'] === 'expired' ? 'STATE-EXPIRED-ONLY-ON-REQUEST' : 'STATE-DEFAULT-ACTIVE-SCHEDULED';
  if (statuses.includes('past_due') || row['past_due'] === true) return 'LIST-STATUSES-PAST-DUE';
  return 'LIST-STATUSES-FILTER';
}

const holds = (row: Row, planId: unknown, versions: readonly number[] | undefined) =>
  ((row['subscriptions'] as Row[] | undefined) ?? []).some((s) => s['plan_id'] === planId) && versions === undefined;

const ENTITY_FILTERS: readonly Filter[] = [
  { field: 'customer_id', rule: 'ENT-CUSTOMER-FILTER', passes: (row, request) => row['customer_id'] === request['customer_id'] },
  {
    field: 'search',
    rule: 'ENT-SEARCH',
    passes: (row, request) => {
      const needle = String(request['search']).trim().toLowerCase();
      return needle === '' || String(row['id']).toLowerCase().includes(needle) || String(row['name'] ?? '').toLowerCase().includes(needle);
    },
  },
  {
    field: 'plans',
    rule: 'ENT-PLAN-FILTER-INHERITED',
    // Only the plans an entity shows among its subscriptions can be judged from the row: a listed entity holding none of them.
    passes: (row, request) => ((request['plans'] as { id: string; versions?: number[] }[]) ?? []).some((plan) => holds(row, plan.id, undefined) || plan.versions !== undefined),
  },
];

const FILTERS: Partial<Record<OperationName, readonly Filter[]>> = {
  'subscriptions.list': RECORD_FILTERS,
  'purchases.list': RECORD_FILTERS,
  'entities.list': ENTITY_FILTERS,
};

/**
 * The rule of the first filter of the request that a row the target lists (and the model does not)
 * fails; undefined when no filter excludes any of them.
 */
export function filterRule(operation: OperationName, request: Request, extra: readonly unknown[]): RuleId | undefined {
  for (const filter of FILTERS[operation] ?? []) {
    if (filter.field !== 'statuses' && request[filter.field] === undefined) continue;
    const excluded = extra.find((row) => typeof row === 'object' && row !== null && !filter.passes(row as Row, request));
    if (excluded === undefined) continue;
    return filter.field === 'statuses' ? statusesRule(excluded as Row, request) : filter.rule;
  }
  return undefined;
}
