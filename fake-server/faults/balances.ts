/** Broken variants of the balances rules (balances.check, balances.track, balances.finalize) and of the Events rules. */
import { deduct, trackedFeatures } from '../domain/balances.ts';
import type { OperationHandler, OutputOf } from '../domain/context.ts';
import { grantsHeldBy, requireSubject } from '../domain/subjects.ts';
import { type Fault, type HandlerOverrides, rewriteOutput } from './fault.ts';

type CheckResult = OutputOf<'balances.check'>;
type BalanceView = NonNullable<CheckResult['balance']>;
type CheckHandler = OperationHandler<'balances.check'>;

/** Overrides balances.check with `broken(real, ctx, input)`. */
function onCheck(broken: (real: CheckHandler, ...args: Parameters<CheckHandler>) => CheckResult): HandlerOverrides {
  return { 'balances.check': (real) => (ctx, input) => broken(real, ctx, input) };
}

/** The same check without its side effects (send_event, lock), to decide before anything is used. */
function plainCheck(real: CheckHandler, ...[ctx, input]: Parameters<CheckHandler>): CheckResult {
  const { send_event: _sendEvent, lock: _lock, ...plain } = input;
  return real(ctx, plain);
}

/** Rewrites every Balance a check or track answers: `balance` and each entry of `balances`. */
function rewriteBalances(rewrite: (balance: BalanceView) => BalanceView): NonNullable<Fault['output']> {
  return (operation, body) => {
    if (operation !== 'balances.check' && operation !== 'balances.track') return body;
    const answer = body as { balance: BalanceView | null; balances?: Record<string, BalanceView | null> };
    return {
      ...answer,
      balance: answer.balance && rewrite(answer.balance),
      ...(answer.balances && { balances: Object.fromEntries(Object.entries(answer.balances).map(([id, balance]) => [id, balance && rewrite(balance)])) }),
    };
  };
}

/** A check without feature_id is not refused: the input hook marks it, the handler answers for the customer's first grant. */
const NO_FEATURE_ID = '\u0000no-feature-id';

export const balancesFaults: readonly Fault[] = [
  // ── The Balance resource ──
  {
    rule: 'CHECK-BALANCE-ARITHMETIC',
    breaks: "a Balance's remaining is reported before usage is taken off, as the granted amount",
    output: rewriteBalances((balance) => ({ ...balance, remaining: balance.granted })),
  },
  {
    rule: 'CHECK-BREAKDOWN-PER-SOURCE',
    breaks: 'the breakdown merges every grant source into one entry under the first plan',
    output: rewriteBalances((balance) => {
      const [first, ...rest] = balance.breakdown;
      if (first === undefined) return balance;
      const merged = rest.reduce(
        (sum, entry) => ({
          ...sum,
          included_grant: sum.included_grant + entry.included_grant,
          prepaid_grant: sum.prepaid_grant + entry.prepaid_grant,
          remaining: sum.remaining + entry.remaining,
          usage: sum.usage + entry.usage,
        }),
        first,
      );
      return { ...balance, breakdown: [merged] };
    }),
  },
  {
    rule: 'CHECK-BREAKDOWN-PRICE-NULL',
    breaks: 'a grant without a price shows a free usage-based price object instead of null',
    output: rewriteBalances((balance) => ({
      ...balance,
      breakdown: balance.breakdown.map((entry) => ({ ...entry, price: entry.price ?? { amount: 0, billing_units: 1, billing_method: 'usage_based', max_purchase: null } })),
    })),
  },

  // ── The check result ──
  {
    rule: 'CHECK-RESULT-SHAPE',
    breaks: 'the check result leaves out required_balance',
    output: rewriteOutput('balances.check', ({ required_balance: _required, ...rest }) => rest),
  },
  {
    rule: 'CHECK-ALLOWED-SUFFICIENT',
    breaks: 'a balance of exactly required_balance is denied (remaining must exceed the amount)',
    handlers: onCheck((real, ctx, input) => {
      const plain = plainCheck(real, ctx, input);
      const exact = plain.balance !== null && !plain.balance.unlimited && plain.required_balance > 0 && plain.balance.remaining === plain.required_balance;
      return exact ? { ...plain, allowed: false } : real(ctx, input);
    }),
  },
  {
    rule: 'CHECK-ALLOWED-UNLIMITED',
    breaks: 'an unlimited balance counts as nothing left, so any positive required_balance is denied',
    output: rewriteOutput('balances.check', (result) => (result.balance?.unlimited && result.required_balance > 0 ? { ...result, allowed: false } : result)),
  },
  {
    rule: 'CHECK-ALLOWED-BOOLEAN-IN-PLAN',
    breaks: 'a boolean feature is denied even when a plan includes it (its flag is still shown)',
    output: rewriteOutput('balances.check', (result) => (result.flag ? { ...result, allowed: false } : result)),
  },
  {
    rule: 'CHECK-DENIED-OTHERWISE',
    breaks: 'a feature the customer has neither a balance nor a flag of is allowed',
    output: rewriteOutput('balances.check', (result) => (result.balance === null && !result.flag ? { ...result, allowed: true } : result)),
  },
  {
    rule: 'CHECK-BALANCE-NULL',
    breaks: 'a customer without a balance for the feature gets an empty zero Balance instead of null',
    handlers: onCheck((real, ctx, input) => {
      const result = real(ctx, input);
      if (result.balance !== null) return result;
      const empty = { feature_id: input.feature_id, granted: 0, remaining: 0, usage: 0, unlimited: false, overage_allowed: false, max_purchase: null, next_reset_at: null, breakdown: [] };
      return { ...result, balance: empty };
    }),
  },
  {
    rule: 'CHECK-FLAG-OBJECT',
    breaks: 'an allowed boolean feature comes without its flag object',
    output: rewriteOutput('balances.check', (result) => ({ ...result, flag: null })),
  },
  {
    rule: 'CHECK-BALANCES-MAP',
    breaks: 'the balances map is sent empty',
    output: rewriteOutput('balances.check', (result) => ({ ...result, balances: {} })),
  },
  {
    rule: 'CHECK-BALANCES-LINKED-CREDIT-SYSTEM',
    breaks: 'the balances map covers only the checked feature, never the credit systems that price it',
    handlers: onCheck((real, ctx, input) => {
      const result = real(ctx, input);
      return { ...result, balances: { [input.feature_id]: result.balances[input.feature_id] ?? null } };
    }),
  },
  {
    rule: 'CHECK-PREVIEW-ONLY-WHEN-REQUESTED',
    breaks: 'every check carries upgrade information, with_preview or not',
    handlers: onCheck((real, ctx, input) => real(ctx, { ...input, with_preview: true })),
  },

  {
    rule: 'CHECK-ENTITY-ID-NULL',
    breaks: 'a check without entity_id answers without the entity_id key instead of null',
    output: rewriteOutput('balances.check', (result) => (result.entity_id === null ? (({ entity_id: _entityId, ...rest }) => rest)(result) : result)),
  },
  {
    rule: 'CHECK-RESULT-ECHOES',
    breaks: 'the check result answers required_balance 1, whatever was asked',
    output: rewriteOutput('balances.check', (result) => ({ ...result, required_balance: 1 })),
  },
  {
    rule: 'CHECK-BALANCE-FLAGS',
    breaks: 'every Balance reads unlimited false, overage_allowed true and max_purchase null',
    output: rewriteBalances((balance) => ({ ...balance, unlimited: false, overage_allowed: true, max_purchase: null })),
  },
  {
    rule: 'CHECK-BREAKDOWN-RESET',
    breaks: "a breakdown entry's reset names a time an hour after the entry's next reset",
    output: rewriteBalances((balance) => ({
      ...balance,
      breakdown: balance.breakdown.map((entry) => (entry.reset ? { ...entry, reset: { ...entry.reset, resets_at: entry.reset.resets_at + 3600 * 1000 } } : entry)),
    })),
  },

  // ── balances.check request ──
  {
    rule: 'CHECK-REQUIRED-FIELDS',
    breaks: "a check without feature_id is answered for the customer's first balance instead of refused",
    input: (operation, body) =>
      operation === 'balances.check' && typeof body === 'object' && body !== null && !('feature_id' in body) ? { ...body, feature_id: NO_FEATURE_ID } : body,
    handlers: onCheck((real, ctx, input) => {
      if (input.feature_id !== NO_FEATURE_ID) return real(ctx, input);
      const [first] = grantsHeldBy(ctx.store, requireSubject(ctx.store, input.customer_id, input.entity_id));
      return real(ctx, { ...input, feature_id: first?.featureId ?? NO_FEATURE_ID });
    }),
  },
  {
    rule: 'CHECK-ENTITY-SCOPED',
    // The entity is still looked up (an unknown one refused, ERR-ENTITY-NOT-FOUND's), then ignored.
    breaks: 'entity_id is ignored: the check answers for the customer',
    handlers: onCheck((real, ctx, { entity_id: entityId, ...input }) => {
      requireSubject(ctx.store, input.customer_id, entityId);
      return { ...real(ctx, input), ...(entityId !== undefined && { entity_id: entityId }) };
    }),
  },
  {
    rule: 'CHECK-ENTITY-OWN-CUSTOMER',
    breaks: "a check's entity is found across the organisation: customer A's check of B's entity answers (and uses) B's entity",
    handlers: onCheck((real, ctx, input) => {
      const owner = input.entity_id === undefined ? undefined : ctx.store.entities.get(input.entity_id)?.customerId;
      return owner === undefined || owner === input.customer_id ? real(ctx, input) : { ...real(ctx, { ...input, customer_id: owner }), customer_id: input.customer_id };
    }),
  },
  {
    rule: 'CHECK-REQUIRED-BALANCE-NEGATIVE',
    breaks: 'a plain check with a negative required_balance is denied, as if no balance could meet it',
    output: rewriteOutput('balances.check', (result) => (result.required_balance < 0 && result.balance !== null ? { ...result, allowed: false } : result)),
  },
  {
    rule: 'CHECK-OVERAGE-PURCHASE-CAP',
    // Only a denial with overage allowed can come from the cap: without one the overage is unbounded.
    breaks: "a plain check past a usage price's max_purchase is allowed: overage is not capped",
    handlers: onCheck((real, ctx, input) => {
      const result = real(ctx, input);
      const uncapped = !result.allowed && !input.send_event && input.lock === undefined && result.balance?.overage_allowed === true;
      return uncapped ? { ...result, allowed: true } : result;
    }),
  },
  {
    rule: 'CHECK-REQUIRED-BALANCE-DEFAULT',
    breaks: 'an omitted required_balance defaults to 0 instead of 1',
    input: (operation, body) =>
      operation === 'balances.check' && typeof body === 'object' && body !== null && !('required_balance' in body) ? { ...body, required_balance: 0 } : body,
  },
  {
    rule: 'CHECK-ALLOWED-BELOW-REQUIRED',
    breaks: 'a check is allowed whenever anything is left, even below required_balance',
    handlers: onCheck((real, ctx, input) => {
      const plain = plainCheck(real, ctx, input);
      return !plain.allowed && plain.balance !== null && plain.balance.remaining > 0 ? { ...plain, allowed: true } : real(ctx, input);
    }),
  },
  {
    rule: 'CHECK-SEND-EVENT-RECORDS',
    // Metered features only: on a boolean feature send_event is refused (CHECK-SEND-EVENT-BOOLEAN), not ignored.
    breaks: 'send_event on a metered feature is ignored: the check uses nothing',
    handlers: onCheck((real, ctx, input) => real(ctx, ctx.store.features.get(input.feature_id)?.type === 'boolean' ? input : { ...input, send_event: false })),
  },
  {
    rule: 'CHECK-SEND-EVENT-ATOMIC',
    breaks: 'a denied check with send_event still uses whatever is left of the amount',
    handlers: onCheck((real, ctx, input) => {
      const result = real(ctx, input);
      if (!input.send_event || result.allowed || result.balance === null || result.required_balance <= 0) return result;
      const grants = grantsHeldBy(ctx.store, requireSubject(ctx.store, input.customer_id, input.entity_id));
      deduct(grants.filter((grant) => grant.featureId === result.balance!.feature_id), result.required_balance, 'cap');
      return { ...plainCheck(real, ctx, input), allowed: false };
    }),
  },
  {
    rule: 'CHECK-LOCK-RESERVES',
    // A lock the check refuses anyway (a negative amount: CHECK-REQUIRED-BALANCE-NEGATIVE) is left to be refused.
    // The lock is read (so the suite's wire-name probe sees it), and holds the wrong amount.
    breaks: 'a check with lock settings holds one unit, whatever required_balance says',
    handlers: onCheck((real, ctx, input) => {
      if (input.lock === undefined || input.required_balance <= 1) return real(ctx, input);
      const plain = plainCheck(real, ctx, input);
      if (plain.allowed) real(ctx, { ...input, required_balance: 1 });
      return plain;
    }),
  },
  {
    rule: 'CHECK-LOCK-CONFIRM',
    breaks: 'confirming a lock gives its units back, as a release does',
    handlers: { 'balances.finalize': (real) => (ctx, input) => real(ctx, { ...input, action: 'release' }) },
  },
  {
    rule: 'CHECK-LOCK-RELEASE',
    breaks: 'releasing a lock keeps its units, as a confirm does',
    handlers: { 'balances.finalize': (real) => (ctx, input) => real(ctx, { ...input, action: 'confirm' }) },
  },
  {
    rule: 'CHECK-PREVIEW-WHEN-DENIED',
    breaks: 'a denied check with with_preview says preview: null',
    output: rewriteOutput('balances.check', (result) => (result.preview ? { ...result, preview: null } : result)),
  },
  {
    rule: 'CHECK-SEND-EVENT-BOOLEAN',
    breaks: 'send_event on a boolean feature is accepted and ignored',
    handlers: onCheck((real, ctx, input) => (ctx.store.features.get(input.feature_id)?.type === 'boolean' ? plainCheck(real, ctx, input) : real(ctx, input))),
  },

  {
    rule: 'CHECK-EVENT-PROPERTIES',
    // The properties are read (so the suite's wire-name probe sees them), and one is lost.
    breaks: 'of several properties sent, the usage event keeps all but the last',
    handlers: onCheck((real, ctx, input) => {
      const entries = Object.entries(input.properties ?? {});
      return real(ctx, entries.length > 1 ? { ...input, properties: Object.fromEntries(entries.slice(0, -1)) } : input);
    }),
  },

  // ── Reference wire names and shapes ──
  {
    rule: 'CHECK-PROPERTIES-WIRE',
    breaks: 'a check carrying `properties` is refused as invalid input',
    input: (operation, body) =>
      operation === 'balances.check' && typeof body === 'object' && body !== null && 'properties' in body ? { ...body, properties: 'not an object' } : body,
  },
  {
    rule: 'CHECK-LOCK-WIRE',
    breaks: "a lock's expires_at is ignored, so the hold never lapses",
    handlers: onCheck((real, ctx, input) => real(ctx, input.lock ? { ...input, lock: { lock_id: input.lock.lock_id, enabled: true } } : input)),
  },
  {
    rule: 'CHECK-PREVIEW-WIRE',
    breaks: 'preview.scenario is always usage_limit, also for a boolean feature',
    output: rewriteOutput('balances.check', (result) => (result.preview ? { ...result, preview: { ...result.preview, scenario: 'usage_limit' } } : result)),
  },

  // ── balances.track and balances.finalize ──
  {
    rule: 'BAL-TRACK-DEDUCTS',
    // Only a track naming its feature (the rule's statement); a track by event name is EVT-EVENT-NAMES'.
    breaks: 'balances.track with feature_id uses one unit, whatever its value',
    handlers: { 'balances.track': (real) => (ctx, input) => real(ctx, input.feature_id === undefined ? input : { ...input, value: 1 }) },
  },
  {
    rule: 'BAL-TRACK-OVERAGE-BEHAVIOR',
    breaks: 'balances.track treats overage_behavior "overflow" as the default "cap"',
    input: (operation, body) =>
      operation === 'balances.track' && typeof body === 'object' && body !== null && 'overage_behavior' in body && body.overage_behavior === 'overflow'
        ? { ...body, overage_behavior: 'cap' }
        : body,
  },
  {
    rule: 'BAL-TRACK-SHAPE',
    breaks: 'balances.track answers without value',
    output: rewriteOutput('balances.track', ({ value: _value, ...rest }) => rest),
  },
  {
    rule: 'BAL-FINALIZE-WIRE',
    breaks: 'balances.finalize knows only action confirm and refuses release',
    input: (operation, body) =>
      operation === 'balances.finalize' && typeof body === 'object' && body !== null && 'action' in body && body.action === 'release' ? { ...body, action: 'cancel' } : body,
  },
  {
    rule: 'BAL-FINALIZE-SHAPE',
    breaks: 'balances.finalize answers an empty object',
    output: rewriteOutput('balances.finalize', () => ({})),
  },

  // ── Events ──
  {
    rule: 'EVT-ONLY-WITH-SEND-EVENT',
    // Metered features and amounts of 0 or more only: a boolean feature refuses send_event (CHECK-SEND-EVENT-BOOLEAN), and so does a
    // negative amount (CHECK-REQUIRED-BALANCE-NEGATIVE), which would fail those plain checks instead.
    breaks: 'a plain check of a metered feature records usage as if send_event were set',
    handlers: onCheck((real, ctx, input) =>
      real(ctx, input.lock || input.required_balance < 0 || ctx.store.features.get(input.feature_id)?.type === 'boolean' ? input : { ...input, send_event: true }),
    ),
  },
  {
    rule: 'EVT-AMOUNT-IS-REQUIRED-BALANCE',
    breaks: 'send_event records one unit, whatever required_balance says',
    handlers: onCheck((real, ctx, input) => real(ctx, input.send_event ? { ...input, required_balance: 1 } : input)),
  },
  {
    rule: 'EVT-EVENT-NAMES',
    breaks: 'an event name drives only the first feature that declares it',
    handlers: {
      'balances.track': (real) => (ctx, { event_name: eventName, ...input }) =>
        real(ctx, eventName === undefined ? input : { ...input, feature_id: trackedFeatures(ctx.store, { event_name: eventName })[0]!.id }),
    },
  },
];
