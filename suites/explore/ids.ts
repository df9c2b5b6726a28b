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
  /** Target IDs paired by a guess: rows alike but for their IDs, first seen together, in whatever order each side put its ties. */
  readonly #guessed = new Set<string>();

  /** The target's ID for a model ID, if known. */
  targetOf(modelId: string): string | undefined {
    return this.#toTarget.get(modelId);
  }

  /** The model's ID for a target ID, if known. */
  modelOf(targetId: string): string | undefined {
    return this.#toModel.get(targetId);
  }

  /**
   * Pairs two IDs of one object; `conflict` when either is already paired with another. A pair made
   * by a guess (`guess`: the object was one of several alike) gives way, without a conflict, to the
   * first pairing that tells the objects apart.
   */
  learn(targetId: string, modelId: string, guess = false): Learnt {
    const known = this.#toModel.get(targetId);
    const back = this.#toTarget.get(modelId);
    if (known === modelId && back === targetId) {
      if (!guess) this.#guessed.delete(targetId);
      return 'known';
    }
    if (known !== undefined || back !== undefined) {
      const guessedBefore = (known === undefined || this.#guessed.has(targetId)) && (back === undefined || this.#guessed.has(back));
      if (!guessedBefore) return 'conflict';
      if (known !== undefined) this.#toTarget.delete(known);
      if (back !== undefined) this.#toModel.delete(back);
      this.#guessed.delete(targetId);
      if (back !== undefined) this.#guessed.delete(back);
    }
    this.#toModel.set(targetId, modelId);
    this.#toTarget.set(modelId, targetId);
    if (guess) this.#guessed.add(targetId);
    return 'new';
  }

  get size(): number {
    return this.#toModel.size;
  }
}
