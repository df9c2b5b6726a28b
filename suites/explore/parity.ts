/**
 * The parity report: the same programs against a deployment and the fake, every difference kept and
 * sorted into classes (the rule that owns it and the field where it shows, whatever answer shows it),
 * counted, each with one example. For an app team it says where the fake still stands in for their
 * staging and where it does not; documented and reference-only fields alike, each marked.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ruleById } from '../../spec/rules/catalogue.ts';
import { redactSecrets, truncate } from '../framework/evidence.ts';
import { writeAtomically } from '../report/write.ts';
import type { ExploreResult } from './explorer.ts';

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

export function parityReport(result: ExploreResult, target: string, secrets: readonly string[]): ParityReport {
  const classes = new Map<string, { entries: ExploreResult['differences'][number][] }>();
  for (const entry of result.differences) {
    const d = entry.difference;
    const key = `${d.rule}|${d.key}|${d.kind}`;
    const klass = classes.get(key) ?? { entries: [] };
    klass.entries.push(entry);
    classes.set(key, klass);
  }
  const list = [...classes.values()].map(({ entries }): ParityClass => {
    const first = entries.find((e) => !e.afterOther) ?? entries[0]!;
    const d = first.difference;
    return {
      rule: d.rule,
      level: ruleById.get(d.rule)?.level ?? 'SHOULD',
      field: d.key,
      kind: d.kind,
      documented: d.documented,
      count: entries.length,
      programs: new Set(entries.map((e) => e.program)).size,
      operations: [...new Set(entries.map((e) => e.step.operation))].sort(),
      onlyAfterOthers: entries.every((e) => e.afterOther),
      example: { operation: first.step.operation, path: d.path, request: first.step.targetRequest ?? first.step.request, fake: d.model, target: d.target },
    };
  });
  list.sort((a, b) => Number(a.onlyAfterOthers) - Number(b.onlyAfterOthers) || Number(b.documented) - Number(a.documented) || b.count - a.count);
  return redactSecrets({ format: PARITY_FORMAT, target, seed: result.seed, programs: result.programs, calls: result.steps, classes: list, ...(result.error ? { error: result.error } : {}) }, [...secrets]);
}

const cell = (value: unknown) => truncate(JSON.stringify(value) ?? 'undefined', 120).replaceAll('|', '\\|');

export function parityMarkdown(report: ParityReport): string {
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
  lines.push('| rule | level | field | kind | documented | count | programs | operations | example (path: fake → target) |', '|---|---|---|---|---|---|---|---|---|');
  for (const c of report.classes) {
    const note = c.onlyAfterOthers ? ' (only after another difference)' : '';
    lines.push(`| ${c.rule} | ${c.level} | ${c.field} | ${c.kind}${note} | ${c.documented ? 'yes' : 'reference'} | ${c.count} | ${c.programs} | ${c.operations.join(', ')} | ${c.example.path || c.field}: ${cell(c.example.fake)} → ${cell(c.example.target)} |`);
  }
  lines.push('', '## Examples', '');
  for (const c of report.classes) {
    lines.push(`### ${c.rule}: ${c.field} (${c.kind})`, '', `\`${c.example.operation}\` ${cell(c.example.request)}`, '', `- fake: \`${cell(c.example.fake)}\``, `- target: \`${cell(c.example.target)}\``, '');
  }
  return `${lines.join('\n')}\n`;
}

/** Writes parity.json and parity.md into `dir`; returns their paths. */
export function writeParity(dir: string, report: ParityReport): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const paths = { json: join(dir, 'parity.json'), markdown: join(dir, 'parity.md') };
  writeAtomically(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  writeAtomically(paths.markdown, parityMarkdown(report));
  return paths;
}
