import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MutationTestResult } from 'mutation-testing-report-schema';
import { describe, expect, it } from 'vitest';
import { generateMutants, textAt, type EquivalentMutant } from './mutants.ts';
import { mergeReports, triage } from './triage.ts';

const SOURCE = "export function sign(n: number) {\n  if (n < 0) return 'minus';\n  return 'plus';\n}\n";

function report(mutants: { mutatorName: string; replacement: string; line: number; from: number; to: number; status: string }[]): MutationTestResult {
  return {
    schemaVersion: '2',
    thresholds: { high: 80, low: 60 },
    files: {
      'sign.ts': {
        language: 'typescript',
        source: SOURCE,
        mutants: mutants.map((m, i) => ({
          id: String(i),
          mutatorName: m.mutatorName,
          replacement: m.replacement,
          status: m.status,
          location: { start: { line: m.line, column: m.from }, end: { line: m.line, column: m.to } },
        })),
      },
    },
  } as MutationTestResult;
}

const lessThan = { mutatorName: 'EqualityOperator', replacement: 'n <= 0', line: 2, from: 7, to: 12 };
const minus = { mutatorName: 'StringLiteral', replacement: '""', line: 2, from: 21, to: 28 };
const listed: EquivalentMutant = { file: 'sign.ts', mutator: 'EqualityOperator', original: 'n < 0', replacement: 'n <= 0', reason: 'zero signs the same either way here' };

describe('triage of a mutation report', () => {
  it('reads the original code at 1-based report positions and 0-based instrumenter positions', () => {
    expect(textAt(SOURCE, { line: 2, column: 7 }, { line: 2, column: 12 }, 1)).toBe('n < 0');
    expect(textAt(SOURCE, { line: 1, column: 6 }, { line: 1, column: 11 }, 0)).toBe('n < 0');
  });

  it('counts a listed survivor as equivalent and an unlisted one as untriaged', () => {
    const result = triage(report([{ ...lessThan, status: 'Survived' }, { ...minus, status: 'Survived' }]), [listed]);
    expect(result.counts).toMatchObject({ Equivalent: 1, Survived: 1 });
    expect(result.untriaged.map((s) => s.original)).toEqual(["'minus'"]);
    expect(result.score).toBe(0);
    expect(result.stale).toEqual([]);
  });

  it('with line_contains, counts as equivalent only a survivor on a line containing that text', () => {
    const survivor = report([{ ...lessThan, status: 'Survived' }]);
    expect(triage(survivor, [{ ...listed, line_contains: "return 'minus'" }]).counts).toMatchObject({ Equivalent: 1 });
    expect(triage(survivor, [{ ...listed, line_contains: "return 'plus'" }]).untriaged.map((s) => s.lineText)).toEqual(["  if (n < 0) return 'minus';"]);
  });

  it('scores killed mutants over those not listed as equivalent', () => {
    const result = triage(report([{ ...lessThan, status: 'Survived' }, { ...minus, status: 'Killed' }]), [listed]);
    expect(result.score).toBe(1);
    expect(result.untriaged).toEqual([]);
  });

  it('reports an entry whose mutant is now killed, or gone, as stale', () => {
    expect(triage(report([{ ...lessThan, status: 'Killed' }]), [listed]).stale.map((s) => s.why)).toEqual(['now Killed (line 2)']);
    expect(triage(report([{ ...minus, status: 'Killed' }]), [listed]).stale.map((s) => s.why)).toEqual(['no such mutant any more']);
  });

  it('keeps an entry whose mutant did not compile, was ignored or timed out (a same-text copy elsewhere, or a slow run)', () => {
    for (const status of ['CompileError', 'Ignored', 'Timeout'] as const) expect(triage(report([{ ...lessThan, status }]), [listed]).stale, status).toEqual([]);
  });

  it('counts per file, and merges the reports of batches by file', () => {
    const signs = report([{ ...lessThan, status: 'Killed' }]);
    const other: MutationTestResult = { ...signs, files: { 'other.ts': { ...signs.files['sign.ts']!, mutants: [{ ...signs.files['sign.ts']!.mutants[0]!, status: 'Survived' }] } } };
    const result = triage(mergeReports([signs, other]), []);
    expect(result.byFile).toEqual({ 'sign.ts': { Killed: 1 }, 'other.ts': { Survived: 1 } });
    expect(result.score).toBe(0.5);
  });

  it('does not judge entries of files the run did not mutate', () => {
    expect(triage(report([]), [{ ...listed, file: 'other.ts' }]).stale).toEqual([]);
  });
});

describe('generated mutants', () => {
  it('leave out the message of fail(code, message), and only that', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mutants-')), 'fails.ts');
    writeFileSync(file, "declare function fail(code: string, message: string): never;\nexport function check(n: number) {\n  if (n < 0) fail('negative', 'n must not be negative');\n  throw new Error('unreachable');\n}\n");
    const strings = (await generateMutants([file])).filter((m) => m.mutator === 'StringLiteral').map((m) => m.original);
    expect(strings).toEqual(["'negative'", "'unreachable'"]);
  });
});
