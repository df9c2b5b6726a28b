/**
 * The conformance reporter (a vitest 4 reporter). At the end of a run it writes
 * `<REPORT_DIR>/report.json`, keyed by rule ID: each rule's status (PASS, FAIL, SKIP with the
 * reason, ERROR), the scenarios that carry it, their failure messages and, for failing scenarios,
 * their redacted exchanges. It prints the seed, so any run can be reproduced.
 *
 * Scenarios reach the reporter through `task.meta.conformance` (see scenario.ts). A rule is carried
 * by the scenarios that declare it, and its shape rule also by every wire-schema check of a 200.
 *
 * In vitest.config.ts, next to vitest's JUnit reporter:
 *   reporters: ['default', new ConformanceReporter(), 'junit'], outputFile: { junit: 'reports/junit.xml' }
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import type { RuleDef } from '../../spec/rules/rule.ts';
import { aggregateRuleStatus, type RuleStatus } from './checks.ts';
import { loadConfig } from './config.ts';
import { redactSecrets, truncate, type Exchange } from './evidence.ts';
import type { CleanupSummary, ScenarioMeta, ScenarioStatus } from './scenario.ts';
import type { TargetInfo } from './target.ts';

export const REPORT_FORMAT = 'besi-conformance-report/1';

export type { RuleStatus };

/** One scenario as it bears on one rule. */
export interface RuleScenario {
  readonly scenario: string;
  readonly title: string;
  /** The test's full name, as in JUnit. */
  readonly test: string;
  readonly file: string;
  /** `declared`: the scenario names the rule. `wire-schema`: the rule is the shape rule of a 200 it checked. */
  readonly via: 'declared' | 'wire-schema';
  readonly status: ScenarioStatus;
  /** The rule's own verdict in this scenario (`ScenarioMeta.ruleResults`), when the scenario gave one. */
  readonly verdict?: RuleStatus;
  readonly reason?: string;
  readonly failures?: readonly string[];
  readonly evidence?: readonly Exchange[];
}

export interface RuleReport {
  readonly status: RuleStatus;
  /** SKIP: why every scenario carrying the rule was skipped. */
  readonly reason?: string;
  readonly level?: RuleDef['level'];
  readonly scenarios: readonly RuleScenario[];
  readonly failures: readonly string[];
}

export interface ConformanceReport {
  readonly format: typeof REPORT_FORMAT;
  readonly run: {
    /** Every target the scenarios ran against (normally one). */
    readonly targets: readonly TargetInfo[];
    readonly seed: number | undefined;
    readonly startedAt: string;
    readonly finishedAt: string;
    readonly durationMs: number;
    /** vitest's verdict on the whole run. */
    readonly result: TestRunEndReason;
  };
  readonly counts: {
    readonly rules: Readonly<Record<RuleStatus, number>>;
    readonly scenarios: Readonly<Record<ScenarioStatus, number>>;
    /** Failing (FAIL or ERROR) rules of level MUST; only known with a rule catalogue. */
    readonly mustFailures?: number;
  };
  readonly rules: Readonly<Record<string, RuleReport>>;
  /** Catalogue rules no scenario carries (and not excluded); only with a rule catalogue. */
  readonly uncovered?: readonly string[];
  /** Failures outside any scenario: files that failed to load, hooks, unhandled errors. */
  readonly errors: readonly { readonly file?: string; readonly message: string }[];
  readonly cleanup: readonly ({ readonly file: string } & CleanupSummary)[];
}

/** A finished test, as the report needs it (built from vitest's TestCase, or by hand in tests). */
export interface FinishedTest {
  readonly fullName: string;
  readonly file: string;
  readonly state: 'passed' | 'failed' | 'skipped' | 'pending';
  readonly note?: string;
  readonly errors: readonly { readonly name?: string; readonly message: string }[];
  readonly meta: ScenarioMeta | undefined;
}

export interface ReportInput {
  readonly tests: readonly FinishedTest[];
  readonly errors: readonly { readonly file?: string; readonly message: string }[];
  readonly cleanup: readonly ({ readonly file: string } & CleanupSummary)[];
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly result: TestRunEndReason;
  readonly catalogue?: readonly Pick<RuleDef, 'id' | 'level' | 'excluded'>[];
  /** Scrubbed from every failure message (evidence is already redacted in the worker). */
  readonly secrets?: readonly string[];
}

export function buildReport(input: ReportInput): ConformanceReport {
  const secrets = input.secrets ?? [];
  const byRule = new Map<string, RuleScenario[]>();
  const scenarioCounts: Record<ScenarioStatus, number> = { pass: 0, fail: 0, error: 0, skip: 0, blocked: 0 };
  const targets = new Map<string, TargetInfo>();
  const add = (rule: string, entry: RuleScenario) => byRule.set(rule, [...(byRule.get(rule) ?? []), entry]);

  for (const test of input.tests) {
    const meta = test.meta;
    if (!meta) continue;
    if (meta.target) targets.set(JSON.stringify(meta.target), meta.target);
    const status = scenarioStatus(test);
    scenarioCounts[status]++;
    const failures = test.errors.map((e) => redactSecrets(truncate(`${e.name ?? 'Error'}: ${e.message}`, 4_000), secrets));
    const reason = status === 'skip' ? (meta.reason ?? test.note ?? 'not run (skipped or filtered out)') : undefined;
    const base = { scenario: meta.scenario, title: meta.title, test: test.fullName, file: test.file };
    const declared: RuleScenario = {
      ...base,
      via: 'declared',
      status,
      ...(reason === undefined ? {} : { reason }),
      ...(failures.length > 0 ? { failures } : {}),
      ...(meta.evidence && (status === 'fail' || status === 'error') ? { evidence: meta.evidence } : {}),
    };
    for (const rule of meta.rules) {
      const verdict = meta.ruleResults?.[rule]?.status;
      add(rule, verdict === undefined ? declared : { ...declared, verdict });
    }
    for (const [rule, check] of Object.entries(meta.shapeChecks ?? {})) {
      if (meta.rules.includes(rule)) continue;
      add(rule, {
        ...base,
        via: 'wire-schema',
        status: check,
        ...(check === 'fail' ? { failures, ...(meta.evidence ? { evidence: meta.evidence } : {}) } : {}),
      });
    }
  }

  const levels = new Map(input.catalogue?.map((r) => [r.id, r.level]));
  const rules: Record<string, RuleReport> = {};
  const ruleCounts: Record<RuleStatus, number> = { PASS: 0, FAIL: 0, BLOCKED: 0, SKIP: 0, ERROR: 0 };
  let mustFailures = 0;
  for (const id of [...byRule.keys()].sort()) {
    const scenarios = [...(byRule.get(id) ?? [])].sort((a, b) => a.scenario.localeCompare(b.scenario) || a.via.localeCompare(b.via));
    const status = ruleStatus(scenarios);
    const level = levels.get(id);
    ruleCounts[status]++;
    if (level === 'MUST' && (status === 'FAIL' || status === 'ERROR')) mustFailures++;
    const reasons = [...new Set(scenarios.flatMap((s) => (s.reason === undefined ? [] : [s.reason])))];
    rules[id] = {
      status,
      ...(status === 'SKIP' ? { reason: reasons.join('; ') } : {}),
      ...(level === undefined ? {} : { level }),
      scenarios,
      failures: [...new Set(scenarios.flatMap((s) => s.failures ?? []))],
    };
  }

  const uncovered = input.catalogue?.filter((r) => r.excluded === undefined && !byRule.has(r.id)).map((r) => r.id).sort();
  return {
    format: REPORT_FORMAT,
    run: {
      targets: [...targets.values()],
      seed: targets.size === 0 ? undefined : [...targets.values()][0]?.seed,
      startedAt: input.startedAt.toISOString(),
      finishedAt: input.finishedAt.toISOString(),
      durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
      result: input.result,
    },
    counts: { rules: ruleCounts, scenarios: scenarioCounts, ...(input.catalogue ? { mustFailures } : {}) },
    rules,
    ...(uncovered ? { uncovered } : {}),
    errors: input.errors.map((e) => ({ ...e, message: redactSecrets(truncate(e.message, 4_000), secrets) })),
    cleanup: input.cleanup,
  };
}

/** The scenario's status, trusting the test result over the meta (a vitest timeout leaves stale meta). */
function scenarioStatus(test: FinishedTest): ScenarioStatus {
  if (test.state === 'passed') return 'pass';
  if (test.state === 'failed') return test.meta?.status === 'fail' ? 'fail' : 'error';
  return test.meta?.status === 'blocked' ? 'blocked' : 'skip';
}

const SCENARIO_VERDICT: Record<ScenarioStatus, RuleStatus> = { fail: 'FAIL', error: 'ERROR', pass: 'PASS', blocked: 'BLOCKED', skip: 'SKIP' };

function ruleStatus(scenarios: readonly RuleScenario[]): RuleStatus {
  return aggregateRuleStatus(scenarios.map((s) => s.verdict ?? SCENARIO_VERDICT[s.status])) ?? 'SKIP';
}

export interface ConformanceReporterOptions {
  /** Default: the configuration's REPORT_DIR. */
  readonly reportDir?: string;
  /** The rule catalogue: adds levels, MUST-failure counts and uncovered rules to the report. */
  readonly catalogue?: readonly Pick<RuleDef, 'id' | 'level' | 'excluded'>[];
  /** Where the summary lines go. Default: vitest's logger. */
  readonly print?: (line: string) => void;
  /** Report only the test files of these vitest projects (by name); default: every project. */
  readonly projects?: readonly string[];
}

export class ConformanceReporter implements Reporter {
  readonly reportDir: string;
  readonly #options: ConformanceReporterOptions;
  readonly #secrets: readonly string[];
  #vitest: Vitest | undefined;
  #startedAt = new Date();

  constructor(options: ConformanceReporterOptions = {}) {
    const config = loadConfig();
    this.reportDir = options.reportDir ?? config.reportDir;
    this.#secrets = config.apiKey === undefined ? [] : [config.apiKey];
    this.#options = options;
  }

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunStart(): void {
    this.#startedAt = new Date();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message: string }>, reason: TestRunEndReason): void {
    const root = this.#vitest?.config.root ?? process.cwd();
    const tests: FinishedTest[] = [];
    const errors: { file?: string; message: string }[] = unhandledErrors.map((e) => ({ message: `unhandled: ${e.message}` }));
    const cleanup: ({ file: string } & CleanupSummary)[] = [];
    const reported = this.#options.projects;
    for (const module of testModules) {
      if (reported !== undefined && !reported.includes(module.project.name)) continue;
      const file = relative(root, module.moduleId);
      for (const e of module.errors()) errors.push({ file, message: e.message });
      const summary = module.meta().conformanceCleanup;
      if (summary) cleanup.push({ file, ...summary });
      for (const test of module.children.allTests()) tests.push(finished(test, file));
    }
    const report = buildReport({
      tests,
      errors,
      cleanup,
      startedAt: this.#startedAt,
      finishedAt: new Date(),
      result: reason,
      secrets: this.#secrets,
      ...(this.#options.catalogue ? { catalogue: this.#options.catalogue } : {}),
    });
    const path = writeReport(this.reportDir, report);
    const shown = relative(root, path);
    for (const line of summaryLines(report, shown.startsWith('..') ? path : shown)) this.#print(line);
  }

  #print(line: string): void {
    if (this.#options.print) this.#options.print(line);
    else if (this.#vitest) this.#vitest.logger.log(line);
    else console.log(line);
  }
}

function finished(test: TestCase, file: string): FinishedTest {
  const result = test.result();
  return {
    fullName: test.fullName,
    file,
    state: result.state,
    ...(result.state === 'skipped' && result.note !== undefined ? { note: result.note } : {}),
    errors: (result.errors ?? []).map((e) => ({ ...(e.name === undefined ? {} : { name: e.name }), message: e.message })),
    meta: test.meta().conformance,
  };
}

/** Writes `report.json` atomically (a reader never sees half a report); returns its path. */
export function writeReport(dir: string, report: ConformanceReport): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'report.json');
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(temp, path);
  return path;
}

export function summaryLines(report: ConformanceReport, path: string): string[] {
  const { rules, scenarios } = report.counts;
  const total = Object.values(rules).reduce((a, b) => a + b, 0);
  const lines = [
    `conformance: ${total} rules: ${rules.PASS} PASS, ${rules.FAIL} FAIL, ${rules.BLOCKED} BLOCKED, ${rules.SKIP} SKIP, ${rules.ERROR} ERROR` +
      ` (scenarios: ${scenarios.pass} pass, ${scenarios.fail} fail, ${scenarios.skip} skip, ${scenarios.error} error); report: ${path}`,
  ];
  for (const c of report.cleanup) {
    if (c.failed.length > 0 || c.left.length > 0) {
      lines.push(`conformance: cleanup of ${c.file} left ${c.left.length} record(s) the API cannot delete and failed on ${c.failed.length}`);
    }
  }
  const seeds = [...new Set(report.run.targets.map((t) => t.seed))];
  lines.push(
    seeds.length === 0
      ? 'conformance: no scenario ran, so no seed was used'
      : `conformance: seed ${seeds.join(', ')} (reproduce with CONFORMANCE_SEED=${seeds[0]})`,
  );
  return lines;
}
