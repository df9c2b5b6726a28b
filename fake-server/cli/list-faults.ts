/** `besi-fake --list-faults`: every rule a fault can break, its level and what the broken fake does instead. */
import { ruleById } from '../../spec/rules/catalogue.ts';
import { FAULTS } from '../faults/index.ts';

export function listFaults(): string {
  const rows = [...FAULTS.values()].map((fault) => [fault.rule, ruleById.get(fault.rule)?.level ?? '?', fault.breaks] as const);
  const width = Math.max(...rows.map(([rule]) => rule.length));
  return [`${'RULE'.padEnd(width)}  LEVEL   BREAKS`, ...rows.map(([rule, level, breaks]) => `${rule.padEnd(width)}  ${level.padEnd(6)}  ${breaks}`)].join('\n');
}
