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

  /** The target's ID for a model ID, if known. */
  targetOf(modelId: string): string | undefined {
    return this.#toTarget.get(modelId);
  }

  /** Pairs two IDs of one object; `conflict` when either is already paired with another. */
  learn(targetId: string, modelId: string): Learnt {
    const known = this.#toModel.get(targetId);
    const back = this.#toTarget.get(modelId);
    if (known === modelId && back === targetId) return 'known';
    if (known !== undefined || back !== undefined) return 'conflict';
    this.#toModel.set(targetId, modelId);
    this.#toTarget.set(modelId, targetId);
    return 'new';
  }

  get size(): number {
    return this.#toModel.size;
  }
}
