/**
 * The parity report: the same programs against a deployment and the fake, every difference kept and
 * sorted into classes (the rule that owns it and the field where it shows, whatever answer shows it),
 * counted, each with one example. For an app team it says where the fake still stands in for their
 * staging and where it does not; documented and reference-only fields alike, each marked.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ruleById } from '../../spec/rules/catalogue.ts';
import type { RuleLevel } from '../../spec/rules/rule.ts';
import { redactSecrets, truncate } from '../framework/evidence.ts';
import { shownPath, writeAtomically } from '../report/write.ts';
import type { ExploreResult, Finding } from './explorer.ts';
import { findingFile, programLines, type FindingTarget } from './findings.ts';
import { curlScript } from './replay.ts';

export const PARITY_FORMAT = 'besi-parity-report/1';

export interface ParityClass {
  readonly rule: string;
  readonly level: string;
  /** The field of the projection (`Balance.usage`), or `status` / `code`. */
  readonly field: string;
  readonly kind: string;
  /** Whether the document decides it (else only the reference shows it). */
  readonly documented: boolean;
  readonly count: number;
  /** Programs it showed in. */
  readonly programs: number;
  readonly operations: readonly string[];
  /** Seen only after another class of difference in the same program (possibly its knock-on). */
  readonly onlyAfterOthers: boolean;
  readonly example: { readonly operation: string; readonly path: string; readonly request: unknown; readonly fake: unknown; readonly target: unknown };
  /** The shortest program that showed it (its calls up to the one that differs), replayable: `class-<n>.json` and `.sh` next to parity.json. */
  readonly program: { readonly calls: number; readonly file: string; readonly script: string };
}

export interface ParityReport {
  readonly format: typeof PARITY_FORMAT;
  readonly target: string;
  readonly seed: number;
  readonly programs: number;
  readonly calls: number;
  readonly classes: readonly ParityClass[];
  readonly error?: string;
}

/** Each class's shortest program, as a finding `--replay` runs (by class, in the report's order). */
export type ParityPrograms = readonly Finding[];

export function parityReport(result: ExploreResult, target: string, secrets: readonly string[]): { report: ParityReport; programs: ParityPrograms } {
  const classes = new Map<string, { entries: ExploreResult['differences'][number][] }>();
  for (const entry of result.differences) {
    const d = entry.difference;
    const key = `${d.rule}|${d.key}|${d.kind}`;
    const klass = classes.get(key) ?? { entries: [] };
    klass.entries.push(entry);
    classes.set(key, klass);
  }
  const list = [...classes.values()].map(({ entries }) => {
    const first = entries.find((e) => !e.afterOther) ?? entries[0]!;
    const d = first.difference;
    const shortest = [...entries].sort((a, b) => callsUpTo(a) - callsUpTo(b) || a.program - b.program)[0]!;
    const level: RuleLevel = ruleById.get(d.rule)?.level ?? 'SHOULD';
    const program: Finding = {
      ...shortest.replayable,
      rule: shortest.difference.rule,
      level,
      blocked: [],
      differences: [shortest.difference],
      steps: shortest.replayable.steps.filter((step) => step.index <= shortest.step.index),
      at: shortest.step.index,
      path: undefined,
      round: 0,
      shrinkRuns: 0,
    };
    const klass: Omit<ParityClass, 'program'> = {
      rule: d.rule,
      level,
      field: d.key,
      kind: d.kind,
      documented: d.documented,
      count: entries.length,
      programs: new Set(entries.map((e) => e.program)).size,
      operations: [...new Set(entries.map((e) => e.step.operation))].sort(),
      onlyAfterOthers: entries.every((e) => e.afterOther),
      example: { operation: first.step.operation, path: d.path, request: first.step.targetRequest ?? first.step.request, fake: d.model, target: d.target },
    };
    return { klass, program };
  });
  list.sort((a, b) => Number(a.klass.onlyAfterOthers) - Number(b.klass.onlyAfterOthers) || Number(b.klass.documented) - Number(a.klass.documented) || b.klass.count - a.klass.count);
  const classesOut = list.map(({ klass, program }, i): ParityClass => ({ ...klass, program: { calls: callsOf(program), file: `class-${i + 1}.json`, script: `class-${i + 1}.sh` } }));
  const report = redactSecrets({ format: PARITY_FORMAT, target, seed: result.seed, programs: result.programs, calls: result.steps, classes: classesOut, ...(result.error ? { error: result.error } : {}) } as ParityReport, [...secrets]);
  return { report, programs: list.map(({ program }) => program) };
}

/** Calls of a program up to the one that differs (not counting the model's own reads). */
function callsOf(program: Pick<Finding, 'steps' | 'at'>): number {
  return program.steps.filter((step) => !step.resolve && step.index <= program.at).length;
}

function callsUpTo(entry: ExploreResult['differences'][number]): number {
  return callsOf({ steps: entry.replayable.steps, at: entry.step.index });
}

/** The difference classes by level, MUST first: what the console says of a parity run. */
export function parityLines(report: ParityReport, top = 5): string[] {
  const must = report.classes.filter((c) => c.level === 'MUST');
  const lines = [
    `explore: parity: ${report.classes.length} difference class(es): ${must.length} MUST, ${report.classes.length - must.length} SHOULD (${report.classes.filter((c) => c.documented).length} where interface.md decides, ${report.classes.filter((c) => !c.documented).length} reference-only)`,
  ];
  const ranked = [...report.classes].sort((a, b) => Number(b.level === 'MUST') - Number(a.level === 'MUST') || Number(a.onlyAfterOthers) - Number(b.onlyAfterOthers) || b.count - a.count);
  for (const c of ranked.slice(0, top)) {
    lines.push(`  ${c.level} ${c.rule} ${c.field} (${c.kind}): ${c.count} call(s) in ${c.programs} program(s)${c.onlyAfterOthers ? ', only after another difference' : ''}; shortest program ${c.program.calls} call(s), ${c.program.file}`);
  }
  if (report.classes.length > top) lines.push(`  … and ${report.classes.length - top} more in parity.md`);
  return lines;
}

/** The exit code of `explore --parity`: 1 when a MUST-level class differs, 0 otherwise (2 when the run stopped early). */
export function parityExitCode(report: ParityReport): 0 | 1 | 2 {
  if (report.error !== undefined) return 2;
  return report.classes.some((c) => c.level === 'MUST') ? 1 : 0;
}

const cell = (value: unknown) => truncate(JSON.stringify(value) ?? 'undefined', 120).replaceAll('|', '\\|');

export function parityMarkdown(report: ParityReport, programs: ParityPrograms, replayCommand: string, dir: string): string {
  const lines = [
    `# Parity of the fake with ${report.target}`,
    '',
    `${report.programs} programs, ${report.calls} calls, seed ${report.seed}. Each class is one rule and the field it owns; "documented" when interface.md decides the value, else only the reference shows it.`,
    ...(report.error ? ['', `**The run stopped early:** ${report.error}`] : []),
    '',
  ];
  if (report.classes.length === 0) {
    lines.push('No difference: on every call of these programs the fake answered as the target did, wherever the document (or the reference) decides.');
    return `${lines.join('\n')}\n`;
  }
  const must = report.classes.filter((c) => c.level === 'MUST').length;
  lines.push(`${report.classes.length} class(es): ${must} MUST, ${report.classes.length - must} SHOULD. \`explore --parity\` exits 1 while a MUST class differs.`, '');
  lines.push('| rule | level | field | kind | documented | count | programs | operations | example (path: fake → target) |', '|---|---|---|---|---|---|---|---|---|');
  for (const c of report.classes) {
    const note = c.onlyAfterOthers ? ' (only after another difference)' : '';
    lines.push(`| ${c.rule} | ${c.level} | ${c.field} | ${c.kind}${note} | ${c.documented ? 'yes' : 'reference'} | ${c.count} | ${c.programs} | ${c.operations.join(', ')} | ${c.example.path || c.field}: ${cell(c.example.fake)} → ${cell(c.example.target)} |`);
  }
  lines.push('', '## Shortest programs', '');
  report.classes.forEach((c, i) => {
    const program = programs[i]!;
    lines.push(
      `### ${c.rule}: ${c.field} (${c.kind})`,
      '',
      `- fake: \`${cell(c.example.fake)}\``,
      `- target: \`${cell(c.example.target)}\``,
      '',
      `The shortest program that showed it, ${c.program.calls} call(s) (not shrunk):`,
      '',
      '```',
      ...programLines(program),
      '```',
      '',
      `Replay: \`${replayCommand} --replay ${shownPath(join(dir, c.program.file))}\` (exit 1 while it still differs); as curl: \`API_KEY=… sh ${shownPath(join(dir, c.program.script))}\``,
      '',
    );
  });
  return `${lines.join('\n')}\n`;
}

/** Writes parity.json, parity.md and each class's program (class-<n>.json and .sh) into `dir`; returns the report's paths. */
export function writeParity(dir: string, parity: { report: ParityReport; programs: ParityPrograms }, options: { readonly replayCommand: string; readonly apiVersion: string; readonly secrets: readonly string[]; readonly target?: FindingTarget }): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const paths = { json: join(dir, 'parity.json'), markdown: join(dir, 'parity.md') };
  parity.report.classes.forEach((c, i) => {
    const file = findingFile(parity.programs[i]!, options.apiVersion, options.secrets, options.target);
    writeFileSync(join(dir, c.program.file), `${JSON.stringify(file, null, 2)}\n`);
    writeFileSync(join(dir, c.program.script), curlScript(file), { mode: 0o755 });
  });
  writeAtomically(paths.json, `${JSON.stringify(parity.report, null, 2)}\n`);
  writeAtomically(paths.markdown, parityMarkdown(parity.report, parity.programs, options.replayCommand, dir));
  return paths;
}
