/** Who holds plans and balances: subjects resolved from a request, and the records and grants they hold, on a bare store. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RecordStatus } from '../../spec/listings.ts';
import { type GrantRow, type RecordRow, TenantStore } from '../store/tenant-store.ts';
import { grantsHeldBy, recordsHeldBy, requireSubject } from './subjects.ts';
import { domainErrorCode as codeOf } from './testing.ts';

let store: TenantStore;
let clock = 0;

function customer(id: string): void {
  store.customers.set(id, { id, name: null, email: null, fingerprint: null, metadata: {}, createdAt: ++clock, processorCustomerId: null, sendEmailReceipts: false, billingControls: {} });
}

function entity(id: string, customerId: string): void {
  store.insertEntity({ id, customerId, name: null, featureId: 'seats', createdAt: ++clock, billingControls: {}, allocation: [] });
}

/** A record of plan `planId` held by the customer (or its entity), with one grant of `feature`. */
function hold(id: string, customerId: string, entityId: string | null, status: RecordStatus = 'active'): RecordRow {
  const record: RecordRow = {
    id, kind: 'subscription', customerId, entityId, planId: `plan_${id}`, planVersion: 1, status, pastDue: false, canceledAt: null, expiresAt: null,
    trialEndsAt: null, startedAt: clock, currentPeriodStart: null, currentPeriodEnd: null, quantity: 1, createdAt: ++clock, processorSubscriptionId: null, licensePoolId: null,
  };
  store.insertRecord(record);
  const grant: GrantRow = {
    id: `grant_${id}`, recordId: id, customerId, entityId, featureId: 'feature', planId: record.planId, isFlag: false, included: 1, prepaid: 0, usage: 0,
    unlimited: false, reset: null, nextResetAt: null, price: null, expiresAt: null, createdAt: clock,
  };
  store.insertGrant(grant);
  return record;
}

beforeEach(() => {
  store = new TenantStore('org', 'sandbox');
  customer('cus');
  customer('other');
  entity('e1', 'cus');
  entity('e2', 'cus');
  entity('theirs', 'other');
});

describe('requireSubject', () => {
  it('[CHECK-ENTITY-SCOPED] names the customer, or one of its own entities', () => {
    expect(requireSubject(store, 'cus')).toEqual({ customerId: 'cus', entityId: null });
    expect(requireSubject(store, 'cus', null)).toEqual({ customerId: 'cus', entityId: null });
    expect(requireSubject(store, 'cus', 'e1')).toEqual({ customerId: 'cus', entityId: 'e1' });
  });

  it('answers customer_not_found and entity_not_found, also for an entity of another customer', () => {
    expect(codeOf(() => requireSubject(store, 'nobody'))).toBe('customer_not_found');
    expect(codeOf(() => requireSubject(store, 'nobody', 'e1'))).toBe('customer_not_found');
    expect(codeOf(() => requireSubject(store, 'cus', 'nothing'))).toBe('entity_not_found');
    expect(codeOf(() => requireSubject(store, 'cus', 'theirs'))).toBe('entity_not_found');
  });
});

describe('recordsHeldBy and grantsHeldBy', () => {
  beforeEach(() => {
    hold('customer_first', 'cus', null);
    hold('e1_plan', 'cus', 'e1');
    hold('e2_plan', 'cus', 'e2');
    hold('customer_second', 'cus', null);
    hold('scheduled', 'cus', null, 'scheduled');
    hold('expired', 'cus', 'e1', 'expired');
    hold('foreign', 'other', null);
  });

  it('[CHECK-ENTITY-SCOPED] a customer holds only its customer-level records; an entity its own first, then those, never a sibling\'s', () => {
    expect(recordsHeldBy(store, { customerId: 'cus', entityId: null }).map((r) => r.id)).toEqual(['customer_first', 'customer_second']);
    expect(recordsHeldBy(store, { customerId: 'cus', entityId: 'e1' }).map((r) => r.id)).toEqual(['e1_plan', 'customer_first', 'customer_second']);
    expect(recordsHeldBy(store, { customerId: 'cus', entityId: 'e2' }).map((r) => r.id)).toEqual(['e2_plan', 'customer_first', 'customer_second']);
  });

  it('only active records grant by default; other statuses when asked', () => {
    expect(recordsHeldBy(store, { customerId: 'cus', entityId: 'e1' }, ['scheduled', 'expired']).map((r) => r.id)).toEqual(['expired', 'scheduled']);
    expect(grantsHeldBy(store, { customerId: 'cus', entityId: null }, ['active', 'scheduled']).map((g) => g.recordId)).toEqual(['customer_first', 'customer_second', 'scheduled']);
  });

  it('a record that expires leaves what its holder holds', () => {
    store.expireRecord(store.records.get('e1_plan')!);
    store.expireRecord(store.records.get('customer_first')!);
    expect(recordsHeldBy(store, { customerId: 'cus', entityId: 'e1' }, ['active', 'scheduled']).map((r) => r.id)).toEqual(['customer_second', 'scheduled']);
    expect(recordsHeldBy(store, { customerId: 'cus', entityId: 'e1' }, ['expired']).map((r) => r.id)).toEqual(['e1_plan', 'expired', 'customer_first']);
  });

  it('an entity\'s own grants come before the inherited ones, each in creation order', () => {
    expect(grantsHeldBy(store, { customerId: 'cus', entityId: 'e1' }).map((g) => g.id)).toEqual(['grant_e1_plan', 'grant_customer_first', 'grant_customer_second']);
  });
});
