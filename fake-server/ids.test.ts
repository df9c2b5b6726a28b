import { describe, expect, it } from 'vitest';
import { IdGenerator } from './ids.ts';

describe('IdGenerator', () => {
  it('gives the same IDs for the same seed and different ones for another seed', () => {
    const a = new IdGenerator(42);
    const b = new IdGenerator(42);
    const c = new IdGenerator(43);
    const first = [a.next('cus_prod'), a.next('cus_ent')];
    expect([b.next('cus_prod'), b.next('cus_ent')]).toEqual(first);
    expect(c.next('cus_prod')).not.toBe(first[0]);
  });

  it('formats IDs as prefix, underscore and 22 base-62 characters', () => {
    expect(new IdGenerator(1).next('cus_prod')).toMatch(/^cus_prod_[0-9A-Za-z]{22}$/);
  });

  it('repeats its sequence after restart', () => {
    const ids = new IdGenerator(7);
    const first = ids.next('x');
    ids.next('x');
    ids.restart();
    expect(ids.next('x')).toBe(first);
  });

  it('continues from a restored state as it would have from the original', () => {
    const ids = new IdGenerator(9);
    ids.next('x');
    const copy = new IdGenerator(1);
    copy.restore(ids.state);
    expect(copy.next('x')).toBe(ids.next('x'));
  });

  it('does not repeat within a long run', () => {
    const ids = new IdGenerator(3);
    const seen = new Set(Array.from({ length: 50_000 }, () => ids.next('e')));
    expect(seen.size).toBe(50_000);
  });
});
