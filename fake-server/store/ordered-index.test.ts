import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../../fixtures/random.ts';
import { OrderedIndex, type IndexKey } from './ordered-index.ts';

const newestFirst = (keys: IndexKey[]) => [...keys].sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

/** An index over rows whose created_at is looked up, as the store's are: `times` stands for the table. */
function indexOver(times: Map<string, number>): OrderedIndex {
  return new OrderedIndex((id) => times.get(id)!);
}

describe('OrderedIndex', () => {
  it('walks newest first, breaking ties on created_at by id, and resumes strictly after a cursor', () => {
    const keys = [{ t: 2, id: 'b' }, { t: 1, id: 'z' }, { t: 2, id: 'a' }, { t: 3, id: 'm' }];
    const index = indexOver(new Map(keys.map((key) => [key.id, key.t])));
    for (const key of keys) index.insert(key);
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
        // A row's created_at never changes: an id keeps the time it first came with.
        const times = new Map<string, number>();
        for (const [, k] of ops) if (!times.has(k.id)) times.set(k.id, k.t);
        const index = indexOver(times);
        const model = new Map<string, IndexKey>();
        for (const [insert, { id }] of ops) {
          const k = { t: times.get(id)!, id };
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
