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
