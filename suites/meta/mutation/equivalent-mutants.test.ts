/**
 * equivalent-mutants.json stays current: every entry names a mutant Stryker still generates (file,
 * mutator, original code, replacement). Whether a listed mutant is still undetected is judged
 * after a mutation run (`npm run mutation`, suites/meta/mutation/triage.ts), which is too slow for `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { generateMutants, loadEquivalentMutants, sameMutant } from './mutants.ts';

const entries = loadEquivalentMutants();

describe('equivalent-mutants.json', () => {
  it('lists each mutant once, with its reason', () => {
    const keys = entries.map((e) => JSON.stringify([e.file, e.mutator, e.original, e.replacement, e.line_contains]));
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
  });

  it('names only mutants that still exist in the source', { timeout: 60_000 }, async () => {
    const sites = await generateMutants([...new Set(entries.map((e) => e.file))]);
    const gone = entries.filter((entry) => !sites.some((site) => sameMutant(entry, site)));
    expect(gone, 'these mutants are no longer generated; remove or update their entries').toEqual([]);
  });
});
