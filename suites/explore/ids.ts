/**
 * IDs the target chooses (a subscription record's id, a grant's breakdown id), mapped one to one to
 * the IDs the reference model chose for the same objects. A mapping is learnt the first time both
 * answers show the same object; after that the target must keep using that ID for it, and never
 * for another object.
 */
export type Learnt = 'new' | 'known' | 'conflict';

export class IdMap {
  readonly #toModel = new Map<string, string>();
  readonly #toTarget = new Map<string, string>();
  /** Model IDs paired by a guess: rows that were alike in all else when first seen (compare.ts `matchElements`). */
  readonly #guessed = new Set<string>();

  /** The model's ID for a target ID, if known. */
  modelOf(targetId: string): string | undefined {
    return this.#toModel.get(targetId);
  }

  /** The target's ID for a model ID, if known. */
  targetOf(modelId: string): string | undefined {
    return this.#toTarget.get(modelId);
  }

  /**
   * Pairs two IDs of one object; `conflict` when either is already paired with another by what told
   * them apart. A pair made by a guess (`guess`: two or more rows alike in all but these IDs, which
   * no answer had told apart yet) gives way to the pair a later answer tells apart: two healthy
   * sides may order such ties differently (by the IDs each chose), so the first guess may be wrong.
   */
  learn(targetId: string, modelId: string, guess = false): Learnt {
    const known = this.#toModel.get(targetId);
    const back = this.#toTarget.get(modelId);
    if (known === modelId && back === targetId) {
      if (!guess) this.#guessed.delete(modelId);
      return 'known';
    }
    if ((known !== undefined && !this.#guessed.has(known)) || (back !== undefined && !this.#guessed.has(modelId))) return 'conflict';
    // Either is paired by a guess only: undone, both of its sides free again.
    if (known !== undefined) this.#unpair(known);
    if (back !== undefined) this.#unpair(modelId);
    this.#toModel.set(targetId, modelId);
    this.#toTarget.set(modelId, targetId);
    if (guess) this.#guessed.add(modelId);
    return 'new';
  }

  #unpair(modelId: string): void {
    const targetId = this.#toTarget.get(modelId);
    this.#toTarget.delete(modelId);
    if (targetId !== undefined) this.#toModel.delete(targetId);
    this.#guessed.delete(modelId);
  }

  get size(): number {
    return this.#toModel.size;
  }
}
