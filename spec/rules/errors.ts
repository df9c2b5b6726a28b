/**
 * Rules of the Errors part. The document lists the failing conditions but shows neither the error
 * body nor the codes; those come from the reference (DESIGN decision 5) and are SHOULD.
 * The listed licence and listing conditions are rules of their own parts (LIC-ATTACH-DUPLICATE-IDS,
 * LIC-ATTACH-CAPACITY, LIST-ENTITY-REQUIRES-CUSTOMER).
 */
import type { RuleDef } from './rule.ts';

const ERRORS = 'Errors';

export const errorsRules = [
  {
    id: 'ERR-SUCCESS-200',
    level: 'MUST',
    provenance: 'documented',
    part: 'errors',
    section: ERRORS,
    quote: 'Success is HTTP 200 with the response bodies above.',
    // The documented operations only: the setup operations come from the reference (ERR-SUCCESS-200-SETUP).
    operations: [],
  },
  {
    id: 'ERR-SUCCESS-200-SETUP',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'The setup operations the document does not describe (customers, entities.create, billing.attach, …) answer success with HTTP 200 too.',
    source: 'exchanges/027-customers.get_or_create-new.json',
    operations: [],
  },
  {
    // The umbrella for generated probes; each stated bound or enumeration also has a rule of its own part.
    id: 'ERR-OUT-OF-BOUNDS-OR-ENUM',
    level: 'MUST',
    provenance: 'documented',
    part: 'errors',
    section: ERRORS,
    quote: 'values outside stated bounds or enumerations',
    // Probed only with the bounds and enumerations interface.md states outright, on documented
    // operations (envelope/generated-bodies.ts STATED_BOUNDS); every other bound of the request
    // schemas is ERR-OUT-OF-BOUNDS-REFERENCE's.
    operations: [],
  },
  {
    id: 'ERR-OUT-OF-BOUNDS-REFERENCE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote:
      'Values outside the other bounds and enumerations of the request schemas are refused too: those the reference states on setup operations and on fields the document does not show, and those it sets where the document states none (a minimum length, a minimum item count, a minimum amount or count, a currency code pattern).',
    source: 'exchanges/008-features.create-missing-name.json',
    operations: [],
  },
  {
    id: 'ERR-BODY-SHAPE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'An error response has the JSON body `{message: string, code: string, env: "sandbox" | "live"}`, with a snake_case `code`.',
    source: 'observed-behaviour §1.1',
    operations: [],
  },
  {
    id: 'ERR-VALIDATION-CODE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote:
      'A body that fails validation (a required field missing, a value outside a bound or enumeration) is refused with 400, code `invalid_inputs`, and a `message` that names the offending field.',
    source: 'exchanges/008-features.create-missing-name.json',
    operations: [],
  },
  {
    id: 'ERR-CUSTOMER-NOT-FOUND',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'An unknown `customer_id` is answered with 404 and code `customer_not_found`.',
    source: 'exchanges/098-balances.check-unknown-customer.json',
    operations: [
      'licenses.list',
      'licenses.attach',
      'licenses.release',
      'billing.preview_multi_update',
      'balances.check',
      'billing.attach',
    ],
  },
  {
    id: 'ERR-ENTITY-NOT-FOUND',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'An unknown `entity_id` is answered with 404 and code `entity_not_found`.',
    source: 'exchanges/102-balances.check-unknown-entity.json',
    operations: ['licenses.list', 'licenses.release', 'balances.check', 'billing.preview_multi_update', 'entities.get', 'entities.delete'],
  },
  {
    id: 'ERR-PLAN-NOT-FOUND',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'An unknown `plan_id`, or an unknown `version` of a known plan, is answered with 404 and code `product_not_found`.',
    source: 'exchanges/024-plans.get-unknown-id.json',
    operations: ['plans.get', 'plans.update', 'billing.attach'],
  },
  {
    id: 'ERR-FEATURE-NOT-FOUND',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'An unknown `feature_id` is answered with 404 and code `feature_not_found`.',
    source: 'exchanges/097-balances.check-unknown-feature.json',
    operations: ['balances.check', 'plans.create', 'features.get', 'entities.create'],
  },
  {
    id: 'ERR-PRECEDENCE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote:
      'A license request wrong in two ways is refused for the first in the reference\'s order: a body that fails validation (400 `invalid_inputs`) before an unknown `customer_id` (404 `customer_not_found`), an unknown `customer_id` before the batch\'s own errors (duplicate entity IDs, capacity), and in `licenses.release` an unknown entity (404 `entity_not_found`) before duplicate IDs.',
    source: 'observed-behaviour §3.2',
    operations: ['licenses.attach', 'licenses.release'],
  },
  {
    id: 'ERR-DUPLICATE-ENTITY-CODE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'Duplicate entity IDs within one `licenses.attach` batch are refused with 400 and code `invalid_request`.',
    source: 'exchanges/072-licenses.attach-duplicate-entity-ids.json',
    operations: ['licenses.attach'],
  },
  {
    id: 'ERR-CAPACITY-CODE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'Insufficient license capacity for the new assignments is refused with 400 and code `invalid_request`.',
    source: 'exchanges/066-licenses.attach-over-capacity.json',
    operations: ['licenses.attach'],
  },
  {
    id: 'ERR-INVALID-CURSOR',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'errors',
    section: ERRORS,
    quote: 'A `start_cursor` that is neither empty nor a `next_cursor` the service produced is refused with 400 and code `invalid_cursor`.',
    source: 'exchanges/061-entities.list-bad-cursor.json',
    operations: ['subscriptions.list', 'purchases.list', 'entities.list'],
  },
] as const satisfies readonly RuleDef[];
