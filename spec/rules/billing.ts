/**
 * Rules of the `billing.attach` setup endpoint (from the reference). The documented billing operation,
 * `billing.preview_multi_update`, is the preview part.
 */
import type { RuleDef } from './rule.ts';

const ENDPOINTS = 'Endpoints';

export const billingRules = [
  {
    id: 'BILL-ATTACH-FREE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'billing',
    section: ENDPOINTS,
    quote:
      '`billing.attach` of a free plan takes effect at once: it answers `payment_url: null`, and the customer then holds the plan and its balances.',
    source: 'exchanges/029-billing.attach-free-main-plan.json',
    operations: ['billing.attach', 'customers.get'],
  },
  {
    id: 'BILL-ATTACH-ENTITY',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'billing',
    section: ENDPOINTS,
    quote: '`billing.attach` with `entity_id` attaches the plan to that entity, not to its customer.',
    source: 'exchanges/133-billing.attach-add-on-to-entity.json',
    operations: ['billing.attach', 'entities.get'],
  },
  {
    id: 'BILL-ATTACH-SHAPE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'billing',
    section: ENDPOINTS,
    quote: '`billing.attach` answers `{customer_id, payment_url: string or null}`, with optional `entity_id`, `invoice` and `required_action`.',
    source: 'exchanges/029-billing.attach-free-main-plan.json',
    operations: ['billing.attach'],
  },
] as const satisfies readonly RuleDef[];
