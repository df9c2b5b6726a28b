/**
 * The suite must be able to fail, and fail precisely. For every fault of the fake (one rule broken
 * on purpose), start a fake with only that fault (in-process, against-fake.ts) and run scenarios
 * against it:
 * - can-fail: the broken rule must FAIL, so a target that breaks it cannot pass;
 * - precision: the set of rules that FAIL must be exactly the broken rule plus its declared
 *   dependents (DEPENDENT_RULES in precision.ts), over more scenarios than those carrying the rule,
 *   chosen by the sweep (`PRECISION_SWEEP`, precision.ts; both found from one run against the
 *   healthy fake):
 *   - `checked` (the default): the scenarios carrying the rule or its dependents, a few others
 *     deciding each of them through their answers, and of those whose verdicts rest on an answer of
 *     an operation the fault touches (where a misattributed FAIL shows first) at most
 *     PRECISION_SAMPLE, drawn by the test seed. A shape rule is decided by nearly every scenario
 *     that calls its operation, and a fault of every operation (authentication, versions, error
 *     bodies) touches them all: taken whole, eight such faults ran 196 to 249 scenarios each;
 *   - `full` (`npm run test:full`): every scenario that calls an operation the fault can touch, so
 *     every scenario for a fault that can touch every operation.
 * The figure printed at the end: faults whose FAIL set is exact / faults checked (all of them).
 * `PRECISION_RULES=LIC-` (rule-ID prefixes) checks the precision of a subset while working on it;
 * the other faults then keep only the can-fail check (`none`: every fault keeps only that), which
 * runs the scenarios carrying the rule one at a time, the cheapest first, until one fails it.
 * The faults are split between the files can-fail-<n>.test.ts, so that test workers share them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS, operationsTouched } from '../../fake-server/faults/index.ts';
import type { Fault } from '../../fake-server/faults/fault.ts';
import { hashSeed, testSeed } from '../../fixtures/random.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import { failSet, healthyRun, otherFailures, runAgainstFake as runAgainst, type AnyScenario } from './against-fake.ts';
import { expectedFailures, precisionRules, precisionSweep } from './precision.ts';

const selected = precisionRules();
const sweep = precisionSweep();
const seed = testSeed();

/** Under the checked sweep, the most scenarios a fault runs besides those carrying its rule or a dependent (drawn by the test seed from those it can touch). */
export const PRECISION_SAMPLE = 24;
/** Under the checked sweep, the most scenarios a fault runs for each of its rule and dependents that decide it through their answers only. */
const DECIDERS_SAMPLE = 6;

/**
 * Scenarios that decide the rule or one of its declared dependents against the healthy fake
 * (DEPENDENT_RULES: the precision check expects them to FAIL, so the scenarios that can show it must
 * run), and those that use an operation the fault touches (every operation for some): for the full
 * sweep, every scenario deciding them (shape rules of their answers included) and every one that
 * calls such an operation. For the checked sweep, every scenario carrying one of those rules, at
 * most DECIDERS_SAMPLE others deciding each of them through their answers (a shape rule is decided
 * by nearly every scenario that calls its operation), and at most PRECISION_SAMPLE of those resting
 * a verdict on an answer the fault can change, each drawn by the test seed (`operationsOf`: scenario
 * → operations it called against the healthy fake, those its verdicts rested on, the rules it decided).
 */
function relevantScenarios(fault: Fault, operationsOf: ReadonlyMap<string, OperationsUsed>): AnyScenario[] {
  const touched = operationsTouched(fault);
  const expected = expectedFailures(fault.rule);
  const decided = (s: AnyScenario) => operationsOf.get(s.id)?.decided ?? [];
  const touches = (s: AnyScenario) => touched === undefined || [...(operationsOf.get(s.id)?.[sweep] ?? [])].some((op) => touched.has(op));
  if (sweep === 'full') return SCENARIOS.filter((s) => [...s.rules, ...decided(s)].some((r) => expected.includes(r)) || touches(s));
  const draw = (from: readonly AnyScenario[], salt: string, count: number) =>
    from
      .map((s) => ({ id: s.id, rank: hashSeed(seed, `${fault.rule} ${salt} ${s.id}`) }))
      .sort((a, b) => a.rank - b.rank)
      .slice(0, count)
      .map((s) => s.id);
  const chosen = new Set(SCENARIOS.filter((s) => s.rules.some((r) => expected.includes(r))).map((s) => s.id));
  for (const rule of expected) for (const id of draw(SCENARIOS.filter((s) => !chosen.has(s.id) && decided(s).includes(rule) && touches(s)), rule, DECIDERS_SAMPLE)) chosen.add(id);
  for (const id of draw(SCENARIOS.filter((s) => !chosen.has(s.id) && touches(s)), 'others', PRECISION_SAMPLE)) chosen.add(id);
  return SCENARIOS.filter((s) => chosen.has(s.id));
}

/** What a scenario did against the healthy fake: the operations it called, those whose answers its verdicts rested on, and the rules it decided (shape rules of its 200s included). */
interface OperationsUsed {
  readonly full: ReadonlySet<string>;
  readonly checked: ReadonlySet<string>;
  readonly decided: readonly string[];
  /** Requests it sent: what running it costs. */
  readonly requests: number;
}

/** The can-fail and precision checks of every `shards`-th fault, starting at `shard` (1-based). */
export function canFailSuite(shard: number, shards: number): void {
  const faults = [...FAULTS.keys()].filter((_, i) => i % shards === shard - 1);
  const caught: string[] = [];
  const exact: string[] = [];
  const inexact: string[] = [];
  const operationsOf = new Map<string, OperationsUsed>();
  const healthyProblems: string[] = [];

  describe(`every rule the fake can break is caught, and only that rule fails (faults ${shard} of every ${shards})`, () => {
    // Also under PRECISION_RULES=none (test:quick, which leaves the conformance project out): then
    // it only backs 'the healthy fake fails no rule'.
    beforeAll(async () => {
      for (const outcome of await healthyRun()) {
        const behindVerdicts = new Set(Object.values(outcome.verdicts).flatMap((v) => v.seqs ?? []));
        const checked = new Set(outcome.evidence.filter((e) => behindVerdicts.has(e.seq)).map((e) => e.label));
        operationsOf.set(outcome.scenario, { full: new Set(outcome.evidence.map((e) => e.label)), checked, decided: Object.keys(outcome.verdicts), requests: outcome.evidence.length });
        for (const [rule, verdict] of Object.entries(outcome.verdicts)) {
          if (verdict.status === 'FAIL' || verdict.status === 'ERROR') healthyProblems.push(`${outcome.scenario}: ${rule} ${verdict.status}: ${verdict.message ?? ''}`);
        }
      }
    }, 300_000);

    it('the healthy fake fails no rule', () => {
      expect(healthyProblems).toEqual([]);
    });

    it.each(faults)('%s', { timeout: 180_000 }, async (rule) => {
      const fault = FAULTS.get(rule)!;
      const carriers = SCENARIOS.filter((s) => s.rules.includes(rule));
      expect(carriers.length, `no scenario carries ${rule}`).toBeGreaterThan(0);
      if (!selected.has(rule)) {
        // Can-fail alone needs one carrier that fails: the cheapest first (requests against the healthy
        // fake), one at a time, until one does. "Many of a thing" scenarios carry many rules each.
        const cheapestFirst = [...carriers].sort((a, b) => (operationsOf.get(a.id)?.requests ?? 0) - (operationsOf.get(b.id)?.requests ?? 0));
        for (const carrier of cheapestFirst) {
          const [outcome] = await runAgainst([rule], [carrier]);
          expect(outcome!.status === 'error' ? [`${outcome!.scenario}: ${String(outcome!.error)}`] : [], 'scenarios must fail by assertion, not crash').toEqual([]);
          if (outcome!.status === 'fail' || outcome!.verdicts[rule]?.status === 'FAIL') {
            caught.push(rule);
            return;
          }
        }
        expect.fail(`with ${rule} broken (${fault.breaks}), every scenario carrying it still passed: ${carriers.map((s) => s.id).join(', ')}`);
      }
      const outcomes = await runAgainst([rule], relevantScenarios(fault, operationsOf));
      const errors = outcomes.flatMap((o) => Object.entries(o.verdicts).filter(([, v]) => v.status === 'ERROR').map(([r, v]) => `${o.scenario}: ${r}: ${v.message ?? ''}`));
      expect(errors, 'rules must fail by assertion, not end in ERROR').toEqual([]);
      const failing = failSet(outcomes);
      expect(failing, `with ${rule} broken (${fault.breaks}), no scenario FAILed it`).toContain(rule);
      caught.push(rule);
      const why = otherFailures(outcomes, [rule]);
      const expected = expectedFailures(rule);
      (failing.join() === expected.join() ? exact : inexact).push(rule);
      expect(failing, `with only ${rule} broken, other rules FAILed too:\n${why.join('\n')}`).toEqual(expected);
    });

    afterAll(() => {
      console.log(`can-fail (faults ${shard} of every ${shards}): ${caught.length} of ${faults.length} broken rules caught by a scenario carrying their ID`);
      const checked = exact.length + inexact.length;
      console.log(
        `precision (faults ${shard} of every ${shards}, ${sweep} sweep${sweep === 'full' ? '' : '; npm run test:full for the full one'}): ` +
          `${exact.length} of ${checked} faults give exactly their rule's FAIL set (${checked} of ${faults.length} faults checked; TEST_SEED=${seed} draws the sample of a fault touching every operation${inexact.length > 0 ? `; inexact: ${inexact.join(', ')}` : ''})`,
      );
    });
  });
}
