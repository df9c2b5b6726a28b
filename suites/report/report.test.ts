/**
 * The report's pure parts: escapers, the curl, the baseline, the verdict, the merge of a re-run,
 * the selection of scenarios, and renderers fed with hostile text.
 */
import { execFileSync } from 'node:child_process';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { closestMatches, didYouMean } from '../framework/closest.ts';
import { XMLValidator } from 'fast-xml-parser';
import { applyBaseline, baselineFrom } from './baseline.ts';
import { curlOf, shellQuote } from './curl.ts';
import { leftBehind } from './digest.ts';
import { escapeHtml, escapeMarkdown, escapeXml, markdownBlock, markdownCode } from './escape.ts';
import { mergeReports } from './merge.ts';
import { areaOf } from './progress.ts';
import { renderHtml } from './report-html.ts';
import { renderJunit } from './report-junit.ts';
import { renderMarkdown } from './report-markdown.ts';
import { replayScript } from './replay.ts';
import { BASELINE_FORMAT, ConformanceReport, REPORT_FORMAT, type RuleReport, type RuleScenario } from './schema.ts';
import { exactNames, failedScenarioIds, selectScenarios } from './select.ts';
import { verdictOf } from './view.ts';

const HOSTILE = `</pre><script>alert(1)</script> ]]> \u0000\u001b[31m \`\`\` | # *x* & 'q' "d"`;

function entry(scenario: string, status: RuleScenario['status'], extra: Partial<RuleScenario> = {}): RuleScenario {
  const scenarioStatus = status === 'PASS' ? 'pass' : status === 'FAIL' ? 'fail' : status === 'ERROR' ? 'error' : status === 'BLOCKED' ? 'blocked' : 'skip';
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

describe('areaOf', () => {
  it('names a scenario file by its area, from the repository (TypeScript) and from the package (compiled)', () => {
    expect(['suites/scenarios/licenses.test.ts', 'dist/suites/scenarios/licenses.test.js', 'licenses.ts'].map(areaOf)).toEqual(['licenses', 'licenses', 'licenses']);
  });
});

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
  it('keeps what follows a redacted key out of the variable name', () => {
    expect(curlOf({ method: 'POST', url: 'http://t/v1/x', headers: { authorization: 'Bearer [REDACTED]Gzky' }, body: undefined })).toBe(`curl -sS -X POST 'http://t/v1/x' -H "authorization: Bearer \${API_KEY}Gzky"`);
  });

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
    // An area is a scenario's folder; the prefix of its ID (`deletes` of deletes.plan, in plans/) selects it too.
    expect(selectScenarios(scenarios, rules, ['envelope']).scenarios.map((s) => s.id)).toEqual(['envelope.c', 'balances.d']);
    expect(selectScenarios(scenarios, rules, ['balances']).scenarios.map((s) => s.id)).toEqual(['balances.d']);
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
    // Raw text of the target only inside fenced code blocks, which render it as text.
    expect(outsideCodeBlocks(md)).not.toContain('<script>');
    expect(md).toContain('| \\</pre\\>\\<script\\>alert(1)\\</script\\>');
    // Every table row stays one row: its cells hold no line break and no unescaped pipe.
    const tables = md.split(/\n(?!\|)/).map((block) => block.trim()).filter((block) => block.startsWith('|'));
    expect(tables).toHaveLength(2);
    for (const table of tables) {
      const cells = table.split('\n').map((row) => row.replaceAll('\\|', '').split('|').length);
      expect(new Set(cells).size, table).toBe(1);
    }
  });
});

/** Markdown with its fenced code blocks taken out (the fence may be longer than three backticks). */
function outsideCodeBlocks(md: string): string {
  return md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '');
}

/** A report of many failures, as a real deployment gives: one shape rule failing in 129 scenarios, BLOCKED and SKIP rules for a few causes, records left behind. */
function bigReport(): ConformanceReport {
  const shapeFailures = Array.from({ length: 129 }, (_, i) =>
    entry(`plans.s${String(i).padStart(3, '0')}`, 'FAIL', { via: 'wire-schema', message: `plans.create: the 200 answer does not match its schema: created_at: expected number, received undefined (plan conf_ab12cd_x${String(i).padStart(4, '0')}_plan_${i})`, exchanges: [exchange], durationMs: 10 }),
  );
  const rules: Record<string, Partial<RuleReport> & Pick<RuleReport, 'status' | 'scenarios'>> = {
    'PLAN-SHAPE': { status: 'FAIL', level: 'MUST', area: 'plans', quote: 'Response 200: `{list: [Plan], a | b}`.', section: 'Endpoints', provenance: 'documented', scenarios: shapeFailures },
    'ENT-LIST': { status: 'BLOCKED', level: 'MUST', area: 'entities', reason: 'x', scenarios: [entry('e1', 'BLOCKED', { blockedBy: 'precondition: entities.list answers next_cursor' })] },
    'ENT-ORDER': { status: 'BLOCKED', level: 'SHOULD', area: 'entities', reason: 'x', scenarios: [entry('e2', 'BLOCKED', { blockedBy: 'precondition: entities.list answers next_cursor' }), entry('e3', 'BLOCKED', { blockedBy: 'PLAN-SHAPE' })] },
    'STATE-PAST-DUE': { status: 'SKIP', level: 'MUST', area: 'states', reason: 'needs the control plane', scenarios: [entry('st1', 'SKIP', { reason: "needs the fake's control plane, which profile staging does not grant" })] },
    'STATE-EXPIRED': { status: 'SKIP', level: 'SHOULD', area: 'states', reason: 'needs the control plane', scenarios: [entry('st2', 'SKIP', { reason: "needs the fake's control plane, which profile staging does not grant" })] },
  };
  for (let i = 0; i < 40; i++) rules[`PLAN-OK-${i}`] = { status: 'PASS', level: 'MUST', area: 'plans', scenarios: [entry(`p${i}`, 'PASS', { durationMs: 5 })] };
  return report(rules, {
    cleanup: [
      { file: 'a.test.ts', undone: 10, alreadyGone: 1, left: [{ kind: 'customer', id: 'conf_ab12cd_x0001_cus_1' }, { kind: 'feature', id: 'conf_ab12cd_x0001_feat_1' }], failed: [] },
      { file: 'b.test.ts', undone: 5, alreadyGone: 0, left: [{ kind: 'customer', id: 'conf_ab12cd_x0002_cus_1' }], failed: [{ kind: 'plan', id: 'conf_ab12cd_x0002_plan_1', error: 'answered 500\nstack' }] },
    ],
  });
}

/** Entities as a browser shows them. */
function decodeEntities(html: string): string {
  return html.replace(/&(lt|gt|amp|quot|#\d+);/g, (_, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"' })[e] ?? String.fromCharCode(Number(e.slice(1))));
}

/** Markdown as GitHub and GitLab render it: CommonMark with the GFM extensions (tables, autolinks, …), HTML blocks kept. */
function renderGfm(md: string): string {
  return micromark(md, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

describe('the digest of a report with many failures', () => {
  const big = bigReport();
  const hostile = report({
    'PLAN-A': { status: 'FAIL', level: 'MUST', area: 'plans', section: HOSTILE, quote: `${HOSTILE} \`a|b\` \`x\``, scenarios: [entry('s1', 'FAIL', { message: HOSTILE, exchanges: [exchange] })] },
    'PLAN-B': { status: 'SKIP', level: 'MUST', area: 'plans', scenarios: [entry('s2', 'SKIP', { reason: HOSTILE })] },
  });

  it('summary.md: one row per failing rule (first message, how many more, a link into the HTML), causes, what was left behind', () => {
    const md = renderMarkdown(big);
    expect(md.split('\n').length).toBeLessThan(120);
    expect(md).toContain('| [`PLAN-SHAPE`](report.html#failure-PLAN-SHAPE) | MUST | FAIL | plans.create: the 200 answer does not match its schema: created\\_at: expected number, received undefined (plan conf\\_ab12cd\\_x0000\\_plan\\_0) | +128 |  |');
    // One line per rule: the sentence and every message are report.html's.
    expect(md).not.toContain('Response 200:');
    // The verdict's reason, its row, and the cause it blocked by: nothing more.
    expect(md.split('\n').filter((line) => line.includes('PLAN-SHAPE'))).toHaveLength(3);
    expect(md).toMatch(/^\| BLOCKED \| precondition: entities\.list answers next\\_cursor \| 2: \[`ENT-LIST`\]\(report\.html#rule-ENT-LIST\) \(MUST\), \[`ENT-ORDER`\]\(report\.html#rule-ENT-ORDER\) \|$/m);
    expect(md).toMatch(/^\| BLOCKED \| \[`PLAN-SHAPE`\]\(report\.html#failure-PLAN-SHAPE\) failed first \| 1: /m);
    expect(md).toMatch(/^\| SKIP \| needs the fake's control plane, which profile staging does not grant \| 2: \[`STATE-PAST-DUE`\]\(report\.html#rule-STATE-PAST-DUE\) \(MUST\), /m);
    expect(md).toContain('The run removed 15 record(s) it made (1 more were already gone). On the target remain 3 the API cannot remove, and 1 whose removal failed:');
    expect(md).toContain('| customer | 2 | 0 |');
    expect(md).toContain('- 1 × answered 500');
    expect(md).toContain('customer (2): conf_ab12cd_x0001_cus_1 conf_ab12cd_x0002_cus_1');
    expect(outsideCodeBlocks(md)).not.toMatch(/\\`/);
  });

  it('summary.md renders cleanly as GitHub Flavored Markdown: no markup or escape showing, every row in its columns, code spans whole', () => {
    // The hostile text's own markup shows as the text it is, whole: in a cell, a quote and a heading line.
    const shown = decodeEntities(renderGfm(renderMarkdown(hostile)));
    expect(shown).toContain(`<td>${HOSTILE.replace(/[\u0000]/g, '\uFFFD')}</td>`);
    for (const md of [renderMarkdown(big), renderMarkdown(hostile)]) {
      const html = renderGfm(md);
      expect(html).not.toMatch(/<script/i);
      if (md === renderMarkdown(big)) {
        const text = html.replace(/<pre>[\s\S]*?<\/pre>|<code>[\s\S]*?<\/code>/g, '');
        expect(text).not.toMatch(/`/);
        expect(text).not.toMatch(/\\[\\`*_[\]<>|~#]/);
      }
      for (const table of html.match(/<table>[\s\S]*?<\/table>/g) ?? []) {
        const columns = (table.match(/<th[ >]/g) ?? []).length;
        for (const row of table.match(/<tr>\s*<td[\s\S]*?<\/tr>/g) ?? []) expect((row.match(/<td[ >]/g) ?? []).length, row).toBe(columns);
      }
    }
    const html = renderGfm(renderMarkdown(big));
    expect(html).toContain('<td><a href="report.html#failure-PLAN-SHAPE"><code>PLAN-SHAPE</code></a></td>');
  });

  it('report.html: the same rows, causes and leftovers, and the further failures folded by message', () => {
    const html = renderHtml(big);
    expect(html).toContain('<td class="more">+128</td>');
    expect(html).toMatch(/<li><span class="n">129 ×<\/span> plans\.create: the 200 answer/);
    expect(html.match(/<div class="scenario">|<details class="scenario">/g)).toHaveLength(3);
    expect(html).toContain('<tr class="cause" data-status="SKIP">');
    expect(html).toContain('<tr data-kind="customer"><td>customer</td><td class="n">2</td><td class="n">0</td>');
    expect(html).toContain('id="rule-ENT-LIST"');
  });

  it('junit.xml: the first failure and the others counted, times from the scenarios', () => {
    const xml = renderJunit(big);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<testcase classname="plans" name="PLAN-SHAPE (MUST)" time="1.290">');
    expect(xml).toContain('failed in 129 scenarios:');
    expect(xml).toMatch(/<testsuite name="plans" tests="41" failures="1" errors="0" skipped="0" time="1\.490"/);
  });

  it('an UNDECIDED run lists the MUST rules it rests on and what stopped each, in summary.md and report.html', () => {
    // Every MUST rule BLOCKED or skipped: undecided (verdictOf), whichever rules the verdict counts.
    const undecided = report({
      'ENT-LIST': { status: 'BLOCKED', level: 'MUST', scenarios: [entry('e1', 'BLOCKED', { blockedBy: 'setup: customers.get_or_create answered 400', message: 'not reached' })] },
      'ERR-X': { status: 'ERROR', level: 'MUST', scenarios: [entry('e2', 'ERROR', { message: 'TransportError: timeout after 10000 ms' })] },
    });
    expect(verdictOf(undecided).exitCode).toBe(2);
    const md = renderMarkdown(undecided);
    expect(md).toMatch(/^# Conformance: UNDECIDED$/m);
    expect(md).toContain('## Why undecided');
    expect(md).toContain('| [`ENT-LIST`](report.html#rule-ENT-LIST) | BLOCKED | setup: customers.get\\_or\\_create answered 400: not reached |');
    expect(md).toContain('| [`ERR-X`](report.html#failure-ERR-X) | ERROR | TransportError: timeout after 10000 ms |');
    expect(renderHtml(undecided)).toMatch(/<section id="undecided">[\s\S]*data-rule="ENT-LIST"[\s\S]*setup: customers\.get_or_create answered 400/);
    // A run that failed is not undecided: no such section.
    expect(renderMarkdown(big)).not.toContain('## Why undecided');
  });
});

/**
 * A report as the run against the reference gave in issue 26: a scenario of 300 calls ERRORs its 12
 * rules, one cause ("subscriptions.list not served") is met in many scenarios through other
 * exchanges and rules, 25 more rules fail, and two rules PASS only partly.
 */
function slowRunReport(): ConformanceReport {
  const script = ['#!/bin/sh', '# Replays LIC-0 (ERROR): scenario licenses.attach-release-model', 'set -u', ...Array.from({ length: 300 }, (_, i) => [``, `# ${i + 1}. licenses.attach: the run got 200`, `curl -sS -X POST "$BASE_URL/v1/licenses.attach" --data-raw '{"n":${i}}'`]).flat()].join('\n');
  const rules: Record<string, Partial<RuleReport> & Pick<RuleReport, 'status' | 'scenarios'>> = {};
  for (let i = 0; i < 12; i++) {
    rules[`LIC-${i}`] = { status: 'ERROR', level: 'MUST', area: 'licenses', scenarios: [entry('licenses.attach-release-model', 'ERROR', { message: 'ScenarioTimeoutError: scenario licenses.attach-release-model did not finish within 120000 ms', replay: script.replace('LIC-0', `LIC-${i}`) })] };
  }
  for (let i = 0; i < 25; i++) rules[`PLAN-F${i}`] = { status: 'FAIL', level: i % 2 === 0 ? 'MUST' : 'SHOULD', area: 'plans', scenarios: [entry(`plans.f${i}`, 'FAIL', { message: `plans.get: expected ${i}`, replay: `#!/bin/sh\ncurl -sS -X POST "$BASE_URL/v1/plans.get" --data-raw '{"i":${i}}'` })] };
  for (let i = 0; i < 6; i++) {
    const message = `the target does not serve subscriptions.list (exchange #${i + 1} answered 401 {"message":"Unauthorized - no session found","code":"no_auth_header","env":"sandbox"}, as an unknown route), the operation LIST-S${i} is about`;
    rules[`LIST-S${i}`] = { status: 'SKIP', level: 'MUST', area: 'listings', scenarios: [entry(`listings.s${i}`, 'SKIP', { reason: message, message })] };
  }
  rules['AUTH-BEARER-REQUIRED'] = {
    status: 'PASS',
    level: 'MUST',
    area: 'auth',
    partly: { verified: 1, of: 2, gaps: ['envelope.bearer-required: BLOCKED by setup billing.preview_multi_update (billing.multi_update does not support license-backed plans yet.)'] },
    scenarios: [entry('envelope.auth-referral-program', 'PASS'), entry('envelope.bearer-required', 'BLOCKED', { blockedBy: 'setup billing.preview_multi_update' })],
  };
  for (let i = 0; i < 150; i++) rules[`OK-${i}`] = { status: 'PASS', level: 'MUST', area: `area${i % 12}`, scenarios: [entry(`ok.${i}`, 'PASS')] };
  return report(rules);
}

describe('summary.md of a slow run against the reference (issue 26)', () => {
  const md = renderMarkdown(slowRunReport());

  it('stays within 200 lines, one line per rule', () => {
    expect(md.split('\n').length).toBeLessThanOrEqual(200);
    for (let i = 0; i < 12; i++) expect(md.split('\n').filter((line) => line.startsWith(`| [\`LIC-${i}\`]`)), `LIC-${i}`).toHaveLength(1);
  });

  it("has each scenario's replay script once, linked from every rule it serves", () => {
    expect(md.match(/<a id="replay-licenses-attach-release-model"><\/a>/g)).toHaveLength(1);
    const serving = md.split('\n').filter((line) => line.includes('](#replay-licenses-attach-release-model)'));
    expect(serving).toHaveLength(12);
    // Too long to fold in: pointed to in report.html, by the first rule it serves.
    expect(md).toMatch(/`licenses\.attach-release-model` \(300 call\(s\)\), serving `LIC-0`, `LIC-1`.*in \[report\.html\]\(report\.html#failure-LIC-0\)/);
    // The short ones fold in while the summary has room.
    expect(md).toContain('<summary><a id="replay-plans-f0"></a><code>plans.f0</code> (1 call(s)): PLAN-F0</summary>');
    expect(md.match(/#!\/bin\/sh/g)?.length).toBeLessThanOrEqual(25);
  });

  it('groups causes by what they say, not by exchange number or rule', () => {
    const rows = md.split('\n').filter((line) => line.includes('does not serve subscriptions.list'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^\| SKIP \| the target does not serve subscriptions\.list \(it answers as an unknown route\) \| 6: /);
  });

  it('says of a rule PASSed only in part what did not run and why', () => {
    expect(md).toContain('## Partly verified (1)');
    expect(md).toContain('| [`AUTH-BEARER-REQUIRED`](report.html#rule-AUTH-BEARER-REQUIRED) | MUST | PASS (partly verified: 1 of 2 scenarios; envelope.bearer-required: BLOCKED by setup billing.preview\\_multi\\_update');
    expect(renderHtml(slowRunReport())).toMatch(/<section id="partly">[\s\S]*AUTH-BEARER-REQUIRED[\s\S]*1 of 2 scenarios/);
  });
});

describe('the verdict of a MUST rule only partly verified (issue 26)', () => {
  const partly = (verified: number) =>
    report({
      'AUTH-X': { status: 'PASS', level: 'MUST', partly: { verified, of: 2, gaps: ['b: BLOCKED by setup x'] }, scenarios: [entry('a', 'PASS', verified === 0 ? { unverified: ['plans.get: refused with the key too'] } : {}), entry('b', 'BLOCKED')] },
    });

  it('is UNDECIDED when no scenario verified it in full', () => {
    expect(verdictOf(partly(0))).toMatchObject({ result: 'UNDECIDED', reasons: ['1 MUST rule(s) only partly verified, by no scenario in full: AUTH-X'] });
  });

  it('stands when another scenario covered the same statement in full', () => {
    expect(verdictOf(partly(1)).result).toBe('PASSED');
  });
});

describe('replay scripts', () => {
  const request = (url: string, body: unknown) => ({ method: 'POST', url, headers: { authorization: 'Bearer [REDACTED]', 'x-api-version': '2.4.0', 'content-length': '9' }, body });
  const calls = [
    { seq: 1, label: 'features.create', request: request('http://t:1/v1/features.create', { feature_id: 'conf_ab12cd_x0001_feat_1', name: "it's" }), status: 200 },
    { seq: 2, label: 'entities.list', request: request('http://t:1/v1/entities.list', { customer_id: 'conf_ab12cd_x0001_cus_1' }), status: 200 },
    { seq: 3, label: 'entities.list', request: request('http://t:1/v1/entities.list', { customer_id: 'conf_ab12cd_x0001_cus_1', starting_after: 'cur_9f8e7d6c5b' }), status: 200, fromAnswers: [{ value: 'cur_9f8e7d6c5b', seq: 2, path: '.next_cursor' }] },
    { seq: 4, label: 'promotions.create', request: request('http://t:1/v1/promotions.create', { code: 'confab12cdx0001PROMO1' }), status: 200 },
  ];

  it('replays the calls up to the one behind the verdict, with the key, the target and the run part of IDs as variables', () => {
    const script = replayScript(calls, { rule: 'ENT-X', status: 'FAIL', scenario: 'entities.x', title: 'walks', baseUrl: 'http://t:1', seed: 7, message: 'expected 2 rows\nmore', behind: [3] })!;
    expect(script.split('\n').slice(0, 4)).toEqual(['#!/bin/sh', '# Replays ENT-X (FAIL): scenario entities.x, "walks", seed 7.', '# FAIL: expected 2 rows', "# 3 call(s), from the scenario's first. Each prints its answer, then its HTTP status."]);
    expect(script).toContain('BASE_URL="${BASE_URL:-http://t:1}"');
    expect(script).toContain(`curl -sS -X POST "$BASE_URL/v1/features.create" -w '\\n=> HTTP %{http_code}\\n' -H "authorization: Bearer $API_KEY" -H 'x-api-version: 2.4.0' --data-raw '{"feature_id":"conf_'"\${RUN}"'_x0001_feat_1","name":"it'\\''s"}'`);
    expect(script).toContain('# 3. entities.list: the run got 200; ENT-X FAIL here\n#    "cur_9f8e7d6c5b" below is the answer of call 2 at .next_cursor');
    expect(script).not.toContain('promotions.create');
  });

  it('runs in a POSIX shell as written: the variables expand into the requests', () => {
    const script = replayScript(calls, { rule: 'ENT-X', status: 'FAIL', scenario: 'entities.x', title: 'walks', baseUrl: 'http://t:1' })!;
    // curl replaced by a function printing its arguments, one per line.
    const out = execFileSync('sh', ['-c', `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }\n${script.replace('#!/bin/sh\n', '')}`], { env: { PATH: process.env['PATH'], API_KEY: 'k3y', BASE_URL: 'http://other:2', RUN: 'zz99zz' }, encoding: 'utf8' });
    expect(out).toContain('http://other:2/v1/features.create\n');
    expect(out).toContain('authorization: Bearer k3y\n');
    expect(out).toContain('{"feature_id":"conf_zz99zz_x0001_feat_1","name":"it\'s"}\n');
    expect(out).toContain('{"code":"confzz99zzx0001PROMO1"}\n');
  });

  it('refuses to run without API_KEY', () => {
    const script = replayScript(calls.slice(0, 1), { rule: 'R', status: 'FAIL', scenario: 's', title: 't' })!;
    expect(() => execFileSync('sh', ['-c', script], { env: { PATH: process.env['PATH'] }, stdio: 'pipe' })).toThrow(/set API_KEY/);
  });
});

describe('a run stopped at preflight', () => {
  const stopped = report({}, { run: { ...report({}).run, stopped: { stage: 'preflight', kind: 'unreachable', message: 'The target http://t:1 cannot be reached (no answer within 10000 ms).' } }, errors: [{ message: 'Stopped at preflight (unreachable): The target http://t:1 cannot be reached (no answer within 10000 ms).' }] });

  it('says why at the top of summary.md and report.html, and in one JUnit error case', () => {
    expect(verdictOf(stopped).exitCode).toBe(2);
    const md = renderMarkdown(stopped);
    expect(md).toContain('> **Stopped at preflight** (unreachable), before any scenario: The target http://t:1 cannot be reached (no answer within 10000 ms).');
    expect(md).not.toContain('## Errors outside scenarios');
    expect(renderHtml(stopped)).toContain('<p class="banner stopped" id="stopped">Stopped at preflight (unreachable), before any scenario: The target http://t:1 cannot be reached');
    const xml = renderJunit(stopped);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<testsuites name="besi-conformance" tests="1" failures="0" errors="1"');
    expect(xml).toContain('<testcase classname="run" name="preflight (unreachable)" time="1.000">\n      <error message="Stopped at preflight (unreachable): The target http://t:1 cannot be reached (no answer within 10000 ms)." type="ERROR">');
  });
});

describe('an interrupted run', () => {
  const interrupted = report(
    { 'M-1': { status: 'PASS', level: 'MUST', area: 'plans', scenarios: [entry('a', 'PASS')] } },
    {
      complete: false,
      run: { ...report({}).run, result: 'interrupted', interrupted: { cause: 'SIGTERM', message: 'SIGTERM after 18.0 s', scenariosRun: 40, scenariosPlanned: 222 } },
      cleanup: [{ file: 'suites/scenarios/plans.test.ts', undone: 12, alreadyGone: 1, left: [{ kind: 'plan', id: 'conf_a_1' }], failed: [{ kind: 'feature', id: 'conf_f_1', error: 'answered 409' }] }],
      leftovers: { journal: 'reports/state/journal-conf_abcdef.jsonl', checked: true, undone: 30, alreadyGone: 2, records: [{ kind: 'customer', id: 'conf_c_1', error: 'answered 500' }] },
    },
  );

  it('says so at the top of summary.md and report.html, with what ran, and in a JUnit error case naming the interruption', () => {
    expect(verdictOf(interrupted).exitCode).toBe(2);
    expect(renderMarkdown(interrupted)).toMatch(/^# Conformance: UNDECIDED\n\n> \*\*Interrupted\*\* \(SIGTERM after 18\.0 s\): 40 of 222 scenario\(s\) ran; the rules below are those they carried\.\n/);
    expect(renderHtml(interrupted)).toContain('<p class="banner" id="incomplete">Interrupted (SIGTERM after 18.0 s): 40 of 222 scenario(s) ran; it shows what finished.</p>');
    const xml = renderJunit(interrupted);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<testcase classname="run" name="interrupted (SIGTERM)" time="1.000">\n      <error message="interrupted (SIGTERM after 18.0 s): 40 of 222 scenario(s) ran" type="ERROR">');
  });

  it("counts what was left once, from the run's journal: each file's own left and failed were tried again by the last sweep", () => {
    const left = leftBehind(interrupted);
    expect(left).toEqual({ undone: 42, alreadyGone: 3, left: new Map(), failed: new Map([['customer', [{ id: 'conf_c_1', error: 'answered 500' }]]]) });
    // Without a journal (the embedded fake), the files say.
    expect(leftBehind({ ...interrupted, leftovers: undefined }).left).toEqual(new Map([['plan', ['conf_a_1']]]));
  });
});

describe('closest matches', () => {
  it('suggests a few near names, and names that hold the given one only when none is near', () => {
    const names = ['licenses', 'plans', 'PLAN-NAME-MIN-LENGTH', 'PLAN-NAME-MAX-LENGTH', 'envelope', 'envelope.post-json'];
    expect(closestMatches('licences', names)).toEqual(['licenses']);
    expect(closestMatches('envelop', names)).toEqual(['envelope']);
    expect(closestMatches('PLAN-NAME', names)).toEqual(['PLAN-NAME-MAX-LENGTH', 'PLAN-NAME-MIN-LENGTH']);
    expect(didYouMean('zzz', names)).toBe('');
    expect(didYouMean('PLAN-NAME-MIN-LENGHT', names)).toBe(' (did you mean PLAN-NAME-MIN-LENGTH, PLAN-NAME-MAX-LENGTH?)');
  });
});
