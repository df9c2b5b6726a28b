/**
 * No MUST verdict rests on reference-only behaviour (DESIGN.md decision 3), and no precondition on
 * the behaviour under test (issue 17). Checks:
 * - statically, every MUST rule of the catalogue is `documented`;
 * - dynamically, against the healthy fake, no check of a MUST rule rests on a reference-only
 *   operation: neither asserts the answer of one (`expectOk(result, rule)` on `billing.attach`…)
 *   nor follows a read of one made since the check before (`entities.get`, `customers.get`…; see
 *   RecordedVerdict.referenceOperations). Observe through documented operations instead
 *   (`entities.list`, `licenses.list`), or make the reference behaviour its own SHOULD rule.
 * A precondition resting on the behaviour under test ends its scenario in ERROR (checks.ts), which
 * the conformance run against the healthy fake shows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RULES, ruleById } from '../../spec/rules/catalogue.ts';
import type { RuleDef } from '../../spec/rules/rule.ts';
import { healthyRun, type Outcome } from './against-fake.ts';

describe('MUST rules rest on the document alone', () => {
  let outcomes: Outcome[];
  beforeAll(async () => {
    outcomes = await healthyRun();
  }, 300_000);

  it('every MUST rule is documented', () => {
    const rules: readonly RuleDef[] = RULES;
    expect(rules.filter((rule) => rule.level === 'MUST' && rule.provenance !== 'documented').map((rule) => rule.id)).toEqual([]);
  });

  it('no check of a MUST rule rests on a reference-only operation', () => {
    const offending = outcomes.flatMap((outcome) =>
      Object.entries(outcome.verdicts)
        .filter(([rule, verdict]) => ruleById.get(rule)?.level === 'MUST' && (verdict.referenceOperations?.length ?? 0) > 0)
        .map(([rule, verdict]) => `${outcome.scenario}: ${rule} rests on ${verdict.referenceOperations!.join(', ')}`),
    );
    expect(offending).toEqual([]);
  });
});
