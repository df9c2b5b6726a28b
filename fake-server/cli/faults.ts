/**
 * `--fault` and `--list-faults`: every rule a fault can break, its level and what the broken fake
 * does instead. Loaded only for these options: the fault and rule catalogues are most of the fake's code.
 */
import { ruleById } from '../../spec/rules/catalogue.ts';
import { FAULTS } from '../faults/index.ts';
import { closest } from './closest.ts';
import { UsageError } from './options.ts';

export function listFaults(): string {
  const rows = [...FAULTS.values()].map((fault) => [fault.rule, ruleById.get(fault.rule)?.level ?? '?', fault.breaks] as const);
  const width = Math.max(...rows.map(([rule]) => rule.length));
  return [`${'RULE'.padEnd(width)}  LEVEL   BREAKS`, ...rows.map(([rule, level, breaks]) => `${rule.padEnd(width)}  ${level.padEnd(6)}  ${breaks}`)].join('\n');
}

/** Refuses a --fault no fault breaks, naming the closest rule IDs rather than all of them. */
export function checkFaults(rules: readonly string[]): void {
  const unknown = rules.find((rule) => !FAULTS.has(rule));
  if (unknown === undefined) return;
  const known = [...FAULTS.keys()];
  throw new UsageError(`--fault ${JSON.stringify(unknown)}: no fault breaks such a rule; closest: ${closest(unknown, known).join(', ')} (--list-faults lists all ${known.length})`);
}
