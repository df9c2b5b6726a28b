/**
 * No MUST verdict rests on reference-only behaviour (DESIGN.md decision 3), and no precondition on
 * the behaviour under test (issue 17). Checks:
 * - statically, every MUST rule of the catalogue is `documented`;
 * - dynamically, against the healthy fake, no check of a MUST rule rests on a reference-only
 *   operation: neither asserts the answer of one (`expectOk(result, rule)` on `billing.attach`…)
 *   nor follows a read of one made since the check before (`entities.get`, `customers.get`…; see
 *   RecordedVerdict.referenceOperations). Observe through documented operations instead
 *   (`entities.list`, `licenses.list`), or make the reference behaviour its own SHOULD rule;
 * - no entry of the temporary precondition exemptions is stale: each names a scenario whose
 *   preconditions still rest on that operation (suites/framework/precondition-exemptions.ts; a
 *   precondition that does so without an entry already ends its scenario in ERROR).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RULES, ruleById } from '../../spec/rules/catalogue.ts';
import { SCENARIOS } from '../scenarios/index.ts';
import type { RuleDef } from '../../spec/rules/rule.ts';
import { PRECONDITION_EXEMPTIONS } from '../framework/precondition-exemptions.ts';
import { runAgainstFake, type Outcome } from './against-fake.ts';

describe('MUST rules rest on the document alone', () => {
  let outcomes: Outcome[];
  beforeAll(async () => {
    outcomes = await runAgainstFake([], SCENARIOS);
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

  it('every precondition exemption is still used (remove the stale ones)', () => {
    const used = new Set(outcomes.flatMap((outcome) => (outcome.overreachingPreconditions ?? []).filter((f) => f.exempt).map((f) => `${outcome.scenario} ${f.operation}`)));
    const stale = Object.entries(PRECONDITION_EXEMPTIONS).flatMap(([scenario, operations]) => operations.filter((operation) => !used.has(`${scenario} ${operation}`)).map((operation) => `${scenario}: ${operation}`));
    expect(stale).toEqual([]);
  });
});
