/**
 * `besi-conformance explore` (`node suites/cli.mjs explore`): random programs over the whole
 * interface against the embedded fake or a deployment, checked in lockstep against the reference
 * model; findings shrunk, reported like a run (report.json, report.html, summary.md, junit.xml in
 * `<report-dir>/explore/`) with a replay file and a curl script each. Also `--replay` of a finding,
 * `--parity` (every difference of a deployment from the fake, as parity.md and parity.json), and
 * `--can-fail` (exploration alone against the fake with each of its faults).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createFakeServer } from '../../fake-server/index.ts';
import { FAULTS } from '../../fake-server/faults/index.ts';
import { ErrorBody } from '../../spec/common.ts';
import { operations } from '../../spec/operations.ts';
import { RULES } from '../../spec/rules/catalogue.ts';
import { ConfigError, loadConfig, type ConformanceConfig } from '../framework/config.ts';
import { preflight } from '../framework/preflight.ts';
import { buildReport } from '../framework/reporter.ts';
import { summariseCleanup } from '../framework/scenario.ts';
import { createTarget, type Target } from '../framework/target.ts';
import { EXPLORATION_TEST } from '../conformance-project.ts';
import { cliInvocation, targetedCommand } from '../report/commands.ts';
import { verdictOf } from '../report/view.ts';
import { shownPath, writeAtomically, writeReportFiles } from '../report/write.ts';
import { LEDGER, PROBES } from '../support.ts';
import { COMMANDS, DEFAULT_MAX_FINDINGS, explore, FOCUS_WEIGHT, FOCUSES } from './explorer.ts';
import { explorationMeta, explorationRecord, FINDING_FORMAT, summaryLines, writeFindings, type FindingFile, type FindingTarget } from './findings.ts';
import { parityExitCode, parityLines, parityReport, writeParity } from './parity.ts';
import { replayFinding } from './replay.ts';
import { readUnfound, reasonToWrite, sweepFaults, UNFOUND_FILE, type FaultOutcome, type UnfoundFaults } from './sweep.ts';
import { httpTarget } from './targets.ts';

/** Exit codes as `run`'s: 0 nothing FAILs that must not, 1 a MUST rule FAILs, 2 the run could not decide. */
const UNDECIDED = 2;

export interface ExploreCommandOptions {
  readonly baseUrl?: string;
  readonly apiVersion?: string;
  readonly profile?: string;
  readonly reportDir?: string;
  readonly seed?: number;
  readonly allowLive?: boolean;
  /** Programs to run (default 200; for --can-fail, the budget of unfound-faults.json). */
  readonly runs?: number;
  /** Calls per program after its prelude (default 30; for --can-fail, the list's). */
  readonly maxSteps?: number;
  /** Seconds. */
  readonly timeBudget?: number;
  readonly shrinkRuns: number;
  readonly maxFindings: number;
  readonly fault?: readonly string[];
  readonly replay?: string;
  readonly parity?: boolean;
  readonly canFail?: boolean;
  /** With canFail: each fault left out of the catalogue that names findings, as a bug nobody foresaw. */
  readonly unforeseen?: boolean;
  readonly updateUnfound?: boolean;
  readonly list?: boolean;
}

/**
 * The configuration with the command line's options over the environment's (as `run` does). A
 * `--replay` goes to the target its finding was found on unless `--base-url` says otherwise: the
 * file's target then stands in for the environment's.
 */
function configOf(options: ExploreCommandOptions, found?: FindingTarget): ConformanceConfig {
  const env: Record<string, string | undefined> = { ...process.env };
  if (found !== undefined && options.baseUrl === undefined) {
    env['BASE_URL'] = found.baseUrl;
    env['API_VERSION'] = found.apiVersion;
    env['CONFORMANCE_PROFILE'] = found.profile;
  }
  const set = (name: string, value: string | number | boolean | undefined) => {
    if (value !== undefined && value !== false) env[name] = value === true ? '1' : String(value);
  };
  set('BASE_URL', options.baseUrl);
  set('API_VERSION', options.apiVersion);
  set('CONFORMANCE_PROFILE', options.profile);
  set('REPORT_DIR', options.reportDir);
  set('CONFORMANCE_SEED', options.seed);
  set('CONFORMANCE_ALLOW_LIVE', options.allowLive);
  return loadConfig({ env });
}

/** The target of the command: the deployment by URL (after preflight), or a fake booted here (with `--fault`s). */
async function openTarget(config: ConformanceConfig, options: ExploreCommandOptions): Promise<{ target: Target<typeof operations, typeof ErrorBody>; stop: () => Promise<void> } | string> {
  if (config.baseUrl !== undefined && options.fault !== undefined) return '--fault breaks the embedded fake; it cannot be given with --base-url';
  for (const warning of config.warnings) console.warn(`explore: ${warning}`);
  const checked = await preflight(config, { allowLiveKey: options.allowLive === true });
  if (!checked.ok) return checked.message;
  const fake = config.baseUrl === undefined ? await createFakeServer({ port: 0, ...(options.fault ? { faults: options.fault } : {}) }) : undefined;
  const run = fake
    ? { baseUrl: fake.url, apiKey: fake.apiKey, ...(fake.otherTenantApiKey ? { otherTenantApiKey: fake.otherTenantApiKey } : {}), seed: config.seed, salt: '', kind: 'fake' as const }
    : { baseUrl: config.baseUrl!, seed: config.seed, salt: new Date().toISOString(), kind: 'deployment' as const };
  const target = await createTarget({ operations, errorBody: ErrorBody, config, run, ...LEDGER, probes: PROBES });
  return { target, stop: async () => void (await fake?.close()) };
}



const DEFAULT_RUNS = 200;
const DEFAULT_MAX_STEPS = 30;
/** What the run's deadline keeps back from the programs: time to shrink a finding and clean up. */
const DEADLINE_RESERVE_MS = 120_000;

export async function exploreCommand(given: ExploreCommandOptions): Promise<number> {
  if (given.list) return listCommands();
  // --unforeseen is a way of sweeping: it implies --can-fail.
  if (given.canFail || given.unforeseen) return canFail(given);
  const finding = given.replay === undefined ? undefined : readFinding(given.replay);
  // A finding of the embedded fake broken at some rules replays against it broken the same way.
  const options = finding?.target?.faults !== undefined && given.baseUrl === undefined && given.fault === undefined ? { ...given, fault: finding.target.faults } : given;
  const config = configOf(options, finding?.target);
  const opened = await openTarget(config, options);
  if (typeof opened === 'string') {
    console.error(`explore: cannot run: ${opened}`);
    return UNDECIDED;
  }
  const { target, stop } = opened;
  const runs = options.runs ?? DEFAULT_RUNS;
  // No program starts once the run's deadline (CONFORMANCE_RUN_TIMEOUT_MS, which bounds every request)
  // is near: the rest is left for shrinking a finding and the cleanup, and the run ends with what it explored.
  const deadlineBudget = Math.max(config.runTimeoutMs / 2, config.runTimeoutMs - DEADLINE_RESERVE_MS);
  const timeBudget = Math.min(options.timeBudget === undefined ? Number.POSITIVE_INFINITY : options.timeBudget * 1000, deadlineBudget);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const dir = join(config.reportDir, options.parity ? 'parity' : 'explore');
  const exploreTarget = httpTarget(target, { ns: target.ns });
  try {
    if (finding !== undefined) return await replay(options.replay!, finding, exploreTarget);
    const where = config.baseUrl ?? `the embedded fake${options.fault?.length ? ` broken at ${options.fault.join(', ')}` : ''}`;
    console.log(`explore: ${runs} programs of at most ${maxSteps} calls against ${where}, seed ${config.seed}${options.timeBudget ? `, at most ${options.timeBudget} s` : ''}${options.parity ? ', parity report' : ''}`);
    const startedAt = new Date();
    const result = await explore(exploreTarget, {
      seed: config.seed,
      runs,
      maxSteps,
      shrinkRuns: options.shrinkRuns,
      maxFindings: options.maxFindings,
      timeBudgetMs: timeBudget,
      ...(options.parity ? { parity: true } : {}),
      log: (line) => console.log(line),
    });
    const maxFindings = options.maxFindings ?? DEFAULT_MAX_FINDINGS;
    if (result.programs < runs && result.findings.length >= maxFindings) {
      console.log(`explore: stopped after ${result.programs} of ${runs} programs: ${maxFindings} finding(s), as many as --max-findings allows`);
    } else if (result.programs < runs && result.error === undefined && timeBudget === deadlineBudget) {
      console.log(`explore: stopped after ${result.programs} of ${runs} programs: the run's deadline (CONFORMANCE_RUN_TIMEOUT_MS, ${config.runTimeoutMs / 1000} s) leaves no room for more`);
    }
    const secrets = exploreTarget.secrets();
    const found = findingTarget(config, options.fault);
    if (options.parity) {
      const parity = parityReport(result, exploreTarget.description, secrets);
      const paths = writeParity(dir, parity, { replayCommand: replayInvocation(found), apiVersion: exploreTarget.apiVersion, secrets, target: found });
      for (const line of summaryLines(result)) console.log(line);
      for (const line of parityLines(parity.report)) console.log(line);
      const code = parityExitCode(parity.report);
      console.log(`explore: parity report in ${shownPath(paths.markdown)} and ${shownPath(paths.json)}; exit ${code} (${['no MUST-level difference', 'a MUST-level difference', 'the run stopped early'][code]})`);
      return code;
    }
    const paths = writeFindings(config.reportDir, result, exploreTarget.apiVersion, secrets, found);
    const meta = explorationMeta(result, target.info, paths, replayInvocation(found));
    const cleanup = summariseCleanup(await target.close());
    const report = buildReport({
      tests: [{ fullName: meta.title, file: EXPLORATION_TEST, state: result.findings.length > 0 || result.error ? 'failed' : 'passed', errors: result.error ? [{ name: 'TargetFault', message: result.error }] : [], meta }],
      errors: [],
      cleanup: [{ file: EXPLORATION_TEST, ...cleanup }],
      startedAt,
      finishedAt: new Date(),
      result: result.findings.length > 0 ? 'failed' : 'passed',
      catalogue: RULES,
      secrets,
    });
    writeReportFiles(dir, report);
    writeAtomically(join(dir, 'explore.json'), explorationRecord(result));
    for (const line of summaryLines(result, paths, replayInvocation(found))) console.log(line);
    console.log(`explore: reports in ${shownPath(dir)}/ (report.html, summary.md, report.json, junit.xml); reproduce with --seed ${result.seed}`);
    if (result.error !== undefined) return UNDECIDED;
    return verdictOf(report).exitCode;
  } finally {
    await target.close().catch(() => undefined);
    await stop();
  }
}

function readFinding(path: string): FindingFile {
  const file = JSON.parse(readFileSync(resolve(path), 'utf8')) as FindingFile;
  if (file.format !== FINDING_FORMAT) throw new ConfigError(`${path} is not a finding of the exploration (format ${FINDING_FORMAT})`);
  return file;
}

/** Where this exploration runs, as its findings record it (the key never). */
function findingTarget(config: ConformanceConfig, faults: readonly string[] | undefined): FindingTarget {
  return { ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }), apiVersion: config.apiVersion, profile: config.profile.name, ...(config.baseUrl === undefined && faults?.length ? { faults } : {}) };
}

/** The command that replays a finding of this exploration against its target (`… --replay <file>` follows). */
export function replayInvocation(found: FindingTarget): string {
  return targetedCommand(found, `${cliInvocation()} explore`, (found.faults ?? []).map((f) => `--fault ${f}`).join(' '));
}

async function replay(path: string, file: FindingFile, target: ReturnType<typeof httpTarget>): Promise<number> {
  console.log(`explore: replaying ${path}: ${file.rule} (${file.level}), ${file.steps.filter((s) => !s.resolve).length} calls, against ${target.description}`);
  const outcome = await replayFinding(file, target);
  for (const { step, operation, difference } of outcome.differences) {
    console.log(`  call ${step} ${operation}: ${difference.rule} at ${difference.path || difference.key}: model ${JSON.stringify(difference.model)?.slice(0, 120)}, target ${JSON.stringify(difference.target)?.slice(0, 120)}`);
  }
  console.log(outcome.reproduced ? `explore: reproduced: the target still differs from the model where the finding said (exit 1)` : `explore: not reproduced: the diverging call agrees now (exit 0)`);
  return outcome.reproduced ? 1 : 0;
}

function listCommands(): number {
  const total = COMMANDS.reduce((sum, c) => sum + c.weight, 0);
  console.log('Commands of the exploration, by part: weight (share of a mixed program), what they need');
  for (const c of [...COMMANDS].sort((a, b) => a.part.localeCompare(b.part) || b.weight - a.weight)) {
    const needs = [c.control ? 'control plane' : '', c.reads ? 'reads only' : '', c.builds ? 'prelude' : '', c.weight === 0 ? 'goals only' : '', c.reaches ? `reaches ${c.reaches.join(', ')}` : ''].filter(Boolean).join(', ');
    console.log(`  ${c.part.padEnd(10)} ${c.name.padEnd(34)} ${String(c.weight).padStart(3)} (${((100 * c.weight) / total).toFixed(1)}%)${needs ? `  ${needs}` : ''}`);
  }
  console.log(`Focuses (a program dwells on one; its parts weigh ×${FOCUS_WEIGHT}): ${Object.entries(FOCUSES).map(([name, f]) => `${name} ${f.weight}`).join(', ')}`);
  console.log('Each program enables its focus and about half of the other commands (swarm testing), and begins with goals: commands that reach the dimensions the run has reached least (steering.ts).');
  return 0;
}

/** Exploration alone against the fake with each fault; compares with the checked-in list of faults it does not find. */
async function canFail(options: ExploreCommandOptions): Promise<number> {
  const listed = readUnfound();
  const faults = options.fault ?? [...FAULTS.keys()];
  // The list's budget unless told otherwise: a sweep on another budget finds other faults than the list says.
  const settings = { runs: options.runs ?? listed.runs, maxSteps: options.maxSteps ?? listed.maxSteps, seed: options.seed ?? listed.seed };
  const unforeseen = options.unforeseen === true;
  console.log(`explore --can-fail: ${faults.length} fault(s), exploration alone, ${settings.runs} programs of at most ${settings.maxSteps} calls each, seed ${settings.seed}${unforeseen ? ', each fault left out of the catalogue that names findings (a bug nobody foresaw)' : ''}`);
  const outcomes = await sweepFaults({ ...settings, faults, unforeseen, onOutcome: (o) => console.log(`  ${o.fault}: ${o.found ? `found (${o.rule === o.fault ? 'as itself' : `as ${o.rule}`})` : 'not found'} after ${o.programs} programs, ${(o.ms / 1000).toFixed(1)} s`) });
  const found = outcomes.filter((o) => o.found);
  const own = found.filter((o) => o.rule === o.fault).length;
  console.log(`explore --can-fail: exploration alone finds ${found.length} of ${outcomes.length} faults (${((100 * found.length) / outcomes.length).toFixed(1)}%), ${own} of them under their own rule (${((100 * own) / Math.max(1, found.length)).toFixed(1)}%)`);
  // The list records the sweep with the whole catalogue; this one measures naming only.
  if (unforeseen) return 0;
  const drift = unfoundDrift(listed, outcomes);
  for (const line of drift) console.log(`explore --can-fail: ${line}`);
  if (options.updateUnfound) {
    writeAtomically(UNFOUND_FILE, `${JSON.stringify(updatedUnfound(listed, outcomes, settings), null, 2)}\n`);
    console.log(`explore --can-fail: wrote ${shownPath(UNFOUND_FILE)}; give every new entry its reason`);
    return 0;
  }
  return drift.length > 0 ? 1 : 0;
}

/** Where the checked-in list and a sweep disagree: a listed fault now found, an unlisted one not found; a fault named otherwise than listed. */
export function unfoundDrift(listed: UnfoundFaults, outcomes: readonly FaultOutcome[]): string[] {
  const names = new Set(listed.entries.map((e) => e.rule));
  const misnamed = new Map(listed.misnamed.map((e) => [e.rule, e.named]));
  return outcomes.flatMap((o) => {
    if (o.found && names.has(o.fault)) return [`${o.fault} is listed as not found, but exploration finds it now: remove it from ${shownPath(UNFOUND_FILE)}`];
    if (!o.found && !names.has(o.fault)) return [`${o.fault} is not found and not listed: add it to ${shownPath(UNFOUND_FILE)} with the reason (or improve the generators)`];
    if (!o.found) return [];
    const listedAs = misnamed.get(o.fault) ?? o.fault;
    if (o.rule !== listedAs) return [`${o.fault} is found as ${o.rule}, listed as ${listedAs}: ${o.rule === o.fault ? 'remove it from the misnamed list' : 'list it as misnamed with the reason (or improve the attribution)'} in ${shownPath(UNFOUND_FILE)}`];
    return [];
  });
}

export function updatedUnfound(listed: UnfoundFaults, outcomes: readonly FaultOutcome[], settings: { runs: number; maxSteps: number; seed: number }): UnfoundFaults {
  const swept = new Set(outcomes.map((o) => o.fault));
  const reasons = new Map(listed.entries.map((e) => [e.rule, e.reason]));
  const kept = listed.entries.filter((e) => !swept.has(e.rule));
  const missing = outcomes.filter((o) => !o.found).map((o) => ({ rule: o.fault, reason: reasons.get(o.fault) ?? reasonToWrite('why exploration cannot see this fault') }));
  const misnamedReasons = new Map(listed.misnamed.map((e) => [`${e.rule} ${e.named}`, e.reason]));
  const misnamed = [
    ...listed.misnamed.filter((e) => !swept.has(e.rule)),
    ...outcomes.filter((o) => o.found && o.rule !== o.fault).map((o) => ({ rule: o.fault, named: o.rule!, reason: misnamedReasons.get(`${o.fault} ${o.rule}`) ?? reasonToWrite('why the attribution names this rule') })),
  ];
  return { ...settings, entries: [...kept, ...missing].sort((a, b) => a.rule.localeCompare(b.rule)), misnamed: misnamed.sort((a, b) => a.rule.localeCompare(b.rule)) };
}
