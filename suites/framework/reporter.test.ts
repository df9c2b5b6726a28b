import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type TestCase } from 'vitest/node';
import type { Exchange } from './evidence.ts';
import { ConformanceReport as ConformanceReportSchema } from '../report/schema.ts';
import { buildReport, ConformanceReporter, stoppedReport, summaryLines, type CatalogueEntry, type ConformanceReport, type FinishedTest, type RuleResult } from './reporter.ts';
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
function rule(id: string, level: 'MUST' | 'SHOULD'): CatalogueEntry {
  return { id, level, part: 'plans', section: 'Limits', provenance: 'documented', quote: `${id} sentence` };
}
function exchange(seq: number): Exchange {
  return { seq, label: 'x', startedAt: '', durationMs: 1, attempts: 1, retries: [], request: { method: 'POST', url: 'http://t/v1/x', headers: { authorization: 'Bearer [REDACTED]' }, body: { a: 1 } }, response: { status: 200, headers: {}, body: {} } };
}
/** ScenarioMeta.ruleResults (shared contract 1), typed here until scenario.ts declares it. */
function ruleResults(results: Record<string, RuleResult>): Partial<ScenarioMeta> {
  return { ruleResults: results } as Partial<ScenarioMeta>;
}

describe('buildReport', () => {
  it('carries a success rule a server fault was charged to, though the scenario did not declare it (issue 26)', () => {
    const report = buildReport({
      ...times,
      tests: [
        test(
          {
            scenario: 's1',
            rules: ['R-GEN'],
            status: 'error',
            charged: ['ERR-SUCCESS-200-SETUP'],
            ...ruleResults({ 'R-GEN': { status: 'BLOCKED', blockedBy: 'ERR-SUCCESS-200-SETUP', message: 'not reached' }, 'ERR-SUCCESS-200-SETUP': { status: 'ERROR', message: 'a server fault: entities.delete answered 500' } }),
          },
          'failed',
        ),
      ],
    });
    expect(report.rules['ERR-SUCCESS-200-SETUP']).toMatchObject({ status: 'ERROR', scenarios: [{ scenario: 's1', via: 'server-fault', status: 'ERROR', message: 'a server fault: entities.delete answered 500' }] });
    expect(report.rules['R-GEN']).toMatchObject({ status: 'BLOCKED', scenarios: [{ blockedBy: 'ERR-SUCCESS-200-SETUP' }] });
  });

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
    // s6 never ran (filtered out): it is not in the report at all.
    expect(report.rules['R-SKIP']).toMatchObject({ reason: 'needs fixture x', scenarios: [{ scenario: 's5', status: 'SKIP' }] });
    expect(report.rules['R-ALL']?.scenarios.map((s) => [s.scenario, s.status, s.message])).toEqual([
      ['s1', 'PASS', undefined],
      ['s2', 'ERROR', 'TransportError: timeout'],
      ['s3', 'FAIL', 'AssertionError: nope'],
    ]);
    expect(report.counts).toEqual({ rules: { PASS: 0, FAIL: 2, BLOCKED: 0, SKIP: 1, ERROR: 1 }, known: 0, scenarios: { pass: 2, fail: 1, error: 1, skip: 1, blocked: 0 }, mustFailures: 0 });
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
    expect(report.rules['R']?.scenarios[0]).toMatchObject({ status: 'ERROR', scenarioStatus: 'error', message: 'Error: Test timed out in 5000ms.' });
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
    expect(report.rules['SHAPE-1']?.status).toBe('FAIL');
    expect(report.rules['SHAPE-1']?.scenarios.map((s) => [s.scenario, s.via, s.status])).toEqual([
      ['a', 'wire-schema', 'PASS'],
      ['b', 'wire-schema', 'FAIL'],
    ]);
    expect(report.rules['SHAPE-2']?.status).toBe('PASS');
    expect(report.rules['R']?.scenarios).toHaveLength(1);
  });

  it('with a catalogue, adds levels, counts MUST failures and lists uncovered rules', () => {
    const report = buildReport({
      ...times,
      catalogue: [
        rule('M-1', 'MUST'),
        rule('S-1', 'SHOULD'),
        rule('M-2', 'MUST'),
        { ...rule('X-1', 'MUST'), excluded: 'not testable over HTTP' },
      ],
      tests: [test({ scenario: 'a', rules: ['M-1', 'S-1'], status: 'fail' }, 'failed', { errors: [{ message: 'x' }] })],
    });
    expect(report.rules['M-1']).toMatchObject({ level: 'MUST', area: 'plans', section: 'Limits', provenance: 'documented', quote: 'M-1 sentence' });
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

  it('prints the counts, each failing rule with its message and the command that re-runs it, and the seed', () => {
    const report = buildReport({
      ...times,
      catalogue: [rule('M-1', 'MUST')],
      tests: [
        test({ scenario: 'a', rules: ['R'], status: 'pass' }, 'passed'),
        test({ scenario: 'b', rules: ['M-1'], status: 'fail' }, 'failed', { errors: [{ name: 'AssertionError', message: 'expected 400\nsecond line' }] }),
      ],
    });
    expect(summaryLines(report, 'reports', 'conformance run')).toEqual([
      'conformance: 2 rules: 1 PASS, 1 FAIL, 0 BLOCKED, 0 SKIP, 0 ERROR; reports in reports/ (report.html, summary.md, report.json, junit.xml)',
      'conformance: failing rules:',
      '  M-1 [FAIL MUST] AssertionError: expected 400',
      '    re-run: conformance run --only M-1 --seed 9',
      'conformance: seed 9 (reproduce: conformance run --seed 9)',
    ]);
    expect(summaryLines(buildReport({ ...times, tests: [] }), 'r').at(-1)).toBe('conformance: no scenario ran, so no seed was used');
  });

  it('prints an UNDECIDED run\'s blocked MUST rules, the causes of BLOCKED and SKIP rules, and what was left behind in one line', () => {
    const blocked = { status: 'blocked', reason: 'BLOCKED by setup: customers.get_or_create answered 400' } as unknown as Partial<ScenarioMeta>;
    const report = buildReport({
      ...times,
      catalogue: [rule('M-1', 'MUST'), rule('M-2', 'MUST')],
      cleanup: [
        { file: 'a.test.ts', undone: 3, alreadyGone: 0, left: [{ kind: 'customer', id: 'c1' }, { kind: 'customer', id: 'c2' }, { kind: 'feature', id: 'f1' }], failed: [] },
        { file: 'b.test.ts', undone: 1, alreadyGone: 0, left: [{ kind: 'customer', id: 'c3' }], failed: [{ kind: 'plan', id: 'p1', error: 'answered 500' }] },
      ],
      tests: [
        test({ scenario: 'b', rules: ['M-1'], ...blocked }, 'skipped'),
        test({ scenario: 's', rules: ['M-2'], status: 'skip', reason: 'needs the control plane' }, 'skipped'),
      ],
    });
    const lines = summaryLines(report, 'reports');
    expect(lines).toContain('conformance: undecided: 1 MUST rule(s) have no verdict:');
    expect(lines).toContain('  M-1 [BLOCKED] BLOCKED by setup: customers.get_or_create answered 400');
    expect(lines).toContain('  SKIP 1 rule(s): needs the control plane');
    expect(lines).toContain('conformance: cleanup removed 4 record(s); left on the target: 4 record(s) the API cannot remove (3 customer, 1 feature), 1 whose removal failed (1 plan); their IDs are in summary.md');
  });

  it('writes the report of a run stopped at preflight: no rule, the target, and why', () => {
    const target: TargetInfo = { ...info, kind: 'deployment' };
    const report = stoppedReport({ target, stopped: { stage: 'preflight', kind: 'key-refused', message: `The target refused the API key (401: "bad key ${TEST_KEY}")` }, startedAt: new Date(0), finishedAt: new Date(2_000), secrets: [TEST_KEY] });
    expect(ConformanceReportSchema.parse(report)).toMatchObject({
      complete: true,
      rules: {},
      run: { targets: [target], seed: 9, durationMs: 2_000, stopped: { stage: 'preflight', kind: 'key-refused' } },
      errors: [{ message: expect.stringMatching(/^Stopped at preflight \(key-refused\): The target refused the API key/) }],
    });
    expect(JSON.stringify(report)).not.toContain(TEST_KEY);
  });

  it('reports the rules of a blocked scenario (skipped in vitest, blocked in its meta) as BLOCKED with the reason', () => {
    const blocked = { status: 'blocked', reason: 'BLOCKED by setup: customers.get_or_create answered 500' } as unknown as Partial<ScenarioMeta>;
    const report = buildReport({ ...times, tests: [test({ scenario: 'b', rules: ['R-B'], ...blocked }, 'skipped')] });
    expect(report.rules['R-B']).toMatchObject({ status: 'BLOCKED', reason: 'BLOCKED by setup: customers.get_or_create answered 500' });
    expect(report.counts.scenarios.blocked).toBe(1);
  });

  it("takes each rule's verdict from the scenario's rule results where it has them", () => {
    const report = buildReport({
      ...times,
      tests: [
        test({ scenario: 'a', rules: ['R-1', 'R-2', 'R-3'], status: 'fail', evidence: [exchange(1), exchange(2)], ...ruleResults({
          'R-1': { status: 'PASS' },
          'R-2': { status: 'FAIL', message: 'expected 404', expected: 404, actual: 200, exchanges: [0] },
          'R-3': { status: 'BLOCKED', blockedBy: 'setup: customers.get_or_create answered 500' },
        }) }, 'failed', { errors: [{ name: 'AssertionError', message: 'expected 404' }] }),
      ],
    });
    expect(report.rules['R-1']?.status).toBe('PASS');
    expect(report.rules['R-2']?.scenarios[0]).toMatchObject({ status: 'FAIL', message: 'expected 404', expected: 404, actual: 200, exchanges: [{ seq: 1, curl: expect.stringMatching(/^curl -sS -X POST 'http:\/\/t\/v1\/x' -H "authorization: Bearer \$API_KEY"/) }] });
    expect(report.rules['R-3']).toMatchObject({ status: 'BLOCKED', reason: 'setup: customers.get_or_create answered 500' });
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
    const reporter = new ConformanceReporter({ reportDir: dir, print: (line) => printed.push(line) });
    const exitCode = process.exitCode;
    const vitest = await createVitest('test', {
      root: ROOT,
      config: false,
      include: ['suites/framework/fixture-run/scenarios.fixture.ts'],
      watch: false,
      reporters: [
        reporter,
        {
          onTestCaseResult(testCase: TestCase) {
            const result = testCase.result();
            if (result.state === 'skipped') notes.set(testCase.name, result.note);
          },
        },
      ],
    });
    try {
      await vitest.start();
    } finally {
      await vitest.close();
      process.exitCode = exitCode;
    }
    raw = readFileSync(join(dir, 'report.json'), 'utf8');
    report = JSON.parse(raw) as ConformanceReport;
    junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
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
      ['REP-PASS', 'PASS'],
      ['REP-SKIP', 'SKIP'],
    ]);
  });

  it('carries the failure message and the redacted exchanges of a failing scenario', () => {
    const failure = report.rules['DOC-B']?.scenarios[0];
    expect(failure?.message).toMatch(/^things.get: expected 200, got 401 .*invalid_secret_key/);
    expect(failure?.exchanges).toHaveLength(1);
    expect(failure?.exchanges?.[0]).toMatchObject({ label: 'things.get', request: { headers: { authorization: 'Bearer [REDACTED]' } }, response: { status: 401 } });
    expect(failure?.exchanges?.[0]?.curl).toContain('-H "authorization: Bearer $API_KEY"');
    expect(report.rules['THING-GET-SHAPE']?.scenarios.find((s) => s.status === 'FAIL')).toMatchObject({
      message: 'things.get: the 200 answer does not match its schema: id: Invalid input: expected string, received number',
      exchanges: [expect.objectContaining({ label: 'things.get', curl: expect.stringContaining('$API_KEY') })],
    });
    expect(report.rules['DOC-E']?.scenarios[0]?.message).toBe('the scenario crashed: scenario bug');
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

  it('prints progress by area, the counts, and the seed at the end of the run', () => {
    expect(printed[0]).toMatch(/^scenarios\.fixture +5 scenarios: 1 pass, 2 fail, 1 error, 1 skip$/);
    expect(printed).toContainEqual(expect.stringMatching(/^conformance: 7 rules: 3 PASS, 2 FAIL, 0 BLOCKED, 1 SKIP, 1 ERROR/));
    expect(printed.at(-1)).toBe('conformance: seed 4242 (reproduce: npm run conformance -- --seed 4242)');
  });

  it('writes the JUnit XML from the report: a test case per rule, its time the time of its scenarios, skip reasons in the message', () => {
    const duration = report.rules['DOC-B']?.scenarios[0]?.durationMs;
    expect(duration).toEqual(expect.any(Number));
    expect(junit).toContain(`<testcase classname="other" name="DOC-B" time="${(duration! / 1000).toFixed(3)}">`);
    expect(junit).toContain(`<skipped message="SKIP: needs the fake&apos;s control plane (POST /_fake/health answered 404)"/>`);
  });

  it('gives a failing rule a replay script of its scenario, with the key, the target and the run part of IDs as variables', () => {
    const replay = report.rules['DOC-B']?.scenarios[0]?.replay;
    expect(replay).toMatch(/^#!\/bin\/sh\n# Replays DOC-B \(FAIL\): scenario REP-FAIL, "is answered with the key echoed", seed 4242\./);
    expect(replay).toContain('# 1. things.get: the run got 401; DOC-B FAIL here\ncurl -sS -X POST "$BASE_URL/v1/things.get" -w ');
    expect(replay).toContain('-H "authorization: Bearer $API_KEY"');
    expect(replay).not.toContain(TEST_KEY);
    // Passing rules, and rules whose scenario made no call, carry none.
    expect(report.rules['DOC-A']?.scenarios.some((s) => s.replay !== undefined)).toBe(false);
    expect(report.rules['DOC-E']?.scenarios[0]?.replay).toBeUndefined();
  });
});
