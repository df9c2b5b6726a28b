/**
 * The registry of deliberately broken variants, keyed by the rule ID each one breaks. The suite's
 * can-fail meta-test starts the fake with each of them and requires a scenario carrying that rule
 * ID to fail.
 */
import { balancesFaults } from './balances.ts';
import { billingFaults } from './billing.ts';
import { customersFaults } from './customers.ts';
import { entitiesFaults } from './entities.ts';
import { envelopeFaults } from './envelope.ts';
import { operations } from '../../spec/operations.ts';
import { ruleById } from '../../spec/rules/catalogue.ts';
import type { Fault } from './fault.ts';
import { featuresFaults } from './features.ts';
import { licenseFaults } from './licenses.ts';
import { listingsFaults } from './listings.ts';
import { plansFaults } from './plans.ts';
import { previewFaults } from './preview.ts';
import { referralsFaults } from './referrals.ts';

const ALL_FAULTS: readonly Fault[] = [
  ...envelopeFaults,
  ...licenseFaults,
  ...customersFaults,
  ...billingFaults,
  ...listingsFaults,
  ...entitiesFaults,
  ...balancesFaults,
  ...plansFaults,
  ...featuresFaults,
  ...previewFaults,
  ...referralsFaults,
];

export const FAULTS: ReadonlyMap<string, Fault> = new Map(ALL_FAULTS.map((fault) => [fault.rule, fault]));
if (FAULTS.size !== ALL_FAULTS.length) throw new Error('two faults break the same rule; keep one fault per rule');

/** The faults for these rule IDs; an unknown ID is an error, so a typo cannot pass as a green run. */
export function faultsFor(rules: readonly string[]): Fault[] {
  return rules.map((rule) => FAULTS.get(rule) ?? failUnknown(rule));
}

/**
 * The operations whose answers a fault can change: those it overrides, those its rule constrains, and
 * those whose shape its rule is; undefined when it can touch any (a request or response hook with no
 * operation named, an envelope fault).
 */
export function operationsTouched(fault: Fault): ReadonlySet<string> | undefined {
  const rule = ruleById.get(fault.rule);
  const named = new Set([
    ...Object.keys(fault.handlers ?? {}),
    ...(rule?.operations ?? []),
    ...Object.values(operations)
      .filter((op) => op.shapeRule === fault.rule)
      .map((op) => op.name),
  ]);
  if (named.size === 0 || ((fault.request !== undefined || fault.response !== undefined) && (rule?.operations.length ?? 0) === 0)) return undefined;
  return named;
}

function failUnknown(rule: string): never {
  throw new Error(`No fault breaks rule ${rule}. Known: ${[...FAULTS.keys()].join(', ')}`);
}
