/**
 * Merging a re-run (`--rerun-failed`) into the report it re-ran: every scenario the re-run ran
 * replaces that scenario's entries in the previous report, and each rule's status is decided again
 * from its entries, as in a full run.
 */
import { assembleReport, type ReportInput } from '../framework/reporter.ts';
import type { ConformanceReport, RuleScenario } from './schema.ts';

export function mergeReports(previous: ConformanceReport, rerun: ConformanceReport, options: Pick<ReportInput, 'catalogue' | 'baseline'>): ConformanceReport {
  const rerunScenarios = new Set(Object.values(rerun.rules).flatMap((r) => r.scenarios.map((s) => s.scenario)));
  const byRule = new Map<string, RuleScenario[]>();
  for (const [id, rule] of Object.entries(previous.rules)) {
    const kept = rule.scenarios.filter((s) => !rerunScenarios.has(s.scenario));
    if (kept.length > 0) byRule.set(id, kept);
  }
  for (const [id, rule] of Object.entries(rerun.rules)) byRule.set(id, [...(byRule.get(id) ?? []), ...rule.scenarios]);
  const rerunFiles = new Set(rerun.cleanup.map((c) => c.file));
  return assembleReport(byRule, [...previous.run.targets, ...rerun.run.targets], {
    ...options,
    startedAt: new Date(previous.run.startedAt),
    finishedAt: new Date(rerun.run.finishedAt),
    result: previous.run.result === 'passed' && rerun.run.result === 'passed' ? 'passed' : rerun.run.result === 'passed' ? previous.run.result : rerun.run.result,
    complete: previous.complete && rerun.complete,
    ...(previous.run.only ? { only: previous.run.only } : {}),
    ...(rerun.run.failOn ? { failOn: rerun.run.failOn } : {}),
    errors: [...previous.errors, ...rerun.errors],
    cleanup: [...previous.cleanup.filter((c) => !rerunFiles.has(c.file)), ...rerun.cleanup],
  });
}
