/**
 * In a tenant others share (the run's scenarios, other programs of the exploration, other processes),
 * an answer may hold what others made: their customers in a listing across customers, their
 * auto-enable plans on a customer this program created, the balances those plans grant. Only what
 * the program made is compared, so an answer is cut down to it: an array item is kept when every ID
 * the caller chooses that it names (`plan_id`, `customer_id`, `feature_id`, an `id` the caller gave,
 * … as the answer's field tree says, fields.ts and ownership.ts) is the program's, or when it names
 * none; a map keyed by feature ID keeps the program's keys. IDs the target chooses (a record's `id`)
 * decide nothing.
 */
import type { OperationName } from '../../spec/operations.ts';
import { answerShape, type FieldNode } from './fields.ts';
import { ownershipOf } from './ownership.ts';

const NAMING = /^(id|[a-z_]*_id)$/;

/** Maps keyed by feature ID: balances and flags. */
const ID_MAPS = new Set(['balances', 'flags']);

export function ownedOnly(operation: OperationName, body: unknown, owns: (id: string) => boolean): unknown {
  return cut(answerShape(operation), body, owns);
}

function cut(node: FieldNode | undefined, value: unknown, owns: (id: string) => boolean): unknown {
  if (Array.isArray(value)) {
    const element = node?.kind === 'array' ? node.element : undefined;
    return value.filter((item) => !isObj(item) || namesOnlyOwned(element, item, owns)).map((item) => cut(element, item, owns));
  }
  if (!isObj(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => {
      const childNode = node?.kind === 'object' ? node.fields?.[key] : node?.kind === 'map' ? node.element : undefined;
      if (ID_MAPS.has(key) && isObj(child)) return [key, Object.fromEntries(Object.entries(child).filter(([id]) => owns(id)).map(([id, v]) => [id, cut(childNode?.element, v, owns)]))];
      return [key, cut(childNode, child, owns)];
    }),
  );
}

/** Whether every caller-chosen ID the item names is the program's (true too when it names none). */
function namesOnlyOwned(node: FieldNode | undefined, item: Record<string, unknown>, owns: (id: string) => boolean): boolean {
  return Object.entries(item).every(([key, value]) => typeof value !== 'string' || !NAMING.test(key) || !callerChosen(node, key) || owns(value));
}

/** A field of the answer's shape naming an ID the caller chose: compared, and not one the target chooses. */
function callerChosen(node: FieldNode | undefined, key: string): boolean {
  const field = node?.fields?.[key];
  const ownership = field === undefined ? undefined : ownershipOf(field.key);
  return ownership !== undefined && !('notCompared' in ownership) && ownership.targetId !== true;
}

function isObj(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
