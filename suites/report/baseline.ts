/**
 * The baseline of known failures: rules a vendor knows fail, each with the reason and an optional
 * expiry date. A listed failure does not fail the run and shows as "known"; a listed rule that now
 * passes fails the run until it is removed, so a baseline never goes stale; an expired entry counts
 * as not listed.
 */
import { readFileSync } from 'node:fs';
import { Baseline, BASELINE_FORMAT, type BaselineEntry, type ConformanceReport, type RuleReport } from './schema.ts';

export class BaselineError extends Error {
  override readonly name = 'BaselineError';
}

export function readBaseline(path: string): Baseline {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new BaselineError(`baseline ${path}: cannot read it as JSON (${(error as Error).message})`);
  }
  const parsed = Baseline.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  - ${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
    throw new BaselineError(`baseline ${path} is not a ${BASELINE_FORMAT} file:\n${problems.join('\n')}`);
  }
  const seen = new Set<string>();
  for (const entry of parsed.data.entries) {
    if (seen.has(entry.rule)) throw new BaselineError(`baseline ${path}: rule ${entry.rule} is listed twice`);
    seen.add(entry.rule);
  }
  return parsed.data;
}

export interface BaselineOutcome {
  /** Rule ID → the entry that makes its failure known. */
  readonly known: ReadonlyMap<string, BaselineEntry>;
  /** Listed rules that passed in this run. */
  readonly stale: readonly BaselineEntry[];
  readonly expired: readonly BaselineEntry[];
}

/** Which listed rules are known failures, stale or expired, given each rule's status in this run. */
export function applyBaseline(baseline: Baseline, rules: Readonly<Record<string, Pick<RuleReport, 'status'>>>, today: Date): BaselineOutcome {
  const day = today.toISOString().slice(0, 10);
  const known = new Map<string, BaselineEntry>();
  const stale: BaselineEntry[] = [];
  const expired: BaselineEntry[] = [];
  for (const entry of baseline.entries) {
    if (entry.expires !== undefined && entry.expires <= day) {
      expired.push(entry);
      continue;
    }
    const status = rules[entry.rule]?.status;
    if (status === 'FAIL' || status === 'ERROR') known.set(entry.rule, entry);
    else if (status === 'PASS') stale.push(entry);
    // SKIP, BLOCKED or not run (e.g. --only): the run says nothing about the entry.
  }
  return { known, stale, expired };
}

/** A baseline listing every FAIL and ERROR rule of a report, to be edited (reasons, expiry dates) and committed. */
export function baselineFrom(report: ConformanceReport, reason = 'known failure; replace with why and when it will be fixed'): Baseline {
  const entries = Object.entries(report.rules)
    .filter(([, rule]) => rule.status === 'FAIL' || rule.status === 'ERROR')
    .map(([rule, r]) => ({ rule, reason: r.known?.reason ?? reason, ...(r.known?.expires === undefined ? {} : { expires: r.known.expires }) }));
  return { format: BASELINE_FORMAT, entries };
}
