/**
 * The suite covers the catalogue: every testable rule is carried by at least one scenario and can be
 * broken on purpose in the fake; scenarios name only testable rules of the catalogue.
 */
import { describe, expect, it } from 'vitest';
import { isTestable, RULES, ruleById } from '../../spec/rules/catalogue.ts';
import { FAULTS } from '../../fake-server/faults/index.ts';
import { SCENARIOS } from '../scenarios/index.ts';

const testable = RULES.filter(isTestable);
const carried = new Set(SCENARIOS.flatMap((s) => s.rules));

describe('rule coverage', () => {
  it('every testable rule has a scenario', () => {
    expect(testable.filter((rule) => !carried.has(rule.id)).map((rule) => rule.id)).toEqual([]);
  });

  // The compiler already refuses a rule ID the catalogue does not have (see `scenario` in support.ts).
  it('scenarios name no excluded rule', () => {
    const excluded = SCENARIOS.flatMap((s) => s.rules.filter((id) => ruleById.get(id)?.excluded !== undefined).map((id) => `${s.id}: ${id}`));
    expect(excluded).toEqual([]);
  });

  it('scenario IDs are unique', () => {
    const ids = SCENARIOS.map((s) => s.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('every testable rule has a fault that breaks it, and every fault breaks a testable rule', () => {
    expect(testable.filter((rule) => !FAULTS.has(rule.id)).map((rule) => rule.id)).toEqual([]);
    expect([...FAULTS.keys()].filter((id) => !isTestable(ruleById.get(id) ?? { excluded: 'unknown' } as never))).toEqual([]);
  });
});
