import fc from 'fast-check';
import { testSeed } from '../../fixtures/random.ts';
import { describe, expect, it } from 'vitest';
import { createNamespace } from './namespace.ts';

const PLAN_ID = /^[a-zA-Z0-9_-]+$/;
const CUSTOMER_ID = /^[a-zA-Z0-9_:-]+$/;

describe('createNamespace', () => {
  it('makes <prefix>_<run>_<scope>_<kind>_<n> IDs valid as plan and customer IDs, counting per kind', () => {
    const ns = createNamespace({ prefix: 'conf', seed: 1 }).scope('LIC-001');
    const ids = [ns.id('plan'), ns.id('plan'), ns.id('customer')];
    expect(ids[0]).toMatch(/^conf_[a-z0-9]{6}_[a-z0-9]{5}_plan_1$/);
    expect(ids[1]).toMatch(/_plan_2$/);
    expect(ids[2]).toMatch(/_customer_1$/);
    for (const id of ids) {
      expect(id).toMatch(PLAN_ID);
      expect(id).toMatch(CUSTOMER_ID);
      expect(ns.owns(id)).toBe(true);
    }
  });

  it('makes codes of letters and digits only (the reference refuses anything else in promo codes), distinct per scenario and count', () => {
    const ns = createNamespace({ prefix: 'conf', seed: 1 });
    const codes = [ns.scope('A').code('PROMO'), ns.scope('A').code('PROMO'), ns.scope('B').code('PROMO'), ns.scope('A').code('CODE')];
    for (const code of codes) expect(code).toMatch(/^[a-zA-Z0-9]+$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes[0]).toMatch(/^conf[a-z0-9]{6}[a-z0-9]{5}PROMO1$/);
    expect(() => ns.code('PROMO_1')).toThrow(/letters/);
  });

  it('derives the run part from seed and salt: reproducible, and distinct across runs', () => {
    const root = (seed: number, salt?: string) => createNamespace({ prefix: 'conf', seed, ...(salt === undefined ? {} : { salt }) }).root;
    expect(root(7)).toBe(root(7));
    expect(root(7)).not.toBe(root(8));
    expect(root(7, 'a')).not.toBe(root(7, 'b'));
    expect(createNamespace({ prefix: 'conf', seed: 7 }).scope('s').id('plan')).toBe(createNamespace({ prefix: 'conf', seed: 7 }).scope('s').id('plan'));
  });

  it('gives scenarios distinct scopes, and the same scope (and counters) to the same scenario', () => {
    const ns = createNamespace({ prefix: 'conf', seed: 3 });
    const a = ns.scope('A');
    const b = ns.scope('B');
    expect(a.id('plan')).not.toBe(b.id('plan'));
    expect(ns.scope('A')).toBe(a);
    expect(ns.scope('A').id('plan')).toMatch(/_plan_2$/);
    expect(a.owns(b.id('entity'))).toBe(true);
  });

  it('owns only IDs of its own run', () => {
    const ns = createNamespace({ prefix: 'conf', seed: 5 });
    const other = createNamespace({ prefix: 'conf', seed: 6 });
    expect(ns.owns(other.id('plan'))).toBe(false);
    expect(ns.owns('cus_123')).toBe(false);
    expect(ns.owns(`${ns.root}_evil`)).toBe(false);
    expect(ns.owns(`${ns.root}_abcde_plan_1; drop`)).toBe(false);
    expect(ns.owns(`x${ns.id('plan')}`)).toBe(false);
  });

  it('owns nothing outside the namespace, whatever the string', () => {
    const ns = createNamespace({ prefix: 'conf', seed: 9 });
    const candidates = fc.oneof(fc.string(), fc.string().map((s) => `${ns.root}_${s}`), fc.string().map((s) => `${ns.root}${s}`));
    fc.assert(
      fc.property(candidates, (s) => {
        if (ns.owns(s)) {
          expect(s.startsWith(`${ns.root}_`)).toBe(true);
          expect(s).toMatch(PLAN_ID);
        }
      }),
      { seed: testSeed(), numRuns: 500 },
    );
  });

  it('always makes valid, owned IDs for any letters-and-digits kind and seed', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9]{1,12}$/), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (kind, seed) => {
        const ns = createNamespace({ prefix: 'conf', seed }).scope('S');
        const id = ns.id(kind);
        expect(id).toMatch(PLAN_ID);
        expect(ns.owns(id)).toBe(true);
      }),
      { seed: testSeed() },
    );
  });

  it('refuses prefixes and kinds that would break the ID format', () => {
    expect(() => createNamespace({ prefix: 'a_b', seed: 1 })).toThrow(/prefix/);
    expect(() => createNamespace({ prefix: 'conf', seed: 1 }).id('plan_x')).toThrow(/kind/);
    expect(() => createNamespace({ prefix: 'conf', seed: 1 }).id('')).toThrow(/kind/);
  });
});

describe('derived IDs, scopes handed out, and reuse mode', () => {
  it('owns an ID a scenario derived from one of its IDs by a suffix of ID characters, and nothing else that starts like one', () => {
    const ns = createNamespace({ prefix: 'conf', seed: 21 }).scope('S');
    const base = ns.id('plan');
    for (const suffix of ['_annual', '-', '_', '-_-', 'Az09', 'a']) expect(ns.owns(`${base}${suffix}`), suffix).toBe(true);
    for (const suffix of [' ', '.', '/x', ':x', 'é']) expect(ns.owns(`${base}${suffix}`), suffix).toBe(false);
    expect(ns.owns(`${ns.root}_abcde_plan_x`)).toBe(false);
  });

  it('knows the scopes it handed out: another file (another namespace object) of the same run has its own', () => {
    const here = createNamespace({ prefix: 'conf', seed: 22 });
    const there = createNamespace({ prefix: 'conf', seed: 22 });
    const mine = here.scope('A').id('plan');
    const theirs = there.scope('B').id('plan');
    expect([here.madeHere(mine), here.madeHere(`${mine}_annual`), here.madeHere(theirs)]).toEqual([true, true, false]);
    expect([there.madeHere(theirs), there.madeHere(mine), there.scope('B').madeHere(theirs)]).toEqual([true, false, true]);
    expect(here.madeHere('cus_123')).toBe(false);
  });

  it('in reuse mode makes the same IDs whatever the seed and salt, one set per name', () => {
    const reused = (seed: number, salt: string, reuse: string) => createNamespace({ prefix: 'conf', seed, salt, reuse });
    expect(reused(1, 'a', 'nightly').scope('S').id('plan')).toBe(reused(2, 'b', 'nightly').scope('S').id('plan'));
    expect(reused(1, 'a', 'nightly').root).not.toBe(reused(1, 'a', 'nightly-eu').root);
    expect(reused(1, 'a', 'nightly').root).not.toBe(createNamespace({ prefix: 'conf', seed: 1, salt: 'a' }).root);
    expect([reused(1, '', 'nightly').reused, createNamespace({ prefix: 'conf', seed: 1 }).reused]).toEqual([true, false]);
    expect(() => reused(1, '', 'night ly')).toThrow(/reuse name/);
  });
});
