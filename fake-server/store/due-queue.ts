/**
 * What falls due when: balance resets, period ends, trial ends, expiries, lock expiries. A binary
 * min-heap keyed by time, so advancing the clock over a million rows touches only what is due.
 * Entries can go stale (a record expired early, a lock was finalized); whoever pops an entry
 * re-checks the row before acting on it.
 */
export type DueKind = 'grant.reset' | 'billing.period_end' | 'record.trial_end' | 'record.expire' | 'lock.expire';

export interface DueEntry {
  readonly at: number;
  readonly kind: DueKind;
  readonly id: string;
  /** Insertion order, so entries due at the same millisecond run in the order they were scheduled. */
  readonly seq: number;
}

export class DueQueue {
  readonly #heap: DueEntry[] = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  schedule(at: number, kind: DueKind, id: string): void {
    this.#heap.push({ at, kind, id, seq: this.#seq++ });
    this.#up(this.#heap.length - 1);
  }

  /** Every entry in the order they will run (a state file keeps them so). */
  entries(): DueEntry[] {
    return [...this.#heap].sort((a, b) => (this.#less(a, b) ? -1 : 1));
  }

  /** The earliest entry due at or before `now`, removed from the queue; undefined when nothing is due. */
  popDue(now: number): DueEntry | undefined {
    const top = this.#heap[0];
    if (top === undefined || top.at > now) return undefined;
    const last = this.#heap.pop()!;
    if (this.#heap.length > 0) {
      this.#heap[0] = last;
      this.#down(0);
    }
    return top;
  }

  #less(a: DueEntry, b: DueEntry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #up(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.#less(this.#heap[at]!, this.#heap[parent]!)) return;
      [this.#heap[at], this.#heap[parent]] = [this.#heap[parent]!, this.#heap[at]!];
      at = parent;
    }
  }

  #down(at: number): void {
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let smallest = at;
      if (left < this.#heap.length && this.#less(this.#heap[left]!, this.#heap[smallest]!)) smallest = left;
      if (right < this.#heap.length && this.#less(this.#heap[right]!, this.#heap[smallest]!)) smallest = right;
      if (smallest === at) return;
      [this.#heap[at], this.#heap[smallest]] = [this.#heap[smallest]!, this.#heap[at]!];
      at = smallest;
    }
  }
}
