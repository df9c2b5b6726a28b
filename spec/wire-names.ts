/**
 * Request fields of documented operations whose wire names interface.md does not show ("Gaps in
 * this part": the entity-list filters, the plan-create fields for license links, free trial,
 * config, billing controls and metadata, the preview's refund mode and processor parameters, the
 * check's event properties and lock settings, a feature's credit-schema, invoice-credit and
 * event-name fields; and the features.create table names its markup fields in prose only).
 *
 * The schemas spell each one as the reference does (or, for the invoice-credit flag, as this
 * project chose). A vendor whose implementation spells one differently sets it in its profile
 * (`wireNames`, suites/framework/config.ts), and the suite sends that name instead; before a MUST
 * rule relies on one, a scenario shows that the target reads it (ScenarioContext.requireWireName),
 * and a target that does not is SKIP, not FAIL.
 */
import type { OperationName } from './operations.ts';

export interface WireName {
  /** The documented operation whose request carries the field. */
  readonly operation: OperationName;
  /** How interface.md describes the field. */
  readonly described: string;
  /** The name the schemas (and the reference) use, sent unless the profile says otherwise. */
  readonly reference: string;
}

export const WIRE_NAMES = {
  'entities.list.plan_filter': { operation: 'entities.list', described: 'plan filter', reference: 'plans' },
  'entities.list.search': { operation: 'entities.list', described: 'search', reference: 'search' },
  'entities.list.processor_type': { operation: 'entities.list', described: 'processor type', reference: 'processors' },
  'balances.check.event_properties': { operation: 'balances.check', described: 'event properties', reference: 'properties' },
  'balances.check.lock_settings': { operation: 'balances.check', described: 'lock settings', reference: 'lock' },
  'features.create.credit_schema': { operation: 'features.create', described: 'credit schema', reference: 'credit_schema' },
  'features.create.invoice_credit_flag': { operation: 'features.create', described: 'invoice-credit flag', reference: 'invoice_credits' },
  'features.create.default_markup': { operation: 'features.create', described: 'default markup', reference: 'default_markup' },
  'features.create.provider_markups': { operation: 'features.create', described: 'provider markups', reference: 'provider_markups' },
  'features.create.event_names': { operation: 'features.create', described: 'event names', reference: 'event_names' },
  'plans.create.license_links': { operation: 'plans.create', described: 'license links', reference: 'licenses' },
  'plans.create.free_trial': { operation: 'plans.create', described: 'free trial', reference: 'free_trial' },
  'plans.create.config': { operation: 'plans.create', described: 'config', reference: 'config' },
  'plans.create.billing_controls': { operation: 'plans.create', described: 'billing controls', reference: 'billing_controls' },
  'plans.create.metadata': { operation: 'plans.create', described: 'metadata', reference: 'metadata' },
  'plans.create.create_in_processor': { operation: 'plans.create', described: 'create_in_<processor>', reference: 'create_in_stripe' },
  'billing.preview_multi_update.refund_mode': { operation: 'billing.preview_multi_update', described: 'refund mode', reference: 'refund_last_payment' },
  'billing.preview_multi_update.processor_parameters': { operation: 'billing.preview_multi_update', described: 'processor parameters', reference: 'subscription_params' },
} as const satisfies Record<string, WireName>;

export type WireNameKey = keyof typeof WIRE_NAMES;

export const WIRE_NAME_KEYS = Object.keys(WIRE_NAMES) as [WireNameKey, ...WireNameKey[]];

/** A name a request field can be given: a JSON key of letters, digits and underscores. */
export const WIRE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The request body of `operation` with the fields of `names` (key → name, the profile's) renamed
 * from the reference's name to the configured one; top-level fields only, other fields untouched.
 */
export function renameRequestFields(operation: string, body: unknown, names: Readonly<Partial<Record<WireNameKey, string>>>): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const renames = (Object.entries(names) as [WireNameKey, string][]).filter(([key, name]) => WIRE_NAMES[key].operation === operation && WIRE_NAMES[key].reference !== name);
  if (renames.length === 0) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [key, name] of renames) {
    const reference = WIRE_NAMES[key].reference;
    if (!Object.hasOwn(out, reference)) continue;
    out[name] = out[reference];
    delete out[reference];
  }
  return out;
}
