/**
 * `junit.xml` from a report: one test suite per area, one test case per rule (named by its ID and
 * level, so CI dashboards show rule IDs), run properties (seed, target host, API version, profile,
 * suite version) on every suite, skip reasons in `message`, failures with the sentence, the
 * assertion, expected vs actual and the curl. A known failure (baseline) is a skipped case saying
 * so, since it does not fail the run. A pure function of report.json; every string goes through
 * escapeXml, which also strips the characters XML forbids.
 */
import { escapeXml as x } from './escape.ts';
import type { ConformanceReport, RuleReport } from './schema.ts';
import { countStatuses, failuresOf, rulesByArea, targetHosts, type RuleEntry } from './view.ts';

export function renderJunit(report: ConformanceReport): string {
  const target = report.run.targets[0];
  const properties: [string, string][] = [
    ['seed', report.run.seed === undefined ? '' : String(report.run.seed)],
    ['target.host', targetHosts(report)],
    ['target.kind', target?.kind ?? ''],
    ['api.version', target?.apiVersion ?? ''],
    ['profile', target?.profile ?? ''],
    ['suite.version', report.run.suiteVersion],
    ['complete', String(report.complete)],
    ...(report.run.only ? ([['only', report.run.only.join(' ')]] as [string, string][]) : []),
  ];
  const propertiesXml = ['    <properties>', ...properties.map(([name, value]) => `      <property name="${x(name)}" value="${x(value)}"/>`), '    </properties>'];
  const seconds = (report.run.durationMs / 1000).toFixed(3);
  const suites: string[] = [];
  let totals = { tests: 0, failures: 0, errors: 0 };
  for (const [area, rules] of rulesByArea(report)) {
    const counts = countStatuses(rules);
    const known = rules.filter(([, r]) => r.known !== undefined).length;
    const failures = rules.filter(([, r]) => r.status === 'FAIL' && !r.known).length;
    const errors = rules.filter(([, r]) => r.status === 'ERROR' && !r.known).length;
    const skipped = counts.SKIP + counts.BLOCKED + known;
    totals = { tests: totals.tests + rules.length, failures: totals.failures + failures, errors: totals.errors + errors };
    suites.push(
      `  <testsuite name="${x(area)}" tests="${rules.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="0" timestamp="${x(report.run.startedAt.slice(0, 19))}" hostname="${x(targetHosts(report))}">`,
      ...propertiesXml,
      ...rules.map((entry) => testCase(area, entry)),
      '  </testsuite>',
    );
  }
  // A run with no rule yet (interrupted at once) still says what it was.
  if (suites.length === 0) suites.push(`  <testsuite name="conformance" tests="0" failures="0" errors="0" skipped="0" time="0" timestamp="${x(report.run.startedAt.slice(0, 19))}" hostname="${x(targetHosts(report))}">`, ...propertiesXml, '  </testsuite>');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    // Jenkins' junit-10.xsd, the common denominator of JUnit readers, has no `skipped` on <testsuites>; each suite has it.
    `<testsuites name="besi-conformance" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" time="${seconds}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

function testCase(area: string, [id, rule]: RuleEntry): string {
  const open = `    <testcase classname="${x(area)}" name="${x(`${id}${rule.level ? ` (${rule.level})` : ''}`)}" time="0"`;
  const detail = failureText(rule);
  if (rule.known) return `${open}>\n      <skipped message="${x(`known failure (baseline): ${rule.known.reason}`)}"/>\n      <system-out>${x(detail)}</system-out>\n    </testcase>`;
  switch (rule.status) {
    case 'PASS':
      return `${open}/>`;
    case 'SKIP':
    case 'BLOCKED':
      return `${open}>\n      <skipped message="${x(`${rule.status}: ${rule.reason ?? 'not run'}`)}"/>\n    </testcase>`;
    case 'FAIL':
    case 'ERROR': {
      const tag = rule.status === 'FAIL' ? 'failure' : 'error';
      const first = failuresOf(rule)[0];
      const message = (first?.message ?? rule.status).split('\n')[0] ?? '';
      return `${open}>\n      <${tag} message="${x(message)}" type="${x(rule.status)}">${x(detail)}</${tag}>\n    </testcase>`;
    }
  }
}

function failureText(rule: RuleReport): string {
  const lines: string[] = [];
  if (rule.quote !== undefined) lines.push(`interface.md § ${rule.section ?? ''}: "${rule.quote}"`, '');
  for (const failure of failuresOf(rule)) {
    lines.push(`scenario ${failure.scenario}: ${failure.title}`, failure.message ?? '');
    if (failure.expected !== undefined) lines.push(`expected: ${show(failure.expected)}`);
    if (failure.actual !== undefined) lines.push(`actual: ${show(failure.actual)}`);
    const curl = failure.exchanges?.at(-1)?.curl;
    if (curl !== undefined) lines.push(`replay: ${curl}`);
    lines.push('');
  }
  return lines.join('\n').trimEnd();
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
