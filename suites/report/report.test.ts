/**
 * The report's pure parts: escapers, the curl, the baseline, the verdict, the merge of a re-run,
 * the selection of scenarios, and renderers fed with hostile text.
 */
import { describe, expect, it } from 'vitest';
import { XMLValidator } from 'fast-xml-parser';
import { applyBaseline, baselineFrom } from './baseline.ts';
import { curlOf, shellQuote } from './curl.ts';
import { escapeHtml, escapeMarkdown, escapeXml, markdownBlock, markdownCode } from './escape.ts';
import { mergeReports } from './merge.ts';
import { renderHtml } from './report-html.ts';
import { renderJunit } from './report-junit.ts';
import { renderMarkdown } from './report-markdown.ts';
import { BASELINE_FORMAT, ConformanceReport, REPORT_FORMAT, type RuleReport, type RuleScenario } from './schema.ts';
import { exactNames, failedScenarioIds, selectScenarios } from './select.ts';
import { verdictOf } from './view.ts';

const HOSTILE = `</pre><script>alert(1)</script> ]]> \u0000\u001b[31m \`\`\` | # *x* & 'q' "d"`;

function entry(scenario: string, status: RuleScenario['status'], extra: Partial<RuleScenario> = {}): RuleScenario {
  const scenarioStatus = status === 'PASS' ? 'pass' : status === 'FAIL' ? 'fail' : status === 'ERROR' ? 'error' : 'skip';
  return { scenario, title: `${scenario} title`, test: `[R] ${scenario}`, file: 'suites/scenarios/x.test.ts', via: 'declared', status, scenarioStatus, ...extra };
}

function report(rules: Record<string, Partial<RuleReport> & Pick<RuleReport, 'status' | 'scenarios'>>, extra: Partial<ConformanceReport> = {}): ConformanceReport {
  return ConformanceReport.parse({
    format: REPORT_FORMAT,
    complete: true,
    run: { targets: [{ baseUrl: 'http://t:1', kind: 'deployment', apiVersion: '2.4.0', seed: 7, profile: 'default', readOnly: false }], seed: 7, suiteVersion: '0.1.0', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z', durationMs: 1000, result: 'failed' },
    counts: { rules: { PASS: 0, FAIL: 0, BLOCKED: 0, SKIP: 0, ERROR: 0 }, known: 0, scenarios: { pass: 0, fail: 0, error: 0, skip: 0, blocked: 0 }, mustFailures: 0 },
    rules,
    errors: [],
    cleanup: [],
    ...extra,
  });
}

const exchange = {
  seq: 1,
  label: 'plans.create',
  startedAt: '',
  durationMs: 3,
  attempts: 1,
  retries: [],
  request: { method: 'POST', url: 'http://t:1/v1/plans.create', headers: { authorization: 'Bearer [REDACTED]', 'content-length': '9' }, body: { name: HOSTILE } },
  response: { status: 200, headers: {}, body: { message: HOSTILE } },
  curl: 'curl …',
};

describe('escapers', () => {
  it('leave no markup of the target in HTML, and no forbidden character in XML', () => {
    expect(escapeHtml(HOSTILE)).not.toMatch(/[<>"']/);
    const xml = `<a b="${escapeXml(HOSTILE)}">${escapeXml(HOSTILE)}</a>`;
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(escapeXml('a\u0000b\uFFFEc\uD800d😀')).toBe('abcd😀');
  });

  it('keep Markdown text on one line, its markup inert, and code spans and blocks closed', () => {
    expect(escapeMarkdown('a\n# b | *c*')).toBe('a # b \\| \\*c\\*');
    expect(markdownCode('x `y` z')).toBe('``x `y` z``');
    expect(markdownCode('`y` z')).toBe('`` `y` z ``');
    expect(markdownBlock('a ``` b', 'sh')).toBe('````sh\na ``` b\n````');
  });
});

describe('curlOf', () => {
  it('replays the request with the key as $API_KEY, quoting everything else for the shell', () => {
    const curl = curlOf({ method: 'POST', url: "http://t/v1/x?a='1'", headers: { authorization: 'Bearer [REDACTED]', 'x-api-version': '2.4.0', 'content-length': '3' }, body: { q: "it's" } });
    expect(curl).toBe(`curl -sS -X POST 'http://t/v1/x?a='\\''1'\\''' -H "authorization: Bearer $API_KEY" -H 'x-api-version: 2.4.0' --data-raw '{"q":"it'\\''s"}'`);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it('says so when the report cut the body', () => {
    expect(curlOf({ method: 'POST', url: 'http://t', headers: {}, body: 'abc… [truncated, 9000 chars]' })).toMatch(/# the report cut this body/);
  });
});

describe('baseline', () => {
  const baseline = {
    format: BASELINE_FORMAT,
    entries: [
      { rule: 'A', reason: 'known' },
      { rule: 'B', reason: 'fixed?' },
      { rule: 'C', reason: 'old', expires: '2026-01-01' },
      { rule: 'D', reason: 'not run' },
    ],
  } as const;

  it('marks listed failures known, listed passes stale, and ignores expired entries and rules that did not run', () => {
    const outcome = applyBaseline({ ...baseline, entries: [...baseline.entries] }, { A: { status: 'FAIL' }, B: { status: 'PASS' }, C: { status: 'FAIL' }, D: { status: 'SKIP' } }, new Date('2026-01-01T12:00:00Z'));
    expect([...outcome.known.keys()]).toEqual(['A']);
    expect(outcome.stale.map((e) => e.rule)).toEqual(['B']);
    expect(outcome.expired.map((e) => e.rule)).toEqual(['C']);
  });

  it('is written from a report with every FAIL and ERROR rule', () => {
    const r = report({ A: { status: 'FAIL', scenarios: [entry('s1', 'FAIL')] }, B: { status: 'ERROR', scenarios: [entry('s2', 'ERROR')] }, C: { status: 'PASS', scenarios: [entry('s3', 'PASS')] } });
    expect(baselineFrom(r).entries.map((e) => e.rule)).toEqual(['A', 'B']);
  });
});

describe('verdictOf', () => {
  const must = (status: RuleReport['status'], extra: Partial<RuleReport> = {}) => ({ status, level: 'MUST' as const, scenarios: [entry('s', status)], ...extra });

  it('is 1 for a MUST FAIL not in the baseline, 2 for a MUST ERROR or an incomplete run, 0 otherwise', () => {
    expect(verdictOf(report({ A: must('FAIL') })).exitCode).toBe(1);
    expect(verdictOf(report({ A: must('FAIL', { known: { reason: 'r' } }) })).exitCode).toBe(0);
    expect(verdictOf(report({ A: { ...must('FAIL'), level: 'SHOULD' } })).exitCode).toBe(0);
    expect(verdictOf(report({ A: must('ERROR') })).exitCode).toBe(2);
    expect(verdictOf(report({ A: must('PASS') }, { complete: false })).exitCode).toBe(2);
    expect(verdictOf(report({ A: must('PASS') }, { baseline: { stale: [{ rule: 'A', reason: 'r' }], expired: [] } })).reasons).toEqual(['A is in the baseline but passes now: remove it from the baseline']);
  });
});

describe('mergeReports', () => {
  it('replaces the re-run scenarios and decides each rule again', () => {
    const previous = report({
      A: { status: 'FAIL', scenarios: [entry('s1', 'FAIL'), entry('s2', 'PASS')] },
      B: { status: 'PASS', scenarios: [entry('s3', 'PASS')] },
    });
    const rerun = report({ A: { status: 'PASS', scenarios: [entry('s1', 'PASS')] } }, { complete: true });
    const merged = mergeReports(previous, rerun, {});
    expect(merged.rules['A']?.status).toBe('PASS');
    expect(merged.rules['A']?.scenarios.map((s) => s.scenario)).toEqual(['s1', 's2']);
    expect(merged.rules['B']?.status).toBe('PASS');
    expect(merged.counts.scenarios).toEqual({ pass: 3, fail: 0, error: 0, skip: 0, blocked: 0 });
  });
});

describe('selection', () => {
  const scenarios = [
    { id: 'plans.a', title: 'a (x)', rules: ['PLAN-A'] },
    { id: 'licenses.b', title: 'b', rules: ['LIC-B', 'PLAN-A'] },
    { id: 'envelope.c', title: 'c', rules: ['AUTH-C'] },
    { id: 'balances.d', title: 'd', rules: ['CONV-D'], area: 'envelope' },
  ];
  const rules = [
    { id: 'PLAN-A', part: 'plans' },
    { id: 'LIC-B', part: 'licenses' },
    { id: 'AUTH-C', part: 'auth' },
    { id: 'CONV-D', part: 'conventions' },
  ];

  it('takes rule IDs, areas and scenario IDs, and names what it does not know', () => {
    expect(selectScenarios(scenarios, rules, ['PLAN-A']).scenarios.map((s) => s.id)).toEqual(['plans.a', 'licenses.b']);
    expect(selectScenarios(scenarios, rules, ['auth', 'plans.a']).scenarios.map((s) => s.id)).toEqual(['plans.a', 'envelope.c']);
    expect(selectScenarios(scenarios, rules, ['NOPE']).unknown).toEqual(['NOPE']);
    // An area is a scenario's folder where it has one, else its ID's prefix.
    expect(selectScenarios(scenarios, rules, ['envelope']).scenarios.map((s) => s.id)).toEqual(['envelope.c', 'balances.d']);
    expect(selectScenarios(scenarios, rules, ['balances']).unknown).toEqual(['balances']);
  });

  it('matches exact test names only, and finds the scenarios behind failing rules', () => {
    expect(exactNames(['[PLAN-A] a (x)']).test('[PLAN-A] a (x)')).toBe(true);
    expect(exactNames(['[PLAN-A] a (x)']).test('[PLAN-A] a (x) and more')).toBe(false);
    const r = report({ A: { status: 'FAIL', scenarios: [entry('s1', 'FAIL'), entry('s2', 'PASS')] }, B: { status: 'ERROR', scenarios: [entry('s3', 'ERROR')] } });
    expect(failedScenarioIds(r)).toEqual(['s1', 's3']);
  });
});

describe('renderers', () => {
  const hostile = report({
    'PLAN-A': {
      status: 'FAIL',
      level: 'MUST',
      area: 'plans',
      section: HOSTILE,
      quote: HOSTILE,
      scenarios: [entry('s1', 'FAIL', { message: HOSTILE, expected: HOSTILE, actual: { x: HOSTILE }, exchanges: [exchange] })],
    },
  });

  it('escape every string of the report in HTML', () => {
    const html = renderHtml(hostile);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('</pre><script>');
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  it('give valid XML and one-line Markdown cells whatever the report holds', () => {
    expect(XMLValidator.validate(renderJunit(hostile))).toBe(true);
    const md = renderMarkdown(hostile);
    expect(md).not.toContain('<script>');
    expect(md).toContain('> \\</pre\\>\\<script\\>alert(1)\\</script\\>');
  });
});
