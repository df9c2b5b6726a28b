/**
 * In a tenant other runs share, an answer may hold what others made (their customers in a listing
 * across customers, their auto-enable plans on a new customer). Only what this run made is compared:
 * array items naming an ID the caller chooses (`id`, `plan_id`, `customer_id`, `feature_id`, …) are
 * kept when one of those IDs is the run's, and map entries keyed by an ID when the key is.
 */
const NAMING = /^(id|[a-z_]*_id)$/;

export function ownedOnly(body: unknown, owns: (id: string) => boolean): unknown {
  if (Array.isArray(body)) {
    return body.filter((item) => !isObj(item) || namesOwned(item, owns) !== false).map((item) => ownedOnly(item, owns));
  }
  if (!isObj(body)) return body;
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, isIdMap(key) && isObj(value) ? keepOwnedKeys(value, owns) : ownedOnly(value, owns)]));
}

function isObj(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an item names one of the run's IDs (true), only others' (false), or none (undefined: kept). */
function namesOwned(item: Record<string, unknown>, owns: (id: string) => boolean): boolean | undefined {
  const ids = Object.entries(item).filter(([key, value]) => NAMING.test(key) && typeof value === 'string').map(([, value]) => value as string);
  return ids.length === 0 ? undefined : ids.some(owns);
}

/** Maps keyed by feature ID: balances and flags. */
function isIdMap(key: string): boolean {
  return key === 'balances' || key === 'flags';
}

function keepOwnedKeys(map: Record<string, unknown>, owns: (id: string) => boolean): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map).filter(([key]) => owns(key)).map(([key, value]) => [key, ownedOnly(value, owns)]));
}
