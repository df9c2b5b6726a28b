/**
 * The conformance reporter (a vitest 4 reporter). As scenarios finish, and once more at the end, it
 * writes into its report directory `report.json` (format in suites/report/schema.ts, keyed by rule
 * ID) and everything rendered from it: `report.html`, `summary.md` and `junit.xml`. Every write is
 * atomic, so a run that is killed leaves valid files marked incomplete (`complete: false`).
 *
 * Scenarios reach the reporter through `task.meta.conformance` (see scenario.ts). A rule is carried
 * by the scenarios that declare it, and its shape rule also by every wire-schema check of a 200; a
 * success rule also by every scenario a server fault was charged to it in (checks.ts, "Server faults").
 * Its verdict per scenario comes from the scenario's rule results where it has them, else from the
 * scenario's outcome; across scenarios the highest wins (see `ruleStatus`).
 *
 * The conformance CLI (suites/cli.ts) installs it; see suites/conformance-project.ts.
 */
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import type { RuleDef } from '../../spec/rules/rule.ts';
import { applyBaseline } from '../report/baseline.ts';
import { countOf, failingRules, firstLine, kindCounts, leftBehind, partlyVerifiedRules, undecidedCauses, undecidedMustRules } from '../report/digest.ts';
import { curlOf } from '../report/curl.ts';
import { replayScript } from '../report/replay.ts';
import { formatProgress, ProgressPrinter } from '../report/progress.ts';
import { REPORT_FORMAT, type Baseline, type ConformanceReport, type ReportedExchange, type RuleReport, type RuleScenario, type RuleStatus, type ScenarioStatus } from '../report/schema.ts';
import { suiteVersion } from '../report/version.ts';
import { verdictOf } from '../report/view.ts';
import { shownPath, writeReportFiles } from '../report/write.ts';
import { aggregateRuleStatus, type RuleResult } from './checks.ts';
import { loadConfig } from './config.ts';
import { redactSecrets, truncate, type Exchange } from './evidence.ts';
import { readJournal } from './journal.ts';
import type { CleanupReport } from './ledger.ts';
import type { RunInfo } from './run.ts';
import type { CleanupSummary, ScenarioMeta } from './scenario.ts';
import type { TargetInfo } from './target.ts';

export { REPORT_FORMAT, type ConformanceReport, type RuleReport, type RuleResult, type RuleScenario, type RuleStatus };

/** What the catalogue tells the report about a rule. */
export type CatalogueEntry = Pick<RuleDef, 'id' | 'level' | 'part' | 'section' | 'provenance' | 'quote' | 'excluded'> & { readonly source?: string };

/** A finished test, as the report needs it (built from vitest's TestCase, or by hand in tests). */
export interface FinishedTest {
  readonly fullName: string;
  readonly file: string;
  readonly state: 'passed' | 'failed' | 'skipped' | 'pending';
  readonly note?: string;
  readonly errors: readonly { readonly name?: string; readonly message: string; readonly expected?: string; readonly actual?: string }[];
  readonly meta: ScenarioMeta | undefined;
  readonly durationMs?: number;
}

export interface ReportInput {
  readonly tests: readonly FinishedTest[];
  readonly errors: readonly { readonly file?: string; readonly message: string }[];
  readonly cleanup: readonly ({ readonly file: string } & CleanupSummary)[];
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly result: ConformanceReport['run']['result'];
  /** False while the run goes on or after it was interrupted. Default true. */
  readonly complete?: boolean;
  readonly catalogue?: readonly CatalogueEntry[];
  /** Scrubbed from the whole report (evidence is already redacted in the worker). */
  readonly secrets?: readonly string[];
  readonly baseline?: { readonly path: string; readonly baseline: Baseline };
  readonly only?: readonly string[];
  readonly rerunOf?: string;
  /** `should`: SHOULD failures fail the run too (recorded in the report for its verdict). */
  readonly failOn?: 'must' | 'should';
  /** What the run left on its target, from its journal (report.json `leftovers`). */
  readonly leftovers?: ConformanceReport['leftovers'];
  /** What stopped the run before it ended on its own. */
  readonly interrupted?: NonNullable<ConformanceReport['run']['interrupted']>;
}

/** Exchanges shown with a failure when the scenario does not say which ones it was about. */
const FALLBACK_EXCHANGES = 3;
const MAX_MESSAGE_CHARS = 4_000;
/** Failing scenarios of one rule that carry a replay script: the first few say it all, and a shape rule can fail in a hundred. */
export const REPLAYS_PER_RULE = 3;

export function buildReport(input: ReportInput): ConformanceReport {
  const secrets = input.secrets ?? [];
  const byRule = new Map<string, RuleScenario[]>();
  const targets: TargetInfo[] = [];
  const add = (rule: string, entry: RuleScenario) => byRule.set(rule, [...(byRule.get(rule) ?? []), entry]);

  for (const test of input.tests) {
    const meta = test.meta;
    if (!meta || !ran(test)) continue;
    if (meta.target) targets.push(meta.target);
    const status = scenarioStatus(test);
    const base = {
      scenario: meta.scenario,
      title: meta.title,
      test: test.fullName,
      file: test.file,
      scenarioStatus: status,
      ...(test.durationMs === undefined ? {} : { durationMs: Math.round(test.durationMs) }),
    };
    const evidence = meta.evidence ?? [];
    const withReplay = (rule: string, outcome: RuleOutcome): RuleOutcome => {
      if ((outcome.status !== 'FAIL' && outcome.status !== 'ERROR') || !meta.calls) return outcome;
      const replay = replayScript(meta.calls, {
        rule,
        status: outcome.status,
        scenario: meta.scenario,
        title: meta.title,
        ...(meta.target ? { baseUrl: meta.target.baseUrl, seed: meta.target.seed } : {}),
        ...(outcome.message === undefined ? {} : { message: outcome.message }),
        behind: (outcome.exchanges ?? []).map((e) => e.seq),
      });
      return replay === undefined ? outcome : { ...outcome, replay: redactSecrets(replay, secrets) };
    };
    for (const rule of meta.rules) add(rule, { ...base, via: 'declared', ...withReplay(rule, declaredResult(test, status, rule, evidence, secrets)) });
    for (const rule of meta.charged ?? []) {
      if (meta.rules.includes(rule)) continue;
      const charged = recordedResult(test, rule, evidence, secrets);
      if (charged !== undefined) add(rule, { ...base, via: 'server-fault', ...withReplay(rule, charged) });
    }
    for (const [rule, check] of Object.entries(meta.shapeChecks ?? {})) {
      if (meta.rules.includes(rule)) continue;
      // The scenario's rule results hold the shape rule's verdict with its message; shapeChecks says only pass or fail.
      add(rule, { ...base, via: 'wire-schema', ...withReplay(rule, recordedResult(test, rule, evidence, secrets) ?? { status: check === 'pass' ? 'PASS' : 'FAIL' }) });
    }
  }
  return assembleReport(byRule, targets, input);
}

/**
 * The report from each rule's scenario entries: every rule's status, its catalogue facts and its
 * baseline marking, and the counts. Shared by a run's report and the merge of a re-run into it.
 */
export function assembleReport(byRule: ReadonlyMap<string, readonly RuleScenario[]>, targets: readonly TargetInfo[], input: Omit<ReportInput, 'tests'>): ConformanceReport {
  const secrets = input.secrets ?? [];
  const catalogue = new Map(input.catalogue?.map((r) => [r.id, r]));
  const ruleIds = [...byRule.keys()].sort();
  const statuses = Object.fromEntries(ruleIds.map((id) => [id, { status: ruleStatus(byRule.get(id) ?? []) }]));
  const baseline = input.baseline ? applyBaseline(input.baseline.baseline, statuses, input.finishedAt) : undefined;
  const rules: Record<string, RuleReport> = {};
  const ruleCounts: Record<RuleStatus, number> = { PASS: 0, FAIL: 0, BLOCKED: 0, SKIP: 0, ERROR: 0 };
  const scenarios = new Map<string, ScenarioStatus>();
  let mustFailures = 0;
  let known = 0;
  for (const id of ruleIds) {
    const entries = withReplaysBounded([...(byRule.get(id) ?? [])].sort((a, b) => a.scenario.localeCompare(b.scenario) || a.via.localeCompare(b.via)));
    for (const e of entries) scenarios.set(e.scenario, e.scenarioStatus);
    const status = statuses[id]!.status;
    const def = catalogue.get(id);
    const entry = baseline?.known.get(id);
    ruleCounts[status]++;
    if (entry) known++;
    else if (def?.level === 'MUST' && status === 'FAIL') mustFailures++;
    const reasons = [...new Set(entries.flatMap((s) => [s.reason, s.blockedBy].filter((r): r is string => r !== undefined)))];
    rules[id] = {
      status,
      ...(entry ? { known: { reason: entry.reason, ...(entry.expires === undefined ? {} : { expires: entry.expires }) } } : {}),
      ...(def ? { level: def.level, area: def.part, section: def.section, provenance: def.provenance, quote: def.quote, ...(def.source ? { source: def.source } : {}) } : {}),
      ...((status === 'SKIP' || status === 'BLOCKED') && reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
      ...(status === 'PASS' ? partlyVerified(entries) : {}),
      scenarios: entries,
    };
  }
  const scenarioCounts: Record<ScenarioStatus, number> = { pass: 0, fail: 0, error: 0, skip: 0, blocked: 0 };
  for (const status of scenarios.values()) scenarioCounts[status]++;

  const everything = input.only === undefined && input.rerunOf === undefined && input.catalogue !== undefined;
  const uncovered = everything ? input.catalogue!.filter((r) => r.excluded === undefined && !byRule.has(r.id)).map((r) => r.id).sort() : undefined;
  const targetList = [...new Map(targets.map((t) => [JSON.stringify(t), t])).values()];
  const report: ConformanceReport = {
    format: REPORT_FORMAT,
    complete: input.complete ?? true,
    run: {
      targets: targetList,
      ...(targetList[0] ? { seed: targetList[0].seed } : {}),
      suiteVersion: suiteVersion(),
      startedAt: input.startedAt.toISOString(),
      finishedAt: input.finishedAt.toISOString(),
      durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
      result: input.result,
      ...(input.only ? { only: [...input.only] } : {}),
      ...(input.rerunOf === undefined ? {} : { rerunOf: input.rerunOf }),
      ...(input.baseline ? { baseline: input.baseline.path } : {}),
      ...(input.failOn === 'should' ? { failOn: input.failOn } : {}),
      ...(input.interrupted ? { interrupted: input.interrupted } : {}),
    },
    counts: { rules: ruleCounts, known, scenarios: scenarioCounts, mustFailures },
    rules,
    ...(baseline ? { baseline: { stale: [...baseline.stale], expired: [...baseline.expired] } } : {}),
    ...(uncovered ? { uncovered } : {}),
    errors: input.errors.map((e) => ({ ...e, message: cut(e.message, secrets) })),
    cleanup: input.cleanup.map((c) => ({ ...c, left: [...c.left], failed: [...c.failed] })),
    ...(input.leftovers ? { leftovers: { ...input.leftovers, records: [...input.leftovers.records] } } : {}),
  };
  return redactSecrets(report, secrets);
}

/**
 * The report of a run that stopped before any scenario (preflight refused the target, the key or
 * the API version): no rule, the target as configured, and why, as `run.stopped` and as the one
 * error outside scenarios (so the verdict is UNDECIDED and JUnit has one error case saying why).
 */
export function stoppedReport(
  input: Pick<ReportInput, 'startedAt' | 'finishedAt' | 'secrets' | 'baseline' | 'only' | 'rerunOf'> & {
    readonly target: TargetInfo;
    readonly stopped: NonNullable<ConformanceReport['run']['stopped']>;
  },
): ConformanceReport {
  const { target, stopped, ...rest } = input;
  const report = assembleReport(new Map(), [target], { ...rest, result: 'failed', complete: true, errors: [{ message: `Stopped at ${stopped.stage} (${stopped.kind}): ${stopped.message}` }], cleanup: [] });
  return redactSecrets({ ...report, run: { ...report.run, stopped } }, input.secrets ?? []);
}

/**
 * A PASS rule's `partly`, when a scenario that declares it did not ask all of it: BLOCKED there, or
 * PASS with parts it went on without (`unverified`). Scenarios that SKIP it do not apply; a wire-schema
 * PASS verifies a shape rule as a declared one does.
 */
function partlyVerified(entries: readonly RuleScenario[]): Pick<RuleReport, 'partly'> {
  const applicable = entries.filter((e) => e.status !== 'SKIP');
  const verified = applicable.filter((e) => e.status === 'PASS' && (e.unverified ?? []).length === 0);
  const partial = applicable.filter((e) => e.via === 'declared' && !verified.includes(e));
  const gaps = partial.flatMap((e): string[] => {
    if (e.status === 'BLOCKED') return [`${e.scenario}: BLOCKED by ${e.blockedBy ?? e.reason ?? 'a step it does not name'}${e.message === undefined ? '' : ` (${firstLine({ message: e.message, status: e.status })})`}`];
    return (e.unverified ?? []).map((what) => `${e.scenario}: ${what}`);
  });
  return gaps.length === 0 ? {} : { partly: { verified: verified.length, of: verified.length + partial.length, gaps } };
}

/** The replay scripts of the first REPLAYS_PER_RULE failing entries are kept; later ones go (report.json stays readable). */
function withReplaysBounded(entries: readonly RuleScenario[]): RuleScenario[] {
  let kept = 0;
  return entries.map((entry) => {
    if (entry.replay === undefined) return entry;
    if (kept++ < REPLAYS_PER_RULE) return entry;
    const { replay: _dropped, ...rest } = entry;
    return rest;
  });
}

/** False for tests that are not scenarios, and for scenarios the run filtered out (they have no outcome). */
function ran(test: FinishedTest): boolean {
  return test.meta !== undefined && (test.state === 'passed' || test.state === 'failed' || test.meta.status !== undefined);
}

/** The scenario's status, trusting the test result over the meta (a vitest timeout leaves stale meta). */
function scenarioStatus(test: FinishedTest): ScenarioStatus {
  if (test.state === 'passed') return 'pass';
  if (test.state === 'failed') return test.meta?.status === 'fail' ? 'fail' : 'error';
  // A blocked scenario is skipped in vitest's terms; its meta says blocked.
  return test.meta?.status === 'blocked' ? 'blocked' : 'skip';
}

/**
 * A rule's verdict across the scenarios that carry it: the highest of FAIL > ERROR > PASS > BLOCKED > SKIP
 * (shared contract §1). The one place a rule's overall status is decided.
 */
export function ruleStatus(scenarios: readonly Pick<RuleScenario, 'status'>[]): RuleStatus {
  return aggregateRuleStatus(scenarios.map((s) => s.status)) ?? 'SKIP';
}

type RuleOutcome = Omit<RuleScenario, 'scenario' | 'title' | 'test' | 'file' | 'via' | 'scenarioStatus'>;

/** What the scenario's rule results say about one rule (shared contract §1), if they name it. */
function recordedResult(test: FinishedTest, rule: string, evidence: readonly Exchange[], secrets: readonly string[]): RuleOutcome | undefined {
  const result = test.meta?.ruleResults?.[rule];
  if (!result) return undefined;
  const failing = result.status === 'FAIL' || result.status === 'ERROR';
  const picked = result.exchanges?.flatMap((i) => (evidence[i] ? [evidence[i]] : [])) ?? evidence.slice(-FALLBACK_EXCHANGES);
  return {
    status: result.status,
    ...((result.status === 'SKIP' || result.status === 'BLOCKED') && test.meta?.reason !== undefined ? { reason: test.meta.reason } : {}),
    ...(result.blockedBy === undefined ? {} : { blockedBy: result.blockedBy }),
    ...(result.message === undefined ? {} : { message: cut(result.message, secrets) }),
    ...(result.unverified === undefined ? {} : { unverified: result.unverified.map((what) => cut(what, secrets)) }),
    ...('expected' in result ? { expected: result.expected } : {}),
    ...('actual' in result ? { actual: result.actual } : {}),
    ...(failing ? { exchanges: reported(picked) } : {}),
  };
}

/** What a scenario says about one rule it declares: its rule result, else its own outcome (every declared rule shares it). */
function declaredResult(test: FinishedTest, status: ScenarioStatus, rule: string, evidence: readonly Exchange[], secrets: readonly string[]): RuleOutcome {
  const recorded = recordedResult(test, rule, evidence, secrets);
  if (recorded) return recorded;
  const fallback: Record<ScenarioStatus, RuleStatus> = { pass: 'PASS', fail: 'FAIL', error: 'ERROR', skip: 'SKIP', blocked: 'BLOCKED' };
  if (status === 'skip' || status === 'blocked') return { status: fallback[status], reason: test.meta?.reason ?? test.note ?? 'skipped' };
  if (status === 'pass') return { status: 'PASS' };
  const error = test.errors[0];
  return {
    status: fallback[status],
    message: cut(test.errors.map((e) => `${e.name ?? 'Error'}: ${e.message}`).join('\n') || 'failed without an error message', secrets),
    ...(error?.expected === undefined ? {} : { expected: error.expected }),
    ...(error?.actual === undefined ? {} : { actual: error.actual }),
    exchanges: reported(evidence.slice(-FALLBACK_EXCHANGES)),
  };
}

function reported(exchanges: readonly Exchange[]): ReportedExchange[] {
  return exchanges.map((e) => ({ ...e, retries: [...e.retries], schemaIssues: e.schemaIssues && [...e.schemaIssues], errorBodyIssues: e.errorBodyIssues && [...e.errorBodyIssues], curl: curlOf(e.request) }) as ReportedExchange);
}

/** Redact before cutting, so a cut can never leave part of a secret behind. */
function cut(text: string, secrets: readonly string[]): string {
  return truncate(redactSecrets(text, secrets), MAX_MESSAGE_CHARS);
}

export interface ConformanceReporterOptions {
  /** Default: the configuration's REPORT_DIR. */
  readonly reportDir?: string;
  /** The rule catalogue: adds levels, sentences, sections, MUST-failure counts and uncovered rules. */
  readonly catalogue?: readonly CatalogueEntry[];
  /** Where the progress and summary lines go. Default: standard output. */
  readonly print?: (line: string) => void;
  /** Report only the test files of these vitest projects (by name); default: every project. */
  readonly projects?: readonly string[];
  readonly baseline?: { readonly path: string; readonly baseline: Baseline };
  readonly only?: readonly string[];
  readonly rerunOf?: string;
  /** Progress as it goes: `live` rewrites one line (a terminal), `lines` prints a line per area, `none`. Default `lines`. */
  readonly progress?: 'live' | 'lines' | 'none';
  readonly colour?: boolean;
  /** How a person re-runs one rule (`npm run conformance -- run`); the summary prints it per failing rule. */
  readonly rerunCommand?: string;
  /** How many scenarios the run means to run: an interrupted run's report says how many of them ran. */
  readonly plannedScenarios?: number;
  /**
   * The run's last cleanup, of what its journal says may remain (prepare.ts `sweepRun`), made before
   * the final report on every way a run ends; `signal` stops it (a second signal).
   */
  readonly sweep?: (run: RunInfo, signal: AbortSignal) => Promise<CleanupReport | undefined>;
}

export class ConformanceReporter implements Reporter {
  readonly reportDir: string;
  readonly #options: ConformanceReporterOptions;
  readonly #secrets: readonly string[];
  readonly #failOn: 'must' | 'should';
  readonly #runTimeoutMs: number;
  readonly #tests = new Map<string, FinishedTest>();
  readonly #errors: { file?: string; message: string }[] = [];
  readonly #cleanup: ({ file: string } & CleanupSummary)[] = [];
  readonly #progress: ProgressPrinter;
  #vitest: Vitest | undefined;
  #startedAt = new Date();
  #lastWrite = 0;
  #final: ConformanceReport | undefined;
  #finishing: Promise<ConformanceReport> | undefined;
  #interrupted: Pick<NonNullable<ConformanceReport['run']['interrupted']>, 'cause' | 'message'> | undefined;
  #leftovers: ConformanceReport['leftovers'];
  readonly #stopSweep = new AbortController();

  constructor(options: ConformanceReporterOptions = {}) {
    const config = loadConfig();
    this.reportDir = options.reportDir ?? config.reportDir;
    this.#secrets = [config.apiKey, config.otherTenantApiKey].filter((s): s is string => s !== undefined);
    this.#failOn = config.failOn;
    this.#runTimeoutMs = config.runTimeoutMs;
    this.#options = options;
    this.#progress = new ProgressPrinter({ mode: options.progress ?? 'lines', colour: options.colour ?? false, print: (line) => this.#print(line) });
  }

  /** The report of the finished run (undefined until the run ends). */
  get report(): ConformanceReport | undefined {
    return this.#final;
  }

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunStart(): void {
    this.#startedAt = new Date();
    this.#tests.clear();
    this.#errors.length = 0;
    this.#cleanup.length = 0;
    this.#final = undefined;
    this.#write('running', false);
  }

  onTestCaseResult(test: TestCase): void {
    if (!this.#reported(test.module)) return;
    const done = finished(test, this.#file(test.module));
    this.#tests.set(test.id, done);
    if (ran(done)) this.#progress.scenario(done.file, scenarioStatus(done));
    // Incremental, at most twice a second: a killed run still leaves what finished so far.
    if (Date.now() - this.#lastWrite > 500) this.#write('running', false);
  }

  onTestModuleEnd(module: TestModule): void {
    if (!this.#reported(module)) return;
    const file = this.#file(module);
    for (const e of module.errors()) this.#errors.push({ file, message: e.message });
    const summary = module.meta().conformanceCleanup;
    if (summary) this.#cleanup.push({ file, ...summary });
    this.#progress.moduleEnd(file);
    this.#write('running', false);
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<{ message: string }>, reason: TestRunEndReason): Promise<void> {
    // The modules are the authority at the end (a test whose result event was missed still counts).
    for (const module of testModules) {
      if (!this.#reported(module)) continue;
      for (const test of module.children.allTests()) this.#tests.set(test.id, finished(test, this.#file(module)));
    }
    // Stopped by a signal or an error: its workers' deaths are no errors of their own.
    if (this.#interrupted !== undefined) {
      await this.#finish('interrupted', false);
      return;
    }
    for (const e of unhandledErrors) this.#errors.push({ message: `unhandled: ${e.message}` });
    const run = this.#run();
    if (run?.deadline !== undefined && Date.now() >= run.deadline) {
      this.#interrupted = { cause: 'deadline', message: `the run's deadline passed (CONFORMANCE_RUN_TIMEOUT_MS, ${this.#runTimeoutMs / 1000} s): nothing was sent after it but the cleanup` };
    }
    await this.#finish(this.#interrupted === undefined ? reason : 'interrupted', this.#interrupted === undefined && reason !== 'interrupted');
  }

  /**
   * The run was stopped (a signal, an error of the harness): writes the report of what finished at
   * once, marked interrupted, then sweeps what the run made (stopCleanup() cuts that short) and writes
   * it again with what stays. Resolves with the final report.
   */
  async interrupt(cause: 'SIGTERM' | 'SIGINT' | 'error', message: string): Promise<ConformanceReport> {
    this.noteInterruption(cause, message);
    this.#progress.end();
    this.#print(`conformance: interrupted (${message}); the report of what finished, marked incomplete, is in ${shownPath(this.reportDir)}`);
    return this.#finish('interrupted', false);
  }

  /** The run is being stopped: however its vitest run ends now (a killed worker ends it at once), its report says interrupted. */
  noteInterruption(cause: 'SIGTERM' | 'SIGINT' | 'error', message: string): void {
    this.#interrupted ??= { cause, message };
  }

  /** A second signal: the sweep stops where it is; the report lists what it had not checked. */
  stopCleanup(): void {
    this.#stopSweep.abort();
  }

  /** Sweeps the journal (when the run has one), then writes the final report and prints its closing lines. */
  async #finish(result: ConformanceReport['run']['result'], complete: boolean): Promise<ConformanceReport> {
    this.#finishing ??= (async () => {
      const run = this.#run();
      // A fake the run booted ends with it: nothing of it stays to sweep.
      if (run?.journal !== undefined && run.kind === 'deployment') {
        // Written before the sweep: a run killed during it still leaves final files, with what the journal says may remain.
        this.#leftovers = unchecked(run.journal.path);
        this.#write(result, complete);
        const swept = await this.#options.sweep?.(run, this.#stopSweep.signal).catch((error: unknown) => {
          this.#errors.push({ message: `the run's last cleanup failed: ${error instanceof Error ? error.message : String(error)}` });
          return undefined;
        });
        if (swept !== undefined) this.#leftovers = { ...checked(run.journal.path, swept), checked: !this.#stopSweep.signal.aborted };
      }
      const report = this.#write(result, complete);
      this.#final = report;
      this.#progress.end();
      for (const line of summaryLines(report, shownPath(this.reportDir), this.#options.rerunCommand, this.#options.colour)) this.#print(line);
      return report;
    })();
    return this.#finishing;
  }

  /** The run as its global setup decided it (target, journal), once provided. */
  #run(): RunInfo | undefined {
    for (const project of this.#vitest?.projects ?? []) {
      const run = project.getProvidedContext()['conformance:run'];
      if (run !== undefined) return run;
    }
    return undefined;
  }

  #write(result: ConformanceReport['run']['result'], complete: boolean): ConformanceReport {
    const { catalogue, baseline, only, rerunOf } = this.#options;
    const report = buildReport({
      tests: [...this.#tests.values()],
      errors: this.#errors,
      cleanup: this.#cleanup,
      startedAt: this.#startedAt,
      finishedAt: new Date(),
      result,
      complete,
      secrets: [...this.#secrets, ...this.#providedSecrets()],
      failOn: this.#failOn,
      ...(this.#leftovers ? { leftovers: this.#leftovers } : {}),
      ...(this.#interrupted ? { interrupted: { ...this.#interrupted, scenariosRun: this.#scenariosRun(), ...(this.#options.plannedScenarios === undefined ? {} : { scenariosPlanned: this.#options.plannedScenarios }) } } : {}),
      ...(catalogue ? { catalogue } : {}),
      ...(baseline ? { baseline } : {}),
      ...(only ? { only } : {}),
      ...(rerunOf === undefined ? {} : { rerunOf }),
    });
    writeReportFiles(this.reportDir, report);
    this.#lastWrite = Date.now();
    return report;
  }

  /** Scenarios that ended (passed, failed, blocked or skipped by their own decision). */
  #scenariosRun(): number {
    return [...this.#tests.values()].filter(ran).length;
  }

  /** The keys of a fake the run booted (handed to the workers by the global setup), so they are scrubbed too. */
  #providedSecrets(): string[] {
    return (this.#vitest?.projects ?? []).flatMap((project) => {
      const run = project.getProvidedContext()['conformance:run'];
      return [run?.apiKey, run?.otherTenantApiKey].filter((s): s is string => s !== undefined);
    });
  }

  #reported(module: TestModule): boolean {
    return this.#options.projects === undefined || this.#options.projects.includes(module.project.name);
  }

  #file(module: TestModule): string {
    return relative(this.#vitest?.config.root ?? process.cwd(), module.moduleId);
  }


  #print(line: string): void {
    if (this.#options.print) this.#options.print(line);
    else process.stdout.write(`${line}\n`);
  }
}

function finished(test: TestCase, file: string): FinishedTest {
  const result = test.result();
  return {
    fullName: test.fullName,
    file,
    state: result.state,
    ...(result.state === 'skipped' && result.note !== undefined ? { note: result.note } : {}),
    errors: (result.errors ?? []).map((e) => ({
      ...(e.name === undefined ? {} : { name: e.name }),
      message: e.message,
      ...(e.expected === undefined ? {} : { expected: e.expected }),
      ...(e.actual === undefined ? {} : { actual: e.actual }),
    })),
    meta: test.meta().conformance,
    ...(test.diagnostic()?.duration === undefined ? {} : { durationMs: test.diagnostic()!.duration }),
  };
}

/** Leftovers as the journal alone says them: every record it does not know removed, none checked. */
function unchecked(journal: string): NonNullable<ConformanceReport['leftovers']> {
  const records = readJournal(journal).filter((r) => r.state !== 'removed');
  return { journal, checked: false, undone: 0, alreadyGone: 0, records: records.map((r) => ({ kind: r.entry.kind, id: r.entry.id, error: `not checked: the journal says ${r.state}` })) };
}

/** Leftovers after the sweep: what it could not remove. */
function checked(journal: string, swept: CleanupReport): NonNullable<ConformanceReport['leftovers']> {
  return {
    journal,
    checked: true,
    undone: swept.undone.length,
    alreadyGone: swept.alreadyGone.length,
    records: [...swept.left.map(({ entry }) => ({ kind: entry.kind, id: entry.id })), ...swept.failed.map(({ entry, error }) => ({ kind: entry.kind, id: entry.id, error }))],
  };
}

/** Lines of each kind printed at the end before pointing at summary.md for the rest. */
const CONSOLE_LIST = 10;
const CONSOLE_CHARS = 160;

/**
 * The closing lines: counts; each failing rule with its first message line, how many more scenarios
 * failed it and the command that re-runs it; stale baseline entries; for an UNDECIDED run the MUST
 * rules it rests on and what stopped each; BLOCKED and SKIP rules by cause; what was left on the
 * target, in one line; errors; the seed.
 */
export function summaryLines(report: ConformanceReport, dir: string, rerunCommand = 'npm run conformance --', colour = false): string[] {
  const lines = [`conformance: ${formatProgress(report.counts.rules, colour)}${report.counts.known > 0 ? ` (${report.counts.known} known)` : ''}; reports in ${dir}/ (report.html, summary.md, report.json, junit.xml)`];
  const seed = report.run.seed;
  const failing = failingRules(report);
  if (failing.length > 0) lines.push('conformance: failing rules:');
  for (const { id, rule, first, more } of failing) {
    const tag = `${rule.status}${rule.known ? ' (known)' : ''} ${rule.level ?? ''}`.trim();
    lines.push(`  ${id} [${tag}] ${firstLine(first, '').slice(0, CONSOLE_CHARS)}${more > 0 ? ` (and ${more} more scenario(s))` : ''}`, `    re-run: ${rerunCommand} --only ${id}${seed === undefined ? '' : ` --seed ${seed}`}`);
  }
  for (const entry of report.baseline?.stale ?? []) lines.push(`conformance: ${entry.rule} passes now: remove it from the baseline`);
  const undecided = verdictOf(report).exitCode === 2 ? undecidedMustRules(report) : [];
  if (undecided.length > 0) lines.push(`conformance: undecided: ${undecided.length} MUST rule(s) have no verdict:`);
  for (const rule of undecided.slice(0, CONSOLE_LIST)) lines.push(`  ${rule.id} [${rule.status}] ${rule.cause.slice(0, CONSOLE_CHARS)}`);
  if (undecided.length > CONSOLE_LIST) lines.push(`  … and ${undecided.length - CONSOLE_LIST} more in summary.md`);
  const partly = partlyVerifiedRules(report);
  if (partly.length > 0) lines.push(`conformance: ${partly.length} rule(s) PASS, partly verified:`);
  for (const { id, partly: p } of partly.slice(0, CONSOLE_LIST)) lines.push(`  ${id} [PASS, ${p.verified} of ${p.of} scenarios] ${p.gaps[0]!.slice(0, CONSOLE_CHARS)}${p.gaps.length > 1 ? ` (and ${p.gaps.length - 1} more)` : ''}`);
  if (partly.length > CONSOLE_LIST) lines.push(`  … and ${partly.length - CONSOLE_LIST} more in summary.md`);
  const causes = undecidedCauses(report);
  if (causes.length > 0) lines.push(`conformance: BLOCKED or SKIP, by cause:`);
  for (const cause of causes.slice(0, CONSOLE_LIST)) lines.push(`  ${cause.status} ${cause.rules.length} rule(s): ${cause.cause.split('\n')[0]!.slice(0, CONSOLE_CHARS)}`);
  if (causes.length > CONSOLE_LIST) lines.push(`  … and ${causes.length - CONSOLE_LIST} more cause(s) in summary.md`);
  const { undone, alreadyGone, left, failed } = leftBehind(report);
  const removed = `conformance: cleanup removed ${undone} record(s)${alreadyGone > 0 ? ` (${alreadyGone} already gone)` : ''}`;
  if (left.size > 0 || failed.size > 0) {
    lines.push(
      `${removed}; left on the target: ${countOf(left)} record(s) the API cannot remove${left.size > 0 ? ` (${kindCounts(left)})` : ''}` +
        `${failed.size > 0 ? `, ${countOf(failed)} whose removal failed (${kindCounts(failed)})` : ''}; their IDs are in summary.md`,
    );
  } else if (undone + alreadyGone > 0) lines.push(`${removed}; nothing left on the target`);
  for (const e of report.errors) lines.push(`conformance: error${e.file ? ` in ${e.file}` : ''}: ${e.message.split('\n')[0]}`);
  lines.push(seed === undefined ? 'conformance: no scenario ran, so no seed was used' : `conformance: seed ${seed} (reproduce: ${rerunCommand} --seed ${seed})`);
  return lines;
}
