/**
 * `summary.md`: a short Markdown summary of a report for a CI step summary (GitHub's
 * `$GITHUB_STEP_SUMMARY`, a merge-request note): the verdict, counts by area, and each failing MUST
 * rule with its sentence of interface.md and a curl that replays the failing request. A pure
 * function of report.json; every string from the report goes through escape.ts.
 */
import { escapeMarkdown as md, markdownBlock, markdownCode } from './escape.ts';
import { RULE_STATUSES, type ConformanceReport } from './schema.ts';
import { countStatuses, failuresOf, isFailing, rulesByArea, targetHosts, verdictOf, type RuleEntry } from './view.ts';

const VERDICT_TITLES = { 0: 'passed', 1: 'FAILED', 2: 'could not decide' } as const;

export function renderMarkdown(report: ConformanceReport): string {
  const verdict = verdictOf(report);
  const target = report.run.targets[0];
  const out: string[] = [`# Conformance: ${VERDICT_TITLES[verdict.exitCode]}`, ''];
  if (!report.complete) out.push(`> **Incomplete report**: the run ${report.run.result === 'running' ? 'is still going on' : 'did not finish'}.`, '');
  out.push(
    [
      `Target ${markdownCode(targetHosts(report))}`,
      target ? `API version ${markdownCode(target.apiVersion)}, profile ${markdownCode(target.profile)}` : undefined,
      report.run.seed === undefined ? undefined : `seed ${report.run.seed}`,
      `suite ${md(report.run.suiteVersion)}`,
      report.run.only ? `only ${report.run.only.map(markdownCode).join(', ')}` : undefined,
    ]
      .filter(Boolean)
      .join(' · '),
    '',
  );
  for (const reason of verdict.reasons) out.push(`- ${md(reason)}`);
  if (verdict.reasons.length > 0) out.push('');

  const areas = rulesByArea(report);
  out.push(`| Area | ${RULE_STATUSES.join(' | ')} |`, `|---|${RULE_STATUSES.map(() => '---:').join('|')}|`);
  for (const [area, rules] of areas) out.push(row(md(area), countStatuses(rules)));
  out.push(row('**Total**', countStatuses([...areas.values()].flat())), '');
  if (report.counts.known > 0) out.push(`${report.counts.known} known failure(s) from the baseline do not fail the run.`, '');

  const failing = [...areas.values()].flat().filter(([, r]) => isFailing(r));
  const mustFailing = failing.filter(([, r]) => r.level === 'MUST' && r.known === undefined);
  if (mustFailing.length > 0) {
    out.push('## Failing MUST rules', '');
    for (const entry of mustFailing) out.push(...ruleSection(entry));
  }
  const others = failing.filter((e) => !mustFailing.includes(e));
  if (others.length > 0) {
    out.push('## Other failing rules (SHOULD, known, ERROR)', '');
    for (const entry of others) out.push(...ruleSection(entry));
  }
  const stale = report.baseline?.stale ?? [];
  if (stale.length > 0) {
    out.push('## Stale baseline entries', '');
    for (const e of stale) out.push(`- ${markdownCode(e.rule)} passes now: remove it from the baseline (it said: ${md(e.reason)})`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

function row(label: string, counts: Record<string, number>): string {
  return `| ${label} | ${RULE_STATUSES.map((s) => counts[s]).join(' | ')} |`;
}

function ruleSection([id, rule]: RuleEntry): string[] {
  const out = [`### ${markdownCode(id)} ${rule.status} ${rule.level ?? ''}${rule.known ? ` (known: ${md(rule.known.reason)})` : ''}`, ''];
  if (rule.quote !== undefined) out.push(`> ${md(rule.quote)}`, '', `interface.md § ${md(rule.section ?? '')} (${md(rule.provenance ?? '')})`, '');
  for (const failure of failuresOf(rule)) {
    out.push(`- ${md(failure.title)}: ${md((failure.message ?? '').split('\n')[0] ?? '')}`);
    const curl = failure.exchanges?.at(-1)?.curl;
    if (curl !== undefined) out.push('', markdownBlock(curl, 'sh'), '');
  }
  out.push('');
  return out;
}
