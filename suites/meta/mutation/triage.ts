/**
 * After a Stryker run (`npm run mutation`): reads reports/mutation/mutation.json (or the reports
 * named as arguments, e.g. one per batch of files, merged by file), prints the counts and the score
 * over the mutants that are not equivalent, overall and per file, and lists what needs a decision:
 * every surviving mutant that equivalent-mutants.json does not list (write a scenario, or list it
 * with the reason) and every entry that is stale (the mutant is now killed, or no longer exists).
 * Exits 1 when there is either. Only the files the run mutated are judged, so a `--mutate` subset works.
 */
import { readFileSync } from 'node:fs';
import type { MutationTestResult } from 'mutation-testing-report-schema';
import { lineAt, loadEquivalentMutants, sameMutant, textAt, type EquivalentMutant, type MutantSite } from './mutants.ts';

export const REPORT_FILE = 'reports/mutation/mutation.json';

export interface Triage {
  readonly counts: Readonly<Record<string, number>>;
  /** The counts of each mutated file. */
  readonly byFile: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Killed or timed out, over all tested mutants that are not listed as equivalent. */
  readonly score: number;
  readonly untriaged: readonly (MutantSite & { readonly status: string })[];
  readonly stale: readonly { readonly entry: EquivalentMutant; readonly why: string }[];
}

const UNDETECTED = new Set(['Survived', 'NoCoverage']);

export function triage(report: MutationTestResult, equivalents: readonly EquivalentMutant[]): Triage {
  const counts: Record<string, number> = { Equivalent: 0 };
  const byFile: Record<string, Record<string, number>> = {};
  const sites: (MutantSite & { status: string })[] = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      const original = textAt(source, m.location.start, m.location.end, 1);
      sites.push({ file, mutator: m.mutatorName, original, replacement: m.replacement ?? '', line: m.location.start.line, lineText: lineAt(source, m.location.start, 1), status: m.status });
    }
  }
  const untriaged: (MutantSite & { status: string })[] = [];
  for (const site of sites) {
    const equivalent = UNDETECTED.has(site.status) && equivalents.some((e) => sameMutant(e, site));
    const status = equivalent ? 'Equivalent' : site.status;
    counts[status] = (counts[status] ?? 0) + 1;
    const ofFile = (byFile[site.file] ??= {});
    ofFile[status] = (ofFile[status] ?? 0) + 1;
    if (!equivalent && UNDETECTED.has(site.status)) untriaged.push(site);
  }
  const mutatedFiles = new Set(Object.keys(report.files));
  const stale = equivalents
    .filter((entry) => mutatedFiles.has(entry.file))
    .flatMap((entry) => {
      const matches = sites.filter((site) => sameMutant(entry, site));
      if (matches.length === 0) return [{ entry, why: 'no such mutant any more' }];
      // Only a kill makes an entry stale: a same-text mutant elsewhere that does not compile or is
      // ignored says nothing of the listed one, and a timeout on a loaded machine may be a slow run.
      const killed = matches.filter((site) => site.status === 'Killed');
      return killed.length > 0 ? [{ entry, why: `now ${killed.map((s) => `${s.status} (line ${s.line})`).join(', ')}` }] : [];
    });
  return { counts, byFile, score: scoreOf(counts), untriaged, stale };
}

/** Killed or timed out over those plus the undetected ones not listed as equivalent. */
export function scoreOf(counts: Readonly<Record<string, number>>): number {
  const detected = (counts['Killed'] ?? 0) + (counts['Timeout'] ?? 0);
  const undetected = (counts['Survived'] ?? 0) + (counts['NoCoverage'] ?? 0);
  return detected + undetected === 0 ? 1 : detected / (detected + undetected);
}

/** Several reports (one per batch of files) as one; a file in more than one keeps the last report's result. */
export function mergeReports(reports: readonly MutationTestResult[]): MutationTestResult {
  const [first] = reports;
  if (first === undefined) throw new Error('no report to merge');
  return { ...first, files: Object.assign({}, ...reports.map((r) => r.files)) as MutationTestResult['files'] };
}

function countsText(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
}

function describe(site: Omit<MutantSite, 'lineText'>): string {
  return `${site.file}:${site.line} ${site.mutator}: ${JSON.stringify(site.original)} -> ${JSON.stringify(site.replacement)}`;
}

export function format(result: Triage): string {
  const percent = (score: number) => `${(score * 100).toFixed(1)}%`;
  const lines = [
    ...Object.entries(result.byFile).map(([file, counts]) => `${file}: ${percent(scoreOf(counts))} (${countsText(counts)})`),
    `mutants: ${countsText(result.counts)}`,
    `mutation score over the mutants not listed as equivalent: ${percent(result.score)}`,
  ];
  if (result.untriaged.length > 0) {
    lines.push(`\n${result.untriaged.length} surviving mutants need a scenario or an entry in suites/meta/mutation/equivalent-mutants.json:`);
    lines.push(...result.untriaged.map((site) => `  ${site.status} ${describe(site)}`));
  }
  if (result.stale.length > 0) {
    lines.push(`\n${result.stale.length} stale entries in suites/meta/mutation/equivalent-mutants.json:`);
    lines.push(...result.stale.map(({ entry, why }) => `  ${describe({ ...entry, line: 0 })}${entry.line_contains === undefined ? '' : ` on a line containing ${JSON.stringify(entry.line_contains)}`}: ${why}`));
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : [REPORT_FILE];
  const reports = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as MutationTestResult);
  const result = triage(mergeReports(reports), loadEquivalentMutants());
  console.log(format(result));
  if (result.untriaged.length > 0 || result.stale.length > 0) process.exitCode = 1;
}
