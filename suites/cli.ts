#!/usr/bin/env node
/// <reference types="vitest/config" />
/**
 * The conformance CLI (`npm run conformance -- …` here, the `besi-conformance` bin when packaged):
 *
 *   run       run the suite (or part of it) against the embedded fake or a base URL; writes the reports
 *   list      the scenarios and rules a run would execute, with their needs and levels; calls nothing
 *   baseline  a baseline of known failures from a report
 *   explore   random programs over the whole interface, checked against the reference model (suites/explore/)
 *   cleanup   remove what earlier runs left on a target by URL, as their journals say (suites/cleanup-command.ts)
 *
 * The API keys come from the environment only (API_KEY, OTHER_TENANT_API_KEY). Exit codes of `run`
 * (suites/report/view.ts `verdictOf`): 0 PASSED, every applicable MUST rule was verified and holds;
 * 1 FAILED, a MUST rule fails (with --fail-on should, a SHOULD rule too), or a baseline entry is
 * stale; 2 UNDECIDED (configuration, unreachable target, key or version refused, a MUST rule in
 * ERROR or left BLOCKED, an interrupted run).
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Vitest } from 'vitest/node';
import { RULES } from '../spec/rules/catalogue.ts';
import { CONFORMANCE_PROJECT, conformanceProject, moduleCache, PROJECT_ROOT, SOURCE_EXT } from './conformance-project.ts';
import { didYouMean } from './framework/closest.ts';
import { ConfigError, type ConformanceConfig, DEFAULT_CONCURRENCY, ENV_VARS, FAR_TARGET_MS, loadConfig, MAX_CONCURRENCY, secretsOf } from './framework/config.ts';
import { preflight } from './framework/preflight.ts';
import { ConformanceReporter, stoppedReport } from './framework/reporter.ts';
import { needsOf, testName } from './framework/scenario.ts';
import { PREPARE } from './target-setup.ts';
import { sweepRun } from './framework/prepare.ts';
import { baselineFrom, BaselineError, readBaseline } from './report/baseline.ts';
import { cliInvocation, type PrintedTarget, rememberInvocation, targetedCommand } from './report/commands.ts';
import { shellArg } from './report/curl.ts';
import { mergeReports } from './report/merge.ts';
import { type Baseline, BASELINE_FORMAT, ConformanceReport } from './report/schema.ts';
import { exactNames, failedScenarioIds, selectScenarios } from './report/select.ts';
import { verdictOf } from './report/view.ts';
import { shownPath, writeAtomically, writeReportFiles } from './report/write.ts';

/** Exit code when the run could not be made or decided (shared contract §2). */
const UNDECIDED = 2;

class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface RunOptions {
  readonly baseUrl?: string;
  readonly apiVersion?: string;
  readonly profile?: string;
  readonly only?: string[];
  readonly rerunFailed?: string | true;
  readonly merge?: boolean;
  readonly baseline?: string;
  readonly reportDir?: string;
  readonly stateDir?: string;
  readonly seed?: number;
  readonly allowLive?: boolean;
  readonly failOn?: 'must' | 'should';
  /** Reuse mode's name (`--reuse-namespace [name]`, `nightly` when given without one). */
  readonly reuseNamespace?: string | true;
  readonly concurrency?: number;
  /** The exploration beside the scenarios: programs at most (0: none), and the least seconds it takes. */
  readonly exploreRuns?: number;
  readonly exploreSeconds?: number;
}

function concurrencyOption(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_CONCURRENCY) throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_CONCURRENCY}`);
  return Number(value);
}

function wholeNumberOption(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

/** Options given on the command line become the configuration's environment variables, so every worker sees them. */
function applyToEnvironment(options: Pick<RunOptions, 'baseUrl' | 'apiVersion' | 'profile' | 'reportDir' | 'stateDir' | 'seed' | 'allowLive' | 'failOn' | 'reuseNamespace' | 'concurrency' | 'exploreRuns' | 'exploreSeconds'>): void {
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined) process.env[name] = String(value);
  };
  set('BASE_URL', options.baseUrl);
  set('API_VERSION', options.apiVersion);
  set('CONFORMANCE_PROFILE', options.profile);
  set('REPORT_DIR', options.reportDir);
  set('CONFORMANCE_STATE_DIR', options.stateDir);
  set('CONFORMANCE_SEED', options.seed);
  set('CONFORMANCE_FAIL_ON', options.failOn);
  set('CONFORMANCE_REUSE_NAMESPACE', options.reuseNamespace === true ? 'nightly' : options.reuseNamespace);
  set('CONFORMANCE_CONCURRENCY', options.concurrency);
  set('CONFORMANCE_EXPLORE_RUNS', options.exploreRuns);
  set('CONFORMANCE_EXPLORE_SECONDS', options.exploreSeconds);
  // Read by the configuration (shared with the suite's global setup) where it knows live keys.
  if (options.allowLive) set('CONFORMANCE_ALLOW_LIVE', '1');
}

/** How a person starts a run again, as they started this one (the npm script, tsx or the installed bin). */
function runInvocation(): string {
  return process.env['npm_lifecycle_event'] === 'conformance' ? 'npm run conformance --' : `${cliInvocation()} run`;
}

function readReport(path: string): ConformanceReport {
  if (!existsSync(path)) throw new UsageError(`no report at ${path}; run the suite first (or give the report's path)`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path} is not a report: not JSON (${(error as Error).message.replace(/\s+/g, ' ')})`);
  }
  const parsed = ConformanceReport.safeParse(json);
  if (!parsed.success) throw new UsageError(`${path} is not a report this version can read: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** Every scenario of the suite; loaded only by the commands that need them (it loads every scenario module). */
async function allScenarios() {
  return (await import('./scenarios/index.ts')).SCENARIOS;
}

async function run(options: RunOptions): Promise<number> {
  const rerunPath = options.rerunFailed === undefined ? undefined : resolve(options.rerunFailed === true ? join(options.reportDir ?? loadConfig().reportDir, 'report.json') : options.rerunFailed);
  const previous = rerunPath === undefined ? undefined : readReport(rerunPath);
  if (options.merge && previous === undefined) throw new UsageError('--merge merges a re-run into the report it re-ran; it needs --rerun-failed');
  // A partial run keeps the full run's report: a re-run writes into rerun/ next to the report it
  // re-runs (with its seed), an --only run into only/ of the report directory, unless a directory is given.
  const reportDir =
    options.reportDir ?? (rerunPath !== undefined ? join(dirname(rerunPath), 'rerun') : options.only !== undefined ? join(loadConfig().reportDir, 'only') : undefined);
  applyToEnvironment({ ...options, seed: options.seed ?? previous?.run.seed });
  if (reportDir !== options.reportDir) {
    // The journal stays with the full run's report directory: a partial run of a reuse namespace finds it there.
    process.env[ENV_VARS.stateDir] = configNaming(options).stateDir;
    process.env[ENV_VARS.reportDir] = reportDir;
  }
  const config = configNaming(options);
  const baseline = options.baseline === undefined ? undefined : baselineOf(options.baseline);
  ensureWritable(config.reportDir, options.reportDir === undefined ? ENV_VARS.reportDir : '--report-dir');
  // Loaded once the options hold: a mistake in them is told at once, not after every scenario module loaded.
  const all = await allScenarios();

  let selected: readonly (typeof all)[number][] | undefined;
  if (previous !== undefined) {
    const ids = new Set(failedScenarioIds(previous));
    if (ids.size === 0) {
      console.log(`conformance: ${rerunPath} has no FAIL or ERROR rule; nothing to re-run`);
      return 0;
    }
    selected = all.filter((s) => ids.has(s.id));
  }
  if (options.only !== undefined) {
    const selection = selectScenarios(selected ?? all, RULES, options.only);
    if (selection.unknown.length > 0) throw unknownSelection(selection.unknown, all);
    selected = selection.scenarios;
  }
  if (selected !== undefined && selected.length === 0) throw new UsageError('the selection holds no scenario');

  const tty = process.stdout.isTTY === true && !process.env['CI'];
  const reporter = new ConformanceReporter({
    reportDir: config.reportDir,
    catalogue: RULES,
    projects: [CONFORMANCE_PROJECT],
    progress: tty ? 'live' : 'lines',
    colour: tty,
    rerunCommand: rerunCommandOf(config, baseline?.path),
    plannedScenarios: selected?.length ?? all.length,
    sweep: (run, signal) => sweepRun(loadConfig(), run, PREPARE, signal),
    ...(baseline ? { baseline } : {}),
    ...(options.only ? { only: options.only } : {}),
    ...(rerunPath === undefined ? {} : { rerunOf: rerunPath }),
  });
  // From here on every way the run ends leaves four final report files.
  const stops = new Interruptions(reporter);
  try {
    const startedAt = new Date();
    const checked = await preflight(config, { allowLiveKey: options.allowLive === true });
    if (!checked.ok) {
      console.error(`conformance: cannot run (${checked.kind}): ${checked.message}`);
      // A nightly job's JUnit step and artifact upload still find the four files, saying why.
      writeReportFiles(
        config.reportDir,
        stoppedReport({
          target: { baseUrl: config.baseUrl ?? 'the embedded fake', kind: config.baseUrl === undefined ? 'fake' : 'deployment', apiVersion: config.apiVersion, seed: config.seed, profile: config.profile.name, readOnly: config.profile.readOnly },
          stopped: { stage: 'preflight', kind: checked.kind, message: checked.message.replace(/^Preflight failed \([^)]*\): /, '') },
          startedAt,
          finishedAt: new Date(),
          secrets: secretsOf(config),
          ...(baseline ? { baseline } : {}),
          ...(options.only ? { only: options.only } : {}),
          ...(rerunPath === undefined ? {} : { rerunOf: rerunPath }),
        }),
      );
      console.error(`conformance: exit ${UNDECIDED} (the run could not start); the report saying why is in ${shownPath(config.reportDir)}/`);
      return UNDECIDED;
    }

    const where = config.baseUrl ?? 'the embedded fake';
    console.log(
      `conformance: ${selected?.length ?? all.length} scenarios against ${where}, API version ${config.apiVersion}, profile ${config.profile.name}, seed ${config.seed}` +
        `${baseline ? `, baseline ${baseline.path}` : ''}; reports in ${shownPath(config.reportDir)}/`,
    );

    const files = selected === undefined ? undefined : filesOf(selected);
    // Loaded here, not at the top: a usage error, `list` or `--help` is told without vitest's start-up (seconds of CPU).
    const { createVitest } = await import('vitest/node');
    const vitest = await createVitest(
      'test',
      {
        config: false,
        root: PROJECT_ROOT,
        watch: false,
        reporters: [reporter],
        ...moduleCache(),
        ...(selected === undefined ? {} : { testNamePattern: exactNames(selected.map(testName)) }),
      },
      { test: conformanceProject },
    );
    const finished = await stops.during(vitest, async () => {
      await vitest.start(files);
      await vitest.close();
      return reporter.report;
    });
    let report = finished;
    if (report === undefined) {
      console.error('conformance: the run ended without a report');
      return UNDECIDED;
    }
    if (options.merge && previous !== undefined && rerunPath !== undefined) {
      report = mergeReports(previous, report, { catalogue: RULES, ...(baseline ? { baseline } : {}) });
      writeReportFiles(dirname(rerunPath), report);
      console.log(`conformance: merged the re-run into ${shownPath(dirname(rerunPath))}/`);
    }
    return closingVerdict(report, config.failOn);
  } catch (error) {
    // A fault of the harness once the run began: the reports still say what ran, and that it stopped.
    const report = await stops.failed(error);
    console.error(`conformance: internal error: ${(error as Error).message ?? String(error)}`);
    console.error((error as Error).stack ?? '');
    return verdictOf(report).exitCode === 1 ? 1 : UNDECIDED;
  } finally {
    stops.dispose();
  }
}

/** The closing lines: why the verdict, then the verdict and its exit code. */
function closingVerdict(report: ConformanceReport, failOn: 'must' | 'should'): number {
  const verdict = verdictOf(report, { failOn });
  for (const reason of verdict.reasons) console.log(`conformance: ${reason}`);
  const meaning = {
    PASSED: `every applicable MUST rule${verdict.failOn === 'should' ? ' and SHOULD rule' : ''} was verified and holds`,
    FAILED: `a ${verdict.failOn === 'should' ? 'MUST or SHOULD' : 'MUST'} rule fails, or the baseline is stale`,
    UNDECIDED: 'the run could not decide: not every MUST rule was verified',
  }[verdict.result];
  console.log(`conformance: ${verdict.result}, exit ${verdict.exitCode} (${meaning})`);
  return verdict.exitCode;
}

/** Signals arriving this soon after the first are the same one, relayed (npm, tsx) or sent to the whole process group. */
const SAME_SIGNAL_MS = 2_000;
/** How long stopping the scenarios may take before the cleanup starts anyway. */
const STOP_VITEST_MS = 10_000;

/**
 * How a run ends when it does not end on its own. The first SIGINT or SIGTERM stops the scenarios,
 * then the reporter sweeps what the run made and writes the four files marked interrupted; a
 * second one cuts the sweep short (the report then lists what it did not check). An error of the
 * harness, or one nobody caught, ends the same way. vitest's own signal handlers (which exit at
 * once) are taken off: the reports must be written first.
 */
class Interruptions {
  readonly #reporter: ConformanceReporter;
  readonly #started = Date.now();
  #vitest: Vitest | undefined;
  /** While the vitest run goes on, `run` waits here and returns the interrupted report itself. */
  #during = false;
  #first: number | undefined;
  #stopping: Promise<ConformanceReport> | undefined;
  #settle: ((report: ConformanceReport) => void) | undefined;
  readonly #onSignal = (signal: NodeJS.Signals) => this.#signal(signal);
  readonly #onUncaught = (error: unknown) => {
    console.error(`conformance: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void this.failed(error).then(() => process.exit(UNDECIDED));
  };

  constructor(reporter: ConformanceReporter) {
    this.#reporter = reporter;
    process.on('SIGINT', this.#onSignal);
    process.on('SIGTERM', this.#onSignal);
    process.on('uncaughtException', this.#onUncaught);
    process.on('unhandledRejection', this.#onUncaught);
  }

  /** Runs `work` (the vitest run) unless an interruption ends it first, which then gives the final report. */
  async during<T>(vitest: Vitest, work: () => Promise<T>): Promise<T | ConformanceReport> {
    this.#vitest = vitest;
    this.#during = true;
    const others = (event: string, ours: unknown) => process.listeners(event as NodeJS.Signals).filter((listener) => listener !== ours);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) for (const listener of others(signal, this.#onSignal)) process.off(signal, listener);
    for (const listener of others('unhandledRejection', this.#onUncaught)) process.off('unhandledRejection', listener as NodeJS.UnhandledRejectionListener);
    const interrupted = new Promise<ConformanceReport>((resolve) => (this.#settle = resolve));
    if (this.#stopping !== undefined) void this.#stopping.then(this.#settle);
    const winner = await Promise.race([work(), interrupted]);
    // The vitest run also ends when it is interrupted: the report is the interruption's.
    return this.#stopping === undefined ? winner : this.#stopping;
  }

  #signal(signal: NodeJS.Signals): void {
    const now = Date.now();
    if (this.#first !== undefined) {
      if (now - this.#first < SAME_SIGNAL_MS) return;
      console.error(`conformance: ${signal} again: the cleanup stops where it is; the report lists what it did not check`);
      this.#reporter.stopCleanup();
      return;
    }
    this.#first = now;
    console.error(`conformance: ${signal}: stopping the scenarios, then removing what the run made (${signal} again skips that)`);
    void this.#stop(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM', `${signal} after ${((now - this.#started) / 1000).toFixed(1)} s`).then((report) => {
      if (this.#during) return;
      // Stopped before the scenarios began (preflight, loading): nothing else is to happen.
      process.exit(closingVerdict(report, report.run.failOn ?? 'must'));
    });
  }

  /** An error ended the run: its final report. */
  failed(error: unknown): Promise<ConformanceReport> {
    this.#first ??= Date.now();
    return this.#stop('error', `an error of the harness: ${error instanceof Error ? error.message : String(error)}`);
  }

  #stop(cause: 'SIGINT' | 'SIGTERM' | 'error', message: string): Promise<ConformanceReport> {
    this.#reporter.noteInterruption(cause, message);
    this.#stopping ??= (async () => {
      const vitest = this.#vitest;
      if (vitest !== undefined) {
        // The timer also keeps the process alive: a run whose worker was killed may leave vitest's promises waiting on nothing.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          (async () => {
            await vitest.cancelCurrentRun('keyboard-input');
            await vitest.close();
          })().catch(() => undefined),
          new Promise((resolve) => (timer = setTimeout(resolve, STOP_VITEST_MS))),
        ]);
        clearTimeout(timer);
      }
      const report = await this.#reporter.interrupt(cause, message);
      this.#settle?.(report);
      return report;
    })();
    return this.#stopping;
  }

  dispose(): void {
    process.off('SIGINT', this.#onSignal);
    process.off('SIGTERM', this.#onSignal);
    process.off('uncaughtException', this.#onUncaught);
    process.off('unhandledRejection', this.#onUncaught);
    // A worker that would not stop must not keep an interrupted run's process alive.
    if (this.#stopping !== undefined) setTimeout(() => process.exit(), 2_000).unref();
  }
}

/** The baseline of `--baseline`: a file that does not exist yet (night 1) is an empty one, with a warning saying how to make it. */
function baselineOf(path: string): { path: string; baseline: Baseline } {
  if (existsSync(resolve(path))) return { path, baseline: readBaseline(resolve(path)) };
  console.warn(
    `conformance: baseline ${path} does not exist yet: the run starts with an empty baseline (no known failures). ` +
      `To accept this run's failures as known, write it from the report: besi-conformance baseline --from <report-dir>/report.json --out ${path} (then give each entry a reason and commit it).`,
  );
  return { path, baseline: { format: BASELINE_FORMAT, entries: [] } };
}

/** How a person re-runs part of this run against the same target: the command with the target's options, whatever their source, and the key as a placeholder. */
function rerunCommandOf(config: ConformanceConfig, baseline: string | undefined): string {
  const extra = [...(config.failOn === 'should' ? ['--fail-on should'] : []), ...(baseline === undefined ? [] : [`--baseline ${shellArg(baseline)}`])].join(' ');
  return targetedCommand(printedTarget(config), runInvocation(), extra);
}

/** The run's target as printed commands carry it. */
function printedTarget(config: ConformanceConfig): PrintedTarget {
  const profile = /^[a-z0-9][a-z0-9._-]*$/i.test(config.profile.name) && !config.profile.name.endsWith('.json') ? config.profile.name : shownPath(config.profile.path);
  return { baseUrl: config.baseUrl, apiVersion: config.apiVersion, profile, otherTenantKey: config.baseUrl !== undefined && config.otherTenantApiKey !== undefined };
}

/** The configuration, a problem with a value given as an option named by the option (`--base-url: …`), not its variable. */
function configNaming(options: RunOptions): ReturnType<typeof loadConfig> {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const given: [string, unknown][] = [
      [ENV_VARS.baseUrl, options.baseUrl],
      [ENV_VARS.apiVersion, options.apiVersion],
      [ENV_VARS.profile, options.profile],
      [ENV_VARS.reportDir, options.reportDir],
      [ENV_VARS.seed, options.seed],
    ];
    const flags: Record<string, string> = { [ENV_VARS.baseUrl]: '--base-url', [ENV_VARS.apiVersion]: '--api-version', [ENV_VARS.profile]: '--profile', [ENV_VARS.reportDir]: '--report-dir', [ENV_VARS.seed]: '--seed' };
    let message = error.message;
    for (const [variable, value] of given) if (value !== undefined) message = message.replaceAll(`${variable}:`, `${flags[variable]}:`);
    throw new ConfigError(message);
  }
}

/** The report directory can be made and written, checked before a run that would fail only at its end. */
function ensureWritable(dir: string, name: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new UsageError(`${name}: cannot write reports into ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** An `--only` name that is no rule, area or scenario, with the closest valid names as a hint. */
function unknownSelection(unknown: readonly string[], scenarios: readonly { id: string }[]): UsageError {
  const names = [...RULES.map((r) => r.id), ...RULES.map((r) => r.part), ...scenarios.map((s) => s.id), ...scenarios.map((s) => s.id.split('.')[0]!)];
  return new UsageError(`--only: not a rule ID, area or scenario: ${unknown.map((u) => `${u}${didYouMean(u, names)}`).join(', ')} (\`conformance list\` lists them)`);
}

/** The test files holding these scenarios: each part's scenarios are registered by `suites/scenarios/<area>.test.*`. */
function filesOf(scenarios: readonly { area: string }[]): string[] {
  const scenarioDir = join(PROJECT_ROOT, 'suites/scenarios');
  return [...new Set(scenarios.map((s) => join(scenarioDir, `${s.area}.test.${SOURCE_EXT}`)))];
}

async function list(options: { only?: string[] }): Promise<number> {
  const all = await allScenarios();
  let scenarios = all;
  if (options.only !== undefined) {
    const selection = selectScenarios(all, RULES, options.only);
    if (selection.unknown.length > 0) throw unknownSelection(selection.unknown, all);
    scenarios = selection.scenarios;
  }
  const levels = new Map<string, string>(RULES.map((r) => [r.id, r.level]));
  const areas = new Map<string, (typeof all)[number][]>();
  for (const s of scenarios) areas.set(s.area, [...(areas.get(s.area) ?? []), s]);
  const rules = new Set<string>();
  for (const [area, members] of areas) {
    console.log(`${area} (${members.length} scenarios)`);
    for (const s of members) {
      const needs = needsOf(s).map((n) => (typeof n === 'string' ? n : n.join(' or ')));
      console.log(`  ${s.id}: ${s.title}`);
      console.log(`    needs: ${needs.length > 0 ? needs.join(', ') : 'nothing'}`);
      console.log(`    rules: ${s.rules.map((r) => `${r} (${levels.get(r) ?? '?'})`).join(', ')}`);
      for (const r of s.rules) rules.add(r);
    }
  }
  const must = [...rules].filter((r) => levels.get(r) === 'MUST').length;
  console.log(`${scenarios.length} scenarios carrying ${rules.size} rules (${must} MUST, ${rules.size - must} SHOULD); nothing was called`);
  return 0;
}

function baselineCommand(options: { from: string; out: string }): number {
  const report = readReport(resolve(options.from));
  const baseline = baselineFrom(report);
  writeAtomically(resolve(options.out), `${JSON.stringify(baseline, null, 2)}\n`);
  console.log(`conformance: wrote ${options.out} with ${baseline.entries.length} known failure(s) from ${options.from}; give each a reason (and an expiry date) before committing it`);
  return 0;
}

function program(exit: (code: number) => void): Command {
  const cli = new Command('conformance')
    .description('Conformance suite of the Billing and Entitlements Service Interface. The API key is read from API_KEY only.')
    // A mistake in the options is one line naming it (commander's hint joined to it), not the whole help.
    .configureOutput({ outputError: (text, write) => write(`conformance: ${text.trim().replace(/\s*\n\s*/g, ' ')} (--help lists the options)\n`) })
    .exitOverride();
  const act =
    <O,>(action: (options: O) => Promise<number> | number) =>
    async (options: O) => exit(await action(options));
  cli
    .command('run')
    .description('Run the suite against the embedded fake, or a deployment (--base-url, with API_KEY in the environment); writes report.json, report.html, summary.md, junit.xml')
    .option('--base-url <url>', 'the target (default: boot the fake in-process)')
    .option('--api-version <version>', 'the x-api-version header (default 2.4.0)')
    .option('--profile <name|path>', 'target profile: suites/profiles/<name>.json or a path (default: default)')
    .option('--only <rule|area|scenario...>', 'run only the scenarios carrying these rule IDs, areas (licenses, billing, …) or scenario IDs; writes <report-dir>/only/')
    .addOption(new Option('--rerun-failed [report]', 're-run only the scenarios behind the FAIL and ERROR rules of a report (default: <report-dir>/report.json); writes <its dir>/rerun/'))
    .option('--merge', 'with --rerun-failed: merge the re-run into the report it re-ran')
    .option('--baseline <file>', 'known failures (JSON): listed failures do not fail the run; listed rules that pass do')
    .option('--report-dir <dir>', 'where to write the reports (default: reports)')
    .option('--state-dir <dir>', 'where the run journal of a target by URL is kept, for the next run and `cleanup` (default: CONFORMANCE_STATE_DIR, the profile\'s stateDir, <report-dir>/state); keep it between nightly runs')
    .option('--seed <n>', 'seed of the run (default 424242; a re-run takes its report’s)', wholeNumberOption)
    .option('--allow-live', 'accept a live key (am_sk_live_…) although the profile changes data; think twice')
    .option('--reuse-namespace [name]', 'reuse mode for nightly runs: the same IDs every run of this name (default nightly), whatever the seed; what earlier runs left (their journal says) is removed first')
    .addOption(new Option('--fail-on <level>', 'the lowest rule level whose failures fail the run (default must; config failOn)').choices(['must', 'should']))
    .option('--concurrency <n>', `scenarios run at once; those that need the target to themselves run alone (default ${DEFAULT_CONCURRENCY}, twice that once the target answers in ${FAR_TARGET_MS} ms or more; at most ${MAX_CONCURRENCY}; 1: one after another)`, concurrencyOption)
    .option('--explore-runs <n>', 'random programs the exploration beside the scenarios runs at most, in the time they take (default 1000; 0: no exploration)', wholeNumberOption)
    .option('--explore-seconds <s>', 'how long the exploration goes on alone once the scenarios are done (default: until 90 s since they started, at least 10)', wholeNumberOption)
    .addHelpText(
      'after',
      '\nExit codes: 0 PASSED, every applicable MUST rule was verified and holds; 1 FAILED, a MUST rule (with --fail-on should, or a SHOULD rule) fails or a baseline entry is stale; ' +
        '2 UNDECIDED, the run could not decide (configuration, unreachable target, key or version refused, a MUST rule in ERROR or left BLOCKED, interrupted).',
    )
    .action(act(run));
  cli
    .command('list')
    .description('List the scenarios and rules a run would execute, with their needs and levels; calls nothing')
    .option('--only <rule|area|scenario...>', 'only these rule IDs, areas or scenario IDs')
    .action(act(list));
  cli
    .command('explore')
    .description('Random programs over the whole interface against the embedded fake or a deployment, in lockstep with the reference model; findings shrunk, reported in <report-dir>/explore/')
    .option('--base-url <url>', 'the target (default: boot the fake in-process)')
    .option('--api-version <version>', 'the x-api-version header (default 2.4.0)')
    .option('--profile <name|path>', 'target profile (a read-only profile explores with reads only)')
    .option('--report-dir <dir>', 'where to write (default: reports; the exploration writes into its explore/ or parity/)')
    .option('--seed <n>', 'seed of the programs (default 424242; nightly: a fresh one)', wholeNumberOption)
    .option('--runs <n>', 'programs to run (default 200; --can-fail: the budget of unfound-faults.json)', wholeNumberOption)
    .option('--max-steps <n>', 'calls per program at most, after its prelude (default 30; --can-fail: the list\'s)', wholeNumberOption)
    .option('--time-budget <seconds>', 'start no program after this long', wholeNumberOption)
    .option('--shrink-runs <n>', 're-runs allowed to shrink each finding', wholeNumberOption, 200)
    .option('--max-findings <n>', 'stop after this many findings', wholeNumberOption, 10)
    .option('--fault <RULE-ID...>', 'break these rules of the embedded fake (see besi-fake --list-faults)')
    .option('--replay <finding.json>', 'run a finding’s program again (exit 1 when it still differs)')
    .option('--parity', 'keep every difference and write parity.md and parity.json instead of failing rules')
    .option('--can-fail', 'exploration alone against the fake with each fault (or those of --fault); compares with suites/explore/unfound-faults.json')
    .addOption(new Option('--unforeseen', '--can-fail leaving each fault out of the catalogue that names findings, as a bug nobody foresaw: how often its own rule is still named').conflicts('updateUnfound'))
    .option('--update-unfound', 'with --can-fail: rewrite suites/explore/unfound-faults.json from the sweep')
    .option('--list', 'print the commands of the generators with their weights; calls nothing')
    .option('--allow-live', 'accept a live key (am_sk_live_…) although the profile changes data; think twice')
    .addHelpText('after', '\nExit codes as run: 0 no MUST rule fails; 1 a MUST rule fails (for --replay: the finding reproduces; for --can-fail: the list of unfound faults is stale); 2 the run could not decide.')
    .action(act(async (options: Parameters<typeof import('./explore/cli.ts').exploreCommand>[0]) => (await import('./explore/cli.ts')).exploreCommand(options)));
  cli
    .command('cleanup')
    .description('Remove from a target by URL what earlier runs left, as their journals say (the state directory, default <report-dir>/state); lists what stays and why')
    .option('--journal <path>', 'this journal (journal-<prefix>_<run>.jsonl) only')
    .option('--namespace <name>', 'the journal of this reuse namespace; without one, its IDs are learnt from a run against the embedded fake')
    .option('--base-url <url>', 'the target (or BASE_URL; API_KEY from the environment)')
    .option('--api-version <version>', 'the x-api-version header (default 2.4.0)')
    .option('--profile <name|path>', 'target profile (its stateDir is where journals are)')
    .option('--state-dir <dir>', 'where the journals are (default: CONFORMANCE_STATE_DIR, the profile\'s stateDir, <report-dir>/state)')
    .option('--allow-live', 'accept a live key (am_sk_live_…)')
    .addHelpText('after', '\nExit codes: 0 nothing of these namespaces is left; 1 records stay (listed with why); 2 the cleanup could not run.')
    .action(act(async (options: Parameters<typeof import('./cleanup-command.ts').cleanupCommand>[0]) => (await import('./cleanup-command.ts')).cleanupCommand(options)));
  cli
    .command('baseline')
    .description('Write a baseline listing every FAIL and ERROR rule of a report')
    .requiredOption('--from <report>', 'the report.json to take the failures from')
    .option('--out <file>', 'where to write the baseline', 'conformance-baseline.json')
    .action(act(baselineCommand));
  return cli;
}

/** `invalid …:\n  - KEY: problem` with a single problem, as one line; several stay a list. */
function oneProblemOnOneLine(message: string): string {
  const items = message.split('\n  - ');
  return items.length === 2 ? `${items[0]} ${items[1]}` : message;
}

/** The command line `argv` (node's: the node binary and this script first); the exit code goes to `process.exitCode`. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  rememberInvocation();
  try {
    await program((code) => {
      process.exitCode = code;
    }).parseAsync(argv);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return;
    if (typeof code === 'string' && code.startsWith('commander.')) {
      process.exitCode = UNDECIDED;
      return;
    }
    if (error instanceof ConfigError || error instanceof BaselineError || error instanceof UsageError || (error as { name?: unknown }).name === 'CleanupUsageError') {
      console.error(`conformance: ${oneProblemOnOneLine((error as Error).message)}`);
      process.exitCode = UNDECIDED;
      return;
    }
    // Anything else is a fault of the harness: still exit 2 (1 would say a MUST rule fails), with the stack for the bug report.
    console.error(`conformance: internal error: ${(error as Error).message ?? String(error)}`);
    console.error((error as Error).stack ?? '');
    process.exitCode = UNDECIDED;
  }
}

/** Whether this module is the script node was started with (directly, through tsx or the package's bin link), not a module a test imports to call `main`. */
function startedAsCommand(): boolean {
  const script = process.argv[1];
  try {
    return script !== undefined && realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (startedAsCommand()) await main();
