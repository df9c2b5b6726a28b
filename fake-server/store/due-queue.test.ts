import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../../fixtures/random.ts';
import { DUE_KINDS } from '../../spec/control-plane.ts';
import { DueQueue } from './due-queue.ts';

describe('DueQueue', () => {
  it('pops only what is due, earliest first, same-time entries in scheduling order', () => {
    const queue = new DueQueue();
    queue.schedule(30, 'record.expire', 'c');
    queue.schedule(10, 'grant.reset', 'a');
    queue.schedule(10, 'billing.period_end', 'b');
    expect(queue.popDue(5)).toBeUndefined();
    expect(queue.popDue(10)?.id).toBe('a');
    expect(queue.popDue(10)?.id).toBe('b');
    expect(queue.popDue(29)).toBeUndefined();
    expect(queue.popDue(100)?.id).toBe('c');
    expect(queue.popDue(Infinity), 'nothing is left').toBeUndefined();
  });

  it('tells when the next entry of some kinds is due, whatever is due before it of other kinds', () => {
    const queue = new DueQueue();
    expect(queue.nextAt(['record.expire'])).toBe(Number.POSITIVE_INFINITY);
    queue.schedule(5, 'grant.reset', 'a');
    queue.schedule(40, 'lock.expire', 'l');
    queue.schedule(30, 'record.expire', 'r');
    expect(queue.nextAt(['record.expire', 'lock.expire'])).toBe(30);
    expect(queue.nextAt(['lock.expire'])).toBe(40);
    expect(queue.popDue(100)?.id).toBe('a');
    expect(queue.popDue(100)?.id).toBe('r');
    expect(queue.nextAt(['record.expire', 'lock.expire'])).toBe(40);
  });

  it('drains in non-decreasing time order for any schedule (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 300 }), (times) => {
        const queue = new DueQueue();
        times.forEach((at, i) => queue.schedule(at, DUE_KINDS[i % DUE_KINDS.length]!, String(i)));
        const drained: number[] = [];
        for (let entry = queue.popDue(Infinity); entry; entry = queue.popDue(Infinity)) drained.push(entry.at);
        expect(drained).toEqual([...times].sort((a, b) => a - b));
      }),
      { seed: testSeed(), numRuns: 200 },
    );
  });
});
