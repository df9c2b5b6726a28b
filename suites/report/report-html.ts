/**
 * `report.html`: one self-contained page (inline style and script, no fetches, works from file://)
 * rendered from a report: the verdict, a summary by area with PASS/FAIL/BLOCKED/SKIP/ERROR counts,
 * then the same digest as summary.md (the MUST rules an UNDECIDED verdict rests on, one row per
 * failing rule, BLOCKED and SKIP rules by cause, what the run left behind), a table of every rule
 * with its level and status that can be filtered by status and text, and every failing rule
 * expanded: the sentence of interface.md, its first failure (the assertion, expected and actual,
 * the curl, the replay script, the exchanges; secrets were redacted before the report was written)
 * and its other failures folded by message. A pure function of report.json; every string from the
 * report goes through escapeHtml.
 */
import { escapeHtml as h } from './escape.ts';
import { RULE_STATUSES, type ConformanceReport, type ReportedExchange, type RuleReport, type RuleScenario } from './schema.ts';
import { countOf, failingRules, firstLine, kindCounts, leftBehind, partlyVerifiedRules, undecidedCauses, undecidedMustRules, type FailingRule } from './digest.ts';
import { countStatuses, failuresOf, interruptedScope, rulesByArea, targetHosts, verdictOf, type RuleEntry } from './view.ts';

const VERDICTS = { 0: 'PASSED', 1: 'FAILED', 2: 'UNDECIDED' } as const;

export function renderHtml(report: ConformanceReport): string {
  const verdict = verdictOf(report);
  const areas = rulesByArea(report);
  const all = [...areas.values()].flat();
  const total = countStatuses(all);
  const target = report.run.targets[0];
  const facts: [string, string][] = [
    ['Target', target ? `${target.baseUrl} (${target.kind})` : targetHosts(report)],
    ['API version', target?.apiVersion ?? ''],
    ['Profile', target?.profile ?? ''],
    ['Seed', report.run.seed === undefined ? '' : String(report.run.seed)],
    ['Suite version', report.run.suiteVersion],
    ['Started', report.run.startedAt],
    ['Duration', `${(report.run.durationMs / 1000).toFixed(1)} s`],
    ...(report.run.only ? ([['Only', report.run.only.join(' ')]] as [string, string][]) : []),
    ...(report.run.baseline ? ([['Baseline', report.run.baseline]] as [string, string][]) : []),
    ...(report.run.rerunOf ? ([['Re-run of', report.run.rerunOf]] as [string, string][]) : []),
  ];
  const failing = failingRules(report);
  const stopped = report.run.stopped;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance report: ${h(VERDICTS[verdict.exitCode])}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Conformance report <span class="verdict v${verdict.exitCode}" id="verdict">${h(VERDICTS[verdict.exitCode])}</span></h1>
${report.complete ? '' : `<p class="banner" id="incomplete">${report.run.interrupted ? `Interrupted (${h(report.run.interrupted.message)}): ${h(interruptedScope(report.run.interrupted))}` : `Incomplete report: the run ${report.run.result === 'running' ? 'is still going on' : 'did not finish'}`}; it shows what finished.</p>`}
${stopped === undefined ? '' : `<p class="banner stopped" id="stopped">Stopped at ${h(stopped.stage)} (${h(stopped.kind)}), before any scenario: ${h(stopped.message)}</p>`}
<dl class="facts">${facts.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join('')}</dl>
${verdict.reasons.length > 0 ? `<ul class="reasons">${verdict.reasons.map((r) => `<li>${h(r)}</li>`).join('')}</ul>` : ''}
</header>
<section id="summary">
<h2>Summary</h2>
<div class="totals">${RULE_STATUSES.map((s) => `<div class="total s-${s}"><span class="n" id="count-${s}">${total[s]}</span> ${s}</div>`).join('')}${report.counts.known > 0 ? `<div class="total s-known"><span class="n" id="count-known">${report.counts.known}</span> known</div>` : ''}</div>
<table class="areas"><thead><tr><th>Area</th>${RULE_STATUSES.map((s) => `<th>${s}</th>`).join('')}</tr></thead><tbody>
${[...areas].map(([area, rules]) => areaRow(area, rules)).join('\n')}
</tbody></table>
${staleList(report)}
</section>
${verdict.exitCode === 2 ? undecidedSection(report) : ''}
${failingSection(failing)}
${partlySection(report)}
${causesSection(report)}
${leftBehindSection(report)}
<section id="rules">
<h2>Rules</h2>
<div class="filters" role="group" aria-label="Filter rules">
${RULE_STATUSES.map((s) => `<label><input type="checkbox" class="status-filter" id="filter-${s}" value="${s}" checked> ${s}</label>`).join('\n')}
<input type="search" id="filter-text" placeholder="Filter by rule ID, area or sentence" aria-label="Filter by text">
<span id="shown-count"></span>
</div>
<table class="rules"><thead><tr><th>Rule</th><th>Area</th><th>Level</th><th>Status</th><th>Section</th><th>Sentence</th></tr></thead><tbody>
${all.map(ruleRow).join('\n')}
</tbody></table>
</section>
<section id="failures">
<h2>Failures (${failing.length})</h2>
${failing.length === 0 ? '<p>No rule failed.</p>' : failing.map(failureBlock).join('\n')}
</section>
${report.errors.length > 0 && stopped === undefined ? `<section id="errors"><h2>Errors outside scenarios</h2>${report.errors.map((e) => `<pre>${h(`${e.file ? `${e.file}: ` : ''}${e.message}`)}</pre>`).join('')}</section>` : ''}
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function areaRow(area: string, rules: readonly RuleEntry[]): string {
  const counts = countStatuses(rules);
  return `<tr><th scope="row">${h(area)}</th>${RULE_STATUSES.map((s) => `<td class="${counts[s] > 0 ? `s-${s}` : 'zero'}">${counts[s]}</td>`).join('')}</tr>`;
}

function statusBadge(rule: RuleReport): string {
  const partly = rule.partly === undefined ? '' : ` <span class="partly">partly verified: ${rule.partly.verified} of ${rule.partly.of} scenarios</span>`;
  return `<span class="badge s-${rule.status}">${rule.status}</span>${partly}${rule.known ? ' <span class="badge s-known" title="' + h(rule.known.reason) + '">known</span>' : ''}`;
}

function ruleRow([id, rule]: RuleEntry): string {
  const text = [id, rule.area ?? '', rule.quote ?? '', rule.section ?? ''].join(' ').toLowerCase();
  const link = rule.status === 'FAIL' || rule.status === 'ERROR' ? ruleLink(id, 'failure') : h(id);
  return `<tr class="rule" id="rule-${h(id)}" data-status="${rule.status}" data-text="${h(text)}"><td class="id">${link}</td><td>${h(rule.area ?? '')}</td><td>${h(rule.level ?? '')}</td><td>${statusBadge(rule)}${rule.reason ? `<div class="reason">${h(rule.reason)}</div>` : ''}</td><td>${h(rule.section ?? '')}</td><td class="quote">${sentence(rule.quote ?? '')}</td></tr>`;
}

function ruleLink(id: string, anchor: 'failure' | 'rule'): string {
  return `<a href="#${anchor}-${h(id)}">${h(id)}</a>`;
}

function undecidedSection(report: ConformanceReport): string {
  const rules = undecidedMustRules(report);
  if (rules.length === 0) return '';
  return `<section id="undecided">
<h2>Why undecided</h2>
<p>${rules.length} MUST rule(s) could not be decided; each needs a verdict before the run can pass.</p>
<table class="digest"><thead><tr><th>Rule</th><th>Status</th><th>What stopped it</th></tr></thead><tbody>
${rules.map((r) => `<tr data-rule="${h(r.id)}"><td class="id">${ruleLink(r.id, r.status === 'ERROR' ? 'failure' : 'rule')}</td><td><span class="badge s-${r.status}">${r.status}</span></td><td>${h(r.cause)}${r.message === undefined ? '' : `<div class="reason">${h(r.message)}</div>`}</td></tr>`).join('\n')}
</tbody></table>
</section>`;
}

function failingSection(failing: readonly FailingRule[]): string {
  if (failing.length === 0) return '';
  return `<section id="failing">
<h2>Failing rules (${failing.length})</h2>
<table class="digest"><thead><tr><th>Rule</th><th>Level</th><th>Status</th><th>First failure</th><th>More</th></tr></thead><tbody>
${failing.map((f) => `<tr data-rule="${h(f.id)}"><td class="id">${ruleLink(f.id, 'failure')}</td><td>${h(f.rule.level ?? '')}</td><td>${statusBadge(f.rule)}</td><td class="first">${h(firstLine(f.first))}</td><td class="more">${f.more > 0 ? `+${f.more}` : ''}</td></tr>`).join('\n')}
</tbody></table>
</section>`;
}

function partlySection(report: ConformanceReport): string {
  const partly = partlyVerifiedRules(report);
  if (partly.length === 0) return '';
  return `<section id="partly">
<h2>Partly verified (${partly.length})</h2>
<table class="digest"><thead><tr><th>Rule</th><th>Level</th><th>Verified in full</th><th>What did not run, and why</th></tr></thead><tbody>
${partly.map(({ id, rule, partly: p }) => `<tr data-rule="${h(id)}"><td class="id">${ruleLink(id, 'rule')}</td><td>${h(rule.level ?? '')}</td><td>${p.verified} of ${p.of} scenarios</td><td><ul>${p.gaps.map((gap) => `<li>${h(gap)}</li>`).join('')}</ul></td></tr>`).join('\n')}
</tbody></table>
</section>`;
}

function causesSection(report: ConformanceReport): string {
  const causes = undecidedCauses(report);
  if (causes.length === 0) return '';
  const rules = new Set(causes.flatMap((c) => c.rules.map((r) => r.id)));
  return `<section id="causes">
<h2>BLOCKED and SKIP, by cause (${rules.size} rules)</h2>
<table class="digest"><thead><tr><th>Status</th><th>Cause</th><th>Rules</th></tr></thead><tbody>
${causes
  .map((c) => {
    const cause = c.rule === undefined ? h(c.cause) : `${ruleLink(c.rule, 'failure')} ${h(c.cause.slice(c.rule.length).trim())}`;
    const list = c.rules.map((r) => `${ruleLink(r.id, 'rule')}${r.level === 'MUST' ? ' <span class="must">MUST</span>' : ''}`).join(', ');
    return `<tr class="cause" data-status="${c.status}"><td><span class="badge s-${c.status}">${c.status}</span></td><td>${cause}</td><td><span class="n">${c.rules.length}</span>: ${list}</td></tr>`;
  })
  .join('\n')}
</tbody></table>
</section>`;
}

function leftBehindSection(report: ConformanceReport): string {
  if (report.cleanup.length === 0) return '';
  const { undone, alreadyGone, left, failed } = leftBehind(report);
  const leftCount = countOf(left);
  const failedCount = countOf(failed);
  const removed = `The run removed ${undone} record(s) it made${alreadyGone > 0 ? ` (${alreadyGone} more were already gone)` : ''}`;
  if (leftCount === 0 && failedCount === 0) return `<section id="left-behind"><h2>Left behind</h2><p>${removed} and left nothing behind.</p></section>`;
  const kinds = [...new Set([...left.keys(), ...failed.keys()])];
  const idList = (kind: string) => [...(left.get(kind) ?? []), ...(failed.get(kind) ?? []).map((f) => `${f.id} (removal failed: ${firstLine({ message: f.error, status: 'ERROR' })})`)];
  return `<section id="left-behind">
<h2>Left behind (${leftCount + failedCount})</h2>
<p>${removed}. On the target remain ${leftCount} the API cannot remove${failedCount > 0 ? `, and ${failedCount} whose removal failed` : ''}: ${h(kindCounts(left))}.</p>
<table class="digest"><thead><tr><th>Kind</th><th>Cannot be removed</th><th>Removal failed</th><th>IDs</th></tr></thead><tbody>
${kinds.map((k) => `<tr data-kind="${h(k)}"><td>${h(k)}</td><td class="n">${left.get(k)?.length ?? 0}</td><td class="n">${failed.get(k)?.length ?? 0}</td><td><details><summary>${idList(k).length} IDs</summary><pre class="ids">${h(idList(k).join('\n'))}</pre></details></td></tr>`).join('\n')}
</tbody></table>
</section>`;
}

/** Failing scenarios of a rule shown in full (the first open); the others are listed by message. */
const FULL_FAILURES = 3;

function failureBlock(f: FailingRule): string {
  const { id, rule } = f;
  const failures = failuresOf(rule).slice(0, FULL_FAILURES);
  return `<details class="failure" id="failure-${h(id)}" data-status="${rule.status}" open>
<summary><span class="id">${h(id)}</span> ${statusBadge(rule)} ${h(rule.level ?? '')} · ${h(rule.area ?? '')}${f.more > 0 ? ` · failed in ${f.more + 1} scenarios` : ''}</summary>
${rule.quote !== undefined ? `<blockquote class="sentence">${sentence(rule.quote)}</blockquote><p class="where">interface.md § ${h(rule.section ?? '')} · ${h(rule.provenance ?? '')}${rule.source ? ` · ${h(rule.source)}` : ''}</p>` : ''}
${rule.known ? `<p class="known">Known failure (baseline): ${h(rule.known.reason)}${rule.known.expires ? ` · until ${h(rule.known.expires)}` : ''}</p>` : ''}
${failures.map((failure, i) => scenarioFailure(failure, i === 0)).join('\n')}
${f.more > 0 ? `<div class="messages"><h4>Every failure, by message</h4><ul>${f.messages.map((m) => `<li><span class="n">${m.scenarios.length} ×</span> ${h(m.message)}<details><summary>scenarios</summary><p class="scenarios">${m.scenarios.map((s) => `<code>${h(s)}</code>`).join(' ')}</p></details></li>`).join('')}</ul></div>` : ''}
</details>`;
}

function scenarioFailure(failure: RuleScenario, open: boolean): string {
  const exchanges = failure.exchanges ?? [];
  const body = `<pre class="message">${h(failure.message ?? '')}</pre>
${failure.expected !== undefined || failure.actual !== undefined ? `<div class="diff"><div><h5>Expected</h5><pre>${h(pretty(failure.expected))}</pre></div><div><h5>Actual</h5><pre>${h(pretty(failure.actual))}</pre></div></div>` : ''}
${exchanges.length > 0 ? `<h5>Replay</h5><pre class="curl">${h(exchanges.at(-1)!.curl)}</pre>` : ''}
${failure.replay === undefined ? '' : `<details class="replay"><summary>The scenario from its first call, as a script (<code>API_KEY=… sh replay.sh</code>)</summary><pre class="replay">${h(failure.replay)}</pre></details>`}
${exchanges.map(exchangeBlock).join('\n')}`;
  const title = `${h(failure.title)} <code>${h(failure.scenario)}</code>${failure.via === 'wire-schema' ? ' (wire-schema check)' : failure.via === 'server-fault' ? ' (server fault)' : ''}`;
  return open ? `<div class="scenario">\n<h4>${title}</h4>\n${body}\n</div>` : `<details class="scenario"><summary>${title}</summary>\n${body}\n</details>`;
}

function exchangeBlock(exchange: ReportedExchange): string {
  const { request, response } = exchange;
  return `<details class="exchange"><summary>${h(exchange.label)}: ${h(request.method)} ${h(request.url)} → ${response ? h(String(response.status)) : h(exchange.error ?? 'no response')} (${exchange.durationMs} ms${exchange.attempts > 1 ? `, ${exchange.attempts} attempts` : ''})</summary>
<div class="pair"><div><h5>Request</h5><pre>${h(headerLines(request.headers))}\n\n${h(pretty(request.body))}</pre></div>
<div><h5>Response</h5><pre>${response ? `${h(headerLines(response.headers))}\n\n${h(pretty(response.body))}` : h(exchange.error ?? '')}</pre></div></div>
${exchange.schemaIssues && exchange.schemaIssues.length > 0 ? `<pre class="issues">${h(exchange.schemaIssues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('\n'))}</pre>` : ''}
<pre class="curl">${h(exchange.curl)}</pre>
</details>`;
}

function staleList(report: ConformanceReport): string {
  const stale = report.baseline?.stale ?? [];
  if (stale.length === 0) return '';
  return `<div class="stale" id="stale"><h3>Stale baseline entries</h3><ul>${stale.map((e) => `<li><code>${h(e.rule)}</code> passes now: remove it from the baseline</li>`).join('')}</ul></div>`;
}

/** A sentence of interface.md: escaped, then its `code spans` shown as code, as the document renders them. */
function sentence(text: string): string {
  return h(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function headerLines(headers: Readonly<Record<string, string>>): string {
  return Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\n');
}

function pretty(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0 2rem 3rem;color:#1d1f21}
h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
.verdict{padding:.1rem .6rem;border-radius:4px;color:#fff}.v0{background:#2e7d32}.v1{background:#c62828}.v2{background:#6a1b9a}
.banner{background:#fff3cd;border:1px solid #e0c36a;padding:.5rem 1rem}.stopped{background:#f3e5f5;border-color:#6a1b9a}
.digest td{vertical-align:top}.digest .first{max-width:50rem}.digest .more,.digest .n{text-align:right;white-space:nowrap}.must{font-size:.75em;color:#c62828}
pre.ids{max-height:15rem}pre.replay{background:#263238;color:#eceff1}.messages li{margin:.3rem 0}.scenarios code{margin-right:.4rem}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem}.facts dt{font-weight:600}.facts dd{margin:0}
.totals{display:flex;gap:1rem;margin:1rem 0}.total{padding:.5rem 1rem;border-radius:6px;border:1px solid #ccc}.total .n{font-size:1.5rem;font-weight:700}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
.areas td{text-align:right;width:6rem}.zero{color:#aaa}
.s-PASS{color:#2e7d32}.s-FAIL{color:#c62828;font-weight:600}.s-ERROR{color:#6a1b9a;font-weight:600}.s-BLOCKED{color:#b26a00}.s-SKIP{color:#666}.s-known{color:#8d6e00}
.badge{border:1px solid currentColor;border-radius:3px;padding:0 .3rem;font-size:.85em}
.filters{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;margin:.5rem 0}#filter-text{flex:1;min-width:16rem;padding:.2rem .4rem}
.rules .id,.failure .id{font-family:ui-monospace,monospace;white-space:nowrap}.quote{max-width:40rem}.reason{color:#666;font-size:.85em}
.failure{border:1px solid #e5b4b4;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.failure>summary{font-weight:600;cursor:pointer}
blockquote.sentence{border-left:4px solid #c62828;margin:.5rem 0;padding:.2rem 1rem;background:#fafafa;font-style:italic}
.where{color:#555;font-size:.9em}
pre{background:#f5f5f5;padding:.5rem;overflow:auto;white-space:pre-wrap;word-break:break-all;max-height:30rem}
pre.curl{background:#263238;color:#eceff1}
.pair,.diff{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
tr[hidden]{display:none}
`;

const SCRIPT = `
(function(){
  var boxes=[].slice.call(document.querySelectorAll('.status-filter'));
  var text=document.getElementById('filter-text');
  var rows=[].slice.call(document.querySelectorAll('tr.rule'));
  var shown=document.getElementById('shown-count');
  function apply(){
    var on={};boxes.forEach(function(b){on[b.value]=b.checked;});
    var q=text.value.trim().toLowerCase();var n=0;
    rows.forEach(function(r){var ok=on[r.dataset.status]&&(q===''||r.dataset.text.indexOf(q)>=0);r.hidden=!ok;if(ok)n++;});
    shown.textContent=n+' of '+rows.length+' rules shown';
  }
  boxes.forEach(function(b){b.addEventListener('change',apply);});
  text.addEventListener('input',apply);
  apply();
})();
`;
