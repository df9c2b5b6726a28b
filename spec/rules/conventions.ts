/** Rules of the document's conventions: transport, wire casing, units. */
import type { RuleDef } from './rule.ts';

/** The conventions are a labelled list before the first `##` heading (see `splitInterfaceSections`). */
const CONVENTIONS = 'Conventions';

export const conventionsRules = [
  {
    id: 'CONV-POST-JSON',
    level: 'MUST',
    provenance: 'documented',
    part: 'conventions',
    section: CONVENTIONS,
    quote:
      'Every operation is an HTTP `POST` to `{base_url}/v1/<resource>.<action>` with a JSON body (`Content-Type: application/json`) and a JSON response.',
    operations: [],
  },
  {
    id: 'CONV-SNAKE-CASE-REQUEST',
    level: 'MUST',
    provenance: 'documented',
    part: 'conventions',
    section: CONVENTIONS,
    quote: 'Request field names are snake_case on the wire.',
    operations: [],
  },
  {
    id: 'CONV-CAMELCASE-CLIENTS',
    level: 'MUST',
    provenance: 'documented',
    part: 'conventions',
    section: CONVENTIONS,
    quote: 'Client libraries may spell them in camelCase; the wire form is the one given here.',
    operations: [],
    excluded:
      'A permission for client libraries, which never reaches the wire; the wire form is what a server sees and CONV-SNAKE-CASE-REQUEST tests it.',
  },
  {
    id: 'CONV-TIMESTAMPS-MS',
    level: 'MUST',
    provenance: 'documented',
    part: 'conventions',
    section: CONVENTIONS,
    quote: 'Timestamps are Unix time in milliseconds (integers).',
    operations: [],
  },
  {
    id: 'CONV-MONEY-MAJOR-UNITS',
    level: 'MUST',
    provenance: 'documented',
    part: 'conventions',
    section: CONVENTIONS,
    quote: 'Money amounts are in the major unit of the currency.',
    operations: ['plans.create', 'plans.get', 'billing.preview_multi_update'],
  },
  {
    id: 'CONV-RESPONSE-SNAKE-CASE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'conventions',
    section: CONVENTIONS,
    quote:
      'Responses are snake_case on the wire also where the document lists a client library\'s camelCase spelling (plan `add_on`, `auto_enable`, `created_at`, `base_variant_id`, `free_trial`, `display.primary_text`; preview entry `customer_id`, `line_items`); for exactly those fields either spelling is accepted (DESIGN decision 2).',
    source: 'observed-behaviour §7',
    operations: ['plans.create', 'plans.get', 'billing.preview_multi_update'],
  },
  {
    id: 'CONV-CONSISTENT-SPELLING',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'conventions',
    section: CONVENTIONS,
    quote:
      'One answer keeps to one spelling of the fields the document lists in camelCase: all in the snake_case wire form (as the reference answers) or all as documented, never both in one response, nor one key spelled both ways (DESIGN decision 2).',
    source: 'observed-behaviour §7',
    operations: ['plans.create', 'plans.get', 'billing.preview_multi_update'],
  },
  {
    id: 'CONV-RATE-LIMITS-NOT-SHOWN',
    level: 'MUST',
    provenance: 'documented',
    part: 'conventions',
    section: 'Limits',
    quote: 'Rate limits: not shown.',
    operations: [],
    excluded: 'The document states no rate limit, so there is nothing to assert; the suite must not rely on any.',
  },
] as const satisfies readonly RuleDef[];
