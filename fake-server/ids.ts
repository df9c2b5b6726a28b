/**
 * Seeded identifiers. The same seed and the same sequence of calls give the same IDs, so a test can
 * pin an ID; different seeds give unrelated ones.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 22;

/** mulberry32: a small, fast, well-distributed 32-bit PRNG; enough for IDs, not for secrets. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class IdGenerator {
  #random: () => number;
  readonly #seed: number;

  constructor(seed: number) {
    this.#seed = seed;
    this.#random = seededRandom(seed);
  }

  /** `prefix_` followed by 22 base-62 characters, e.g. `cus_prod_3MRzoe4jmdzygLxCnaVdgs`. */
  next(prefix: string): string {
    let body = '';
    for (let i = 0; i < RANDOM_LENGTH; i++) body += ALPHABET[Math.floor(this.#random() * ALPHABET.length)];
    return `${prefix}_${body}`;
  }

  /** Back to the first ID of the seed (used by reset, so a replayed seed gives the same IDs). */
  restart(): void {
    this.#random = seededRandom(this.#seed);
  }
}
