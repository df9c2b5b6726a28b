/**
 * The state of one tenant (an organisation in one environment): its tables and the indexes the
 * listings seek through. Storage only: no business rule lives here. Plans, features and referral
 * programs are kept in their wire shape; customer-held state (records, grants, pools, assignments)
 * in rows that the domain modules turn into wire shapes.
 */
import type { Env, JsonObject as Json } from '../../spec/common.ts';
import type { Feature } from '../../spec/features.ts';
import type { RecordStatus } from '../../spec/listings.ts';
import type { ItemPrice, Plan } from '../../spec/plans.ts';
import type { Reward, ReferralProgram } from '../../spec/referrals.ts';
import type { z } from 'zod';
import { DueQueue } from './due-queue.ts';
import { OrderedIndex } from './ordered-index.ts';

export interface CustomerRow {
  readonly id: string;
  name: string | null;
  email: string | null;
  fingerprint: string | null;
  metadata: Json;
  readonly createdAt: number;
  /** The simulated payment-processor customer, created on the first attach (as the reference does). */
  processorCustomerId: string | null;
  sendEmailReceipts: boolean;
  billingControls: Json;
}

export interface EntityRow {
  readonly id: string;
  readonly customerId: string;
  name: string | null;
  readonly featureId: string;
  readonly createdAt: number;
  billingControls: Json;
  /**
   * The unit of its feature the entity holds on its customer's balance, where it was taken from
   * (entities.create takes one; an entity created by licenses.attach takes none, as in the reference).
   */
  allocation: readonly { readonly grantId: string; readonly value: number }[];
}

export type RecordKind = 'subscription' | 'purchase';

/** One plan version held by a customer (or one of its entities): a subscription or a purchase. */
export interface RecordRow {
  readonly id: string;
  readonly kind: RecordKind;
  readonly customerId: string;
  readonly entityId: string | null;
  readonly planId: string;
  readonly planVersion: number;
  status: RecordStatus;
  pastDue: boolean;
  canceledAt: number | null;
  expiresAt: number | null;
  trialEndsAt: number | null;
  startedAt: number;
  currentPeriodStart: number | null;
  currentPeriodEnd: number | null;
  quantity: number;
  readonly createdAt: number;
  /** The simulated processor subscription billing this record; null for free plans. */
  processorSubscriptionId: string | null;
  /** Set on the entity-scoped record that a license assignment created. */
  readonly licensePoolId: string | null;
}

/** What one plan item granted one holder: a metered balance grant, or a boolean flag. */
export interface GrantRow {
  readonly id: string;
  readonly recordId: string;
  readonly customerId: string;
  readonly entityId: string | null;
  readonly featureId: string;
  readonly planId: string;
  readonly isFlag: boolean;
  readonly included: number;
  prepaid: number;
  usage: number;
  readonly unlimited: boolean;
  readonly reset: { readonly interval: string; readonly intervalCount: number } | null;
  nextResetAt: number | null;
  readonly price: ItemPrice | null;
  expiresAt: number | null;
  readonly createdAt: number;
}

export interface PoolRow {
  readonly id: string;
  readonly customerId: string;
  readonly parentRecordId: string;
  readonly parentPlanId: string;
  readonly licensePlanId: string;
  readonly included: number;
  readonly paidQuantity: number;
}

/** A license assignment; its id is the id of the entity-scoped record it created. */
export interface AssignmentRow {
  readonly id: string;
  readonly poolId: string;
  readonly customerId: string;
  readonly entityId: string;
  readonly licensePlanId: string;
  readonly startedAt: number;
  endedAt: number | null;
}

/** A simulated payment-processor subscription: one billing cycle shared by the paid records on it. */
export interface ProcessorSubscriptionRow {
  readonly id: string;
  readonly customerId: string;
  readonly entityId: string | null;
  readonly interval: string;
  readonly intervalCount: number;
  readonly currency: string;
  /** When billing started (the end of the trial, if any); every period ends a whole number of intervals after it. */
  readonly anchor: number;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  readonly recordIds: string[];
}

export interface UsageEventRow {
  readonly id: string;
  readonly customerId: string;
  readonly entityId: string | null;
  readonly featureId: string;
  readonly eventName: string | null;
  readonly value: number;
  readonly properties: Json;
  readonly timestamp: number;
}

/** Units reserved by a check with lock settings, until `balances.finalize` or `expiresAt`. */
export interface LockRow {
  readonly lockId: string;
  readonly customerId: string;
  readonly entityId: string | null;
  /** The feature checked or tracked, and the units asked for: what the usage event records on confirm. */
  readonly featureId: string;
  readonly value: number;
  /** The balance the units were drawn from (the feature's own, or a credit system pricing it), and its units per feature unit. */
  readonly balanceFeatureId: string;
  readonly rate: number;
  readonly deductions: readonly { readonly grantId: string; readonly value: number }[];
  readonly properties: Json;
  readonly expiresAt: number | null;
}

export type FeatureGrantReward = z.infer<typeof Reward>['feature_grant'];

interface RecordIndexes {
  readonly subscription: OrderedIndex;
  readonly purchase: OrderedIndex;
}

function recordIndexes(): RecordIndexes {
  return { subscription: new OrderedIndex(), purchase: new OrderedIndex() };
}

function addToSet<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

export class TenantStore {
  readonly features = new Map<string, Feature>();
  /** Every version of every plan, ascending by version. */
  readonly plans = new Map<string, Plan[]>();
  readonly customers = new Map<string, CustomerRow>();
  readonly entities = new Map<string, EntityRow>();
  readonly records = new Map<string, RecordRow>();
  readonly grants = new Map<string, GrantRow>();
  readonly pools = new Map<string, PoolRow>();
  readonly assignments = new Map<string, AssignmentRow>();
  readonly processorSubscriptions = new Map<string, ProcessorSubscriptionRow>();
  readonly referralPrograms = new Map<string, ReferralProgram>();
  readonly rewards = new Map<string, FeatureGrantReward>();
  readonly events: UsageEventRow[] = [];
  readonly locks = new Map<string, LockRow>();
  readonly due = new DueQueue();

  // Indexes, maintained only through the methods below.
  readonly recordsByKind = recordIndexes();
  readonly #recordsByCustomerKind = new Map<string, RecordIndexes>();
  readonly #recordsByCustomer = new Map<string, Set<string>>();
  readonly #grantsByRecord = new Map<string, string[]>();
  readonly entityIndex = new OrderedIndex();
  readonly #entitiesByCustomer = new Map<string, OrderedIndex>();
  readonly #poolsByCustomer = new Map<string, Set<string>>();
  readonly #activeAssignmentsByPool = new Map<string, Set<string>>();
  readonly #assignmentsByCustomer = new Map<string, Set<string>>();
  readonly #processorSubscriptionsByCustomer = new Map<string, Set<string>>();

  constructor(
    readonly orgId: string,
    readonly env: Env,
  ) {}

  insertEntity(row: EntityRow): void {
    this.entities.set(row.id, row);
    const key = { t: row.createdAt, id: row.id };
    this.entityIndex.insert(key);
    let byCustomer = this.#entitiesByCustomer.get(row.customerId);
    if (!byCustomer) this.#entitiesByCustomer.set(row.customerId, (byCustomer = new OrderedIndex()));
    byCustomer.insert(key);
  }

  removeEntity(row: EntityRow): void {
    this.entities.delete(row.id);
    const key = { t: row.createdAt, id: row.id };
    this.entityIndex.remove(key);
    this.#entitiesByCustomer.get(row.customerId)?.remove(key);
  }

  /** The customer's entities ordered newest first, as an index to page through. */
  entitiesOf(customerId: string): OrderedIndex {
    return this.#entitiesByCustomer.get(customerId) ?? new OrderedIndex();
  }

  insertRecord(row: RecordRow): void {
    this.records.set(row.id, row);
    const key = { t: row.createdAt, id: row.id };
    this.recordsByKind[row.kind].insert(key);
    let byCustomer = this.#recordsByCustomerKind.get(row.customerId);
    if (!byCustomer) this.#recordsByCustomerKind.set(row.customerId, (byCustomer = recordIndexes()));
    byCustomer[row.kind].insert(key);
    addToSet(this.#recordsByCustomer, row.customerId, row.id);
  }

  /** Records of one kind, of one customer when given, as an index to page through. */
  recordIndex(kind: RecordKind, customerId?: string): OrderedIndex {
    if (customerId === undefined) return this.recordsByKind[kind];
    return this.#recordsByCustomerKind.get(customerId)?.[kind] ?? new OrderedIndex();
  }

  /** Every record of a customer (its own and its entities'), in creation order. */
  recordsOf(customerId: string): RecordRow[] {
    return [...(this.#recordsByCustomer.get(customerId) ?? [])].map((id) => this.records.get(id)!);
  }

  insertGrant(row: GrantRow): void {
    this.grants.set(row.id, row);
    const byRecord = this.#grantsByRecord.get(row.recordId);
    if (byRecord) byRecord.push(row.id);
    else this.#grantsByRecord.set(row.recordId, [row.id]);
  }

  grantsOfRecord(recordId: string): GrantRow[] {
    return (this.#grantsByRecord.get(recordId) ?? []).map((id) => this.grants.get(id)!);
  }

  insertPool(row: PoolRow): void {
    this.pools.set(row.id, row);
    addToSet(this.#poolsByCustomer, row.customerId, row.id);
  }

  poolsOf(customerId: string): PoolRow[] {
    return [...(this.#poolsByCustomer.get(customerId) ?? [])].map((id) => this.pools.get(id)!);
  }

  insertProcessorSubscription(row: ProcessorSubscriptionRow): void {
    this.processorSubscriptions.set(row.id, row);
    addToSet(this.#processorSubscriptionsByCustomer, row.customerId, row.id);
  }

  /** The simulated processor subscriptions of a customer and its entities, in creation order. */
  processorSubscriptionsOf(customerId: string): ProcessorSubscriptionRow[] {
    return [...(this.#processorSubscriptionsByCustomer.get(customerId) ?? [])].map((id) => this.processorSubscriptions.get(id)!);
  }

  insertAssignment(row: AssignmentRow): void {
    this.assignments.set(row.id, row);
    addToSet(this.#assignmentsByCustomer, row.customerId, row.id);
    if (row.endedAt === null) addToSet(this.#activeAssignmentsByPool, row.poolId, row.id);
  }

  endAssignment(row: AssignmentRow, at: number): void {
    row.endedAt = at;
    this.#activeAssignmentsByPool.get(row.poolId)?.delete(row.id);
  }

  activeAssignmentsOf(poolId: string): AssignmentRow[] {
    return [...(this.#activeAssignmentsByPool.get(poolId) ?? [])].map((id) => this.assignments.get(id)!);
  }

  assignmentsOf(customerId: string): AssignmentRow[] {
    return [...(this.#assignmentsByCustomer.get(customerId) ?? [])].map((id) => this.assignments.get(id)!);
  }

  /**
   * Removes a customer and every row it owns: its entities, records and their grants, license pools
   * and assignments, processor subscriptions, usage events and locks, and what was due for them.
   */
  removeCustomer(customerId: string): void {
    const gone = new Set<string>();
    for (const row of [...this.entities.values()]) if (row.customerId === customerId) this.removeEntity(row);
    this.#entitiesByCustomer.delete(customerId);
    for (const record of this.recordsOf(customerId)) {
      gone.add(record.id);
      for (const grant of this.grantsOfRecord(record.id)) {
        gone.add(grant.id);
        this.grants.delete(grant.id);
      }
      this.#grantsByRecord.delete(record.id);
      this.recordsByKind[record.kind].remove({ t: record.createdAt, id: record.id });
      this.records.delete(record.id);
    }
    this.#recordsByCustomer.delete(customerId);
    this.#recordsByCustomerKind.delete(customerId);
    for (const pool of this.poolsOf(customerId)) {
      this.pools.delete(pool.id);
      this.#activeAssignmentsByPool.delete(pool.id);
    }
    this.#poolsByCustomer.delete(customerId);
    for (const assignment of this.assignmentsOf(customerId)) this.assignments.delete(assignment.id);
    this.#assignmentsByCustomer.delete(customerId);
    for (const billing of this.processorSubscriptionsOf(customerId)) {
      gone.add(billing.id);
      this.processorSubscriptions.delete(billing.id);
    }
    this.#processorSubscriptionsByCustomer.delete(customerId);
    for (const [lockId, lock] of [...this.locks]) {
      if (lock.customerId !== customerId) continue;
      gone.add(lockId);
      this.locks.delete(lockId);
    }
    this.due.discard(gone);
    let kept = 0;
    for (const event of this.events) if (event.customerId !== customerId) this.events[kept++] = event;
    this.events.length = kept;
    this.customers.delete(customerId);
  }
}
