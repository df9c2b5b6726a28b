/**
 * Rows ordered by (created_at, id), newest first when walked. Listings page through it by seeking
 * to a cursor in O(log n) instead of scanning from the start, so a page costs the same at row ten
 * and at row a million.
 */
export interface IndexKey {
  readonly t: number;
  readonly id: string;
}

function compare(a: IndexKey, b: IndexKey): number {
  if (a.t !== b.t) return a.t - b.t;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class OrderedIndex {
  /** Ascending; walked backwards for newest-first pages. */
  readonly #keys: IndexKey[] = [];

  get size(): number {
    return this.#keys.length;
  }

  insert(key: IndexKey): void {
    const last = this.#keys.at(-1);
    // Rows are almost always created in clock order, so the common insert is an append.
    if (last === undefined || compare(last, key) < 0) {
      this.#keys.push(key);
      return;
    }
    const at = this.#lowerBound(key);
    if (this.#keys[at] !== undefined && compare(this.#keys[at], key) === 0) return;
    this.#keys.splice(at, 0, key);
  }

  remove(key: IndexKey): void {
    const at = this.#lowerBound(key);
    const found = this.#keys[at];
    if (found !== undefined && compare(found, key) === 0) this.#keys.splice(at, 1);
  }

  /** Keys strictly older than `after` (or all, without it), newest first. */
  *newestFirst(after?: IndexKey): Generator<IndexKey> {
    let at = after === undefined ? this.#keys.length - 1 : this.#lowerBound(after) - 1;
    for (; at >= 0; at--) yield this.#keys[at]!;
  }

  /** First position whose key is not less than `key`. */
  #lowerBound(key: IndexKey): number {
    let low = 0;
    let high = this.#keys.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.#keys[mid]!, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
