/**
 * Who holds plans and balances: a customer, or one of its entities. An entity sees its own plans and
 * inherits its customer's customer-level plans (interface.md: "including plans inherited from the
 * parent customer").
 */
import type { RecordStatus } from '../../spec/listings.ts';
import type { GrantRow, RecordRow, TenantStore } from '../store/tenant-store.ts';
import { fail } from './context.ts';

export interface Subject {
  readonly customerId: string;
  readonly entityId: string | null;
}

/** Looks up the customer (and entity) a request names, or answers 404. */
export function requireSubject(store: TenantStore, customerId: string, entityId?: string | null): Subject {
  if (!store.customers.has(customerId)) fail('customer_not_found', `Customer ${customerId} not found`);
  if (entityId === undefined || entityId === null) return { customerId, entityId: null };
  const entity = store.entities.get(entityId);
  if (entity === undefined || entity.customerId !== customerId) fail('entity_not_found', `Entity ${entityId} not found`);
  return { customerId, entityId };
}

/** Statuses that grant: an active record (past due or not) grants; scheduled and expired ones do not. */
export const GRANTING_STATUSES: readonly RecordStatus[] = ['active'];

/** The records a subject holds, directly or (for an entity) inherited from its customer, in the given statuses. */
export function recordsHeldBy(store: TenantStore, subject: Subject, statuses: readonly RecordStatus[] = GRANTING_STATUSES): RecordRow[] {
  return store
    .recordsOf(subject.customerId)
    .filter((record) => statuses.includes(record.status))
    .filter((record) => record.entityId === null || record.entityId === subject.entityId);
}

/** The grants of the records a subject holds: its own first, then inherited ones, each in creation order. */
export function grantsHeldBy(store: TenantStore, subject: Subject, statuses: readonly RecordStatus[] = GRANTING_STATUSES): GrantRow[] {
  const held = recordsHeldBy(store, subject, statuses);
  const own = held.filter((record) => record.entityId !== null);
  const inherited = held.filter((record) => record.entityId === null);
  return [...own, ...inherited].flatMap((record) => store.grantsOfRecord(record.id));
}
