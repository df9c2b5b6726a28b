/**
 * Rows ordered by (created_at, id), newest first when walked. Listings page through it by seeking
 * to a cursor in O(log n) instead of scanning from the start, so a page costs the same at row ten
 * and at row a million.
 */
export interface IndexKey {
  readonly t: number;
  readonly id: string;
}

export class OrderedIndex {
  /**
   * Ids, ascending by (created_at, id); walked backwards for newest-first pages. A row's created_at
   * is read from the row (it never changes) rather than kept here: an index entry costs one pointer,
   * and a million rows in two indexes (all rows, and their customer's) cost 8 MB instead of 80.
   */
  readonly #ids: string[] = [];

  /** `timeOf` gives the created_at of a row the index holds. */
  constructor(readonly timeOf: (id: string) => number) {}

  get size(): number {
    return this.#ids.length;
  }

  insert(key: IndexKey): void {
    const last = this.#ids.at(-1);
    // Rows are almost always created in clock order, so the common insert is an append.
    if (last === undefined || this.#compare(last, key) < 0) {
      this.#ids.push(key.id);
      return;
    }
    const at = this.#lowerBoundNearEnd(key);
    if (this.#ids[at] !== undefined && this.#compare(this.#ids[at], key) === 0) return;
    this.#ids.splice(at, 0, key.id);
  }

  /** Removes a row's key; call it while the row can still be looked up. */
  remove(key: IndexKey): void {
    const at = this.#lowerBound(key);
    const found = this.#ids[at];
    if (found !== undefined && this.#compare(found, key) === 0) this.#ids.splice(at, 1);
  }

  /** Keys strictly older than `after` (or all, without it), newest first. */
  *newestFirst(after?: IndexKey): Generator<IndexKey> {
    let at = after === undefined ? this.#ids.length - 1 : this.#lowerBound(after) - 1;
    for (; at >= 0; at--) {
      const id = this.#ids[at]!;
      yield { t: this.timeOf(id), id };
    }
  }

  /** How the row `id` orders against `key`. */
  #compare(id: string, key: IndexKey): number {
    const t = this.timeOf(id);
    if (t !== key.t) return t - key.t;
    return id < key.id ? -1 : id > key.id ? 1 : 0;
  }

  /**
   * `#lowerBound`, for a key that belongs near the end: a row created in the same millisecond as
   * the newest ones, ordered among them by id. Steps back 1, 2, 4… rows from the end first, so it
   * reads a few rows' times rather than a binary search's worth over the whole index.
   */
  #lowerBoundNearEnd(key: IndexKey): number {
    let high = this.#ids.length;
    let step = 1;
    while (high - step > 0 && this.#compare(this.#ids[high - step]!, key) >= 0) {
      high -= step;
      step *= 2;
    }
    return this.#lowerBound(key, Math.max(0, high - step), high);
  }

  /** First position in [low, high) whose key is not less than `key` (`high` when none is). */
  #lowerBound(key: IndexKey, low = 0, high = this.#ids.length): number {
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#compare(this.#ids[mid]!, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
