/**
 * Mutants of the fake as Stryker generates them, and the checked-in list of those that are
 * equivalent or unobservable through the interface (equivalent-mutants.json). An entry names a
 * mutant by file, mutator, original code and replacement (not by line, so it survives edits); it
 * covers every mutant of the file with that mutator, original and replacement, or, with
 * `line_contains`, only those on a line containing that text.
 */
import { readFileSync } from 'node:fs';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import type { Logger } from '@stryker-mutator/api/logging';
import { z } from 'zod';
import { errorMessageIgnorer } from './error-message-ignorer.mjs';

export const EQUIVALENT_MUTANTS_FILE = new URL('./equivalent-mutants.json', import.meta.url);

const EquivalentMutant = z.strictObject({
  /** Path from the project root, as Stryker reports it. */
  file: z.string().min(1),
  /** Stryker's mutator name, e.g. `ConditionalExpression`. */
  mutator: z.string().min(1),
  /** The source text the mutant replaces, exactly. */
  original: z.string().min(1),
  replacement: z.string(),
  /**
   * A piece of the mutant's (first) source line, for when the same original and replacement occur
   * elsewhere in the file and are killed there: the entry covers only the mutants on a line containing it.
   */
  line_contains: z.string().min(1).optional(),
  /** Why no conformance scenario can tell the mutant from the original. */
  reason: z.string().min(20),
});
export type EquivalentMutant = z.infer<typeof EquivalentMutant>;

const EquivalentMutants = z.strictObject({ $comment: z.string(), mutants: z.array(EquivalentMutant) });

export function loadEquivalentMutants(url: URL = EQUIVALENT_MUTANTS_FILE): EquivalentMutant[] {
  return EquivalentMutants.parse(JSON.parse(readFileSync(url, 'utf8'))).mutants;
}

/** One mutant, its position 1-based (as in Stryker's JSON report). */
export interface MutantSite {
  readonly file: string;
  readonly mutator: string;
  readonly original: string;
  readonly replacement: string;
  readonly line: number;
  /** The source line the mutant starts on. */
  readonly lineText: string;
}

export interface Position {
  readonly line: number;
  readonly column: number;
}

/** The source text between two positions; `base` 0 for the instrumenter's positions, 1 for the JSON report's. */
export function textAt(source: string, start: Position, end: Position, base: 0 | 1): string {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: Position) => lineStarts[p.line - base]! + p.column - base;
  return source.slice(offset(start), offset(end));
}

/** The whole source line at a position (`base` as for textAt). */
export function lineAt(source: string, position: Position, base: 0 | 1): string {
  return source.split('\n')[position.line - base] ?? '';
}

export function sameMutant(entry: EquivalentMutant, site: MutantSite): boolean {
  return (
    entry.file === site.file &&
    entry.mutator === site.mutator &&
    entry.original === site.original &&
    entry.replacement === site.replacement &&
    (entry.line_contains === undefined || site.lineText.includes(entry.line_contains))
  );
}

const silent: Logger = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => false,
  isFatalEnabled: () => false,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  fatal: () => undefined,
};

/** Every mutant Stryker generates and does not ignore in these files (paths from the project root, which is the working directory). */
export async function generateMutants(files: readonly string[]): Promise<MutantSite[]> {
  const sources = new Map(files.map((name) => [name, readFileSync(name, 'utf8')]));
  const result = await new Instrumenter(silent).instrument(
    [...sources].map(([name, content]) => ({ name, content, mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: [errorMessageIgnorer], noHeader: true },
  );
  return result.mutants
    .filter((m) => m.status !== 'Ignored')
    .map((m) => ({
      file: m.fileName,
      mutator: m.mutatorName,
      original: textAt(sources.get(m.fileName)!, m.location.start, m.location.end, 0),
      replacement: m.replacement,
      line: m.location.start.line + 1,
      lineText: lineAt(sources.get(m.fileName)!, m.location.start, 0),
    }));
}
