/** Views of a report that every renderer shares: rules by area, counts per area, the failures of a rule, the run's verdict. */
import { RULE_STATUSES, type ConformanceReport, type RuleReport, type RuleScenario, type RuleStatus } from './schema.ts';

export const OTHER_AREA = 'other';

export type RuleEntry = readonly [id: string, rule: RuleReport];

/** Rules grouped by area, areas in order of first appearance in the catalogue order of the report (sorted by ID otherwise). */
export function rulesByArea(report: ConformanceReport): Map<string, RuleEntry[]> {
  const areas = new Map<string, RuleEntry[]>();
  for (const entry of Object.entries(report.rules).sort(([a], [b]) => a.localeCompare(b))) {
    const area = entry[1].area ?? OTHER_AREA;
    areas.set(area, [...(areas.get(area) ?? []), entry]);
  }
  return new Map([...areas].sort(([a], [b]) => a.localeCompare(b)));
}

export function countStatuses(rules: readonly RuleEntry[]): Record<RuleStatus, number> {
  const counts = Object.fromEntries(RULE_STATUSES.map((s) => [s, 0])) as Record<RuleStatus, number>;
  for (const [, rule] of rules) counts[rule.status]++;
  return counts;
}

/** The scenarios where the rule did what decided its status (FAIL or ERROR): the evidence of its failure. */
export function failuresOf(rule: RuleReport): RuleScenario[] {
  return rule.scenarios.filter((s) => s.status === rule.status && (s.status === 'FAIL' || s.status === 'ERROR'));
}

export function isFailing(rule: RuleReport): boolean {
  return rule.status === 'FAIL' || rule.status === 'ERROR';
}

export interface Verdict {
  /** 0: every MUST rule that ran passes. 1: a MUST rule fails, or the baseline is stale. 2: the run could not check everything it meant to. */
  readonly exitCode: 0 | 1 | 2;
  /** One line per reason, empty for 0. */
  readonly reasons: readonly string[];
}

/** The run's verdict from its report: MUST FAILs not in the baseline and stale entries fail it; errors leave it undecided. */
export function verdictOf(report: ConformanceReport): Verdict {
  const must = Object.entries(report.rules).filter(([, r]) => r.level === 'MUST' && r.known === undefined);
  const failing = must.filter(([, r]) => r.status === 'FAIL').map(([id]) => id);
  const stale = report.baseline?.stale ?? [];
  const failed = [
    ...(failing.length > 0 ? [`${failing.length} MUST rule(s) fail: ${failing.join(', ')}`] : []),
    ...stale.map((e) => `${e.rule} is in the baseline but passes now: remove it from the baseline`),
  ];
  if (failed.length > 0) return { exitCode: 1, reasons: failed };
  const errors = must.filter(([, r]) => r.status === 'ERROR').map(([id]) => id);
  const undecided = [
    ...(errors.length > 0 ? [`${errors.length} MUST rule(s) could not be checked (ERROR: the target or the harness failed): ${errors.join(', ')}`] : []),
    ...(report.errors.length > 0 ? [`${report.errors.length} error(s) outside any scenario (see errors in report.json)`] : []),
    ...(report.complete ? [] : ['the run did not finish (the report is incomplete)']),
    // A target that refuses every setup call blocks every MUST rule: nothing was shown either way.
    ...(must.length > 0 && must.every(([, r]) => r.status === 'BLOCKED' || r.status === 'SKIP') && must.some(([, r]) => r.status === 'BLOCKED')
      ? ['no MUST rule could be decided: every one was BLOCKED (by a setup step the target refused) or skipped']
      : []),
  ];
  return undecided.length > 0 ? { exitCode: 2, reasons: undecided } : { exitCode: 0, reasons: [] };
}

/** The target's host, for run properties and headings. */
export function targetHosts(report: ConformanceReport): string {
  const hosts = report.run.targets.map((t) => {
    try {
      return new URL(t.baseUrl).host;
    } catch {
      return t.baseUrl;
    }
  });
  return [...new Set(hosts)].join(', ') || 'none';
}
