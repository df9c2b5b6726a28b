/**
 * Customers: `customers.get_or_create` and `customers.get` (setup). A new customer gets the plans
 * marked auto-enable ("Attached automatically when a customer is created").
 */
import type { z } from 'zod';
import type { Customer } from '../../spec/customers.ts';
import { type CustomerRow, EMPTY_JSON, type TenantStore } from '../store/tenant-store.ts';
import { balancesAndFlags } from './balances.ts';
import { holdPlan } from './billing.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { poolsView } from './licenses.ts';
import { embeddedPurchaseView, heldSubscriptionView } from './listings.ts';
import { requireActivePlan } from './plans.ts';
import { grantsHeldBy } from './subjects.ts';

export function requireCustomer(store: TenantStore, customerId: string): CustomerRow {
  return store.customers.get(customerId) ?? fail('customer_not_found', `Customer ${customerId} not found`);
}

/** Creates a customer and attaches the auto-enable plans (the active version of each, one per group). */
export function createCustomer(ctx: DomainContext, fields: Pick<CustomerRow, 'id'> & Partial<CustomerRow>): CustomerRow {
  const { store } = ctx;
  const row: CustomerRow = {
    name: null,
    email: null,
    fingerprint: null,
    metadata: EMPTY_JSON,
    processorCustomerId: null,
    sendEmailReceipts: false,
    billingControls: EMPTY_JSON,
    ...fields,
    createdAt: ctx.clock.now(),
  };
  store.customers.set(row.id, row);
  for (const planId of store.plans.keys()) {
    const plan = requireActivePlan(store, planId);
    if (plan.auto_enable && !plan.archived) holdPlan(ctx, { customerId: row.id, entityId: null }, plan);
  }
  return row;
}

export function customerView(ctx: DomainContext, row: CustomerRow): z.input<typeof Customer> {
  const { store } = ctx;
  const subject = { customerId: row.id, entityId: null };
  // Like the reference, a customer shows its live plans and those of its entities, but not license seats.
  const records = store.recordsOf(row.id).filter((record) => record.status !== 'expired' && record.licensePoolId === null);
  const { balances, flags } = balancesAndFlags(grantsHeldBy(store, subject));
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    created_at: row.createdAt,
    fingerprint: row.fingerprint,
    stripe_id: row.processorCustomerId,
    env: store.env,
    metadata: row.metadata,
    send_email_receipts: row.sendEmailReceipts,
    billing_controls: row.billingControls,
    subscriptions: records
      .filter((record) => record.kind === 'subscription')
      .map((record) => heldSubscriptionView(store, record)),
    purchases: records.filter((record) => record.kind === 'purchase').map(embeddedPurchaseView),
    licenses: poolsView(store, row.id),
    balances,
    flags,
    config: {},
    ...(row.processorCustomerId !== null && { processors: { stripe: { id: row.processorCustomerId } } }),
  };
}

export function getOrCreateCustomer(ctx: DomainContext, input: InputOf<'customers.get_or_create'>): OutputOf<'customers.get_or_create'> {
  const existing = ctx.store.customers.get(input.customer_id);
  if (existing !== undefined) return customerView(ctx, existing);
  const row = createCustomer(ctx, {
    id: input.customer_id,
    name: input.name ?? null,
    email: input.email ?? null,
    fingerprint: input.fingerprint ?? null,
    metadata: input.metadata ?? EMPTY_JSON,
    sendEmailReceipts: input.send_email_receipts ?? false,
    billingControls: input.billing_controls ?? EMPTY_JSON,
  });
  return customerView(ctx, row);
}

export function getCustomer(ctx: DomainContext, input: InputOf<'customers.get'>): OutputOf<'customers.get'> {
  return customerView(ctx, requireCustomer(ctx.store, input.customer_id));
}

