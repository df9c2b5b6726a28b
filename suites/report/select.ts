/**
 * Which scenarios a run executes: all of them, those an `--only` list names (rule IDs, areas of
 * interface.md, scenario IDs), or those behind the FAIL and ERROR rules of a previous report
 * (`--rerun-failed`). vitest is then given the scenario files and an exact test-name pattern.
 */
import type { ConformanceReport } from './schema.ts';

export interface SelectableScenario {
  readonly id: string;
  readonly title: string;
  readonly rules: readonly string[];
  /** Its area: the folder of suites/scenarios/ it is in (without one, its ID's prefix, `envelope.…`). */
  readonly area?: string;
}

export interface SelectableRule {
  readonly id: string;
  readonly part: string;
}

export interface Selection<S extends SelectableScenario> {
  readonly scenarios: readonly S[];
  /** Names that are no rule, area or scenario. */
  readonly unknown: readonly string[];
}

/** The scenarios an `--only` list names: a rule ID selects the scenarios carrying it, an area those carrying any of its rules or named after it. */
export function selectScenarios<S extends SelectableScenario>(scenarios: readonly S[], rules: readonly SelectableRule[], only: readonly string[]): Selection<S> {
  const chosen = new Set<S>();
  const unknown: string[] = [];
  for (const name of only) {
    const areaRules = new Set(rules.filter((r) => r.part === name).map((r) => r.id));
    // A scenario ID or the prefix before its dot (`deletes` for deletes.plan), a rule it carries, a part of interface.md its rules belong to, or its area.
    const matching = scenarios.filter((s) => s.id === name || s.id.startsWith(`${name}.`) || s.area === name || s.rules.includes(name) || s.rules.some((r) => areaRules.has(r)));
    const known = areaRules.size > 0 || rules.some((r) => r.id === name) || matching.length > 0;
    if (!known) unknown.push(name);
    for (const s of matching) chosen.add(s);
  }
  return { scenarios: scenarios.filter((s) => chosen.has(s)), unknown };
}

/** The scenarios behind a report's FAIL and ERROR rules (where those rules failed). */
export function failedScenarioIds(report: ConformanceReport): string[] {
  const ids = new Set<string>();
  for (const rule of Object.values(report.rules)) {
    if (rule.status !== 'FAIL' && rule.status !== 'ERROR') continue;
    for (const s of rule.scenarios) if (s.status === 'FAIL' || s.status === 'ERROR') ids.add(s.scenario);
  }
  return [...ids].sort();
}

/** A pattern matching exactly these test names (vitest's `testNamePattern`). */
export function exactNames(names: readonly string[]): RegExp {
  return new RegExp(`^(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
}
