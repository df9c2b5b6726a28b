import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type TestCase } from 'vitest/node';
import { buildReport, ConformanceReporter, summaryLines, type ConformanceReport, type FinishedTest } from './reporter.ts';
import type { ScenarioMeta } from './scenario.ts';
import type { TargetInfo } from './target.ts';
import { TEST_KEY } from './testing.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-report-'));
  dirs.push(dir);
  return dir;
}

const info: TargetInfo = { baseUrl: 'http://t', kind: 'fake', apiVersion: '2.4.0', seed: 9, profile: 'default', readOnly: false };
function test(meta: Partial<ScenarioMeta> & Pick<ScenarioMeta, 'scenario' | 'rules'>, state: FinishedTest['state'], extra: Partial<FinishedTest> = {}): FinishedTest {
  return { fullName: `[${meta.rules.join(', ')}] ${meta.scenario}`, file: 'suites/x.test.ts', state, errors: [], meta: { title: meta.scenario, target: info, ...meta }, ...extra };
}
const times = { startedAt: new Date(0), finishedAt: new Date(1_500), result: 'failed' as const, errors: [], cleanup: [] };

describe('buildReport', () => {
  it('gives a rule FAIL over ERROR over PASS over SKIP, across the scenarios that carry it', () => {
    const report = buildReport({
      ...times,
      tests: [
        test({ scenario: 's1', rules: ['R-ALL'], status: 'pass' }, 'passed'),
        test({ scenario: 's2', rules: ['R-ALL', 'R-ERR'], status: 'error' }, 'failed', { errors: [{ name: 'TransportError', message: 'timeout' }] }),
        test({ scenario: 's3', rules: ['R-ALL', 'R-PASS'], status: 'fail' }, 'failed', { errors: [{ name: 'AssertionError', message: 'nope' }] }),
        test({ scenario: 's4', rules: ['R-PASS'], status: 'pass' }, 'passed'),
        test({ scenario: 's5', rules: ['R-PASS', 'R-SKIP'], status: 'skip', reason: 'needs fixture x' }, 'skipped', { note: 'needs fixture x' }),
        test({ scenario: 's6', rules: ['R-SKIP'] }, 'skipped'),
      ],
    });
    expect(Object.fromEntries(Object.entries(report.rules).map(([id, r]) => [id, r.status]))).toEqual({
      'R-ALL': 'FAIL',
      'R-ERR': 'ERROR',
      'R-PASS': 'FAIL',
      'R-SKIP': 'SKIP',
    });
    expect(report.rules['R-SKIP']?.reason).toBe('needs fixture x; not run (skipped or filtered out)');
    expect(report.rules['R-ALL']?.failures).toEqual(['TransportError: timeout', 'AssertionError: nope']);
    expect(report.counts).toEqual({ rules: { PASS: 0, FAIL: 2, BLOCKED: 0, SKIP: 1, ERROR: 1 }, scenarios: { pass: 2, fail: 1, error: 1, skip: 2, blocked: 0 } });
    expect(report.run).toMatchObject({ seed: 9, targets: [info], durationMs: 1_500, result: 'failed' });
  });

  it('trusts the test result over stale meta, and ignores tests that are not scenarios', () => {
    const report = buildReport({
      ...times,
      tests: [
        test({ scenario: 'timed-out', rules: ['R'] }, 'failed', { errors: [{ message: 'Test timed out in 5000ms.' }] }),
        { fullName: 'an ordinary unit test', file: 'spec/x.test.ts', state: 'failed', errors: [{ message: 'x' }], meta: undefined },
      ],
    });
    expect(report.rules['R']?.scenarios[0]).toMatchObject({ status: 'error', failures: ['Error: Test timed out in 5000ms.'] });
    expect(Object.keys(report.rules)).toEqual(['R']);
  });

  it('credits an undeclared shape rule through the wire-schema checks', () => {
    const report = buildReport({
      ...times,
      tests: [
        test({ scenario: 'a', rules: ['R'], status: 'pass', shapeChecks: { 'SHAPE-1': 'pass', R: 'pass' } }, 'passed'),
        test({ scenario: 'b', rules: ['Q'], status: 'fail', shapeChecks: { 'SHAPE-1': 'fail', 'SHAPE-2': 'pass' }, evidence: [] }, 'failed', {
          errors: [{ name: 'WireSchemaError', message: 'x.get: … (rule SHAPE-1)' }],
        }),
      ],
    });
    expect(report.rules['SHAPE-1']).toMatchObject({ status: 'FAIL', failures: ['WireSchemaError: x.get: … (rule SHAPE-1)'] });
    expect(report.rules['SHAPE-1']?.scenarios.map((s) => [s.scenario, s.via, s.status])).toEqual([
      ['a', 'wire-schema', 'pass'],
      ['b', 'wire-schema', 'fail'],
    ]);
    expect(report.rules['SHAPE-2']?.status).toBe('PASS');
    expect(report.rules['R']?.scenarios).toHaveLength(1);
  });

  it('with a catalogue, adds levels, counts MUST failures and lists uncovered rules', () => {
    const report = buildReport({
      ...times,
      catalogue: [
        { id: 'M-1', level: 'MUST' },
        { id: 'S-1', level: 'SHOULD' },
        { id: 'M-2', level: 'MUST' },
        { id: 'X-1', level: 'MUST', excluded: 'not testable over HTTP' },
      ],
      tests: [test({ scenario: 'a', rules: ['M-1', 'S-1'], status: 'fail' }, 'failed', { errors: [{ message: 'x' }] })],
    });
    expect(report.rules['M-1']?.level).toBe('MUST');
    expect(report.counts.mustFailures).toBe(1);
    expect(report.uncovered).toEqual(['M-2']);
  });

  it('scrubs secrets from failure messages and errors', () => {
    const report = buildReport({
      ...times,
      secrets: ['sekrit'],
      errors: [{ file: 'a.test.ts', message: 'failed to load: sekrit' }],
      tests: [test({ scenario: 'a', rules: ['R'], status: 'fail' }, 'failed', { errors: [{ message: 'got sekrit' }] })],
    });
    expect(JSON.stringify(report)).not.toContain('sekrit');
  });

  it('prints the seed, and says so when no scenario ran', () => {
    const report = buildReport({ ...times, tests: [test({ scenario: 'a', rules: ['R'], status: 'pass' }, 'passed')] });
    expect(summaryLines(report, 'reports/report.json')).toEqual([
      'conformance: 1 rules: 1 PASS, 0 FAIL, 0 BLOCKED, 0 SKIP, 0 ERROR (scenarios: 1 pass, 0 fail, 0 skip, 0 error); report: reports/report.json',
      'conformance: seed 9 (reproduce with CONFORMANCE_SEED=9)',
    ]);
    expect(summaryLines(buildReport({ ...times, tests: [] }), 'r.json').at(-1)).toBe('conformance: no scenario ran, so no seed was used');
  });
});

describe('ConformanceReporter in a real vitest run', () => {
  let report: ConformanceReport;
  let raw: string;
  let junit: string;
  const printed: string[] = [];
  /** Skip notes as vitest itself records them (what its own reporters show). */
  const notes = new Map<string, string | undefined>();

  beforeAll(async () => {
    const dir = tempDir();
    const junitFile = join(dir, 'junit.xml');
    const reporter = new ConformanceReporter({ reportDir: dir, print: (line) => printed.push(line) });
    const exitCode = process.exitCode;
    const vitest = await createVitest('test', {
      root: ROOT,
      config: false,
      include: ['suites/framework/fixture-run/scenarios.fixture.ts'],
      watch: false,
      reporters: [
        reporter,
        'junit',
        {
          onTestCaseResult(testCase: TestCase) {
            const result = testCase.result();
            if (result.state === 'skipped') notes.set(testCase.name, result.note);
          },
        },
      ],
      outputFile: { junit: junitFile },
    });
    try {
      await vitest.start();
    } finally {
      await vitest.close();
      process.exitCode = exitCode;
    }
    raw = readFileSync(join(dir, 'report.json'), 'utf8');
    report = JSON.parse(raw) as ConformanceReport;
    junit = existsSync(junitFile) ? readFileSync(junitFile, 'utf8') : '';
  }, 120_000);

  it('keys the report by rule, with each status', () => {
    const statuses = Object.fromEntries(Object.entries(report.rules).map(([id, r]) => [id, r.status]));
    expect(statuses).toEqual({
      'DOC-A': 'PASS',
      'DOC-B': 'FAIL',
      // A wire-schema failure fails the shape rule only; the scenario's own assertions passed.
      'DOC-C': 'PASS',
      'DOC-D': 'SKIP',
      'DOC-E': 'ERROR',
      'THING-CREATE-SHAPE': 'PASS',
      'THING-GET-SHAPE': 'FAIL',
    });
    expect(report.counts.scenarios).toEqual({ pass: 1, fail: 2, skip: 1, error: 1, blocked: 0 });
  });

  it('gives the skip reason of a scenario whose capability is missing', () => {
    expect(report.rules['DOC-D']).toMatchObject({ status: 'SKIP', reason: "needs the fake's control plane (POST /_fake/health answered 404)" });
    expect(notes).toEqual(new Map([['[DOC-A, DOC-D] reads the clock', "needs the fake's control plane (POST /_fake/health answered 404)"]]));
    expect(report.rules['DOC-A']?.scenarios.map((s) => [s.scenario, s.status])).toEqual([
      ['REP-PASS', 'pass'],
      ['REP-SKIP', 'skip'],
    ]);
  });

  it('carries the failure message and the redacted exchanges of a failing scenario', () => {
    const rule = report.rules['DOC-B'];
    expect(rule?.failures[0]).toMatch(/^AssertionError: things.get: expected 200, got 401 .*invalid_secret_key/);
    const evidence = rule?.scenarios[0]?.evidence;
    expect(evidence).toHaveLength(1);
    expect(evidence?.[0]).toMatchObject({ label: 'things.get', request: { headers: { authorization: 'Bearer [REDACTED]' } }, response: { status: 401 } });
    expect(report.rules['THING-GET-SHAPE']?.failures[0]).toMatch(/^Error: THING-GET-SHAPE FAIL: things.get: the 200 answer does not match its schema: id: Invalid input: expected string, received number/);
    expect(report.rules['DOC-E']?.failures).toEqual(['TypeError: scenario bug']);
  });

  it('never contains the key, in the report or in the JUnit XML', () => {
    expect(raw).not.toContain(TEST_KEY);
    expect(junit).not.toContain(TEST_KEY);
    expect(raw).toContain('[REDACTED]');
  });

  it('records the run: target, version, seed, timing and the cleanup', () => {
    expect(report.run.targets).toEqual([expect.objectContaining({ kind: 'deployment', apiVersion: '2.4.0', seed: 4242, profile: 'default' })]);
    expect(report.run.seed).toBe(4242);
    expect(Date.parse(report.run.finishedAt)).toBeGreaterThanOrEqual(Date.parse(report.run.startedAt));
    expect(report.run.result).toBe('failed');
    expect(report.cleanup).toEqual([
      { file: 'suites/framework/fixture-run/scenarios.fixture.ts', undone: 1, alreadyGone: 0, left: [], failed: [expect.objectContaining({ kind: 'thing', error: expect.stringMatching(/^answered 500/) })] },
    ]);
    expect(report.errors).toEqual([]);
  });

  it('prints the seed at the end of the run', () => {
    expect(printed.at(-1)).toBe('conformance: seed 4242 (reproduce with CONFORMANCE_SEED=4242)');
    expect(printed[0]).toMatch(/^conformance: 7 rules: 3 PASS, 2 FAIL, 0 BLOCKED, 1 SKIP, 1 ERROR/);
  });

  it('lets the JUnit reporter name every test with its rule IDs', () => {
    expect(junit).toContain('name="[DOC-A, DOC-D] reads the clock"');
    expect(junit).toContain('name="[DOC-B] is answered with the key echoed"');
  });
});
