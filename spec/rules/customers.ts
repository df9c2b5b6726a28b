/** Rules of the customer setup endpoints, which the interface does not document (all from the reference). */
import type { RuleDef } from './rule.ts';

const ENDPOINTS = 'Endpoints';

export const customersRules = [
  {
    id: 'CUS-GET-OR-CREATE-NEW',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'customers',
    section: ENDPOINTS,
    quote: '`customers.get_or_create` with a new `customer_id` creates the customer, attaching its `auto_enable` plans, and returns it.',
    source: 'exchanges/027-customers.get_or_create-new.json',
    operations: ['customers.get_or_create'],
  },
  {
    id: 'CUS-GET-OR-CREATE-EXISTING',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'customers',
    section: ENDPOINTS,
    quote: '`customers.get_or_create` with an existing `customer_id` returns that customer unchanged, ignoring the other fields sent.',
    source: 'exchanges/028-customers.get_or_create-existing.json',
    operations: ['customers.get_or_create'],
  },
  {
    id: 'CUS-GET',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'customers',
    section: ENDPOINTS,
    quote: "`customers.get` returns the customer with its subscriptions, purchases and balances.",
    source: 'exchanges/031-customers.get-with-plans.json',
    operations: ['customers.get'],
  },
  {
    id: 'CUS-GET-HIDES-SEATS',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'customers',
    section: ENDPOINTS,
    quote: "`customers.get` never shows a license plan that the customer's entities hold through seats among the customer's subscriptions.",
    source: 'observed-behaviour §5',
    operations: ['customers.get'],
  },
  {
    id: 'CUS-GET-UNKNOWN',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'customers',
    section: ENDPOINTS,
    quote: '`customers.get` of an unknown `customer_id` is answered with 404 `customer_not_found`.',
    source: 'observed-behaviour §4',
    operations: ['customers.get'],
  },
  {
    id: 'CUS-SHAPE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'customers',
    section: ENDPOINTS,
    quote:
      '`customers.get_or_create` and `customers.get` answer a customer `{id, name, email, created_at, env, metadata, subscriptions, purchases, balances, flags, …}`.',
    source: 'exchanges/027-customers.get_or_create-new.json',
    operations: ['customers.get_or_create', 'customers.get'],
  },
] as const satisfies readonly RuleDef[];
