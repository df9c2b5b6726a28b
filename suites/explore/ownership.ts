/**
 * Which rule of the catalogue owns each field of every answer: a difference between the target and
 * the reference model there FAILs that rule, at its level. The fields themselves come from the
 * response schemas (fields.ts); this module only says, per resource field, whose statement decides
 * its value, so the map is written once per resource (a Balance is owned the same way in a check, an
 * entity or a customer), never per operation. `ownership.test.ts` keeps it complete: every node the
 * projection compares resolves to a rule of the catalogue, or is listed as not decided by the document
 * with the reason.
 *
 * Three refinements sharpen an owner, each stated once:
 * - `refine`: the situation the model's answer shows picks among the field's rules (`allowed` is
 *   CHECK-ALLOWED-UNLIMITED's when the balance is unlimited, CHECK-ALLOWED-BELOW-REQUIRED's when the
 *   model denies);
 * - `aspect`: a field that holds state (a balance's usage, a pool's seats, a record's status) is owned
 *   by the rule of the last write that changed that state (WRITER_RULES), since that write is what
 *   the document says the value must reflect;
 * - level: a field of a reference-only answer (customers.get, entities.get, balances.track, …) or
 *   one whose shape only the reference shows is compared for a SHOULD rule only; a MUST owner there
 *   gives way to the operation's own reference rule (OPERATION_RULES).
 */
import type { OperationName } from '../../spec/operations.ts';
import { ruleById, type RuleId } from '../../spec/rules/catalogue.ts';

/** What kind of state a field reflects, for the writer refinement. */
export type Aspect = 'balance' | 'record' | 'pool' | 'entity' | 'plan' | 'program' | 'event';

export interface OwnerContext {
  readonly operation: OperationName;
  /** The request as the model received it (defaults not applied). */
  readonly request: Readonly<Record<string, unknown>>;
  /** The values at the node. */
  readonly model: unknown;
  readonly target: unknown;
  /** The objects enclosing the node (the Balance of a `usage`, the result of an `allowed`). */
  readonly modelParent: Readonly<Record<string, unknown>> | undefined;
  readonly targetParent: Readonly<Record<string, unknown>> | undefined;
}

export interface FieldOwner {
  readonly rule: RuleId;
  /** A more precise rule for the situation at hand; undefined keeps `rule`. */
  readonly refine?: (context: OwnerContext) => RuleId | undefined;
  /** Every rule `refine` may return (the completeness test checks them). */
  readonly refines?: readonly RuleId[];
  /** State the field reflects: the last write's rule owns it (WRITER_RULES). */
  readonly aspect?: Aspect;
  /**
   * The node's schema is the reference's, but the document shows the value itself (a breakdown
   * entry's `reset`, a price's `interval`, whose values the reference only extends): a MUST owner
   * may judge it. Without it, a reference-only node fails only SHOULD rules.
   */
  readonly documentedValue?: true;
  /** Whether the value is null is the reference's: a difference in null-ness is this (SHOULD) rule's. */
  readonly nullRule?: RuleId;
  /** An ID the target chooses (a record's id): compared through the program's ID map, never by value. */
  readonly targetId?: true;
  /** An object the document says carries its fields "only": a key beyond them is a difference. */
  readonly closed?: true;
  /** A list whose order the reference shows (SHOULD): the same rows in another order fail this rule. */
  readonly order?: RuleId;
}

export interface NotCompared {
  /** Why the document does not decide this value. */
  readonly notCompared: string;
}

export type Ownership = FieldOwner | NotCompared;

const owner = (rule: RuleId, more: Omit<FieldOwner, 'rule'> = {}): FieldOwner => ({ rule, ...more });
const skip = (why: string): NotCompared => ({ notCompared: why });

const WORDING = 'its wording is the implementation’s: the document gives the field, not its text';
const UNSTATED = 'a field only the reference shows, which no rule of the catalogue states yet';

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** A value the target reports a thousand (or a hundred) times too large or small: a unit, not a computation. */
function scaledBy(factor: number, { model, target }: OwnerContext): boolean {
  const m = num(model);
  const t = num(target);
  if (m === undefined || t === undefined || m === 0) return false;
  return [factor, 1 / factor].some((f) => Math.abs(t - m * f) <= Math.abs(m * f) * 1e-6 + 1);
}

const timestampUnit = (context: OwnerContext): RuleId | undefined => (scaledBy(1000, context) ? 'CONV-TIMESTAMPS-MS' : undefined);
const moneyUnit = (context: OwnerContext): RuleId | undefined => (scaledBy(100, context) ? 'CONV-MONEY-MAJOR-UNITS' : undefined);

/** `allowed` of a check, by what the model's answer shows about the situation. */
function allowedRule({ model, modelParent, request }: OwnerContext): RuleId {
  const balance = modelParent?.['balance'] as Record<string, unknown> | null | undefined;
  if (modelParent?.['flag'] !== undefined && modelParent['flag'] !== null) return 'CHECK-ALLOWED-BOOLEAN-IN-PLAN';
  if (balance === null || balance === undefined) return model === false ? 'CHECK-DENIED-OTHERWISE' : 'CHECK-ALLOWED-BOOLEAN-IN-PLAN';
  if (balance['unlimited'] === true) return 'CHECK-ALLOWED-UNLIMITED';
  const required = num(modelParent?.['required_balance']) ?? num(request['required_balance']) ?? 1;
  const remaining = num(balance['remaining']) ?? 0;
  if (balance['overage_allowed'] === true && remaining < required) return 'CHECK-OVERAGE-PURCHASE-CAP';
  if (request['required_balance'] === undefined) return 'CHECK-REQUIRED-BALANCE-DEFAULT';
  return model === true ? 'CHECK-ALLOWED-SUFFICIENT' : 'CHECK-ALLOWED-BELOW-REQUIRED';
}

/** A balance whose own numbers do not add up is the arithmetic rule's, whatever wrote it. */
function arithmeticRule({ targetParent }: OwnerContext): RuleId | undefined {
  const granted = num(targetParent?.['granted']);
  const usage = num(targetParent?.['usage']);
  const remaining = num(targetParent?.['remaining']);
  if (granted === undefined || usage === undefined || remaining === undefined || targetParent?.['unlimited'] === true) return undefined;
  return Math.abs(Math.max(0, granted - usage) - remaining) > 1e-9 * Math.max(1, granted) ? 'CHECK-BALANCE-ARITHMETIC' : undefined;
}

/**
 * One counter of a pool differing while the others agree is that counter's own rule (how it is
 * counted); several differing together is the state the last write left (the writer's rule).
 */
function alone(rule: RuleId, field: string): (context: OwnerContext) => RuleId | undefined {
  const counters = ['granted', 'usage', 'remaining', 'paid_quantity'].filter((name) => name !== field);
  return ({ modelParent, targetParent }) => (counters.every((name) => modelParent?.[name] === targetParent?.[name]) ? rule : undefined);
}

/** A referral program field after an update: an omitted field keeps its value, null removes it. */
function referralField(field: string): FieldOwner {
  const refine = ({ operation, request }: OwnerContext): RuleId | undefined => {
    if (operation !== 'referral_programs.update' && operation !== 'referral_programs.get') return undefined;
    if (!(field in request) && operation === 'referral_programs.update') return 'REF-PARTIAL-UPDATE';
    return request[field] === null ? 'REF-UPDATE-NULL-REMOVES' : undefined;
  };
  return owner('REF-UPDATE-SETS-FIELDS', { aspect: 'program', refine, refines: ['REF-PARTIAL-UPDATE', 'REF-UPDATE-NULL-REMOVES'] });
}

const RECORD_FIELDS = (membership: RuleId, purchase = false): Record<string, Ownership> => {
  const fields: Record<string, Ownership> = {
    plan_id: owner(membership, { aspect: 'record' }),
  auto_enable: owner('LIST-SUB-PLAN-FLAGS'),
  add_on: owner('LIST-SUB-PLAN-FLAGS'),
  status: owner(membership, { aspect: 'record', refine: ({ modelParent }) => (modelParent?.['past_due'] === true ? 'STATE-PAST-DUE-READS-ACTIVE' : undefined), refines: ['STATE-PAST-DUE-READS-ACTIVE'] }),
  past_due: owner('STATE-PAST-DUE-READS-ACTIVE', { aspect: 'record' }),
  canceled_at: owner(membership, { aspect: 'record', refine: timestampUnit, refines: ['CONV-TIMESTAMPS-MS'] }),
  expires_at: owner(membership, { aspect: 'record', refine: timestampUnit, refines: ['CONV-TIMESTAMPS-MS'] }),
  trial_ends_at: owner('PLAN-FREE-TRIAL-APPLIES', { aspect: 'record', nullRule: 'LIST-TRIAL-ENDS-WHILE-TRIALING' }),
  started_at: owner('CONV-TIMESTAMPS-MS'),
  current_period_start: owner('LIST-CURRENT-PERIOD', { aspect: 'record' }),
  current_period_end: owner('LIST-CURRENT-PERIOD', { aspect: 'record' }),
  quantity: owner(membership),
  id: owner(membership, { targetId: true }),
  scope: owner('LIST-RECORD-SCOPE'),
  customer_id: owner('LIST-RECORD-OWNER'),
  entity_id: owner('LIST-RECORD-OWNER'),
  created_at: owner('CONV-TIMESTAMPS-MS'),
  };
  // A purchase record has no plan flags, trial, period or past-due flag of its own.
  const subscriptionOnly = ['auto_enable', 'add_on', 'past_due', 'canceled_at', 'trial_ends_at', 'current_period_start', 'current_period_end'];
  return purchase ? Object.fromEntries(Object.entries(fields).filter(([name]) => !subscriptionOnly.includes(name))) : fields;
};

const BALANCE_STATE = { aspect: 'balance' as const, refine: arithmeticRule, refines: ['CHECK-BALANCE-ARITHMETIC'] as const };

/** Resource fields → owner. `<Component>.*` is the owner of every node of the component not listed. */
export const FIELD_OWNERS: Readonly<Record<string, Ownership>> = {
  // ── License pools ──
  'LicensesListResponse.list': owner('LIC-LIST-CUSTOMER-POOLS', { aspect: 'pool', order: 'LIC-LIST-ORDER' }),
  'LicensePool.license_plan_id': owner('LIC-LIST-CUSTOMER-POOLS'),
  'LicensePool.parent_plan_id': owner('LIC-LIST-CUSTOMER-POOLS'),
  'LicensePool.license_plan_name': owner('LIC-LIST-CUSTOMER-POOLS'),
  'LicensePool.granted': owner('LIC-POOL-GRANTED', { aspect: 'pool', refine: alone('LIC-POOL-GRANTED', 'granted'), refines: ['LIC-POOL-GRANTED'] }),
  'LicensePool.usage': owner('LIC-POOL-USAGE', { aspect: 'pool', refine: alone('LIC-POOL-USAGE', 'usage'), refines: ['LIC-POOL-USAGE'] }),
  'LicensePool.remaining': owner('LIC-POOL-REMAINING', { aspect: 'pool', refine: alone('LIC-POOL-REMAINING', 'remaining'), refines: ['LIC-POOL-REMAINING'] }),
  'LicensePool.paid_quantity': owner('LIC-POOL-PAID-QUANTITY', { aspect: 'pool', refine: alone('LIC-POOL-PAID-QUANTITY', 'paid_quantity'), refines: ['LIC-POOL-PAID-QUANTITY'] }),
  'Success.success': owner('ERR-SUCCESS-200'),

  // ── Subscription and purchase records ──
  'SubscriptionsListResponse.list': owner('LIST-SUBSCRIPTIONS-RECURRING', { aspect: 'record' }),
  'SubscriptionsListResponse.has_more': owner('LIST-NEXT-CURSOR-NULL'),
  'SubscriptionsListResponse.next_cursor': owner('LIST-NEXT-CURSOR-NULL'),
  ...prefixed('SubscriptionRecord', RECORD_FIELDS('LIST-SUBSCRIPTIONS-RECURRING')),
  'PurchasesListResponse.list': owner('LIST-PURCHASES-ONE-OFF', { aspect: 'record' }),
  'PurchasesListResponse.has_more': owner('LIST-NEXT-CURSOR-NULL'),
  'PurchasesListResponse.next_cursor': owner('LIST-NEXT-CURSOR-NULL'),
  ...prefixed('PurchaseRecord', RECORD_FIELDS('LIST-PURCHASES-ONE-OFF', true)),

  // ── Entities ──
  'EntitiesListResponse.list': owner('ENT-LIST-ACROSS-ORG', { aspect: 'entity', order: 'ENT-LIST-ORDER' }),
  'EntitiesListResponse.next_cursor': owner('ENT-CURSOR-WALK'),
  'Entity.id': owner('ENT-LIST-ACROSS-ORG'),
  'Entity.name': owner('ENT-CREATE'),
  'Entity.customer_id': owner('ENT-LIST-ACROSS-ORG'),
  'Entity.feature_id': owner('ENT-LIST-ACROSS-ORG'),
  'Entity.created_at': owner('CONV-TIMESTAMPS-MS'),
  'Entity.env': owner('ENT-LIST-ACROSS-ORG'),
  'Entity.subscriptions': owner('ENT-OWN-PLANS-BALANCES', { aspect: 'record' }),
  // "A subscription embedded in an entity carries … only."
  'Entity.subscriptions[]': owner('ENT-EMBEDDED-SUBSCRIPTION-FIELDS', { closed: true }),
  'Entity.purchases': owner('ENT-OWN-PLANS-BALANCES', { aspect: 'record' }),
  'Entity.purchases[].plan_id': owner('BILL-ATTACH-ENTITY'),
  'Entity.purchases[].expires_at': owner('BILL-ATTACH-ENTITY'),
  'Entity.purchases[].started_at': owner('BILL-ATTACH-ENTITY'),
  'Entity.purchases[].quantity': owner('BILL-ATTACH-ENTITY'),
  'Entity.purchases[].scope': owner('BILL-ATTACH-ENTITY'),
  'Entity.balances': owner('ENT-BALANCES-MAP', { aspect: 'balance' }),
  'Entity.invoices': skip('interface.md: "Invoice record fields: not shown" (ENT-INVOICE-FIELDS is excluded), and the reference never returns them'),
  'Entity.invoices[]': skip('interface.md: "Invoice record fields: not shown"'),
  'EmbeddedSubscription.*': owner('ENT-EMBEDDED-SUBSCRIPTION-FIELDS', { aspect: 'record' }),
  'EmbeddedSubscription.plan_id': owner('ENT-OWN-PLANS-BALANCES', { aspect: 'record' }),
  'EmbeddedSubscription.status': owner('ENT-EMBEDDED-SUBSCRIPTION-FIELDS', {
    aspect: 'record',
    refine: ({ modelParent }) => (modelParent?.['past_due'] === true ? 'STATE-PAST-DUE-READS-ACTIVE' : undefined),
    refines: ['STATE-PAST-DUE-READS-ACTIVE'],
  }),
  'EmbeddedSubscription.past_due': owner('STATE-PAST-DUE-READS-ACTIVE', { aspect: 'record' }),
  'EmbeddedSubscription.trial_ends_at': owner('PLAN-FREE-TRIAL-APPLIES', { aspect: 'record', nullRule: 'LIST-TRIAL-ENDS-WHILE-TRIALING' }),
  'EmbeddedSubscription.current_period_start': owner('LIST-CURRENT-PERIOD', { aspect: 'record' }),
  'EmbeddedSubscription.current_period_end': owner('LIST-CURRENT-PERIOD', { aspect: 'record' }),

  // ── Balances ──
  'Balance.feature_id': owner('CHECK-BALANCES-MAP'),
  'Balance.granted': owner('CHECK-BREAKDOWN-PER-SOURCE', BALANCE_STATE),
  'Balance.remaining': owner('CHECK-ALLOWED-SUFFICIENT', BALANCE_STATE),
  'Balance.usage': owner('CHECK-ALLOWED-SUFFICIENT', BALANCE_STATE),
  'Balance.unlimited': owner('CHECK-BALANCE-FLAGS'),
  'Balance.overage_allowed': owner('CHECK-BALANCE-FLAGS'),
  'Balance.max_purchase': owner('CHECK-BALANCE-FLAGS'),
  'Balance.next_reset_at': owner('PLAN-CONSUMABLE-RESET', { aspect: 'balance', documentedValue: true, nullRule: 'CHECK-BALANCE-FLAGS' }),
  'Balance.breakdown': owner('CHECK-BREAKDOWN-PER-SOURCE', { aspect: 'balance' }),
  'BalanceBreakdownEntry.id': owner('CHECK-BREAKDOWN-PER-SOURCE', { targetId: true }),
  'BalanceBreakdownEntry.plan_id': owner('CHECK-BREAKDOWN-PER-SOURCE'),
  'BalanceBreakdownEntry.included_grant': owner('CHECK-BREAKDOWN-PER-SOURCE', { aspect: 'balance' }),
  'BalanceBreakdownEntry.prepaid_grant': owner('PLAN-PREPAID-UPFRONT', { aspect: 'balance' }),
  'BalanceBreakdownEntry.remaining': owner('CHECK-BREAKDOWN-PER-SOURCE', { aspect: 'balance' }),
  'BalanceBreakdownEntry.usage': owner('CHECK-BREAKDOWN-PER-SOURCE', { aspect: 'balance' }),
  'BalanceBreakdownEntry.unlimited': owner('CHECK-BALANCE-FLAGS'),
  'BalanceBreakdownEntry.reset': owner('CHECK-BREAKDOWN-RESET', { documentedValue: true, nullRule: 'CHECK-BALANCE-FLAGS' }),
  'BalanceBreakdownEntry.reset.interval': owner('CHECK-BREAKDOWN-RESET', { documentedValue: true }),
  'BalanceBreakdownEntry.reset.interval_count': skip(UNSTATED),
  'BalanceBreakdownEntry.reset.resets_at': owner('CHECK-BREAKDOWN-RESET', { aspect: 'balance', documentedValue: true }),
  'BalanceBreakdownEntry.price': owner('CHECK-BREAKDOWN-PRICE-NULL', { documentedValue: true }),
  'BalanceBreakdownEntry.price.*': skip('interface.md: "Shape of `price` inside a balance breakdown entry other than null: not shown" (CHECK-BREAKDOWN-PRICE-SHAPE is excluded)'),
  'BalanceBreakdownEntry.expires_at': owner('CHECK-BREAKDOWN-PER-SOURCE', { aspect: 'balance' }),

  // ── The check result ──
  'BalancesCheckResult.allowed': owner('CHECK-ALLOWED-SUFFICIENT', {
    refine: allowedRule,
    refines: ['CHECK-ALLOWED-BOOLEAN-IN-PLAN', 'CHECK-DENIED-OTHERWISE', 'CHECK-ALLOWED-UNLIMITED', 'CHECK-OVERAGE-PURCHASE-CAP', 'CHECK-REQUIRED-BALANCE-DEFAULT', 'CHECK-ALLOWED-BELOW-REQUIRED'],
  }),
  'BalancesCheckResult.customer_id': owner('CHECK-RESULT-ECHOES'),
  'BalancesCheckResult.entity_id': owner('CHECK-ENTITY-SCOPED', { documentedValue: true, nullRule: 'CHECK-ENTITY-ID-NULL' }),
  'BalancesCheckResult.required_balance': owner('CHECK-RESULT-ECHOES'),
  'BalancesCheckResult.balance': owner('CHECK-BALANCE-NULL'),
  'BalancesCheckResult.flag': owner('CHECK-FLAG-OBJECT'),
  'Flag.*': owner('CHECK-FLAG-OBJECT'),
  'Flag.id': owner('CHECK-FLAG-OBJECT', { targetId: true }),
  'BalancesCheckResult.balances': owner('CHECK-BALANCES-MAP', {
    refine: ({ model, target }) => (Object.keys((model ?? {}) as object).length > 1 || Object.keys((target ?? {}) as object).length > 1 ? 'CHECK-BALANCES-LINKED-CREDIT-SYSTEM' : undefined),
    refines: ['CHECK-BALANCES-LINKED-CREDIT-SYSTEM'],
  }),
  'BalancesCheckResult.balances{}': owner('CHECK-BALANCES-MAP'),
  'BalancesCheckResult.preview': owner('CHECK-PREVIEW-WHEN-DENIED', {
    // Present only when with_preview was true and allowed is false: the document decides the presence; the reference, the content.
    documentedValue: true,
    refine: ({ model }) => (model === undefined || model === null ? 'CHECK-PREVIEW-ONLY-WHEN-REQUESTED' : undefined),
    refines: ['CHECK-PREVIEW-ONLY-WHEN-REQUESTED'],
  }),
  'BalancesCheckResult.preview.*': owner('CHECK-PREVIEW-WIRE'),
  'BalancesCheckResult.preview.title': skip(WORDING),
  'BalancesCheckResult.preview.message': skip(WORDING),

  // ── The multi-update preview ──
  'PreviewMultiUpdateResult.customer_id': owner('PREV-RESULT-SHAPE'),
  'PreviewMultiUpdateResult.currency': owner('PREV-CURRENCY-ISO'),
  'PreviewMultiUpdateResult.total': owner('PREV-REFUND-MODE', {
    refine: (context) =>
      moneyUnit(context) ??
      (Math.abs((num(context.target) ?? 0) - sumOf(context.targetParent?.['subscriptions'], 'total')) > 0.005 ? 'PREV-TOTAL-SUM' : undefined),
    refines: ['CONV-MONEY-MAJOR-UNITS', 'PREV-TOTAL-SUM'],
  }),
  'PreviewMultiUpdateResult.subscriptions': owner('PREV-ONE-ENTRY-PER-SUBSCRIPTION', {
    refine: ({ model, target }) => (Array.isArray(model) && Array.isArray(target) && target.length > model.length ? 'PREV-FREE-PLANS-NO-ENTRY' : undefined),
    refines: ['PREV-FREE-PLANS-NO-ENTRY'],
  }),
  'PreviewMultiUpdateResult.subscriptions[].customer_id': owner('PREV-RESULT-SHAPE'),
  'PreviewMultiUpdateResult.subscriptions[].currency': owner('PREV-CURRENCY-ISO'),
  'PreviewMultiUpdateResult.subscriptions[].plan_ids': owner('PREV-ONE-ENTRY-PER-SUBSCRIPTION'),
  'PreviewMultiUpdateResult.subscriptions[].plan_ids[]': owner('PREV-ONE-ENTRY-PER-SUBSCRIPTION'),
  'PreviewMultiUpdateResult.subscriptions[].subtotal': owner('PREV-REFUND-MODE', { refine: moneyUnit, refines: ['CONV-MONEY-MAJOR-UNITS'] }),
  'PreviewMultiUpdateResult.subscriptions[].total': owner('PREV-REFUND-MODE', { refine: moneyUnit, refines: ['CONV-MONEY-MAJOR-UNITS'] }),
  'PreviewMultiUpdateResult.subscriptions[].line_items': owner('PREV-REFUND-MODE'),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].display_name': skip(WORDING),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].description': skip(WORDING),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].subtotal': owner('PREV-REFUND-MODE', { refine: moneyUnit, refines: ['CONV-MONEY-MAJOR-UNITS'] }),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].total': owner('PREV-REFUND-MODE', { refine: moneyUnit, refines: ['CONV-MONEY-MAJOR-UNITS'] }),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].discounts': owner('PREV-RESULT-SHAPE'),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].discounts[]': owner('PREV-RESULT-SHAPE'),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].plan_id': owner('PREV-UPDATE-FIELDS'),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].feature_id': owner('PREV-UPDATE-FIELDS'),
  'PreviewMultiUpdateResult.subscriptions[].line_items[].quantity': owner('PREV-UPDATE-FIELDS'),
  'PreviewMultiUpdateResult.subscriptions[].incoming': owner('PREV-CANCEL-ACTION-ENUM'),
  'PreviewMultiUpdateResult.subscriptions[].outgoing': owner('PREV-CANCEL-ACTION-ENUM'),
  'PreviewMultiUpdateResult.*': owner('PREV-CANCEL-ACTION-ENUM'),

  // ── Plans ──
  'Plan.*': owner('PLAN-CREATE-THEN-GET', { aspect: 'plan' }),
  'Plan.version': owner('VER-PLAN-VERSION-INCREASES', { aspect: 'plan' }),
  'Plan.version_slug': owner('VER-PLAN-SLUG-DEFAULT', { aspect: 'plan' }),
  'Plan.active': owner('VER-PLAN-ONE-ACTIVE', { aspect: 'plan' }),
  'Plan.group': owner('PLAN-CREATE-THEN-GET', { aspect: 'plan' }),
  'Plan.auto_enable': owner('PLAN-CREATE-THEN-GET', { aspect: 'plan' }),
  'Plan.created_at': owner('PLAN-CREATE-THEN-GET', { refine: timestampUnit, refines: ['CONV-TIMESTAMPS-MS'] }),
  'Plan.archived': owner('PLAN-CREATE-THEN-GET', { aspect: 'plan' }),
  'Plan.price': owner('PLAN-PRICE-NULL-FREE', { aspect: 'plan' }),
  // `interval` is documented (`month` occurs); the reference only adds values.
  'Plan.price.interval': owner('PLAN-CREATE-THEN-GET', { aspect: 'plan', documentedValue: true }),
  'Plan.items[].reset.interval': owner('PLAN-ITEMS-ROUND-TRIP', { aspect: 'plan', documentedValue: true }),
  'Plan.items[].price.interval': owner('PLAN-ITEMS-ROUND-TRIP', { aspect: 'plan', documentedValue: true }),
  'Plan.price.display.primary_text': skip(WORDING),
  'Plan.price.display.secondary_text': skip(WORDING),
  'Plan.price.additional_currencies': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.price.additional_currencies[].currency': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.price.additional_currencies[].amount': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.items': owner('PLAN-ITEMS-ROUND-TRIP', { aspect: 'plan' }),
  'Plan.items[].*': owner('PLAN-ITEMS-ROUND-TRIP', { aspect: 'plan' }),
  'Plan.items[].display.primary_text': skip(WORDING),
  'Plan.items[].display.secondary_text': skip(WORDING),
  'Plan.items[].price.additional_currencies': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.items[].price.additional_currencies[].currency': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.items[].price.additional_currencies[].amount': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.items[].price.tiers[].additional_currencies': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.items[].price.tiers[].additional_currencies[].currency': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.items[].price.tiers[].additional_currencies[].amount': owner('PLAN-CURRENCIES-ROUND-TRIP'),
  'Plan.items[].price.billing_method': owner('PLAN-BILLING-METHOD-ENUM', { aspect: 'plan' }),
  'Plan.base_variant_id': skip('deprecated in favour of `variant_details.base_plan_id` (VER-BASE-VARIANT-DEPRECATED is excluded); its value is not shown'),
  'Plan.variant_details': skip('interface.md: "Inner shapes of `variant_details` … not shown"'),
  'Plan.variant_details.base_plan_id': skip('interface.md: "Inner shapes of `variant_details` … not shown"'),
  'Plan.config.ignore_past_due': owner('PLAN-CONFIG-ROUND-TRIP'),
  'Plan.billing_controls': owner('PLAN-BILLING-CONTROLS-WIRE'),
  'Plan.metadata': owner('PLAN-METADATA-SHARED', { aspect: 'plan' }),
  'Plan.processors': owner('PLAN-PROCESSORS-OMITTED'),
  'Plan.free_trial': owner('PLAN-FREE-TRIAL-ROUND-TRIP', { aspect: 'plan' }),
  'Plan.free_trial.duration_length': owner('PLAN-FREE-TRIAL-ROUND-TRIP'),
  'Plan.free_trial.duration_type': owner('PLAN-FREE-TRIAL-ROUND-TRIP'),
  'Plan.free_trial.card_required': owner('PLAN-FREE-TRIAL-ROUND-TRIP'),
  'Plan.free_trial.on_end': owner('CONV-RESPONSE-SNAKE-CASE'),
  'Plan.licenses': owner('PLAN-LICENSES-WIRE', { aspect: 'plan' }),
  'Plan.licenses[].*': owner('PLAN-LICENSES-WIRE', { aspect: 'plan' }),
  'PLAN-LIST-SHAPE.list': owner('PLAN-LIST'),

  // ── Features ──
  'Feature.*': owner('FEAT-SHAPE'),
  'Feature.type': owner('FEAT-TYPES'),
  'Feature.consumable': owner('FEAT-CONSUMABLE-METERED', {
    refine: ({ request }) => (request['type'] !== undefined && request['type'] !== 'metered' && 'consumable' in request ? 'FEAT-CONSUMABLE-ONLY-METERED' : undefined),
    refines: ['FEAT-CONSUMABLE-ONLY-METERED'],
  }),
  'Feature.display.singular': owner('FEAT-DISPLAY-ROUND-TRIP'),
  'Feature.display.plural': owner('FEAT-DISPLAY-ROUND-TRIP'),
  'Feature.credit_schema': owner('FEAT-CREDIT-SCHEMA-WIRE'),
  'Feature.credit_schema[].*': owner('FEAT-CREDIT-SCHEMA-WIRE'),
  'Feature.event_names': owner('FEAT-EVENT-NAMES-WIRE'),
  'Feature.event_names[]': owner('FEAT-EVENT-NAMES-WIRE'),
  'Feature.invoice_credits': skip('the wire name of the invoice-credit flag is this project’s choice (FEAT-INVOICE-CREDIT-FLAG is excluded)'),
  'Feature.model_markups': owner('FEAT-MODEL-MARKUPS-WIRE'),
  'Feature.model_markups{}.*': owner('FEAT-MODEL-MARKUPS-WIRE'),
  'Feature.default_markup': owner('FEAT-AI-MARKUP-WIRE'),
  'Feature.provider_markups': owner('FEAT-AI-MARKUP-WIRE'),
  'Feature.provider_markups{}.markup': owner('FEAT-AI-MARKUP-WIRE'),
  'Feature.processors': skip('processor mappings are present only when a processor product or meter is set (FEAT-PROCESSOR-MAPPINGS is excluded)'),
  'Feature.processors.*': skip('processor mappings are present only when a processor product or meter is set (FEAT-PROCESSOR-MAPPINGS is excluded)'),
  'FEAT-LIST-SHAPE.list': owner('FEAT-LIST'),

  // ── Referral programs ──
  'ReferralProgram.*': owner('REF-UPDATE-SETS-FIELDS', { aspect: 'program' }),
  'ReferralProgram.reward_id': referralField('reward_id'),
  'ReferralProgram.redeem_on': referralField('redeem_on'),
  'ReferralProgram.received_by': referralField('received_by'),
  'ReferralProgram.max_redemptions': referralField('max_redemptions'),
  'ReferralProgram.plan_ids': referralField('plan_ids'),
  'ReferralProgram.plan_ids[]': owner('REF-UPDATE-SETS-FIELDS', { aspect: 'program' }),
  'ReferralProgram.exclude_trial': referralField('exclude_trial'),
  'ReferralProgram.created_at': owner('CONV-TIMESTAMPS-MS'),

  // ── The usage events, as the fake's control plane lists them (the interface has no read for them) ──
  'events.list.list': owner('CHECK-SEND-EVENT-RECORDS', { aspect: 'event' }),
  'events.list.list[].id': owner('CHECK-SEND-EVENT-RECORDS', { targetId: true }),
  'events.list.list[].customer_id': owner('CHECK-SEND-EVENT-RECORDS'),
  'events.list.list[].entity_id': owner('CHECK-SEND-EVENT-RECORDS'),
  'events.list.list[].feature_id': owner('CHECK-SEND-EVENT-RECORDS', { aspect: 'event' }),
  'events.list.list[].event_name': owner('EVT-EVENT-NAMES'),
  'events.list.list[].value': owner('EVT-AMOUNT-IS-REQUIRED-BALANCE', { aspect: 'event' }),
  'events.list.list[].properties': owner('CHECK-EVENT-PROPERTIES'),
  'events.list.list[].timestamp': owner('CONV-TIMESTAMPS-MS'),
  'events.list.has_more': skip('the control plane’s own paging'),
  'events.list.next_cursor': skip('the control plane’s own paging'),

  // ── Answers of the reference's setup operations: compared for their own (SHOULD) rules ──
  'CUS-SHAPE.*': owner('CUS-GET', { aspect: 'record' }),
  'CUS-SHAPE.balances': owner('CUS-GET', { aspect: 'balance' }),
  'CUS-SHAPE.licenses': owner('CUS-GET', { aspect: 'pool' }),
  'CUS-SHAPE.subscriptions[].id': owner('CUS-GET', { targetId: true }),
  'CUS-SHAPE.stripe_id': skip('the processor customer the target made: an ID of another system'),
  'CUS-SHAPE.processors': skip('the processor customer the target made: an ID of another system'),
  'CUS-SHAPE.processors{}': skip('the processor customer the target made: an ID of another system'),
  'CUS-SHAPE.config': skip('the reference’s customer flags: neither the document nor the reference shows them'),
  'CUS-SHAPE.fingerprint': owner('CUS-GET-OR-CREATE-NEW'),
  'ENT-DETAIL-SHAPE.*': owner('ENT-GET', { aspect: 'entity' }),
  'ENT-DETAIL-SHAPE.invoices': skip('interface.md: "Invoice record fields: not shown"'),
  'ENT-DETAIL-SHAPE.invoices[]': skip('interface.md: "Invoice record fields: not shown"'),
  'BILL-ATTACH-SHAPE.*': owner('BILL-ATTACH-FREE'),
  'BILL-ATTACH-SHAPE.invoice': skip('the invoice of a paid attach is the payment processor’s'),
  'BILL-ATTACH-SHAPE.invoice.*': skip('the invoice of a paid attach is the payment processor’s'),
  'BAL-TRACK-SHAPE.*': owner('BAL-TRACK-DEDUCTS', { aspect: 'balance' }),
  'BAL-TRACK-SHAPE.deductions[].balance_id': owner('BAL-TRACK-DEDUCTS', { targetId: true }),
  'BAL-FINALIZE-SHAPE.success': owner('BAL-FINALIZE-SHAPE'),
  'REF-REWARD-SHAPE.*': owner('REF-REWARD-SHAPE'),
  'LIC-ASSIGNMENTS-SHAPE.list': owner('LIC-ASSIGNMENTS-LIST', { aspect: 'pool' }),
  'LIC-ASSIGNMENTS-SHAPE.list[].*': owner('LIC-ASSIGNMENTS-LIST'),
  'LIC-ASSIGNMENTS-SHAPE.list[].id': owner('LIC-ASSIGNMENTS-LIST', { targetId: true }),
};

function prefixed(component: string, fields: Readonly<Record<string, Ownership>>): Record<string, Ownership> {
  return Object.fromEntries(Object.entries(fields).map(([field, ownership]) => [`${component}.${field}`, ownership]));
}

function sumOf(list: unknown, field: string): number {
  return Array.isArray(list) ? list.reduce((sum: number, entry) => sum + (num((entry as Record<string, unknown>)?.[field]) ?? 0), 0) : 0;
}

/** ownershipOf's answers by node key: a comparison asks for every node of every answer. */
const owners = new Map<string, Ownership | undefined>();

/**
 * The ownership of a node key: its own entry, else the nearest `<prefix>.*` default above it
 * (`Plan.items[].price.amount` → `Plan.items[].*` → `Plan.*`). Undefined: the map is incomplete.
 */
export function ownershipOf(key: string): Ownership | undefined {
  if (owners.has(key)) return owners.get(key);
  let found = FIELD_OWNERS[key];
  for (let cut = key.lastIndexOf('.'); found === undefined && cut > 0; cut = key.lastIndexOf('.', cut - 1)) found = FIELD_OWNERS[`${key.slice(0, cut)}.*`];
  owners.set(key, found);
  return found;
}

/**
 * Per operation, the rule a call of it stands for when no field decides: a refusal of a request the
 * model accepts (or the reverse) with no more precise owner, and the owner of any field of a
 * reference-only answer whose own owner is a MUST rule. A reference operation's rule is SHOULD.
 */
export const OPERATION_RULES: Readonly<Record<OperationName, RuleId>> = {
  'licenses.list': 'LIC-LIST-CUSTOMER-POOLS',
  'licenses.attach': 'LIC-ATTACH-BATCH',
  'licenses.release': 'LIC-RELEASE-FREES-SEAT',
  'subscriptions.list': 'LIST-SUBSCRIPTIONS-RECURRING',
  'purchases.list': 'LIST-PURCHASES-ONE-OFF',
  'entities.list': 'ENT-LIST-ACROSS-ORG',
  'billing.preview_multi_update': 'PREV-ONE-ENTRY-PER-SUBSCRIPTION',
  'plans.create': 'PLAN-CREATE-THEN-GET',
  'plans.get': 'PLAN-CREATE-THEN-GET',
  'balances.check': 'CHECK-ALLOWED-SUFFICIENT',
  'features.create': 'FEAT-TYPES',
  'referral_programs.update': 'REF-UPDATE-SETS-FIELDS',
  'customers.get_or_create': 'CUS-GET-OR-CREATE-NEW',
  'customers.get': 'CUS-GET',
  'entities.create': 'ENT-CREATE',
  'entities.get': 'ENT-GET',
  'entities.delete': 'ENT-DELETE',
  'customers.delete': 'CUS-DELETE',
  'plans.delete': 'PLAN-DELETE',
  'features.delete': 'FEAT-DELETE-IN-USE',
  'referral_programs.delete': 'REF-PROGRAM-DELETE',
  'rewards.delete': 'REF-REWARD-DELETE-LINKED',
  'billing.attach': 'BILL-ATTACH-FREE',
  'balances.track': 'BAL-TRACK-DEDUCTS',
  'balances.finalize': 'BAL-FINALIZE-WIRE',
  'plans.list': 'PLAN-LIST',
  'plans.update': 'PLAN-UPDATE-IN-PLACE',
  'features.get': 'FEAT-GET',
  'features.list': 'FEAT-LIST',
  'referral_programs.create': 'REF-CREATE',
  'referral_programs.get': 'REF-GET',
  'rewards.create': 'REF-REWARD-CREATE',
  'licenses.list_assignments': 'LIC-ASSIGNMENTS-LIST',
};

/** A write, as the state it changed remembers it: the operation (or control call) and what the generator meant by it. */
export interface Writer {
  readonly operation: string;
  /** Tags the generator gave the call (`send-event`, `lock`, `same-group`, …); `rule:<ID>` names the rule a refused call put to the test. */
  readonly tags: readonly string[];
}

type WriterRules = Partial<Record<Aspect | 'any', RuleId>>;

/**
 * The rule a write stands for, per aspect of the state it changed: the statement of the document
 * (or the reference) that says what the write does to it. Keyed `<operation>` or `<operation>:<tag>`;
 * the first tag of the call that has an entry wins, then the operation's own entry.
 */
export const WRITER_RULES: Readonly<Record<string, WriterRules>> = {
  'customers.get_or_create': { any: 'PLAN-AUTO-ENABLE' },
  'billing.attach': { any: 'BILL-ATTACH-FREE', balance: 'CHECK-BREAKDOWN-PER-SOURCE', pool: 'PLAN-LICENSE-LINKS-OFFER', record: 'BILL-ATTACH-FREE' },
  'billing.attach:same-group': { record: 'PLAN-GROUP-EXCLUSIVE', balance: 'PLAN-GROUP-EXCLUSIVE', pool: 'LIC-PARENT-END-REVOKES-SEATS', entity: 'LIC-PARENT-END-REVOKES-SEATS' },
  'billing.attach:add-on': { record: 'PLAN-ADD-ON-ALONGSIDE', balance: 'PLAN-ADD-ON-ALONGSIDE' },
  'billing.attach:trial': { record: 'PLAN-FREE-TRIAL-APPLIES' },
  'billing.attach:prepaid': { balance: 'PLAN-PREPAID-UPFRONT' },
  'billing.attach:license-quantities': { pool: 'LIC-POOL-PAID-QUANTITY' },
  'billing.attach:entity': { record: 'BILL-ATTACH-ENTITY', balance: 'ENT-OWN-PLANS-BALANCES', entity: 'ENT-OWN-PLANS-BALANCES' },
  'billing.attach:version': { record: 'PLAN-UPDATE-NEW-VERSION', balance: 'PLAN-UPDATE-NEW-VERSION' },
  'billing.attach:usage-price': { balance: 'PLAN-USAGE-PRICE-OVERAGE' },
  'billing.attach:allocated': { balance: 'PLAN-ALLOCATED-PERSISTS' },
  'licenses.attach': { any: 'LIC-ATTACH-BATCH', record: 'STATE-LICENSE-ATTACH-RELEASE', entity: 'ENT-PLAN-FILTER-DIRECT' },
  'licenses.attach:skip': { pool: 'LIC-ATTACH-SKIP-ASSIGNED', any: 'STATE-SKIP-NO-EXTRA-LICENSE' },
  'licenses.attach:mixed': { pool: 'LIC-ATTACH-MIXED-BATCH', any: 'LIC-ATTACH-MIXED-BATCH' },
  'licenses.attach:refused': { any: 'LIC-ATTACH-ALL-OR-NOTHING' },
  'licenses.attach:creates': { entity: 'LIC-ATTACH-CREATES-ENTITY' },
  'licenses.release': { any: 'LIC-RELEASE-FREES-SEAT', record: 'STATE-LICENSE-ATTACH-RELEASE' },
  'balances.check:send-event': { balance: 'CHECK-SEND-EVENT-RECORDS', event: 'CHECK-SEND-EVENT-RECORDS' },
  'balances.check:denied': { balance: 'CHECK-SEND-EVENT-ATOMIC', event: 'CHECK-SEND-EVENT-ATOMIC' },
  'balances.check:fractional': { balance: 'EVT-AMOUNT-IS-REQUIRED-BALANCE' },
  'balances.check:lock': { balance: 'CHECK-LOCK-RESERVES', event: 'CHECK-LOCK-RESERVES' },
  'balances.check:credit-system': { balance: 'FEAT-CREDIT-SYSTEM' },
  'balances.check:plain': { balance: 'EVT-ONLY-WITH-SEND-EVENT', event: 'EVT-ONLY-WITH-SEND-EVENT' },
  'balances.track': { balance: 'BAL-TRACK-DEDUCTS', event: 'BAL-TRACK-DEDUCTS' },
  'balances.track:event-name': { balance: 'EVT-EVENT-NAMES', event: 'EVT-EVENT-NAMES' },
  'balances.track:overage': { balance: 'BAL-TRACK-OVERAGE-BEHAVIOR' },
  'balances.track:credit-system': { balance: 'FEAT-CREDIT-SYSTEM' },
  'balances.finalize:confirm': { balance: 'CHECK-LOCK-CONFIRM', event: 'CHECK-LOCK-CONFIRM' },
  'balances.finalize:release': { balance: 'CHECK-LOCK-RELEASE' },
  'entities.create': { balance: 'PLAN-ALLOCATED-PERSISTS', entity: 'ENT-CREATE' },
  'entities.delete': { any: 'ENT-DELETE' },
  'customers.delete': { any: 'CUS-DELETE' },
  'plans.delete': { any: 'PLAN-DELETE' },
  'plans.delete:latest-version': { any: 'PLAN-DELETE-LATEST-VERSION' },
  'features.delete': { any: 'FEAT-DELETE-IN-USE' },
  'referral_programs.delete': { any: 'REF-PROGRAM-DELETE' },
  'rewards.delete': { any: 'REF-REWARD-DELETE-LINKED' },
  'plans.update': { plan: 'PLAN-UPDATE-IN-PLACE' },
  'plans.update:new-version': { plan: 'PLAN-UPDATE-NEW-VERSION', record: 'PLAN-UPDATE-NEW-VERSION' },
  'plans.update:archive': { plan: 'PLAN-UPDATE-IN-PLACE' },
  'plans.update:metadata': { plan: 'PLAN-METADATA-SHARED' },
  'plans.update:licenses': { plan: 'PLAN-LICENSE-LINKS-REPLACE' },
  'referral_programs.update': { program: 'REF-UPDATE-SETS-FIELDS' },
  'billing.preview_multi_update': { any: 'PREV-NO-CHANGES' },
  'clock.advance': { balance: 'PLAN-CONSUMABLE-RESET', record: 'LIST-CURRENT-PERIOD', pool: 'LIC-PARENT-END-REVOKES-SEATS' },
  'clock.advance:trial-end': { record: 'LIST-TRIAL-ENDS-WHILE-TRIALING' },
  'clock.advance:lock-expiry': { balance: 'CHECK-LOCK-WIRE' },
  'clock.advance:allocated': { balance: 'PLAN-ALLOCATED-PERSISTS' },
  'records.force_state:past_due': { record: 'STATE-PAST-DUE-READS-ACTIVE', any: 'LIST-STATUSES-PAST-DUE' },
  'records.force_state:expired': { record: 'STATE-EXPIRED-ONLY-ON-REQUEST', pool: 'LIC-PARENT-END-REVOKES-SEATS', balance: 'STATE-EXPIRED-ONLY-ON-REQUEST' },
  'records.force_state:scheduled': { record: 'STATE-DEFAULT-ACTIVE-SCHEDULED' },
  'records.force_state:active': { record: 'STATE-PAST-DUE-READS-ACTIVE' },
};

/** The rule a writer stands for in `aspect`, or undefined when none says. */
export function writerRule(writer: Writer, aspect: Aspect): RuleId | undefined {
  for (const tag of writer.tags) {
    // `rule:<ID>`: a refused call, judged by the statement it put to the test.
    if (tag.startsWith('rule:')) return tag.slice('rule:'.length) as RuleId;
    const rules = WRITER_RULES[`${writer.operation}:${tag}`];
    const rule = rules?.[aspect] ?? rules?.any;
    if (rule !== undefined) return rule;
  }
  const rules = WRITER_RULES[writer.operation];
  return rules?.[aspect] ?? rules?.any;
}

/**
 * A clock move seen in a balance (or a grant of one) that never resets, allocated and not unlimited
 * (no next reset in the model's answer), is what PLAN-ALLOCATED-PERSISTS says of it: whatever else the
 * move crossed (a lock's expiry, another grant's reset), this balance had nothing to reset.
 */
export function balanceWriter(writer: Writer, balance: Readonly<Record<string, unknown>> | undefined): Writer {
  if (writer.operation !== 'clock.advance' || balance === undefined || balance['unlimited'] === true) return writer;
  const neverResets = ('next_reset_at' in balance && balance['next_reset_at'] === null) || ('reset' in balance && balance['reset'] === null);
  return neverResets ? { ...writer, tags: ['allocated'] } : writer;
}

/** Whether a rule is SHOULD (reference-only fields and answers may only fail such rules). */
export function isShould(rule: RuleId): boolean {
  return ruleById.get(rule)?.level === 'SHOULD';
}

/** Every rule the maps name, for the completeness test. */
export function namedRules(): RuleId[] {
  const rules = new Set<RuleId>(Object.values(OPERATION_RULES));
  for (const ownership of Object.values(FIELD_OWNERS)) {
    if ('notCompared' in ownership) continue;
    rules.add(ownership.rule);
    for (const rule of ownership.refines ?? []) rules.add(rule);
    if (ownership.nullRule !== undefined) rules.add(ownership.nullRule);
    if (ownership.order !== undefined) rules.add(ownership.order);
  }
  for (const byAspect of Object.values(WRITER_RULES)) for (const rule of Object.values(byAspect)) rules.add(rule);
  return [...rules];
}
