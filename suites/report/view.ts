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

/** PASSED: every applicable MUST rule was verified and holds. FAILED: a deviation was found. UNDECIDED: neither was shown. */
export type VerdictResult = 'PASSED' | 'FAILED' | 'UNDECIDED';

/** Rules left BLOCKED by one cause. */
export interface BlockedGroup {
  /** What blocked them: a setup step, a rule that failed first, `<operation> not served`, … */
  readonly by: string;
  readonly rules: readonly string[];
}

export interface Verdict {
  readonly result: VerdictResult;
  /** 0 PASSED; 1 FAILED (a rule at the gate level fails, or the baseline is stale); 2 UNDECIDED. */
  readonly exitCode: 0 | 1 | 2;
  /** One line per reason, empty for PASSED. */
  readonly reasons: readonly string[];
  /** The lowest level whose failures fail the run (`--fail-on`, `failOn`). */
  readonly failOn: 'must' | 'should';
  /** The MUST rules left BLOCKED (each makes the run UNDECIDED), grouped by what blocked them. */
  readonly blockedMust: readonly BlockedGroup[];
}

/** What blocked a BLOCKED rule: the blocking step its scenarios name (the first), else its reason. */
function blockedByOf(rule: RuleReport): string {
  const named = rule.scenarios.find((s) => s.status === 'BLOCKED' && s.blockedBy !== undefined)?.blockedBy;
  return named ?? rule.reason ?? 'a step the report does not name';
}

/** `rules` grouped by what blocked each, the largest group first. */
export function groupBlocked(rules: readonly RuleEntry[]): BlockedGroup[] {
  const groups = new Map<string, string[]>();
  for (const [id, rule] of rules) groups.set(blockedByOf(rule), [...(groups.get(blockedByOf(rule)) ?? []), id]);
  return [...groups].map(([by, ids]) => ({ by, rules: ids.sort() })).sort((a, b) => b.rules.length - a.rules.length || a.by.localeCompare(b.by));
}

function listed(ids: readonly string[]): string {
  return ids.length > 12 ? `${ids.slice(0, 12).join(', ')}, … and ${ids.length - 12} more` : ids.join(', ');
}

/**
 * The run's verdict from its report. A certificate means every MUST rule was verified:
 * - FAILED (1): a MUST rule FAILs and the baseline does not list it (with `failOn: should`, a SHOULD
 *   rule too), or a baseline entry is stale;
 * - UNDECIDED (2): otherwise, when a MUST rule is in ERROR or left BLOCKED (nothing was shown either
 *   way), a MUST rule PASSed only in part in every scenario that applies (`partly`, none verified it in
 *   full: every scenario of a rule checks the rule's one sentence, so one that ran all its checks of it
 *   verified that sentence, and the gaps of the others are listed but do not hold the run back), no MUST
 *   rule PASSed at all, an error happened outside any scenario, or the run did not finish;
 * - PASSED (0): every MUST rule that applies (not SKIP: the target lacks what it needs) PASSed.
 * `failOn` defaults to the report's (`run.failOn`), else `must`.
 */
export function verdictOf(report: ConformanceReport, options: { readonly failOn?: 'must' | 'should' } = {}): Verdict {
  const failOn = options.failOn ?? report.run.failOn ?? 'must';
  const entries = Object.entries(report.rules).filter(([, r]) => r.known === undefined);
  const must = entries.filter(([, r]) => r.level === 'MUST');
  const ids = (rules: readonly RuleEntry[], status: RuleStatus) => rules.filter(([, r]) => r.status === status).map(([id]) => id);
  const failingMust = ids(must, 'FAIL');
  const failingShould = failOn === 'should' ? ids(entries.filter(([, r]) => r.level === 'SHOULD'), 'FAIL') : [];
  const stale = report.baseline?.stale ?? [];
  const blockedMust = groupBlocked(must.filter(([, r]) => r.status === 'BLOCKED'));
  const base = { failOn, blockedMust };
  const failed = [
    ...(failingMust.length > 0 ? [`${failingMust.length} MUST rule(s) fail: ${listed(failingMust)}`] : []),
    ...(failingShould.length > 0 ? [`${failingShould.length} SHOULD rule(s) fail (the run fails on SHOULD rules too): ${listed(failingShould)}`] : []),
    ...stale.map((e) => `${e.rule} is in the baseline but passes now: remove it from the baseline`),
  ];
  if (failed.length > 0) return { ...base, result: 'FAILED', exitCode: 1, reasons: failed };
  const errors = ids(must, 'ERROR');
  const partlyMust = must.filter(([, r]) => r.status === 'PASS' && r.partly !== undefined && r.partly.verified === 0).map(([id]) => id);
  const undecided = [
    ...(errors.length > 0 ? [`${errors.length} MUST rule(s) could not be checked (ERROR: the target or the harness failed): ${listed(errors)}`] : []),
    ...blockedMust.map((group) => `${group.rules.length} MUST rule(s) BLOCKED by ${group.by}, so not verified: ${listed(group.rules)}`),
    ...(partlyMust.length > 0 ? [`${partlyMust.length} MUST rule(s) only partly verified, by no scenario in full: ${listed(partlyMust)}`] : []),
    ...(must.length > 0 && ids(must, 'PASS').length === 0 && blockedMust.length === 0 && errors.length === 0 ? ['no MUST rule was verified: every one was skipped'] : []),
    ...(report.errors.length > 0 ? [`${report.errors.length} error(s) outside any scenario (see errors in report.json)`] : []),
    ...(report.complete ? [] : ['the run did not finish (the report is incomplete)']),
  ];
  return undecided.length > 0 ? { ...base, result: 'UNDECIDED', exitCode: 2, reasons: undecided } : { ...base, result: 'PASSED', exitCode: 0, reasons: [] };
}

/** `40 of 222 scenarios ran`. */
export function interruptedScope(interrupted: NonNullable<ConformanceReport['run']['interrupted']>): string {
  return `${interrupted.scenariosRun}${interrupted.scenariosPlanned === undefined ? '' : ` of ${interrupted.scenariosPlanned}`} scenario(s) ran`;
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

/** `PASS`, or `PASS (partly verified: 2 of 4 scenarios; what did not run and why)`; other statuses as they are. */
export function statusText(rule: Pick<RuleReport, 'status' | 'partly'>): string {
  if (rule.status !== 'PASS' || rule.partly === undefined) return rule.status;
  return `PASS (partly verified: ${rule.partly.verified} of ${rule.partly.of} scenarios; ${rule.partly.gaps.join('; ')})`;
}
