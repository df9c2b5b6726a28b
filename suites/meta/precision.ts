/**
 * What the precision meta-test (can-fail.ts) holds the suite to: with each single fault, the
 * rules that FAIL are exactly the broken rule and the rules declared here as genuinely depending
 * on it (docs/contributing.md, "The suite checks itself"). A dependent is declared only when the fault's behaviour violates
 * the other statement too; "they share a scenario" is never a reason: attribute the check instead.
 */
import { FAULTS } from '../../fake-server/faults/index.ts';
import type { RuleId } from '../../spec/rules/catalogue.ts';

export interface Dependent {
  readonly rule: RuleId;
  /** Why breaking the key rule must also fail this one (not just "the scenario is shared"). */
  readonly why: string;
}

/** Broken rule → the other rules that genuinely fail with it. Keep it short; every entry needs its reason. */
export const DEPENDENT_RULES: Partial<Record<RuleId, readonly Dependent[]>> = {
  'AUTH-API-VERSION-HEADER': [
    {
      rule: 'VER-2-4-0-ACCEPTED',
      why: 'refusing requests that carry x-api-version refuses `x-api-version: 2.4.0`; with 2.4.0 the only version a target must know, "the header is refused" and "2.4.0 is refused" are one observable behaviour',
    },
  ],
  'VER-2-4-0-ACCEPTED': [
    {
      rule: 'AUTH-API-VERSION-HEADER',
      why: 'refusing 2.4.0 refuses every request carrying the header a client must send (2.4.0 being the only version a target must know): the same behaviour seen from the header rule',
    },
  ],
  'ERR-VALIDATION-CODE': [
    {
      rule: 'PREV-CANCEL-ACTION-ENUM',
      why: "the reference's cancel_action statement quotes its answer, 400 `invalid_inputs`: a validation refusal with another status and code breaks both",
    },
  ],
  'PLAN-FREE-TRIAL-WIRE': [
    {
      rule: 'CONV-SNAKE-CASE-REQUEST',
      why: 'ignoring `free_trial` is ignoring a request field spelled snake_case: the trial sent in snake_case does not take effect',
    },
  ],
  'CUS-GET-OR-CREATE-NEW': [
    {
      rule: 'PLAN-AUTO-ENABLE',
      why: 'a new customer created without its auto-enable plans is a plan not attached automatically at customer creation: the same statement from the plan side',
    },
  ],
  'PLAN-AUTO-ENABLE': [
    {
      rule: 'CUS-GET-OR-CREATE-NEW',
      why: 'customers.get_or_create creating a customer "with its auto-enable plans" is the same statement as the plan attaching automatically at customer creation',
    },
  ],
  'STATE-PAST-DUE-NOT-A-STATUS': [
    { rule: 'LIST-SUBSCRIPTION-SHAPE', why: 'an overdue record reading status past_due is a record whose status is outside active, scheduled, expired: the record shape states the same enumeration' },
    // LIST-PURCHASE-SHAPE states the same enumeration for an overdue purchase, but no scenario lists one before the subscription's FAIL stops it.
    // It FAILed only in listings.limit-out-of-bounds, whose listing of the whole tenant read the overdue purchases other scenarios had left there; those scenarios now run in organisations of their own.
  ],
  'CONV-SNAKE-CASE-REQUEST': [
    {
      rule: 'PLAN-FREE-TRIAL-WIRE',
      why: 'the converse of PLAN-FREE-TRIAL-WIRE → CONV-SNAKE-CASE-REQUEST: reading freeTrial instead of free_trial is not taking the trial under its snake_case wire name',
    },
  ],
};

/** The FAIL set a single fault of `rule` must produce. */
export function expectedFailures(rule: string): string[] {
  const dependents = (DEPENDENT_RULES[rule as RuleId] ?? []).map((d) => d.rule);
  return [rule, ...dependents].sort();
}

/**
 * `PRECISION_RULES` = comma-separated rule-ID prefixes (`LIC-,CUS-SHAPE`): only those faults, to
 * work on a part quickly. Unset (or `all`): every fault. `none`: no fault (every fault keeps its
 * can-fail check, against the scenarios carrying its rule; `npm run test:quick`). Every scenario's
 * FAILs count either way: every scenario file is attributed per rule.
 */
export function precisionRules(env: NodeJS.ProcessEnv = process.env): ReadonlySet<string> {
  const raw = env['PRECISION_RULES']?.trim();
  const faults = [...FAULTS.keys()];
  if (raw === undefined || raw === '' || raw === 'all') return new Set(faults);
  if (raw === 'none') return new Set();
  const prefixes = raw.split(',').map((p) => p.trim()).filter((p) => p !== '');
  return new Set(faults.filter((rule) => prefixes.some((p) => rule.startsWith(p))));
}

export type PrecisionSweep = 'full' | 'checked';

/**
 * `PRECISION_SWEEP`: which scenarios besides those deciding a fault's rule and its dependents the
 * precision check runs (can-fail.ts). `checked`, the default of `npm test` (CI included): those
 * whose verdicts rest on an answer of an operation the fault touches, and for a fault that can touch
 * every operation a sample drawn by the test seed. `full` (`npm run test:full`): every scenario
 * calling such an operation, every scenario for a fault touching every operation; about five times
 * the work, what only it finds (a fault whose effect shows through another operation's answer, later
 * in a scenario, or in a scenario the sample left out) is worth a nightly run, a run before a
 * release and after a change to many scenarios.
 */
export function precisionSweep(env: NodeJS.ProcessEnv = process.env): PrecisionSweep {
  const raw = env['PRECISION_SWEEP']?.trim();
  if (raw === 'full' || raw === 'checked') return raw;
  if (raw !== undefined && raw !== '') throw new Error(`PRECISION_SWEEP must be full or checked, not ${JSON.stringify(raw)}`);
  return 'checked';
}
