/**
 * In a real vitest run, through the conformance reporter (issue 17 item 1): a check that fails on an
 * asymmetric matcher reaches report.json (its operands printed, nothing left to clone), a SHOULD
 * failure does not stop the MUST check after it, and the run goes on to the next scenario.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import { ConformanceReporter } from '../framework/reporter.ts';
import { ConformanceReport } from '../report/schema.ts';
import { verdictOf } from '../report/view.ts';
import { RULES } from '../../spec/rules/catalogue.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'conformance-verdicts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('verdicts in a real run', () => {
  let report: ConformanceReport;

  beforeAll(async () => {
    const reporter = new ConformanceReporter({ reportDir: dir, catalogue: RULES, progress: 'none', print: () => {} });
    const exitCode = process.exitCode;
    const vitest = await createVitest('test', { root: ROOT, config: false, include: ['suites/meta/verdict-run/scenarios.fixture.ts'], watch: false, reporters: [reporter] });
    try {
      await vitest.start();
    } finally {
      await vitest.close();
      process.exitCode = exitCode;
    }
    report = ConformanceReport.parse(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')));
  }, 120_000);

  it('reports a failed asymmetric matcher as the FAIL of its rule, operands printed, with every scenario reported', () => {
    expect(report.errors).toEqual([]);
    expect(report.complete).toBe(true);
    const failure = report.rules['AUTH-BEARER-REQUIRED']?.scenarios[0];
    expect(failure).toMatchObject({
      status: 'FAIL',
      message: 'the items: [0].created_at: expected Any<Number>, saw "yesterday"',
      expected: [{ created_at: 'Any<Number>' }],
      actual: [{ created_at: 'yesterday' }],
    });
    expect(report.rules['AUTH-SERVER-ADDRESS']?.status).toBe('PASS');
  });

  it('reports a SHOULD failure and the MUST check after it, each on its own', () => {
    expect(report.rules['AUTH-NO-KEY-CODE']).toMatchObject({ status: 'FAIL', level: 'SHOULD', scenarios: [{ message: 'add_on: expected true, saw false' }] });
    expect(report.rules['AUTH-SECRET-KEY']).toMatchObject({ status: 'PASS', level: 'MUST' });
  });

  it('fails the run on the MUST failure', () => {
    expect(verdictOf(report)).toMatchObject({ result: 'FAILED', exitCode: 1, reasons: ['1 MUST rule(s) fail: AUTH-BEARER-REQUIRED'] });
  });
});
