/**
 * Verdicts do not depend on the schedule (suites/framework/schedule.ts). The whole suite is run one
 * scenario after another and then concurrently, each time against a fresh fake started alike and
 * with the same seed, and every scenario must come to the same status and every rule to the same
 * verdict (and, when BLOCKED, by the same cause): against the healthy fake, where everything
 * passes, and against a fake with several faults at once (one per part of the interface, drawn from
 * the test seed), where FAIL, BLOCKED and PASS mix. Messages may differ only in the IDs the fake
 * hands out, whose order follows the schedule; they are not compared.
 */
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../../fake-server/faults/index.ts';
import { hashSeed, testSeed } from '../../fixtures/random.ts';
import { aggregateRuleStatus, type RuleStatus } from '../framework/checks.ts';
import { DEFAULT_CONCURRENCY } from '../framework/config.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { healthyRun, runAgainstFake, type Outcome } from './against-fake.ts';

const seed = testSeed();
/** Parts whose faults change every answer (authentication, conventions, versions, errors): with them nothing else would be reached. */
const EVERYWHERE = new Set(['AUTH', 'CONV', 'VER', 'ERR']);

/** One fault per part of the interface, drawn from the test seed. */
function faultMix(): string[] {
  const byPart = new Map<string, string[]>();
  for (const rule of FAULTS.keys()) {
    const part = rule.split('-')[0]!;
    if (!EVERYWHERE.has(part)) byPart.set(part, [...(byPart.get(part) ?? []), rule]);
  }
  return [...byPart.entries()].map(([part, rules]) => rules[hashSeed(seed, part) % rules.length]!);
}

const declared = new Map(SCENARIOS.map((s) => [s.id, new Set<string>(s.rules)]));

/**
 * Per scenario: its status, and each declared rule's verdict with what blocked it; per rule, its
 * verdict across the run. A shape rule a scenario did not declare is compared across the run only:
 * which scenario makes a request shared by the run (a wire-name probe, remembered for the target
 * once read) follows the schedule, and so do the 200s it exercises.
 */
function verdictsOf(outcomes: readonly Outcome[]): Record<string, string> {
  const byRule = new Map<string, RuleStatus[]>();
  for (const o of outcomes) for (const [rule, v] of Object.entries(o.verdicts)) byRule.set(rule, [...(byRule.get(rule) ?? []), v.status]);
  return Object.fromEntries([
    ...outcomes.flatMap((o) => [
      [o.scenario, o.status],
      ...Object.entries(o.verdicts)
        .filter(([rule]) => declared.get(o.scenario)?.has(rule))
        .map(([rule, v]) => [`${o.scenario} ${rule}`, v.blockedBy === undefined ? v.status : `${v.status} by ${v.blockedBy}`]),
    ]),
    ...[...byRule].map(([rule, statuses]) => [rule, aggregateRuleStatus(statuses)]),
  ]);
}

describe(`a concurrent run gives the verdicts of a sequential one (TEST_SEED=${seed})`, () => {
  const cases = [
    { name: 'the healthy fake', faults: [] as string[], concurrency: DEFAULT_CONCURRENCY },
    { name: `a fake with ${faultMix().length} faults at once (${faultMix().join(', ')})`, faults: faultMix(), concurrency: 4 * DEFAULT_CONCURRENCY },
  ];
  it.each(cases)('$name: one at a time and $concurrency at a time', { timeout: 300_000 }, async ({ faults, concurrency }) => {
    const sequential = verdictsOf(await runAgainstFake(faults, SCENARIOS, { concurrency: 1 }));
    // The healthy concurrent run is the one the other meta-tests share (default concurrency, a fresh fake).
    const concurrent = verdictsOf(await (faults.length === 0 ? healthyRun() : runAgainstFake(faults, SCENARIOS, { concurrency })));
    expect(concurrent).toEqual(sequential);
    if (faults.length > 0) {
      // The comparison means something only where verdicts vary.
      const statuses = new Set(Object.values(sequential).map((v) => v.split(' ')[0]));
      expect([...statuses]).toEqual(expect.arrayContaining(['PASS', 'FAIL', 'BLOCKED']));
    }
  });
});
