/**
 * The registry of deliberately broken variants, keyed by the rule ID each one breaks. The suite's
 * can-fail meta-test starts the fake with each of them and requires a scenario carrying that rule
 * ID to fail.
 */
import type { Fault } from './fault.ts';
import { licenseFaults } from './licenses.ts';

export const FAULTS: ReadonlyMap<string, Fault> = new Map([...licenseFaults].map((fault) => [fault.rule, fault]));

/** The faults for these rule IDs; an unknown ID is an error, so a typo cannot pass as a green run. */
export function faultsFor(rules: readonly string[]): Fault[] {
  return rules.map((rule) => FAULTS.get(rule) ?? failUnknown(rule));
}

function failUnknown(rule: string): never {
  throw new Error(`No fault breaks rule ${rule}. Known: ${[...FAULTS.keys()].join(', ')}`);
}
