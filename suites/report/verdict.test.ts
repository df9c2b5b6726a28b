/**
 * A certificate means every MUST rule was verified (issue 17 item 3): the run's verdict from a
 * report, as the CLI's exit code and the renderers show it.
 */
import { describe, expect, it } from 'vitest';
import { ConformanceReport, REPORT_FORMAT, type RuleReport, type RuleScenario } from './schema.ts';
import { verdictOf } from './view.ts';

function scenario(status: RuleScenario['status'], extra: Partial<RuleScenario> = {}): RuleScenario {
  return { scenario: 's', title: 't', test: '[R] t', file: 'suites/scenarios/x.test.ts', via: 'declared', status, scenarioStatus: 'pass', ...extra };
}

function rule(level: 'MUST' | 'SHOULD', status: RuleReport['status'], extra: Partial<RuleScenario> = {}): RuleReport {
  return { status, level, scenarios: [scenario(status, extra)] };
}

function report(rules: Record<string, RuleReport>, run: Partial<ConformanceReport['run']> = {}): ConformanceReport {
  return ConformanceReport.parse({
    format: REPORT_FORMAT,
    complete: true,
    run: { targets: [], suiteVersion: '0', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z', durationMs: 1000, result: 'passed', ...run },
    counts: { rules: { PASS: 0, FAIL: 0, BLOCKED: 0, SKIP: 0, ERROR: 0 }, known: 0, scenarios: { pass: 0, fail: 0, error: 0, skip: 0, blocked: 0 }, mustFailures: 0 },
    rules,
    errors: [],
    cleanup: [],
  });
}

describe('verdictOf', () => {
  it('is PASSED only when every applicable MUST rule PASSed: SKIP does not apply, SHOULD failures do not count by default', () => {
    const verdict = verdictOf(report({ A: rule('MUST', 'PASS'), B: rule('MUST', 'SKIP'), C: rule('SHOULD', 'FAIL'), D: rule('SHOULD', 'BLOCKED') }));
    expect(verdict).toEqual({ result: 'PASSED', exitCode: 0, reasons: [], failOn: 'must', blockedMust: [] });
  });

  it('is UNDECIDED while a MUST rule is left BLOCKED, and says what blocked each, grouped by cause', () => {
    const verdict = verdictOf(
      report({
        A: rule('MUST', 'PASS'),
        B: rule('MUST', 'BLOCKED', { blockedBy: 'subscriptions.list not served' }),
        C: rule('MUST', 'BLOCKED', { blockedBy: 'subscriptions.list not served' }),
        D: rule('MUST', 'BLOCKED', { blockedBy: 'setup billing.attach' }),
        E: rule('SHOULD', 'BLOCKED', { blockedBy: 'setup billing.attach' }),
      }),
    );
    expect(verdict).toMatchObject({
      result: 'UNDECIDED',
      exitCode: 2,
      blockedMust: [
        { by: 'subscriptions.list not served', rules: ['B', 'C'] },
        { by: 'setup billing.attach', rules: ['D'] },
      ],
      reasons: ['2 MUST rule(s) BLOCKED by subscriptions.list not served, so not verified: B, C', '1 MUST rule(s) BLOCKED by setup billing.attach, so not verified: D'],
    });
  });

  it('is FAILED on a MUST FAIL even with MUST rules BLOCKED: a deviation found is decided', () => {
    expect(verdictOf(report({ A: rule('MUST', 'FAIL'), B: rule('MUST', 'BLOCKED', { blockedBy: 'A' }) }))).toMatchObject({ result: 'FAILED', exitCode: 1, reasons: ['1 MUST rule(s) fail: A'] });
  });

  it('is UNDECIDED when no MUST rule was verified at all', () => {
    expect(verdictOf(report({ A: rule('MUST', 'SKIP'), B: rule('SHOULD', 'PASS') }))).toMatchObject({ result: 'UNDECIDED', exitCode: 2, reasons: ['no MUST rule was verified: every one was skipped'] });
  });

  it('fails on SHOULD failures too with failOn should, given or recorded in the report', () => {
    const rules = { A: rule('MUST', 'PASS'), B: rule('SHOULD', 'FAIL'), C: { ...rule('SHOULD', 'FAIL'), known: { reason: 'ticket' } } };
    expect(verdictOf(report(rules))).toMatchObject({ result: 'PASSED', exitCode: 0 });
    const expected = { result: 'FAILED', exitCode: 1, failOn: 'should', reasons: ['1 SHOULD rule(s) fail (the run fails on SHOULD rules too): B'] };
    expect(verdictOf(report(rules), { failOn: 'should' })).toMatchObject(expected);
    expect(verdictOf(report(rules, { failOn: 'should' }))).toMatchObject(expected);
  });
});
