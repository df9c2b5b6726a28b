/**
 * Seeded identifiers. The same seed and the same sequence of calls give the same IDs, so a test can
 * pin an ID; different seeds give unrelated ones.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 22;

export class IdGenerator {
  readonly seed: number;
  #state: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.#state = this.seed;
  }

  /** `prefix_` followed by 22 base-62 characters, e.g. `cus_prod_3MRzoe4jmdzygLxCnaVdgs`. */
  next(prefix: string): string {
    // Joined once rather than appended to: appending builds a chain of string pieces that every stored ID would keep (about 100 bytes each).
    const chars = [prefix, '_'];
    // mulberry32: a small, fast, well-distributed 32-bit PRNG whose whole state is one number; enough for IDs, not for secrets.
    let state = this.#state;
    for (let i = 0; i < RANDOM_LENGTH; i++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      chars.push(ALPHABET[Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * ALPHABET.length)]!);
    }
    this.#state = state;
    return chars.join('');
  }

  /** Where the sequence stands, for a state file; `restore` continues from it. */
  get state(): number {
    return this.#state;
  }

  restore(state: number): void {
    this.#state = state >>> 0;
  }

  /** Back to the first ID of the seed (used by reset, so a replayed seed gives the same IDs). */
  restart(): void {
    this.#state = this.seed;
  }
}
