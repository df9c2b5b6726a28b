/**
 * The JSON text of views, reused while the data they show does not change: what lets a listing
 * that is read again and again (a dashboard polling a page of 200 entities) answer without
 * rebuilding and serialising every view each time.
 *
 * A view text is only as good as the rule that clears it: whoever may change a tenant's data
 * clears its texts (the router after every call that may change data and whenever something fell
 * due, the control plane after every call but the reads, a reset or an import by replacing the
 * store). Domain functions never clear it and never need to: they are given one only to read
 * through it, and without one they compute every view.
 */

/** Texts held at most, in characters: a bound on the memory texts may take, whatever is listed. */
const MAX_CHARS = 32 * 1024 * 1024;

export class ViewTexts {
  /** By group (one kind of view, computed one way), then by id. */
  readonly #groups = new Map<string, Map<string, string>>();
  #chars = 0;
  #hits = 0;

  /** How many texts were found rather than computed, since the start: for tests and diagnostics. */
  get hits(): number {
    return this.#hits;
  }

  /** The text of the view `id` in `group`, computed by `compute` unless it is held already. */
  textOf(group: string, id: string, compute: () => string): string {
    const held = this.#groups.get(group)?.get(id);
    if (held !== undefined) {
      this.#hits++;
      return held;
    }
    const text = compute();
    if (this.#chars + text.length > MAX_CHARS) this.clear();
    let texts = this.#groups.get(group);
    if (texts === undefined) this.#groups.set(group, (texts = new Map()));
    texts.set(id, text);
    this.#chars += text.length;
    return text;
  }

  /** Forgets every text: the data may have changed. */
  clear(): void {
    this.#groups.clear();
    this.#chars = 0;
  }
}
