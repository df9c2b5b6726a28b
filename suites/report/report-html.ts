/**
 * `report.html`: one self-contained page (inline style and script, no fetches, works from file://)
 * rendered from a report: the verdict, a summary by area with PASS/FAIL/BLOCKED/SKIP/ERROR counts,
 * a table of every rule with its level and status that can be filtered by status and text, and
 * every failure expanded with the sentence of interface.md, the assertion, the exchanges (request
 * and response, pretty-printed; secrets were redacted before the report was written) and a curl.
 * A pure function of report.json; every string from the report goes through escapeHtml.
 */
import { escapeHtml as h } from './escape.ts';
import { RULE_STATUSES, type ConformanceReport, type ReportedExchange, type RuleReport, type RuleScenario } from './schema.ts';
import { countStatuses, failuresOf, isFailing, rulesByArea, targetHosts, verdictOf, type RuleEntry } from './view.ts';

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
  const failing = all.filter(([, r]) => isFailing(r));
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
${report.complete ? '' : `<p class="banner" id="incomplete">Incomplete report: the run ${report.run.result === 'running' ? 'is still going on' : 'did not finish'}; it shows what finished.</p>`}
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
${report.errors.length > 0 ? `<section id="errors"><h2>Errors outside scenarios</h2>${report.errors.map((e) => `<pre>${h(`${e.file ? `${e.file}: ` : ''}${e.message}`)}</pre>`).join('')}</section>` : ''}
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
  return `<span class="badge s-${rule.status}">${rule.status}</span>${rule.known ? ' <span class="badge s-known" title="' + h(rule.known.reason) + '">known</span>' : ''}`;
}

function ruleRow([id, rule]: RuleEntry): string {
  const text = [id, rule.area ?? '', rule.quote ?? '', rule.section ?? ''].join(' ').toLowerCase();
  const link = isFailing(rule) ? `<a href="#failure-${h(id)}">${h(id)}</a>` : h(id);
  return `<tr class="rule" data-status="${rule.status}" data-text="${h(text)}"><td class="id">${link}</td><td>${h(rule.area ?? '')}</td><td>${h(rule.level ?? '')}</td><td>${statusBadge(rule)}${rule.reason ? `<div class="reason">${h(rule.reason)}</div>` : ''}</td><td>${h(rule.section ?? '')}</td><td class="quote">${sentence(rule.quote ?? '')}</td></tr>`;
}

function failureBlock([id, rule]: RuleEntry): string {
  return `<details class="failure" id="failure-${h(id)}" data-status="${rule.status}" open>
<summary><span class="id">${h(id)}</span> ${statusBadge(rule)} ${h(rule.level ?? '')} · ${h(rule.area ?? '')}</summary>
${rule.quote !== undefined ? `<blockquote class="sentence">${sentence(rule.quote)}</blockquote><p class="where">interface.md § ${h(rule.section ?? '')} · ${h(rule.provenance ?? '')}${rule.source ? ` · ${h(rule.source)}` : ''}</p>` : ''}
${rule.known ? `<p class="known">Known failure (baseline): ${h(rule.known.reason)}${rule.known.expires ? ` · until ${h(rule.known.expires)}` : ''}</p>` : ''}
${failuresOf(rule).map(scenarioFailure).join('\n')}
</details>`;
}

function scenarioFailure(failure: RuleScenario): string {
  const exchanges = failure.exchanges ?? [];
  return `<div class="scenario">
<h4>${h(failure.title)} <code>${h(failure.scenario)}</code>${failure.via === 'wire-schema' ? ' (wire-schema check)' : ''}</h4>
<pre class="message">${h(failure.message ?? '')}</pre>
${failure.expected !== undefined || failure.actual !== undefined ? `<div class="diff"><div><h5>Expected</h5><pre>${h(pretty(failure.expected))}</pre></div><div><h5>Actual</h5><pre>${h(pretty(failure.actual))}</pre></div></div>` : ''}
${exchanges.length > 0 ? `<h5>Replay</h5><pre class="curl">${h(exchanges.at(-1)!.curl)}</pre>` : ''}
${exchanges.map(exchangeBlock).join('\n')}
</div>`;
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
.banner{background:#fff3cd;border:1px solid #e0c36a;padding:.5rem 1rem}
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
