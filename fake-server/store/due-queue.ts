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

/** Whether the entry (at, seq) runs before the entry (otherAt, otherSeq). */
function before(at: number, seq: number, otherAt: number, otherSeq: number): boolean {
  return at < otherAt || (at === otherAt && seq < otherSeq);
}

/**
 * The entries of one kind as a binary min-heap kept in three parallel arrays (times and sequence
 * numbers unboxed): an entry costs 24 bytes instead of an object and a boxed time, about 70.
 */
class Heap {
  readonly #at: number[] = [];
  readonly #seq: number[] = [];
  readonly #id: string[] = [];

  constructor(readonly kind: DueKind) {}

  get size(): number {
    return this.#id.length;
  }

  /** The earliest entry's time and sequence number (undefined when empty). */
  get topAt(): number | undefined {
    return this.#at[0];
  }

  get topSeq(): number | undefined {
    return this.#seq[0];
  }

  entry(i: number): DueEntry {
    return { at: this.#at[i]!, kind: this.kind, id: this.#id[i]!, seq: this.#seq[i]! };
  }

  push(at: number, seq: number, id: string): void {
    let i = this.#id.length;
    this.#at.push(at);
    this.#seq.push(seq);
    this.#id.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  pop(): DueEntry {
    const top = this.entry(0);
    const at = this.#at.pop()!;
    const seq = this.#seq.pop()!;
    const id = this.#id.pop()!;
    const size = this.#id.length;
    if (size === 0) return top;
    this.#at[0] = at;
    this.#seq[0] = seq;
    this.#id[0] = id;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < size && this.#before(left, smallest)) smallest = left;
      if (right < size && this.#before(right, smallest)) smallest = right;
      if (smallest === i) return top;
      this.#swap(i, smallest);
      i = smallest;
    }
  }

  /** Drops the entries whose id is in `ids`; the rest are laid out sorted, and a sorted array is a heap. */
  discard(ids: ReadonlySet<string>): void {
    const kept: number[] = [];
    for (let i = 0; i < this.#id.length; i++) if (!ids.has(this.#id[i]!)) kept.push(i);
    if (kept.length === this.#id.length) return;
    kept.sort((i, j) => (this.#before(i, j) ? -1 : 1));
    const [at, seq, id] = [kept.map((i) => this.#at[i]!), kept.map((i) => this.#seq[i]!), kept.map((i) => this.#id[i]!)];
    for (let i = 0; i < kept.length; i++) [this.#at[i], this.#seq[i], this.#id[i]] = [at[i]!, seq[i]!, id[i]!];
    this.#at.length = this.#seq.length = this.#id.length = kept.length;
  }

  #before(i: number, j: number): boolean {
    return before(this.#at[i]!, this.#seq[i]!, this.#at[j]!, this.#seq[j]!);
  }

  #swap(i: number, j: number): void {
    [this.#at[i], this.#at[j]] = [this.#at[j]!, this.#at[i]!];
    [this.#seq[i], this.#seq[j]] = [this.#seq[j]!, this.#seq[i]!];
    [this.#id[i], this.#id[j]] = [this.#id[j]!, this.#id[i]!];
  }
}

export class DueQueue {
  readonly #heaps = new Map<DueKind, Heap>(DUE_KINDS.map((kind) => [kind, new Heap(kind)]));
  #seq = 0;

  schedule(at: number, kind: DueKind, id: string): void {
    this.#heaps.get(kind)!.push(at, this.#seq++, id);
  }

  /** Every entry in the order they will run (a state file keeps them so). */
  entries(): DueEntry[] {
    const all = [...this.#heaps.values()].flatMap((heap) => Array.from({ length: heap.size }, (_, i) => heap.entry(i)));
    return all.sort((a, b) => (before(a.at, a.seq, b.at, b.seq) ? -1 : 1));
  }

  /** The earliest entry due at or before `now`, removed from the queue; undefined when nothing is due. */
  popDue(now: number): DueEntry | undefined {
    let earliest: Heap | undefined;
    for (const heap of this.#heaps.values()) {
      const at = heap.topAt;
      if (at !== undefined && at <= now && (earliest === undefined || before(at, heap.topSeq!, earliest.topAt!, earliest.topSeq!))) earliest = heap;
    }
    return earliest?.pop();
  }

  /** When the next entry of one of these kinds is due (stale ones included); Infinity when none is scheduled. */
  nextAt(kinds: readonly DueKind[]): number {
    return Math.min(...kinds.map((kind) => this.#heaps.get(kind)!.topAt ?? Number.POSITIVE_INFINITY));
  }

  /** Drops the entries of rows that are gone for good (a deleted customer's). */
  discard(ids: ReadonlySet<string>): void {
    for (const heap of this.#heaps.values()) heap.discard(ids);
  }
}
