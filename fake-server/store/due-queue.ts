/**
 * What falls due when: balance resets, period ends, trial ends, expiries, lock expiries. One binary
 * min-heap per kind, keyed by time, so advancing the clock over a million rows touches only what is
 * due, and the next entry of the kinds that could change a row is found at once (what lets repeated
 * resets be collapsed). Entries can go stale (a record expired early, a lock was finalized); whoever
 * pops an entry re-checks the row before acting on it.
 */
import { DUE_KINDS, type DueKind } from '../../spec/control-plane.ts';

export type { DueKind };

export interface DueEntry {
  readonly at: number;
  readonly kind: DueKind;
  readonly id: string;
  /** Insertion order, so entries due at the same millisecond run in the order they were scheduled. */
  readonly seq: number;
}

function less(a: DueEntry, b: DueEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

function swap(heap: DueEntry[], i: number, j: number): void {
  [heap[i], heap[j]] = [heap[j]!, heap[i]!];
}

function push(heap: DueEntry[], entry: DueEntry): void {
  heap.push(entry);
  for (let at = heap.length - 1; at > 0; ) {
    const parent = (at - 1) >> 1;
    if (!less(heap[at]!, heap[parent]!)) return;
    swap(heap, at, parent);
    at = parent;
  }
}

function popTop(heap: DueEntry[]): DueEntry {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length === 0) return top;
  heap[0] = last;
  for (let at = 0; ; ) {
    const left = 2 * at + 1;
    const right = left + 1;
    let smallest = at;
    if (left < heap.length && less(heap[left]!, heap[smallest]!)) smallest = left;
    if (right < heap.length && less(heap[right]!, heap[smallest]!)) smallest = right;
    if (smallest === at) return top;
    swap(heap, at, smallest);
    at = smallest;
  }
}

export class DueQueue {
  readonly #heaps = new Map<DueKind, DueEntry[]>(DUE_KINDS.map((kind) => [kind, []]));
  #seq = 0;

  schedule(at: number, kind: DueKind, id: string): void {
    push(this.#heaps.get(kind)!, { at, kind, id, seq: this.#seq++ });
  }

  /** Every entry in the order they will run (a state file keeps them so). */
  entries(): DueEntry[] {
    return [...this.#heaps.values()].flat().sort((a, b) => (less(a, b) ? -1 : 1));
  }

  /** The earliest entry due at or before `now`, removed from the queue; undefined when nothing is due. */
  popDue(now: number): DueEntry | undefined {
    let earliest: DueEntry[] | undefined;
    for (const heap of this.#heaps.values()) {
      const top = heap[0];
      if (top !== undefined && top.at <= now && (earliest === undefined || less(top, earliest[0]!))) earliest = heap;
    }
    return earliest === undefined ? undefined : popTop(earliest);
  }

  /** When the next entry of one of these kinds is due (stale ones included); Infinity when none is scheduled. */
  nextAt(kinds: readonly DueKind[]): number {
    return Math.min(...kinds.map((kind) => this.#heaps.get(kind)![0]?.at ?? Number.POSITIVE_INFINITY));
  }

  /** Drops the entries of rows that are gone for good (a deleted customer's); a sorted heap is still a heap. */
  discard(ids: ReadonlySet<string>): void {
    for (const [kind, heap] of this.#heaps) {
      const kept = heap.filter((entry) => !ids.has(entry.id));
      if (kept.length < heap.length) this.#heaps.set(kind, kept.sort((a, b) => (less(a, b) ? -1 : 1)));
    }
  }
}
