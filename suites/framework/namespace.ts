/**
 * The per-run namespace. Every ID the suite creates is `<prefix>_<run>_<scope>_<kind>_<n>`:
 * - `<run>`: 6 base-36 characters hashed from the seed (and a salt, see below), so concurrent runs
 *   against a shared target never collide; in reuse mode, hashed from the reuse name alone;
 * - `<scope>`: 5 base-36 characters hashed from the scenario ID, so scenarios running in different
 *   vitest workers (each with its own counters) never collide either;
 * - `<kind>_<n>`: what it is and a counter.
 * Only letters, digits and `_`, so the IDs suit every ID field (plan IDs allow `[a-zA-Z0-9_-]`,
 * customer IDs `[a-zA-Z0-9_:-]`). `owns(id)` tells whether an ID belongs to this run: one of these,
 * or one a scenario derived from one by a suffix of ID characters (`…_plan_3_annual`, `…_pid_2-_-`,
 * what a scenario about ID characters or prefixes needs), which the run made all the same.
 *
 * Codes (`code(kind)`) are for fields stricter than IDs: the reference allows letters and digits
 * only in promo codes ("Promotional code can only contain letters and numbers"), so a code is the
 * same parts without separators, `<prefix><run><scope><KIND><n>`, the kind in letters only (so the
 * counter that follows cannot be confused with it). Codes are never recorded in the ledger.
 *
 * The salt: with the same seed and salt a run makes the same IDs, which is what reproduces a run
 * against a fresh fake. Against a deployment, a re-run with the same seed would collide with the
 * first run's leftovers (plans can only be archived on some targets), so the target passes a fresh
 * salt there. Reuse mode (`reuse`, a name) is the opposite choice, for nightly runs on a shared
 * target: every run of that name makes the same IDs whatever its seed, so what a run could not
 * delete is the same set of records the next run finds and reuses or removes, never a new one.
 */
import { createHash } from 'node:crypto';

const NAME = /^[a-zA-Z0-9]+$/;
const LETTERS = /^[a-zA-Z]+$/;
const REUSE_NAME = /^[a-zA-Z0-9-]{1,32}$/;

export interface Namespace {
  /** `<prefix>_<run>`: every ID of the run starts with this and `_`. */
  readonly root: string;
  /** A new ID for a record of `kind` (letters and digits). */
  id(kind: string): string;
  /** A new code of `kind` (letters only) made of letters and digits alone, for fields that allow nothing else (promo codes). */
  code(kind: string): string;
  /** Whether `id` was (or could have been) made by this run's namespace, or derived from such an ID by a suffix. */
  owns(id: string): boolean;
  /**
   * Whether `id` is owned and of a scope this namespace (or one of its scopes) has handed out, in this
   * process: what one test file's cleanup may look for by listing, without touching another file's.
   */
  madeHere(id: string): boolean;
  /** Reuse mode: every run of the same name makes the same IDs (see above). */
  readonly reused: boolean;
  /** The namespace of one scenario: same run, its own scope and counters. The same name gives the same scope. */
  scope(name: string): Namespace;
}

export interface NamespaceOptions {
  /** Letters and digits (default `conf`). */
  readonly prefix: string;
  readonly seed: number;
  readonly salt?: string;
  /** Reuse mode: the run part comes from this name alone (letters, digits, `-`), not from seed and salt. */
  readonly reuse?: string | undefined;
}

export function createNamespace({ prefix, seed, salt = '', reuse }: NamespaceOptions): Namespace {
  if (!NAME.test(prefix)) throw new Error(`namespace prefix must be letters and digits: ${JSON.stringify(prefix)}`);
  if (reuse !== undefined && !REUSE_NAME.test(reuse)) throw new Error(`reuse name must be 1 to 32 letters, digits or -: ${JSON.stringify(reuse)}`);
  const root = `${prefix}_${shortHash(reuse === undefined ? `${seed}:${salt}` : `reuse:${reuse}`, 6)}`;
  const pattern = idPattern(root);
  const owns = (id: string) => pattern.test(id);
  const scopes = new Map<string, Namespace>();
  const tags = new Set<string>();
  const madeHere = (id: string) => {
    const tag = pattern.exec(id)?.[1];
    return tag !== undefined && tags.has(tag);
  };

  const make = (scopeTag: string): Namespace => {
    const counters = new Map<string, number>();
    const next = (kind: string) => {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      return n;
    };
    return {
      root,
      id(kind) {
        if (!NAME.test(kind)) throw new Error(`ID kind must be letters and digits: ${JSON.stringify(kind)}`);
        return `${root}_${scopeTag}_${kind}_${next(kind)}`;
      },
      code(kind) {
        if (!LETTERS.test(kind)) throw new Error(`code kind must be letters: ${JSON.stringify(kind)}`);
        return `${root.replace('_', '')}${scopeTag}${kind}${next(`code:${kind}`)}`;
      },
      owns,
      madeHere,
      reused: reuse !== undefined,
      scope,
    };
  };
  function scope(name: string): Namespace {
    let ns = scopes.get(name);
    if (!ns) {
      const tag = shortHash(name, 5);
      tags.add(tag);
      ns = make(tag);
      scopes.set(name, ns);
    }
    return ns;
  }
  return scope('');
}

/** The run's namespace: the configured prefix, the run's seed and salt (RunInfo), or the reuse name. */
export function runNamespace(config: { readonly namespacePrefix: string; readonly reuseNamespace?: string | undefined }, run: { readonly seed: number; readonly salt: string }): Namespace {
  return createNamespace({ prefix: config.namespacePrefix, seed: run.seed, salt: run.salt, reuse: config.reuseNamespace });
}

/** An ID of a namespace's form, or one derived from it by a suffix of plan-ID characters; group 1 is the scope. */
function idPattern(root: string): RegExp {
  return new RegExp(`^${root}_([a-z0-9]{5})_[a-zA-Z0-9]+_\\d+[a-zA-Z0-9_-]*$`);
}

/** What a journal's namespace (`<prefix>_<run>`, from its file name) owns: `besi-conformance cleanup` touches nothing else. */
export function namespaceOfRoot(root: string): Pick<Namespace, 'root' | 'owns'> {
  if (!/^[a-zA-Z0-9]+_[a-z0-9]{6}$/.test(root)) throw new Error(`not a namespace root: ${JSON.stringify(root)}`);
  const pattern = idPattern(root);
  return { root, owns: (id) => pattern.test(id) };
}

/** `length` base-36 characters of the SHA-256 of `text`. */
function shortHash(text: string, length: number): string {
  const digest = createHash('sha256').update(text).digest();
  return BigInt(`0x${digest.subarray(0, 8).toString('hex')}`).toString(36).padStart(length, '0').slice(-length);
}
