/**
 * What a person reads first in a report, shared by summary.md, report.html and the console: each
 * failing rule once (its first failure and how many more, the further messages folded by wording),
 * the rules left undecided grouped by what stopped them, the MUST rules behind an UNDECIDED verdict,
 * and what the run left on the target. Pure functions of report.json.
 */
import type { ConformanceReport, RuleReport, RuleScenario } from './schema.ts';
import { failuresOf, isFailing, rulesByArea, type RuleEntry } from './view.ts';

/** A failing rule in one line: its first failure, and the others folded by message. */
export interface FailingRule {
  readonly id: string;
  readonly rule: RuleReport;
  readonly first: RuleScenario | undefined;
  /** Failing scenarios after the first. */
  readonly more: number;
  /** Every failing scenario's message, grouped by wording (IDs and numbers folded), most frequent first. */
  readonly messages: readonly { readonly message: string; readonly scenarios: readonly string[] }[];
}

/** Failing rules (FAIL, ERROR), MUST before SHOULD and not-known before known, then by area and ID. */
export function failingRules(report: ConformanceReport): FailingRule[] {
  const all = [...rulesByArea(report).values()].flat().filter(([, r]) => isFailing(r));
  const rank = ([, r]: RuleEntry) => (r.known ? 2 : 0) + (r.level === 'MUST' ? 0 : 1);
  return all
    .map((entry, order) => ({ entry, order }))
    .sort((a, b) => rank(a.entry) - rank(b.entry) || a.order - b.order)
    .map(({ entry }) => failingRule(entry));
}

/** One failing rule's digest. */
export function failingRule([id, rule]: RuleEntry): FailingRule {
  const failures = failuresOf(rule);
  return { id, rule, first: failures[0], more: Math.max(0, failures.length - 1), messages: groupMessages(failures) };
}

/** The first line of a scenario's message (`FAIL` when it has none). */
export function firstLine(failure: Pick<RuleScenario, 'message' | 'status'> | undefined, fallback = 'no message'): string {
  return (failure?.message ?? '').split('\n')[0]?.trim() || (failure?.status ?? fallback);
}

function groupMessages(failures: readonly RuleScenario[]): FailingRule['messages'] {
  const groups = new Map<string, { message: string; scenarios: string[] }>();
  for (const failure of failures) {
    const message = firstLine(failure);
    const key = foldVariables(message);
    const group = groups.get(key) ?? { message, scenarios: [] };
    group.scenarios.push(failure.scenario);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.scenarios.length - a.scenarios.length);
}

/**
 * A message with what differs from one scenario to the next folded away: namespaced IDs (`conf_…`),
 * quoted made-up IDs and numbers. Two messages that differ only there say the same thing.
 */
export function foldVariables(text: string): string {
  return text
    .replace(/\b[A-Za-z0-9]{1,16}_[a-z0-9]{6}_[a-z0-9]{5}_[A-Za-z0-9_]+\b/g, '<id>')
    .replace(/\b[a-z]{2,6}_[A-Za-z0-9]{8,}\b/g, '<id>')
    .replace(/-?\d+(\.\d+)?/g, '<n>');
}

/** BLOCKED and SKIP rules grouped by what stopped them. */
export interface UndecidedCause {
  readonly status: 'BLOCKED' | 'SKIP';
  /** What stopped them: a capability or fixture the target lacks, a setup step, another rule's failure. */
  readonly cause: string;
  /** `blockedBy` names a rule of the report: the failing rule that came first. */
  readonly rule?: string;
  readonly rules: readonly { readonly id: string; readonly level?: string }[];
}

/**
 * What a cause says, without what varies from one scenario or rule to the next: an operation not
 * served reads the same whichever exchange showed it and whichever rule it stopped.
 */
export function causeGist(cause: string): string {
  const notServed = /the target does not serve ([\w.]+)/.exec(cause) ?? /^([\w.]+) not served$/.exec(cause);
  return notServed === null ? cause : `the target does not serve ${notServed[1]} (it answers as an unknown route)`;
}

/**
 * Each BLOCKED or SKIP rule under each distinct cause of its scenarios (a rule stopped two ways is
 * under both, and so is a scenario that needs two things the target lacks), causes grouped by what
 * they say (causeGist), those with the most rules first; MUST rules first within a cause.
 */
export function undecidedCauses(report: ConformanceReport): UndecidedCause[] {
  const causes = new Map<string, { status: 'BLOCKED' | 'SKIP'; cause: string; rule?: string; rules: Map<string, string | undefined> }>();
  for (const [id, rule] of Object.entries(report.rules).sort(([a], [b]) => a.localeCompare(b))) {
    if (rule.status !== 'BLOCKED' && rule.status !== 'SKIP') continue;
    const status = rule.status;
    const stoppedBy = rule.scenarios
      .filter((s) => s.status === status)
      .map((s) => causeOf(report, s))
      .flatMap(({ cause, rule: blocker }) => cause.split(/; (?=needs )/).map((part) => ({ cause: causeGist(part), ...(blocker === undefined ? {} : { rule: blocker }) })));
    for (const { cause, rule: blocker } of stoppedBy.length > 0 ? stoppedBy : [{ cause: rule.reason ?? 'no reason given' }]) {
      const key = `${status}\u0000${foldVariables(cause)}`;
      const group = causes.get(key) ?? { status, cause, ...(blocker ? { rule: blocker } : {}), rules: new Map() };
      group.rules.set(id, rule.level);
      causes.set(key, group);
    }
  }
  return [...causes.values()]
    .map((c) => ({ ...c, rules: [...c.rules].map(([id, level]) => ({ id, ...(level ? { level } : {}) })).sort((a, b) => Number(a.level !== 'MUST') - Number(b.level !== 'MUST')) }))
    .sort((a, b) => Number(a.status === 'SKIP') - Number(b.status === 'SKIP') || b.rules.length - a.rules.length || a.cause.localeCompare(b.cause));
}

/** What stopped a rule in one scenario: the rule that failed first, else the setup step, else the skip reason. */
function causeOf(report: ConformanceReport, entry: RuleScenario): { cause: string; rule?: string } {
  const by = entry.blockedBy;
  if (by !== undefined && report.rules[by] !== undefined) return { cause: `${by} ${report.rules[by]!.status === 'FAIL' ? 'failed' : 'could not be checked'} first`, rule: by };
  return { cause: by ?? entry.reason ?? entry.message ?? 'no reason given' };
}

/** A MUST rule the run could not decide (BLOCKED or ERROR, not in the baseline), with what stopped it. */
export interface UndecidedMustRule {
  readonly id: string;
  readonly status: 'BLOCKED' | 'ERROR';
  readonly cause: string;
  readonly message?: string;
}

/** The MUST rules an UNDECIDED verdict rests on: each BLOCKED or ERROR one, with its first cause and message. */
export function undecidedMustRules(report: ConformanceReport): UndecidedMustRule[] {
  return Object.entries(report.rules)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([id, rule]) => {
      if (rule.level !== 'MUST' || rule.known !== undefined || (rule.status !== 'BLOCKED' && rule.status !== 'ERROR')) return [];
      const entry = rule.scenarios.find((s) => s.status === rule.status);
      const cause = entry === undefined ? (rule.reason ?? 'no reason given') : rule.status === 'ERROR' ? firstLine(entry) : causeOf(report, entry).cause;
      const message = entry?.message === undefined ? undefined : firstLine(entry);
      return [{ id, status: rule.status, cause, ...(message !== undefined && message !== cause ? { message } : {}) }];
    });
}

/** What the run left on the target, over every test file: by kind, with the IDs. */
export interface LeftBehind {
  /** Records the run made and removed (deleted or archived), and those already gone. */
  readonly undone: number;
  readonly alreadyGone: number;
  /** Kind → IDs of records the API cannot remove. */
  readonly left: ReadonlyMap<string, readonly string[]>;
  /** Kind → records whose removal failed, with the error. */
  readonly failed: ReadonlyMap<string, readonly { readonly id: string; readonly error: string }[]>;
}

export function leftBehind(report: ConformanceReport): LeftBehind {
  const left = new Map<string, string[]>();
  const failed = new Map<string, { id: string; error: string }[]>();
  let undone = report.leftovers?.undone ?? 0;
  let alreadyGone = report.leftovers?.alreadyGone ?? 0;
  for (const file of report.cleanup) {
    undone += file.undone;
    alreadyGone += file.alreadyGone;
  }
  // The run's journal, swept once at its end, is the authority; without one, each file's cleanup says.
  const stays: readonly { kind: string; id: string; error?: string }[] = report.leftovers?.records ?? report.cleanup.flatMap((file) => [...file.left, ...file.failed]);
  for (const record of stays) {
    if (record.error !== undefined) failed.set(record.kind, [...(failed.get(record.kind) ?? []), { id: record.id, error: record.error }]);
    else left.set(record.kind, [...(left.get(record.kind) ?? []), record.id]);
  }
  const byCount = <V>(map: Map<string, V[]>) => new Map([...map].sort(([ka, a], [kb, b]) => b.length - a.length || ka.localeCompare(kb)));
  return { undone, alreadyGone, left: byCount(left), failed: byCount(failed) };
}

export function countOf(map: ReadonlyMap<string, readonly unknown[]>): number {
  return [...map.values()].reduce((sum, ids) => sum + ids.length, 0);
}

/** `236 customer, 297 feature`: kinds with their counts. */
export function kindCounts(map: ReadonlyMap<string, readonly unknown[]>): string {
  return [...map].map(([kind, items]) => `${items.length} ${kind}`).join(', ');
}

/** A PASS rule not every scenario verified in full (RuleReport.partly). */
export interface PartlyVerifiedRule {
  readonly id: string;
  readonly rule: RuleReport;
  readonly partly: NonNullable<RuleReport['partly']>;
}

/** The PASS rules only partly verified, MUST first, then by ID. */
export function partlyVerifiedRules(report: ConformanceReport): PartlyVerifiedRule[] {
  return Object.entries(report.rules)
    .flatMap(([id, rule]) => (rule.status === 'PASS' && rule.partly !== undefined ? [{ id, rule, partly: rule.partly }] : []))
    .sort((a, b) => Number(a.rule.level !== 'MUST') - Number(b.rule.level !== 'MUST') || a.id.localeCompare(b.id));
}

/** One scenario's replay script, once, with the failing rules it serves. */
export interface ScenarioReplay {
  readonly scenario: string;
  readonly title: string;
  /** The longest of the scripts the report holds for the scenario (the one that reaches furthest). */
  readonly script: string;
  /** The failing rules whose first failure is in this scenario, in the order of `failingRules`. */
  readonly rules: readonly string[];
}

/**
 * The replay scripts of the failing rules' first failures, one per scenario however many rules
 * failed there (a scenario that timed out errs every rule it carries): in the order of the first
 * rule each serves.
 */
export function scenarioReplays(failing: readonly FailingRule[]): ScenarioReplay[] {
  const byScenario = new Map<string, { scenario: string; title: string; script: string; rules: string[] }>();
  for (const { id, first } of failing) {
    if (first?.replay === undefined) continue;
    const known = byScenario.get(first.scenario);
    if (known === undefined) byScenario.set(first.scenario, { scenario: first.scenario, title: first.title, script: first.replay, rules: [id] });
    else {
      known.rules.push(id);
      if (first.replay.length > known.script.length) known.script = first.replay;
    }
  }
  return [...byScenario.values()];
}