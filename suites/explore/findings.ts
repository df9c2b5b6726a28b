/**
 * Findings as the suite reports them: a scenario-like verdict (ScenarioMeta, so the conformance
 * reporter turns it into report.json, HTML, summary.md and JUnit with no path of its own), a replay
 * file with the whole program, and a shell script of curls that replays the program against any
 * target. The verdict of a finding: its rule FAILs at its level; the other rules the same answer
 * differed on are BLOCKED by it (not judged: the answer already differed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuleResult } from '../framework/checks.ts';
import { redactSecrets, truncate, type Exchange } from '../framework/evidence.ts';
import { boundExchanges, type ScenarioMeta } from '../framework/scenario.ts';
import type { TargetInfo } from '../framework/target.ts';
import { shownPath } from '../report/write.ts';
import { DIMENSION_GROUPS, DIMENSIONS, type Dimension } from './command.ts';
import { DIMENSION_SHARE } from './steering.ts';
import type { ExploreResult, Finding } from './explorer.ts';
import { curlScript } from './replay.ts';

export const FINDING_FORMAT = 'besi-explore-finding/1';

/** What a replay needs, and what a person reads: the program, both answers of every call, the differences. */
export interface FindingFile {
  readonly format: typeof FINDING_FORMAT;
  readonly rule: string;
  readonly level: string;
  readonly blocked: readonly string[];
  readonly differences: Finding['differences'];
  readonly seed: number;
  readonly round: number;
  readonly path: string | undefined;
  readonly start: Finding['start'];
  /** Every ID the program created starts with this; a replay puts a fresh prefix in its place. */
  readonly idPrefix: string;
  readonly apiVersion: string;
  readonly at: number;
  readonly steps: readonly Omit<Finding['steps'][number], 'exchange'>[];
  /** Where it was found: `--replay` replays it there unless told otherwise (older files: absent). */
  readonly target?: FindingTarget;
  /** How the rule was named (attribution.ts). */
  readonly attribution?: Omit<NonNullable<Finding['attribution']>, 'evidence'>;
}

/** The target a finding was found on: a deployment by URL (its key never written), or the embedded fake with the faults it was broken at. */
export interface FindingTarget {
  readonly baseUrl?: string;
  readonly apiVersion: string;
  readonly profile: string;
  readonly faults?: readonly string[];
}

export function findingFile(finding: Finding, apiVersion: string, secrets: readonly string[], target?: FindingTarget): FindingFile {
  return redactSecrets(
    {
      format: FINDING_FORMAT,
      rule: finding.rule,
      level: finding.level,
      blocked: finding.blocked,
      differences: finding.differences,
      seed: finding.seed,
      round: finding.round,
      path: finding.path,
      start: finding.start,
      idPrefix: finding.idPrefix,
      apiVersion,
      at: finding.at,
      steps: finding.steps.map(({ exchange: _exchange, ...step }) => step),
      ...(target ? { target } : {}),
      // The evidence of a confirmation is the steps above already.
      ...(finding.attribution ? { attribution: { rule: finding.attribution.rule, how: finding.attribution.how, note: finding.attribution.note, reproducing: finding.attribution.reproducing } } : {}),
    },
    [...secrets],
  );
}

const show = (value: unknown, max = 160) => truncate(JSON.stringify(value) ?? 'undefined', max);

/** One line per call of the program, the diverging one marked. */
export function programLines(finding: Pick<Finding, 'steps' | 'at'>): string[] {
  let n = 0;
  return finding.steps
    .filter((step) => !step.resolve)
    .map((step) => {
      n++;
      const mark = step.index === finding.at ? '   <- differs' : '';
      const variant = step.variant ? ` [${step.variant}]` : '';
      return `  ${n}. ${step.operation}${variant} ${show(step.targetRequest ?? step.request, 200)} -> model ${step.model.status}, target ${step.target.status}${mark}`;
    });
}

export interface FindingPaths {
  readonly json: string;
  readonly script: string;
}

/** The verdict message of a finding: where it differs, both values, the program, how to replay it. */
export function findingMessage(finding: Finding, paths: FindingPaths | undefined, replayCommand: string): string {
  const main = finding.differences[0]!;
  const step = finding.steps[finding.at]!;
  const calls = finding.steps.filter((s) => !s.resolve).length;
  return [
    `${finding.rule}: ${step.operation} differs from the reference model at ${main.path || main.key} (${main.kind}; field ${main.key}), call ${finding.steps.filter((s) => !s.resolve && s.index <= finding.at).length} of a ${calls}-call program${finding.start.environment === 'live' ? ' in the live environment' : ''} (exploration seed ${finding.seed}, shrunk in ${finding.shrinkRuns} re-runs).`,
    `  model:  ${show(main.model, 400)}`,
    `  target: ${show(main.target, 400)}`,
    ...(finding.attribution ? [`  Rule: ${finding.attribution.note}.`] : []),
    ...(finding.convention ? [`  The whole target breaks a convention every call rests on, so the finding is its rule's: ${finding.convention}`] : []),
    ...(finding.differences.length > 1 ? [`  also differing there: ${finding.differences.slice(1, 6).map((d) => `${d.path || d.key} (${d.rule})`).join(', ')}`] : []),
    'Program (as sent to the target):',
    ...programLines(finding),
    ...(paths ? [`Replay: ${replayCommand} --replay ${shownPath(paths.json)}; as curl: API_KEY=… sh ${shownPath(paths.script)} (against the target it was found on; BASE_URL=… for another)`] : []),
  ].join('\n');
}

/**
 * The verdicts of an exploration as one scenario's: each finding's rule FAIL, with its message,
 * expected (the model) and actual (the target); a server fault (a 5xx) ERROR of the success rule of
 * its operation, as a scenario charges it; the rules its answer also differed on BLOCKED.
 */
export function explorationMeta(result: ExploreResult, info: TargetInfo, paths: readonly (FindingPaths | undefined)[], replayCommand: string): ScenarioMeta {
  const evidence: Exchange[] = [];
  const ruleResults: Record<string, RuleResult> = {};
  result.findings.forEach((finding, i) => {
    const exchanges = finding.steps.flatMap((step) => (step.exchange ? [step.exchange] : []));
    const diverging = finding.steps[finding.at]?.exchange;
    const first = evidence.length;
    evidence.push(...boundExchanges(exchanges, diverging ? [diverging.seq] : []).map(oneKey));
    const at = diverging ? evidence.findIndex((e, j) => j >= first && e.seq === diverging.seq) : -1;
    const main = finding.differences[0]!;
    ruleResults[finding.rule] = {
      status: finding.serverFault ? 'ERROR' : 'FAIL',
      message: findingMessage(finding, paths[i], replayCommand),
      expected: main.model,
      actual: main.target,
      ...(at >= 0 ? { exchanges: [at] } : {}),
    };
    for (const rule of finding.blocked) {
      if (ruleResults[rule] === undefined) ruleResults[rule] = { status: 'BLOCKED', blockedBy: finding.rule, message: `not judged: the same answer already differed on ${main.path || main.key} (${finding.rule})` };
    }
  });
  const rules = Object.keys(ruleResults);
  return {
    scenario: 'explore',
    title: `Exploration: ${result.programs} random programs (seed ${result.seed}) against the reference model`,
    rules,
    target: info,
    status: result.error !== undefined || result.findings.some((f) => f.serverFault) ? 'error' : result.findings.length > 0 ? 'fail' : 'pass',
    ...(result.error !== undefined ? { reason: result.error } : {}),
    shapeChecks: {},
    ruleResults,
    exchangeCount: result.steps,
    ...(evidence.length > 0 ? { evidence } : {}),
  };
}

/**
 * A program's own tenant key shares its prefix with the run's key, so redaction leaves two marks in
 * its header; one stands for it (the report's curl then reads `$API_KEY`: in a tenant of its own,
 * that is the tenant's key; the finding's script makes the tenant and replays the whole program).
 */
function oneKey(exchange: Exchange): Exchange {
  const headers = Object.fromEntries(Object.entries(exchange.request.headers).map(([name, value]) => [name, value.replaceAll(/(\[REDACTED\])+/g, '[REDACTED]')]));
  return { ...exchange, request: { ...exchange.request, headers } };
}

/** Writes each finding's replay file and curl script into `<dir>/explore/`; returns their paths. `target`: where they were found. */
export function writeFindings(dir: string, result: ExploreResult, apiVersion: string, secrets: readonly string[], target?: FindingTarget): FindingPaths[] {
  if (result.findings.length === 0) return [];
  const out = join(dir, 'explore');
  mkdirSync(out, { recursive: true });
  return result.findings.map((finding, i) => {
    const file = findingFile(finding, apiVersion, secrets, target);
    const paths = { json: join(out, `finding-${i + 1}.json`), script: join(out, `finding-${i + 1}.sh`) };
    writeFileSync(paths.json, `${JSON.stringify(file, null, 2)}\n`);
    writeFileSync(paths.script, curlScript(file), { mode: 0o755 });
    return paths;
  });
}

/** What an exploration did, as `explore.json` records it: programs, calls, coverage, what stopped programs, the findings' rules. */
export function explorationRecord(result: ExploreResult): string {
  const { seed, programs, steps: calls, durationMs, timings, interrupted, coverage, commands, answers, blocked, knownStops, stops, leeway, unserved, error } = result;
  const findings = result.findings.map((f) => ({ rule: f.rule, level: f.level, ...(f.attribution ? { named: f.attribution.how } : {}) }));
  return `${JSON.stringify({ seed, programs, calls, durationMs, timings, interrupted, coverage, commands, answers, findings, blocked, knownStops, stops, leeway, unserved, ...(error ? { error } : {}) }, null, 2)}\n`;
}

/**
 * How many programs reached each dimension, by theme (command.ts DIMENSION_GROUPS), and which are
 * below their share (steering.ts DIMENSION_SHARE) or out of the target's reach (no command can
 * reach them there: no control plane, a shared tenant, paid attaches answered with a checkout).
 */
export function dimensionLines(result: Pick<ExploreResult, 'programs' | 'coverage' | 'steerable'>): string[] {
  const least = Math.ceil(DIMENSION_SHARE * result.programs);
  const reachable = (d: Dimension) => result.steerable.includes(d) || result.coverage[d] > 0;
  const lines = [`explore: dimensions reached, in programs of ${result.programs} (each should reach ${(100 * DIMENSION_SHARE).toFixed(0)}%, ${least}):`];
  for (const [group, dimensions] of Object.entries(DIMENSION_GROUPS)) {
    const counts = (Object.keys(dimensions) as Dimension[]).filter(reachable).map((d) => `${d} ${result.coverage[d]}`);
    if (counts.length > 0) lines.push(`explore:   ${group}: ${counts.join(', ')}`);
  }
  const below = (Object.keys(DIMENSIONS) as Dimension[]).filter((d) => reachable(d) && result.coverage[d] < least);
  if (below.length > 0) lines.push(`explore: below ${(100 * DIMENSION_SHARE).toFixed(0)}% of the programs: ${below.map((d) => `${d} ${result.coverage[d]}`).join(', ')}`);
  const out = (Object.keys(DIMENSIONS) as Dimension[]).filter((d) => !reachable(d));
  if (out.length > 0) lines.push(`explore: out of this target's reach: ${out.join(', ')}`);
  return lines;
}

/** The closing lines of an exploration: what ran, what it reached, what it found (and, given the command, how to replay each finding). */
export function summaryLines(result: ExploreResult, paths: readonly (FindingPaths | undefined)[] = [], replayCommand?: string): string[] {
  const lines = [
    `explore: ${result.programs} programs, ${result.steps} calls in ${(result.durationMs / 1000).toFixed(1)} s (seed ${result.seed})${result.interrupted ? ', stopped by the time budget' : ''}; ${result.findings.length} finding(s), ${result.blocked} program(s) stopped by a finding's knock-on, ${result.knownStops} by a known difference of the reference`,
    ...dimensionLines(result),
  ];
  if (result.unserved.length > 0) lines.push(`explore: not served by the target, not explored: ${result.unserved.join(', ')}`);
  const open = Object.entries(result.leeway);
  if (open.length > 0) lines.push(`explore: answers that differ where interface.md leaves them open, not compared (leeway.ts): ${open.map(([call, n]) => `${call} ${n}`).join(', ')}`);
  result.findings.forEach((finding, i) => {
    const main = finding.differences[0]!;
    lines.push(`explore: FAIL ${finding.rule} (${finding.level}) at ${finding.steps[finding.at]?.operation} ${main.path || main.key}: model ${show(main.model, 80)}, target ${show(main.target, 80)}${paths[i] ? ` — ${shownPath(paths[i]!.json)}` : ''}`);
    if (paths[i] && replayCommand !== undefined) lines.push(`  replay: ${replayCommand} --replay ${shownPath(paths[i]!.json)}`);
  });
  if (result.error) lines.push(`explore: ERROR: ${result.error}`);
  return lines;
}
