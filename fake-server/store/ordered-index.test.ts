import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../../fixtures/random.ts';
import { OrderedIndex, type IndexKey } from './ordered-index.ts';

const newestFirst = (keys: IndexKey[]) => [...keys].sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

describe('OrderedIndex', () => {
  it('walks newest first, breaking ties on created_at by id, and resumes strictly after a cursor', () => {
    const index = new OrderedIndex();
    for (const key of [{ t: 2, id: 'b' }, { t: 1, id: 'z' }, { t: 2, id: 'a' }, { t: 3, id: 'm' }]) index.insert(key);
    expect([...index.newestFirst()]).toEqual([{ t: 3, id: 'm' }, { t: 2, id: 'b' }, { t: 2, id: 'a' }, { t: 1, id: 'z' }]);
    expect([...index.newestFirst({ t: 2, id: 'b' })]).toEqual([{ t: 2, id: 'a' }, { t: 1, id: 'z' }]);
    // A cursor whose row has since been removed still resumes at the right place.
    index.remove({ t: 2, id: 'b' });
    expect([...index.newestFirst({ t: 2, id: 'b' })]).toEqual([{ t: 2, id: 'a' }, { t: 1, id: 'z' }]);
    expect(index.size).toBe(3);
  });

  it('matches a sorted copy for any sequence of inserts and removes (property)', () => {
    const key = fc.record({ t: fc.integer({ min: 0, max: 20 }), id: fc.string({ minLength: 1, maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), key), { maxLength: 200 }), key, (ops, cursor) => {
        const index = new OrderedIndex();
        const model = new Map<string, IndexKey>();
        for (const [insert, k] of ops) {
          const name = `${k.t}\u0000${k.id}`;
          if (insert) {
            index.insert(k);
            model.set(name, k);
          } else {
            index.remove(k);
            model.delete(name);
          }
        }
        const expected = newestFirst([...model.values()]);
        expect([...index.newestFirst()]).toEqual(expected);
        const after = expected.filter((k) => k.t < cursor.t || (k.t === cursor.t && k.id < cursor.id));
        expect([...index.newestFirst(cursor)]).toEqual(after);
      }),
      { seed: testSeed(), numRuns: 300 },
    );
  });
});
