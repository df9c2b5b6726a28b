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
  // The stored rows' ids, not the request's copies: rows written for the subject then share one string per id.
  const customer = store.customers.get(customerId) ?? fail('customer_not_found', `Customer ${customerId} not found`);
  if (entityId === undefined || entityId === null) return { customerId: customer.id, entityId: null };
  const entity = store.entities.get(entityId);
  if (entity === undefined || entity.customerId !== customerId) fail('entity_not_found', `Entity ${entityId} not found`);
  return { customerId: customer.id, entityId: entity.id };
}

/** Statuses that grant: an active record (past due or not) grants; scheduled and expired ones do not. */
export const GRANTING_STATUSES: readonly RecordStatus[] = ['active'];

/**
 * The records one holder (the customer itself, `entityId` null, or one of its entities) holds
 * directly, in the given statuses, in creation order. Live records come from the holder's own index;
 * only a question about expired records reads the customer's whole history.
 */
export function recordsHeldDirectly(store: TenantStore, customerId: string, entityId: string | null, statuses: readonly RecordStatus[]): RecordRow[] {
  if (!statuses.includes('expired')) return store.liveRecordsOf(customerId, entityId).filter((record) => statuses.includes(record.status));
  return store.recordsOf(customerId).filter((record) => record.entityId === entityId && statuses.includes(record.status));
}

/** The records a subject holds in the given statuses: for an entity, its own first, then those it inherits from its customer; each in creation order. */
export function recordsHeldBy(store: TenantStore, subject: Subject, statuses: readonly RecordStatus[] = GRANTING_STATUSES): RecordRow[] {
  const inherited = recordsHeldDirectly(store, subject.customerId, null, statuses);
  return subject.entityId === null ? inherited : [...recordsHeldDirectly(store, subject.customerId, subject.entityId, statuses), ...inherited];
}

/** The grants of the records a subject holds, in the order of `recordsHeldBy`. */
export function grantsHeldBy(store: TenantStore, subject: Subject, statuses: readonly RecordStatus[] = GRANTING_STATUSES): GrantRow[] {
  return grantsOfRecords(store, recordsHeldBy(store, subject, statuses));
}

export function grantsOfRecords(store: TenantStore, records: readonly RecordRow[]): GrantRow[] {
  return records.flatMap((record) => store.grantsOfRecord(record.id));
}
