#!/usr/bin/env node
/// <reference types="vitest/config" />
/**
 * The conformance CLI (`npm run conformance -- …` here, the `besi-conformance` bin when packaged):
 *
 *   run       run the suite (or part of it) against the embedded fake or a base URL; writes the reports
 *   list      the scenarios and rules a run would execute, with their needs and levels; calls nothing
 *   baseline  a baseline of known failures from a report
 *   explore   random programs over the whole interface, checked against the reference model (suites/explore/)
 *
 * The API keys come from the environment only (API_KEY, OTHER_TENANT_API_KEY). Exit codes of `run`
 * (suites/report/view.ts `verdictOf`): 0 PASSED, every applicable MUST rule was verified and holds;
 * 1 FAILED, a MUST rule fails (with --fail-on should, a SHOULD rule too), or a baseline entry is
 * stale; 2 UNDECIDED (configuration, unreachable target, key or version refused, a MUST rule in
 * ERROR or left BLOCKED, an interrupted run).
 */
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createVitest } from 'vitest/node';
import { RULES } from '../spec/rules/catalogue.ts';
import { CONFORMANCE_PROJECT, conformanceProject, PROJECT_ROOT } from './conformance-project.ts';
import { didYouMean } from './framework/closest.ts';
import { ConfigError, DEFAULT_CONCURRENCY, ENV_VARS, loadConfig, MAX_CONCURRENCY, secretsOf } from './framework/config.ts';
import { preflight } from './framework/preflight.ts';
import { ConformanceReporter, stoppedReport } from './framework/reporter.ts';
import { needsOf, testName } from './framework/scenario.ts';
import { baselineFrom, BaselineError, readBaseline } from './report/baseline.ts';
import { mergeReports } from './report/merge.ts';
import { areaOf } from './report/progress.ts';
import { ConformanceReport } from './report/schema.ts';
import { exactNames, failedScenarioIds, scenarioFiles, selectScenarios } from './report/select.ts';
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
function applyToEnvironment(options: Pick<RunOptions, 'baseUrl' | 'apiVersion' | 'profile' | 'reportDir' | 'seed' | 'allowLive' | 'failOn' | 'reuseNamespace' | 'concurrency' | 'exploreRuns' | 'exploreSeconds'>): void {
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined) process.env[name] = String(value);
  };
  set('BASE_URL', options.baseUrl);
  set('API_VERSION', options.apiVersion);
  set('CONFORMANCE_PROFILE', options.profile);
  set('REPORT_DIR', options.reportDir);
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
  if (process.env['npm_lifecycle_event'] === 'conformance') return 'npm run conformance --';
  const script = process.argv[1] ?? 'besi-conformance';
  return `${script.endsWith('.ts') ? `npx tsx ${relative(process.cwd(), script)}` : basename(script)} run`;
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
  applyToEnvironment({ ...options, reportDir, seed: options.seed ?? previous?.run.seed });
  const config = configNaming(options);
  const baseline = options.baseline === undefined ? undefined : { path: options.baseline, baseline: readBaseline(resolve(options.baseline)) };
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

  const tty = process.stdout.isTTY === true && !process.env['CI'];
  const target = [options.baseUrl && `--base-url ${options.baseUrl}`, options.profile && `--profile ${options.profile}`].filter(Boolean).join(' ');
  const reporter = new ConformanceReporter({
    reportDir: config.reportDir,
    catalogue: RULES,
    projects: [CONFORMANCE_PROJECT],
    progress: tty ? 'live' : 'lines',
    colour: tty,
    rerunCommand: `${runInvocation()}${target ? ` ${target}` : ''}`,
    ...(baseline ? { baseline } : {}),
    ...(options.only ? { only: options.only } : {}),
    ...(rerunPath === undefined ? {} : { rerunOf: rerunPath }),
  });
  const where = config.baseUrl ?? 'the embedded fake';
  console.log(
    `conformance: ${selected?.length ?? all.length} scenarios against ${where}, API version ${config.apiVersion}, profile ${config.profile.name}, seed ${config.seed}` +
      `${baseline ? `, baseline ${baseline.path}` : ''}; reports in ${shownPath(config.reportDir)}/`,
  );

  const files = selected === undefined ? undefined : await filesOf(selected);
  const vitest = await createVitest(
    'test',
    {
      config: false,
      root: PROJECT_ROOT,
      watch: false,
      reporters: [reporter],
      ...(selected === undefined ? {} : { testNamePattern: exactNames(selected.map(testName)) }),
    },
    { test: conformanceProject },
  );
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`conformance: ${signal}`);
    reporter.interrupt();
    process.exit(UNDECIDED);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await vitest.start(files);
  } finally {
    await vitest.close();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }

  let report = reporter.report;
  if (report === undefined) {
    console.error('conformance: the run ended without a report');
    return UNDECIDED;
  }
  if (options.merge && previous !== undefined && rerunPath !== undefined) {
    report = mergeReports(previous, report, { catalogue: RULES, ...(baseline ? { baseline } : {}) });
    writeReportFiles(dirname(rerunPath), report);
    console.log(`conformance: merged the re-run into ${shownPath(dirname(rerunPath))}/`);
  }
  const verdict = verdictOf(report, { failOn: config.failOn });
  for (const reason of verdict.reasons) console.log(`conformance: ${reason}`);
  const meaning = {
    PASSED: `every applicable MUST rule${verdict.failOn === 'should' ? ' and SHOULD rule' : ''} was verified and holds`,
    FAILED: `a ${verdict.failOn === 'should' ? 'MUST or SHOULD' : 'MUST'} rule fails, or the baseline is stale`,
    UNDECIDED: 'the run could not decide: not every MUST rule was verified',
  }[verdict.result];
  console.log(`conformance: ${verdict.result}, exit ${verdict.exitCode} (${meaning})`);
  return verdict.exitCode;
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

/** The test files holding these scenarios; every file when one cannot be placed. */
async function filesOf(scenarios: readonly { id: string }[]): Promise<string[] | undefined> {
  const scenarioDir = join(PROJECT_ROOT, 'suites/scenarios');
  const testFiles = readdirTests(scenarioDir);
  const byScenario = await scenarioFiles(scenarioDir, testFiles);
  const files = scenarios.map((s) => byScenario.get(s.id));
  if (files.some((f) => f === undefined)) return undefined;
  return [...new Set(files as string[])].map((f) => join(scenarioDir, f));
}

function readdirTests(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => /\.test\.[jt]s$/.test(f)).sort() : [];
}

async function list(options: { only?: string[] }): Promise<number> {
  const all = await allScenarios();
  let scenarios = all;
  if (options.only !== undefined) {
    const selection = selectScenarios(all, RULES, options.only);
    if (selection.unknown.length > 0) throw unknownSelection(selection.unknown, all);
    scenarios = selection.scenarios;
  }
  const scenarioDir = join(PROJECT_ROOT, 'suites/scenarios');
  const byScenario = await scenarioFiles(scenarioDir, readdirTests(scenarioDir));
  const levels = new Map<string, string>(RULES.map((r) => [r.id, r.level]));
  const areas = new Map<string, (typeof all)[number][]>();
  for (const s of scenarios) {
    const file = byScenario.get(s.id);
    const area = file === undefined ? 'other' : areaOf(file);
    areas.set(area, [...(areas.get(area) ?? []), s]);
  }
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
    .option('--seed <n>', 'seed of the run (default 424242; a re-run takes its report’s)', wholeNumberOption)
    .option('--allow-live', 'accept a live key (am_sk_live_…) although the profile changes data; think twice')
    .option('--reuse-namespace [name]', 'reuse mode for nightly runs: the same IDs every run of this name (default nightly), whatever the seed; an earlier run\'s leftovers are removed first')
    .addOption(new Option('--fail-on <level>', 'the lowest rule level whose failures fail the run (default must; config failOn)').choices(['must', 'should']))
    .option('--concurrency <n>', `scenarios run at once; those that need the target to themselves run alone (default ${DEFAULT_CONCURRENCY}, at most ${MAX_CONCURRENCY}; 1: one after another)`, concurrencyOption)
    .option('--explore-runs <n>', 'random programs the exploration beside the scenarios runs at most, in the time they take (default 500; 0: no exploration)', wholeNumberOption)
    .option('--explore-seconds <s>', 'the least the exploration runs, should the scenarios be done sooner (default 5)', wholeNumberOption)
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
    .option('--update-unfound', 'with --can-fail: rewrite suites/explore/unfound-faults.json from the sweep')
    .option('--list', 'print the commands of the generators with their weights; calls nothing')
    .option('--allow-live', 'accept a live key (am_sk_live_…) although the profile changes data; think twice')
    .addHelpText('after', '\nExit codes as run: 0 no MUST rule fails; 1 a MUST rule fails (for --replay: the finding reproduces; for --can-fail: the list of unfound faults is stale); 2 the run could not decide.')
    .action(act(async (options: Parameters<typeof import('./explore/cli.ts').exploreCommand>[0]) => (await import('./explore/cli.ts')).exploreCommand(options)));
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

async function main(): Promise<void> {
  try {
    await program((code) => {
      process.exitCode = code;
    }).parseAsync(process.argv);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return;
    if (typeof code === 'string' && code.startsWith('commander.')) {
      process.exitCode = UNDECIDED;
      return;
    }
    if (error instanceof ConfigError || error instanceof BaselineError || error instanceof UsageError) {
      console.error(`conformance: ${oneProblemOnOneLine(error.message)}`);
      process.exitCode = UNDECIDED;
      return;
    }
    // Anything else is a fault of the harness: still exit 2 (1 would say a MUST rule fails), with the stack for the bug report.
    console.error(`conformance: internal error: ${(error as Error).message ?? String(error)}`);
    console.error((error as Error).stack ?? '');
    process.exitCode = UNDECIDED;
  }
}

await main();
