/**
 * Where the constraint on one field of a request comes from, read off the OpenAPI export's
 * `x-provenance` marks: `documented` unless the field, or a schema it sits in, was filled in from
 * the reference (or chosen by the project). The suite counts a refused bound or enumeration against
 * the document only when it is documented; the rest is a reference behaviour (SHOULD).
 */
import { operations, type OperationName } from './operations.ts';
import type { RuleId } from './rules/catalogue.ts';
import { buildOpenApiDocument } from './openapi.ts';

type Node = Readonly<Record<string, unknown>>;
type Provenance = 'documented' | 'reference' | 'project';

interface OpenApiDocument {
  readonly paths: Record<string, { readonly post: { readonly requestBody: { readonly content: { readonly 'application/json': { readonly schema: Node } } } } }>;
  readonly components: { readonly schemas: Record<string, Node> };
}

let exported: OpenApiDocument | undefined;

const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The provenance of the constraint on the value at `path` (object keys and array indices) of `operation`'s request body. */
export function constraintProvenance(operation: OperationName, path: readonly (string | number)[]): Provenance {
  exported ??= buildOpenApiDocument() as unknown as OpenApiDocument;
  const doc = exported;
  const deref = (node: unknown): Node | undefined => {
    if (!isObject(node)) return undefined;
    const ref = node['$ref'];
    return typeof ref === 'string' ? { ...doc.components.schemas[ref.slice('#/components/schemas/'.length)], ...node } : node;
  };
  const branchesOf = (node: Node): Node[] => [
    node,
    ...(((node['anyOf'] ?? node['oneOf'] ?? node['allOf']) as unknown[] | undefined) ?? []).flatMap((branch): Node[] => {
      const inner = deref(branch);
      return inner === undefined ? [] : [inner];
    }),
  ];
  let found: Provenance = 'documented';
  const note = (node: Node) => {
    const marked = node['x-provenance'];
    if (marked === 'reference' || marked === 'project') found = marked;
  };
  const root = doc.paths[`/v1/${operation}`]?.post.requestBody.content['application/json'].schema;
  let nodes = root === undefined ? [] : [deref(root)!];
  for (const segment of path) {
    nodes = nodes.flatMap(branchesOf).flatMap((branch): Node[] => {
      note(branch);
      const next = deref(typeof segment === 'number' ? branch['items'] : (branch['properties'] as Node | undefined)?.[segment]);
      return next === undefined ? [] : [next];
    });
  }
  nodes.flatMap(branchesOf).forEach(note);
  return found;
}

/**
 * Bounds and enumerations that have a rule of their own part (LIST-LIMIT-BOUNDS, FEAT-TYPE-ENUM, …):
 * operation → field path (`[]` for an array's items) → that rule. Refusing a value outside them is
 * that rule's statement; the umbrella rules (ERR-OUT-OF-BOUNDS-OR-ENUM, ERR-OUT-OF-BOUNDS-REFERENCE)
 * cover the bounds and enumerations nobody else states.
 */
const OWN_BOUND_RULES: Partial<Record<OperationName, Readonly<Record<string, RuleId>>>> = {
  'subscriptions.list': { limit: 'LIST-LIMIT-BOUNDS', statuses: 'LIST-STATUSES-MIN-ONE', 'statuses[]': 'LIST-STATUSES-ENUM' },
  'purchases.list': { limit: 'LIST-LIMIT-BOUNDS', statuses: 'LIST-STATUSES-MIN-ONE', 'statuses[]': 'LIST-STATUSES-ENUM' },
  'entities.list': { limit: 'ENT-LIMIT-BOUNDS', customer_id: 'ENT-CUSTOMER-ID-MIN-LENGTH', 'statuses[]': 'ENT-STATUSES-ENUM', 'processors[]': 'ENT-PROCESSORS-WIRE' },
  'billing.preview_multi_update': { updates: 'PREV-UPDATES-MIN-ONE', 'updates[].cancel_action': 'PREV-CANCEL-ACTION-ENUM', refund_last_payment: 'PREV-REFUND-MODE-ENUM' },
  'referral_programs.update': {
    referral_program_id: 'REF-PROGRAM-ID-MIN-LENGTH',
    reward_id: 'REF-REWARD-ID-MIN-LENGTH',
    redeem_on: 'REF-REDEEM-ON-ENUM',
    received_by: 'REF-RECEIVED-BY-ENUM',
    max_redemptions: 'REF-MAX-REDEMPTIONS-BOUNDS',
    plan_ids: 'REF-PLAN-IDS-MIN-ONE',
  },
  'plans.create': { plan_id: 'PLAN-ID-PATTERN', name: 'PLAN-NAME-MIN-LENGTH', 'items[].price.billing_method': 'PLAN-BILLING-METHOD-ENUM' },
  'features.create': { type: 'FEAT-TYPE-ENUM', default_markup: 'FEAT-AI-DEFAULT-MARKUP-MIN' },
};

function fieldKey(path: readonly PropertyKey[]): string {
  return path.map((segment) => (typeof segment === 'number' ? '[]' : String(segment))).join('.').replaceAll('.[]', '[]');
}

/** The rule of its own part that states the bound or enumeration on the value at `path` of `operation`'s request; undefined for the umbrella rules'. */
export function ownBoundRule(operation: OperationName, path: readonly PropertyKey[]): RuleId | undefined {
  return OWN_BOUND_RULES[operation]?.[fieldKey(path)];
}

/** A bound or enumeration interface.md states outright: the sentence, and a value within it (what a lenient server would put instead). */
export interface StatedBound {
  readonly quote: string;
  readonly within: unknown;
}

/**
 * The bounds and enumerations interface.md states outright on documented operations that no rule
 * of their own part proves (OWN_BOUND_RULES): operation → field path → the sentence. Only these are
 * ERR-OUT-OF-BOUNDS-OR-ENUM's (MUST); every other bound of the request schemas (the reference's, or
 * one the document leaves open: an empty `entities` on licenses.attach, an empty feature name,
 * `interval_count` below 1, a currency code pattern, an out-of-range plans.get `version`) is
 * ERR-OUT-OF-BOUNDS-REFERENCE's (SHOULD).
 */
const STATED_BOUNDS: Partial<Record<OperationName, Readonly<Record<string, StatedBound>>>> = {
  'plans.create': { 'items[].price.tiers[].to': { quote: 'Item price: … `tiers` array of `{to: number or the string inf, amount: number}`', within: 'inf' } },
};

/** The bound interface.md states on the value at `path` of `operation`'s request and no rule of its own part proves, if any. */
export function statedBound(operation: OperationName, path: readonly PropertyKey[]): StatedBound | undefined {
  return STATED_BOUNDS[operation]?.[fieldKey(path)];
}

/** Whether interface.md states the bound or enumeration at `path` outright: a rule of its own, or a stated bound of a documented field of a documented operation. */
export function boundIsStated(operation: OperationName, path: readonly (string | number)[]): boolean {
  if (ownBoundRule(operation, path) !== undefined) return true;
  return statedBound(operation, path) !== undefined && operations[operation].provenance === 'documented' && constraintProvenance(operation, path) === 'documented';
}
