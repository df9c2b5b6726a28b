/**
 * What exploration alone does with each fault of the fake stays as `unfound-faults.json` says
 * (written by `explore --can-fail --update-unfound`, its reasons given by hand): the faults it does
 * not find, and those it finds but names under another rule than their own (attribution.ts). Every
 * entry names a fault of the fake, once, with a reason; the figures of the list hold (most faults
 * found; at least 95% of those found named under their own rule, issue 25); and an unlisted fault,
 * drawn from the test seed, is explored again with the list's budget: it must be found, and named as
 * the list says. That a listed fault still goes unfound is checked by the whole sweep only
 * (fault-sweep.full.test.ts, `npm run test:full`): it costs the whole budget, 30 CPU-s of npm test,
 * and a stale entry hides no bug (it only undersells exploration).
 */
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../../fake-server/faults/index.ts';
import { hashSeed, testSeed } from '../../fixtures/random.ts';
import { updatedUnfound } from './cli.ts';
import { exploreFault, isReasonToWrite, readUnfound } from './sweep.ts';

const listed = readUnfound();
const names = listed.entries.map((entry) => entry.rule);
const misnamed = new Map(listed.misnamed.map((entry) => [entry.rule, entry.named]));
const seed = testSeed();
/** The fault of `names` the seed ranks first: the same whatever else the list gains or loses (an index into the list moved with every edit of it). */
const pickOne = (names: readonly string[]): string => [...names].sort((a, b) => hashSeed(seed, `unfound ${a}`) - hashSeed(seed, `unfound ${b}`))[0]!;

describe('the faults exploration alone does not find, or names under another rule', () => {
  it('are faults of the fake, each listed once, in order, with its reason', () => {
    for (const list of [names, listed.misnamed.map((entry) => entry.rule)]) {
      expect(list.filter((name) => !FAULTS.has(name))).toEqual([]);
      expect(new Set(list).size).toBe(list.length);
      expect(list).toEqual([...list].sort());
    }
    expect(listed.misnamed.filter((entry) => names.includes(entry.rule) || entry.named === entry.rule).map((entry) => entry.rule)).toEqual([]);
    expect([...listed.entries, ...listed.misnamed].filter((entry) => isReasonToWrite(entry.reason)).map((entry) => entry.rule)).toEqual([]);
  });

  it('leave most faults found, and almost every fault found named under its own rule (the figures of the list)', () => {
    const found = FAULTS.size - names.length;
    const own = found - listed.misnamed.length;
    console.log(`exploration alone finds ${found} of ${FAULTS.size} faults (${((100 * found) / FAULTS.size).toFixed(1)}%), ${own} of them under their own rule (${((100 * own) / found).toFixed(1)}%), by the list`);
    expect(found / FAULTS.size).toBeGreaterThanOrEqual(0.8);
    expect(own / found).toBeGreaterThanOrEqual(0.95);
  });

  it('leave a fault off the list found, under the rule the list says (one, drawn by the seed)', { timeout: 600_000 }, async () => {
    const settings = { runs: listed.runs, maxSteps: listed.maxSteps, seed: listed.seed };
    const off = pickOne([...FAULTS.keys()].filter((name) => !names.includes(name)));
    const found = await exploreFault(off, settings);
    expect(found.found, `${off} is not listed, but exploration does not find it: list it with the reason, or improve the generators`).toBe(true);
    expect(found.rule, `${off} is found under ${found.rule}: list it as misnamed with the reason, or improve the attribution`).toBe(misnamed.get(off) ?? off);
  });
});

describe('explore --can-fail --update-unfound', () => {
  it('keeps the reasons written by hand, and asks for one where a fault is newly unfound or misnamed (which the list test refuses)', () => {
    const before = { runs: 1, maxSteps: 1, seed: 1, entries: [{ rule: 'A-RULE', reason: 'written by hand, long enough' }], misnamed: [] };
    const after = updatedUnfound(before, [
      { fault: 'A-RULE', found: false, programs: 1, ms: 1 },
      { fault: 'B-RULE', found: false, programs: 1, ms: 1 },
      { fault: 'C-RULE', found: true, rule: 'D-RULE', programs: 1, ms: 1 },
      { fault: 'E-RULE', found: true, rule: 'E-RULE', programs: 1, ms: 1 },
    ], { runs: 2, maxSteps: 3, seed: 4 });
    expect(after.entries.map((e) => [e.rule, isReasonToWrite(e.reason)])).toEqual([['A-RULE', false], ['B-RULE', true]]);
    expect(after.misnamed.map((e) => [e.rule, e.named, isReasonToWrite(e.reason)])).toEqual([['C-RULE', 'D-RULE', true]]);
    expect(isReasonToWrite(before.entries[0]!.reason)).toBe(false);
  });
});

describe('faults of the catalogue whose own replay differs from the target only in what each side makes or shows of itself (attribution.ts)', () => {
  // Found in the full sweep of 2026-12-06: a flag's record ID made by each side; a 401 on an operation
  // only the reference has, where the document decides it for every endpoint; metadata an update left
  // behind in an older version, which only a read of that version by its number shows.
  it.each(['BILL-ATTACH-ENTITY', 'AUTH-BEARER-REQUIRED', 'PLAN-METADATA-SHARED'])('%s is named as itself', { timeout: 120_000 }, async (fault) => {
    expect(await exploreFault(fault, { runs: 100, maxSteps: 30, seed: 424242 })).toMatchObject({ found: true, rule: fault });
  });
});
