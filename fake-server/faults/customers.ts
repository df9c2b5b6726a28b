/** Broken variants of the customers rules. */
import { endRecord } from '../domain/billing.ts';
import { getCustomer, getOrCreateCustomer } from '../domain/customers.ts';
import { heldSubscriptionView } from '../domain/listings.ts';
import { deleteThatKeeps, type Fault, rewriteOutput } from './fault.ts';

export const customersFaults: readonly Fault[] = [
  {
    rule: 'CUS-GET-OR-CREATE-NEW',
    breaks: 'a customer created by customers.get_or_create does not get the auto-enable plans',
    handlers: {
      'customers.get_or_create': (real) => (ctx, input) => {
        if (ctx.store.customers.has(input.customer_id)) return real(ctx, input);
        real(ctx, input);
        for (const record of ctx.store.recordsOf(input.customer_id)) endRecord(ctx, record);
        return getCustomer(ctx, { customer_id: input.customer_id });
      },
    },
  },
  {
    rule: 'CUS-GET-OR-CREATE-EXISTING',
    breaks: 'customers.get_or_create of an existing customer overwrites its name and email with the ones sent',
    handlers: {
      'customers.get_or_create': (real) => (ctx, input) => {
        const existing = ctx.store.customers.get(input.customer_id);
        if (existing !== undefined) {
          existing.name = input.name ?? existing.name;
          existing.email = input.email ?? existing.email;
        }
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'CUS-GET',
    breaks: 'customers.get answers the customer without its balances',
    output: rewriteOutput('customers.get', (body) => ({ ...body, balances: {} })),
  },
  {
    rule: 'CUS-GET-HIDES-SEATS',
    breaks: "customers.get shows the license plans its entities hold through seats among the customer's subscriptions",
    handlers: {
      'customers.get': (real) => (ctx, input) => {
        const got = real(ctx, input);
        const seats = ctx.store.recordsOf(input.customer_id).filter((record) => record.licensePoolId !== null && record.status !== 'expired');
        return { ...got, subscriptions: [...got.subscriptions, ...seats.map((record) => heldSubscriptionView(ctx.store, record))] };
      },
    },
  },
  {
    rule: 'CUS-GET-UNKNOWN',
    breaks: 'customers.get of an unknown customer creates it instead of answering 404',
    handlers: { 'customers.get': () => (ctx, input) => getOrCreateCustomer(ctx, { customer_id: input.customer_id }) },
  },
  {
    rule: 'CUS-SHAPE',
    breaks: 'customers.get and customers.get_or_create leave created_at out',
    output: (operation, body) => {
      if (operation !== 'customers.get' && operation !== 'customers.get_or_create') return body;
      const { created_at: _, ...customer } = body as Record<string, unknown>;
      return customer;
    },
  },
  {
    rule: 'CUS-DELETE',
    breaks: 'customers.delete answers success but keeps the customer',
    handlers: deleteThatKeeps('customers.delete', (ctx, input) => getCustomer(ctx, { customer_id: input.customer_id })),
  },
  {
    rule: 'CUS-DELETE-CASCADES',
    breaks: "customers.delete removes the customer but leaves its entities: entities.list still lists them, also once a customer is created again under the ID",
    handlers: {
      'customers.delete': (real) => (ctx, input) => {
        const entities = [...ctx.store.entitiesOf(input.customer_id).newestFirst()].map(({ id }) => ctx.store.entities.get(id)!);
        const answer = real(ctx, input);
        // Left without the balance they had taken a unit of: that went with the customer.
        for (const row of entities) ctx.store.insertEntity({ ...row, allocation: [] });
        return answer;
      },
    },
  },
  {
    rule: 'CUS-DELETE-SHAPE',
    breaks: 'customers.delete answers {deleted: true} instead of {success: true}',
    output: rewriteOutput('customers.delete', () => ({ deleted: true })),
  },
];
