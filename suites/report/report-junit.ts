/**
 * `junit.xml` from a report: one test suite per area, one test case per rule (named by its ID and
 * level, so CI dashboards show rule IDs), run properties (seed, target host, API version, profile,
 * suite version) on every suite, skip reasons in `message`, failures with the sentence, the first
 * failure (assertion, expected vs actual, curl, replay script) and the others counted by message.
 * A known failure (baseline) is a skipped case saying so, since it does not fail the run. A case's
 * time is the time of the scenarios that carry its rule (what `--only RULE` takes), a suite's that
 * of the distinct scenarios behind its cases. Errors outside any scenario, a preflight stop among
 * them, are error cases of a `run` suite, so a CI's test view shows why a run decided nothing.
 * A pure function of report.json; every string goes through escapeXml, which also strips the
 * characters XML forbids.
 */
import { escapeXml as x } from './escape.ts';
import { failingRule, firstLine } from './digest.ts';
import type { ConformanceReport } from './schema.ts';
import { countStatuses, interruptedScope, rulesByArea, targetHosts, type RuleEntry } from './view.ts';

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
  const timestamp = x(report.run.startedAt.slice(0, 19));
  const hostname = x(targetHosts(report));
  const suites: string[] = [];
  let totals = { tests: 0, failures: 0, errors: 0 };
  // Why the run decided nothing (a preflight stop), did not end on its own (an interruption, with how
  // far it got) or decided less than it meant to (errors outside scenarios): first, where a reader looks.
  const interrupted = report.run.interrupted;
  const runCases = [
    ...(interrupted === undefined ? [] : [{ name: `interrupted (${interrupted.cause})`, message: `interrupted (${interrupted.message}): ${interruptedScope(interrupted)}`, time: seconds }]),
    ...report.errors.map((e, i) => ({
      name: report.run.stopped && i === 0 ? `preflight (${report.run.stopped.kind})` : `error outside scenarios${e.file ? `: ${e.file}` : ` ${i + 1}`}`,
      message: e.message,
      // A preflight stop took the run's whole time.
      time: report.run.stopped && i === 0 ? seconds : '0',
    })),
  ];
  if (runCases.length > 0) {
    totals = { tests: runCases.length, failures: 0, errors: runCases.length };
    suites.push(
      `  <testsuite name="run" tests="${runCases.length}" failures="0" errors="${runCases.length}" skipped="0" time="0" timestamp="${timestamp}" hostname="${hostname}">`,
      ...propertiesXml,
      ...runCases.map((c) => `    <testcase classname="run" name="${x(c.name)}" time="${c.time}">\n      <error message="${x(firstLine({ message: c.message, status: 'ERROR' }))}" type="ERROR">${x(c.message)}</error>\n    </testcase>`),
      '  </testsuite>',
    );
  }
  for (const [area, rules] of rulesByArea(report)) {
    const counts = countStatuses(rules);
    const known = rules.filter(([, r]) => r.known !== undefined).length;
    const failures = rules.filter(([, r]) => r.status === 'FAIL' && !r.known).length;
    const errors = rules.filter(([, r]) => r.status === 'ERROR' && !r.known).length;
    const skipped = counts.SKIP + counts.BLOCKED + known;
    totals = { tests: totals.tests + rules.length, failures: totals.failures + failures, errors: totals.errors + errors };
    suites.push(
      `  <testsuite name="${x(area)}" tests="${rules.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${secondsOf(scenarioTimes(rules))}" timestamp="${timestamp}" hostname="${hostname}">`,
      ...propertiesXml,
      ...rules.map((entry) => testCase(area, entry)),
      '  </testsuite>',
    );
  }
  // A run with no rule yet (interrupted at once) still says what it was.
  if (suites.length === 0) suites.push(`  <testsuite name="conformance" tests="0" failures="0" errors="0" skipped="0" time="0" timestamp="${timestamp}" hostname="${hostname}">`, ...propertiesXml, '  </testsuite>');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    // Jenkins' junit-10.xsd, the common denominator of JUnit readers, has no `skipped` on <testsuites>; each suite has it.
    `<testsuites name="besi-conformance" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" time="${seconds}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** Scenario → its duration, over the scenarios that carry these rules (each counted once). */
function scenarioTimes(rules: readonly RuleEntry[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const [, rule] of rules) for (const s of rule.scenarios) times.set(s.scenario, s.durationMs ?? 0);
  return times;
}

function secondsOf(times: ReadonlyMap<string, number>): string {
  return ([...times.values()].reduce((sum, ms) => sum + ms, 0) / 1000).toFixed(3);
}

function testCase(area: string, entry: RuleEntry): string {
  const [id, rule] = entry;
  const open = `    <testcase classname="${x(area)}" name="${x(`${id}${rule.level ? ` (${rule.level})` : ''}`)}" time="${secondsOf(scenarioTimes([entry]))}"`;
  const detail = failureText(entry);
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
      const message = firstLine(failingRule(entry).first, rule.status);
      return `${open}>\n      <${tag} message="${x(message)}" type="${x(rule.status)}">${x(detail)}</${tag}>\n    </testcase>`;
    }
  }
}

function failureText(entry: RuleEntry): string {
  const [, rule] = entry;
  const { first, more, messages } = failingRule(entry);
  const lines: string[] = [];
  if (rule.quote !== undefined) lines.push(`interface.md § ${rule.section ?? ''}: "${rule.quote}"`, '');
  if (first !== undefined) {
    lines.push(`scenario ${first.scenario}: ${first.title}`, first.message ?? '');
    if (first.expected !== undefined) lines.push(`expected: ${show(first.expected)}`);
    if (first.actual !== undefined) lines.push(`actual: ${show(first.actual)}`);
    const curl = first.exchanges?.at(-1)?.curl;
    if (curl !== undefined) lines.push(`replay: ${curl}`);
    if (first.replay !== undefined) lines.push('', 'the scenario from its first call:', first.replay);
    lines.push('');
  }
  if (more > 0) {
    lines.push(`failed in ${more + 1} scenarios:`);
    for (const group of messages) lines.push(`  ${group.scenarios.length} × ${group.message} (${group.scenarios.join(', ')})`);
  }
  return lines.join('\n').trimEnd();
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
