/**
 * `summary.md`: a report a person reads in a minute, for a CI step summary (GitHub's
 * `$GITHUB_STEP_SUMMARY`, a GitLab merge-request note). One line per rule wherever rules are listed:
 * the verdict and why, counts by area, the MUST rules an UNDECIDED verdict rests on, the failing rules
 * (first message, how many more scenarios failed it, its replay), the rules only partly verified
 * (what did not run and why), BLOCKED and SKIP rules grouped by what their causes say, what the run
 * left on the target, and each replay script once, linked from the rules it serves, folded, as many
 * as fit in SUMMARY_LINES (the others are in report.html, which keeps every detail: sentences, every
 * message, curls, exchanges). A pure function of report.json; every string from the report goes
 * through escape.ts, in the form its place needs (text, table cell, code span, HTML of a `<summary>`).
 */
import { countOf, failingRules, firstLine, kindCounts, leftBehind, partlyVerifiedRules, scenarioReplays, undecidedCauses, undecidedMustRules, type ScenarioReplay } from './digest.ts';
import { escapeHtmlText as escapeHtml, escapeMarkdown as md, markdownBlock, markdownCellCode, markdownCode } from './escape.ts';
import { REPORT_FILES } from './files.ts';
import { RULE_STATUSES, type ConformanceReport } from './schema.ts';
import { countStatuses, interruptedScope, rulesByArea, statusText, targetHosts, verdictOf } from './view.ts';

const VERDICT_TITLES = { 0: 'passed', 1: 'FAILED', 2: 'UNDECIDED' } as const;
/** Characters of a message in a table cell; the whole message is in report.html. */
const CELL_CHARS = 160;
/** Rule IDs listed in one cause's cell; report.html lists them all. */
const RULES_PER_CAUSE = 20;
/** What the summary aims to stay within: replay scripts are folded into it only while it does. */
export const SUMMARY_LINES = 200;

export function renderMarkdown(report: ConformanceReport): string {
  const verdict = verdictOf(report);
  const target = report.run.targets[0];
  const html = REPORT_FILES.html;
  const out: string[] = [`# Conformance: ${VERDICT_TITLES[verdict.exitCode]}`, ''];
  out.push(...bannerLines(report));
  out.push(
    [
      `Target ${markdownCode(targetHosts(report))}`,
      target ? `API version ${markdownCode(target.apiVersion)}` : undefined,
      target ? `profile ${markdownCode(target.profile)}` : undefined,
      report.run.seed === undefined ? undefined : `seed ${report.run.seed}`,
      `suite ${md(report.run.suiteVersion)}`,
      `${(report.run.durationMs / 1000).toFixed(1)} s`,
      report.run.only ? `only ${report.run.only.map(markdownCode).join(', ')}` : undefined,
      `[full report](${html})`,
    ]
      .filter(Boolean)
      .join(' · '),
    '',
  );
  const stopped = report.run.stopped;
  if (stopped !== undefined) out.push(`> **Stopped at ${md(stopped.stage)}** (${md(stopped.kind)}), before any scenario: ${md(stopped.message)}`, '');
  for (const reason of verdict.reasons) out.push(`- ${md(reason)}`);
  if (verdict.reasons.length > 0) out.push('');

  const areas = rulesByArea(report);
  if (areas.size > 0) {
    out.push(`| Area | ${RULE_STATUSES.join(' | ')} |`, `|---|${RULE_STATUSES.map(() => '---:').join('|')}|`);
    for (const [area, rules] of areas) out.push(countRow(md(area), countStatuses(rules)));
    out.push(countRow('**Total**', countStatuses([...areas.values()].flat())), '');
  }
  if (report.counts.known > 0) out.push(`${report.counts.known} known failure(s) from the baseline do not fail the run.`, '');

  if (verdict.exitCode === 2) out.push(...undecidedSection(report));
  const replays = scenarioReplays(failingRules(report));
  out.push(...failingSection(report, replays));
  out.push(...partlySection(report));
  out.push(...causesSection(report));
  out.push(...leftBehindSection(report));
  const stale = report.baseline?.stale ?? [];
  if (stale.length > 0) {
    out.push('## Stale baseline entries', '');
    for (const e of stale) out.push(`- ${markdownCode(e.rule)} passes now: remove it from the baseline (it said: ${md(e.reason)})`);
    out.push('');
  }
  // A stopped run's one error is its stop, already said at the top; an interruption is there too.
  if (report.errors.length > 0 && stopped === undefined) {
    out.push('## Errors outside scenarios', '');
    for (const e of report.errors) out.push(`- ${e.file ? `${markdownCode(e.file)}: ` : ''}${md(firstLine({ message: e.message, status: 'ERROR' }))}`);
    out.push('');
  }
  out.push(...replaySection(replays, lineCount(out)));
  return `${out.join('\n').trimEnd()}\n`;
}

/** The lines above everything else that say the report is not a finished run's. */
export function bannerLines(report: ConformanceReport): string[] {
  const interrupted = report.run.interrupted;
  if (interrupted !== undefined) return [`> **Interrupted** (${md(interrupted.message)}): ${interruptedScope(interrupted)}; the rules below are those they carried.`, ''];
  if (report.complete) return [];
  return [`> **Incomplete report**: the run ${report.run.result === 'running' ? 'is still going on' : 'did not finish'}.`, ''];
}

function countRow(label: string, counts: Record<string, number>): string {
  return `| ${label} | ${RULE_STATUSES.map((s) => counts[s]).join(' | ')} |`;
}

/** A rule ID linking to its place in report.html. */
function ruleLink(id: string, anchor: 'failure' | 'rule'): string {
  return `[${markdownCellCode(id)}](${REPORT_FILES.html}#${anchor}-${encodeURIComponent(id)})`;
}

function undecidedSection(report: ConformanceReport): string[] {
  const rules = undecidedMustRules(report);
  if (rules.length === 0) return [];
  const out = ['## Why undecided', '', `${rules.length} MUST rule(s) could not be decided; each needs a verdict before the run can pass:`, '', '| Rule | Status | What stopped it |', '|---|---|---|'];
  for (const rule of rules) {
    const why = rule.message === undefined ? rule.cause : `${rule.cause}: ${rule.message}`;
    out.push(`| ${ruleLink(rule.id, rule.status === 'ERROR' ? 'failure' : 'rule')} | ${rule.status} | ${md(cut(why))} |`);
  }
  return [...out, ''];
}

/** The anchor of a scenario's replay script in this summary. */
function replayAnchor(scenario: string): string {
  return `replay-${scenario.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

function failingSection(report: ConformanceReport, replays: readonly ScenarioReplay[]): string[] {
  const failing = failingRules(report);
  if (failing.length === 0) return [];
  const replayOf = new Map(replays.flatMap((r) => r.rules.map((rule) => [rule, r] as const)));
  const out = [`## Failing rules (${failing.length})`, '', '| Rule | Level | Status | First failure | More | Replay |', '|---|---|---|---|---:|---|'];
  for (const f of failing) {
    const status = `${f.rule.status}${f.rule.known ? ' (known)' : ''}`;
    const replay = replayOf.get(f.id);
    const link = replay === undefined ? '' : `[${markdownCellCode(replay.scenario)}](#${replayAnchor(replay.scenario)})`;
    out.push(`| ${ruleLink(f.id, 'failure')} | ${f.rule.level ?? ''} | ${status} | ${md(cut(firstLine(f.first)))} | ${f.more > 0 ? `+${f.more}` : ''} | ${link} |`);
  }
  return [...out, ''];
}

function partlySection(report: ConformanceReport): string[] {
  const partly = partlyVerifiedRules(report);
  if (partly.length === 0) return [];
  const out = [`## Partly verified (${partly.length})`, '', '| Rule | Level | Verdict (what did not run, and why) |', '|---|---|---|'];
  for (const { id, rule } of partly) out.push(`| ${ruleLink(id, 'rule')} | ${rule.level ?? ''} | ${md(cut(statusText(rule), 2 * CELL_CHARS))} |`);
  return [...out, ''];
}

function causesSection(report: ConformanceReport): string[] {
  const causes = undecidedCauses(report);
  if (causes.length === 0) return [];
  const rules = new Set(causes.flatMap((c) => c.rules.map((r) => r.id)));
  const out = [`## BLOCKED and SKIP, by cause (${rules.size} rules)`, '', '| Status | Cause | Rules |', '|---|---|---|'];
  for (const cause of causes) {
    const shown = cause.rules.slice(0, RULES_PER_CAUSE).map((r) => `${ruleLink(r.id, 'rule')}${r.level === 'MUST' ? ' (MUST)' : ''}`);
    const more = cause.rules.length - shown.length;
    const what = cause.rule === undefined ? md(cut(cause.cause)) : `${ruleLink(cause.rule, 'failure')} ${md(cause.cause.slice(cause.rule.length).trim())}`;
    out.push(`| ${cause.status} | ${what} | ${cause.rules.length}: ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''} |`);
  }
  return [...out, ''];
}

function leftBehindSection(report: ConformanceReport): string[] {
  if (report.cleanup.length === 0) return [];
  const { undone, alreadyGone, left, failed } = leftBehind(report);
  const leftCount = countOf(left);
  const failedCount = countOf(failed);
  const out = ['## Left behind', ''];
  const removed = `The run removed ${undone} record(s) it made${alreadyGone > 0 ? ` (${alreadyGone} more were already gone)` : ''}`;
  if (leftCount === 0 && failedCount === 0) return [...out, `${removed} and left nothing behind.`, ''];
  out.push(`${removed}. On the target remain ${leftCount} the API cannot remove${failedCount > 0 ? `, and ${failedCount} whose removal failed` : ''}:`, '');
  out.push('| Kind | Cannot be removed | Removal failed |', '|---|---:|---:|');
  for (const kind of new Set([...left.keys(), ...failed.keys()])) out.push(`| ${md(kind)} | ${left.get(kind)?.length ?? 0} | ${failed.get(kind)?.length ?? 0} |`);
  out.push('');
  if (failedCount > 0) {
    const errors = new Map<string, number>();
    for (const { error } of [...failed.values()].flat()) {
      const line = firstLine({ message: error, status: 'ERROR' });
      errors.set(line, (errors.get(line) ?? 0) + 1);
    }
    out.push('Why removals failed:', '');
    for (const [error, n] of [...errors].sort((a, b) => b[1] - a[1])) out.push(`- ${n} × ${md(cut(error))}`);
    out.push('');
  }
  // One line per kind, IDs separated by spaces: the list stays folded and short, and copies into a shell as is.
  const lines = [...[...left].map(([kind, ids]) => `${kind} (${ids.length}): ${ids.join(' ')}`), ...[...failed].map(([kind, items]) => `${kind}, removal failed (${items.length}): ${items.map((i) => i.id).join(' ')}`)];
  out.push('<details>', `<summary>Their IDs (${escapeHtml(kindCounts(left))}${failedCount > 0 ? `; failed: ${escapeHtml(kindCounts(failed))}` : ''})</summary>`, '', markdownBlock(lines.join('\n'), 'text'), '', '</details>', '');
  return out;
}

/**
 * Each scenario's replay script once, with the rules it serves: folded in full while the summary
 * stays within SUMMARY_LINES (`used` lines so far), else one line pointing to report.html.
 */
function replaySection(replays: readonly ScenarioReplay[], used: number): string[] {
  if (replays.length === 0) return [];
  const header = ['## Replay scripts', '', 'Each failing scenario from its first call, once (`API_KEY=… sh replay.sh`); the rules it serves link here.', ''];
  const out = [...header];
  let lines = used + header.length;
  for (const [i, replay] of replays.entries()) {
    const anchor = `<a id="${replayAnchor(replay.scenario)}"></a>`;
    const serves = replay.rules.map(markdownCode).join(', ');
    const folded = [
      '<details>',
      `<summary>${anchor}<code>${escapeHtml(replay.scenario)}</code> (${escapeHtml(`${callCount(replay.script)} call(s)`)}): ${escapeHtml(replay.rules.join(', '))}</summary>`,
      '',
      markdownBlock(replay.script.trimEnd(), 'sh'),
      '',
      '</details>',
    ];
    // Room is kept for one line for each script after this one, and the blank line that ends the section.
    const fits = lines + lineCount(folded) + (replays.length - i - 1) + 1 <= SUMMARY_LINES;
    const shown = fits ? folded : [`- ${anchor}${markdownCode(replay.scenario)} (${callCount(replay.script)} call(s)), serving ${serves}: in [report.html](${REPORT_FILES.html}#failure-${encodeURIComponent(replay.rules[0]!)})`];
    out.push(...shown);
    lines += lineCount(shown);
  }
  return [...out, ''];
}

function lineCount(parts: readonly string[]): number {
  return parts.join('\n').split('\n').length;
}

/** The number of calls a replay script makes (its curl lines). */
function callCount(script: string): number {
  return script.split('\n').filter((line) => line.startsWith('curl ')).length;
}

function cut(text: string, chars = CELL_CHARS): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}
