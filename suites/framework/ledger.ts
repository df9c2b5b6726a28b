/**
 * The cleanup ledger: everything a run creates is recorded the moment an answer names it; at the end
 * `cleanup` removes what the target lets it remove and says truthfully what stays.
 *
 * - Order: kinds are undone in the order given (dependents first: an entity before its customer, a
 *   customer before the plans it holds, a plan before the features it uses), newest first within a
 *   kind. A refusal is tried again in a later pass, once what still used the record may be gone,
 *   for as long as a pass removes something.
 * - Truth: a refused or failed removal is checked with a read where the kind has one; what is not
 *   there any more counts as already gone, whatever the delete answered. What stays is reported
 *   `left` (the target offers no removal, or only a fallback such as archiving) or `failed`.
 * - Finding: a kind may list what the target holds; IDs of this file's scopes found there that the
 *   ledger never heard of (a target that refuses a create but keeps the object) are cleaned up too.
 * - Safety: only IDs of the run's namespace can be recorded or found, so cleanup never touches
 *   anything else. Every outcome is collected, never thrown: one failure cannot stop the rest.
 */
import type { Namespace } from './namespace.ts';
import { inBatches } from './batches.ts';

/** What was created: its kind (`plan`, `entity`…), its ID, and the IDs of its parents (`customer_id`…). */
export interface LedgerEntry {
  readonly kind: string;
  readonly id: string;
  readonly [parent: string]: string;
}

export interface RecordedEntry {
  readonly entry: LedgerEntry;
  /** The scenario that created it; undefined when found by listing or recorded outside a scenario. */
  readonly scenario: string | undefined;
}

/** One call of a cleanup: its `status` decides (200 done); nothing returned counts as done. */
export type CleanupAction<C> = (entry: LedgerEntry, client: C) => Promise<{ readonly status: number; readonly body?: unknown } | void>;

/** How one kind is cleaned up. A bare action is `{ remove: action }`. */
export interface KindCleanup<C> {
  /** Removes the entry (a delete). */
  readonly remove?: CleanupAction<C>;
  /** The operation `remove` calls: skipped when the target does not serve it (`served`). */
  readonly removeWith?: string;
  /** When the entry could not be removed: makes it harmless (a plan archived). It stays, reported left. */
  readonly fallback?: CleanupAction<C>;
  /** Whether the entry is still on the target: a read answering 404 says it is not; undefined when it cannot tell. */
  readonly exists?: (entry: LedgerEntry, client: C) => Promise<boolean | undefined>;
  /**
   * Records the target holds, found by listing (`root`: the namespace's root, for a listing that can
   * search); the ledger keeps those its namespace allows. May name records of other kinds too (an
   * entity's customer).
   */
  readonly list?: (client: C, root: string) => Promise<readonly LedgerEntry[]>;
}

export interface LedgerOptions {
  /** Kinds in the order they are undone; kinds not named come after, in the order first recorded. */
  readonly order?: readonly string[];
  /**
   * Operations the target does not serve (probed once per run): a `remove` whose `removeWith` is
   * among them is not tried. Any other removal is tried, and its answer decides.
   */
  readonly unserved?: ReadonlySet<string>;
  /** Removals sent at once within a kind (default 4). */
  readonly concurrency?: number;
  /** The run journal: told of every record (`made`) and of how each removal ended (journal.ts). */
  readonly journal?: JournalSink;
}

/** What the ledger tells the run journal (journal.ts `Journal`). */
export interface JournalSink {
  write(state: 'made' | 'removed' | 'left' | 'failed', entries: readonly LedgerEntry[], note?: string): void;
}

export interface CleanupReport {
  /** Removed by this cleanup. */
  readonly undone: readonly RecordedEntry[];
  /** Not on the target any more (a 404, or a read showed it gone). */
  readonly alreadyGone: readonly RecordedEntry[];
  /** Still on the target because it offers no removal for the kind (made harmless by a fallback where there is one). */
  readonly left: readonly RecordedEntry[];
  /** Still on the target (or not known to be gone) because the removal was refused or failed. */
  readonly failed: readonly (RecordedEntry & { readonly error: string })[];
}

/** Records on behalf of one scenario. */
export interface ScenarioLedger {
  record(entry: LedgerEntry): void;
}

/** At most this many passes over what is left: each retries what an earlier removal may have unblocked. */
const MAX_PASSES = 4;

/** An entry on its way through cleanup: why its last removal failed, and whether that was a 404. */
type Pending = RecordedEntry & { error?: string; answered404?: boolean };

export class Ledger<C> {
  readonly #ns: Pick<Namespace, 'owns' | 'root'>;
  readonly #kinds = new Map<string, KindCleanup<C>>();
  readonly #options: LedgerOptions;
  #entries: RecordedEntry[] = [];

  constructor(ns: Pick<Namespace, 'owns' | 'root'>, kinds: Readonly<Record<string, CleanupAction<C> | KindCleanup<C>>> = {}, options: LedgerOptions = {}) {
    this.#ns = ns;
    this.#options = options;
    for (const [kind, cleanup] of Object.entries(kinds)) this.register(kind, cleanup);
  }

  register(kind: string, cleanup: CleanupAction<C> | KindCleanup<C>): void {
    this.#kinds.set(kind, typeof cleanup === 'function' ? { remove: cleanup } : cleanup);
  }

  /**
   * Throws for an ID outside the run's namespace: the suite must never record (and so never delete)
   * what it did not create. Recording the same kind and ID again changes nothing.
   */
  record(entry: LedgerEntry, scenario?: string): void {
    if (!this.#ns.owns(entry.id)) {
      throw new Error(`refusing to record ${entry.kind} ${JSON.stringify(entry.id)}: it is not in this run's namespace (${this.#ns.root}_…)`);
    }
    if (this.#entries.some((recorded) => recorded.entry.kind === entry.kind && recorded.entry.id === entry.id)) return;
    this.#entries.push({ entry, scenario });
    this.#options.journal?.write('made', [entry]);
  }

  forScenario(scenario: string | undefined): ScenarioLedger {
    return { record: (entry) => this.record(entry, scenario) };
  }

  entries(): readonly RecordedEntry[] {
    return [...this.#entries];
  }

  /**
   * Finds (`find`: which IDs found by listing are this cleanup's to remove; without it nothing is
   * listed), then undoes every recorded entry and forgets them. Never throws.
   */
  async cleanup(client: C, find?: (id: string) => boolean): Promise<CleanupReport> {
    if (find !== undefined) await this.#find(client, find);
    const recorded = this.#entries;
    const journal = this.#options.journal;
    this.#entries = [];
    const report = { undone: [] as RecordedEntry[], alreadyGone: [] as RecordedEntry[], left: [] as RecordedEntry[], failed: [] as (RecordedEntry & { error: string })[] };
    const byKind = new Map<string, Pending[]>();
    for (const kind of this.#options.order ?? []) byKind.set(kind, []);
    // Newest first within a kind.
    for (const item of [...recorded].reverse()) {
      const list = byKind.get(item.entry.kind);
      if (list) list.push({ ...item });
      else byKind.set(item.entry.kind, [{ ...item }]);
    }

    const stays: Pending[] = [];
    let pending = [...byKind].flatMap(([kind, items]) => {
      const cleanup = this.#kinds.get(kind);
      if (cleanup?.remove !== undefined && this.#serves(cleanup)) return items;
      stays.push(...items);
      return [];
    });
    for (let pass = 0; pass < MAX_PASSES && pending.length > 0; pass++) {
      const refused: Pending[] = [];
      for (const kind of byKind.keys()) {
        const cleanup = this.#kinds.get(kind)!;
        await inBatches(
          pending.filter((item) => item.entry.kind === kind),
          this.#options.concurrency ?? 4,
          async (item) => {
            const outcome = await attempt(() => cleanup.remove!(item.entry, client));
            if (outcome.ok) {
              report.undone.push(strip(item));
              journal?.write('removed', [item.entry]);
            }
            else refused.push({ ...item, error: outcome.error, answered404: outcome.status === 404 });
          },
        );
      }
      const progressed = refused.length < pending.length;
      pending = refused;
      if (!progressed) break;
    }

    // What was not removed: gone after all (a read says so), made harmless by a fallback, or still there.
    for (const item of [...pending, ...stays]) {
      const cleanup = this.#kinds.get(item.entry.kind);
      const exists = cleanup?.exists === undefined ? undefined : await cleanup.exists(item.entry, client).catch(() => undefined);
      if (exists === false || (exists === undefined && item.answered404 === true)) {
        report.alreadyGone.push(strip(item));
        journal?.write('removed', [item.entry]);
        continue;
      }
      if (cleanup?.fallback !== undefined) {
        const outcome = await attempt(() => cleanup.fallback!(item.entry, client));
        if (!outcome.ok && item.error === undefined) item.error = outcome.error;
      }
      if (item.error === undefined) report.left.push(strip(item));
      else report.failed.push({ ...strip(item), error: item.error });
      journal?.write(item.error === undefined ? 'left' : 'failed', [item.entry], item.error);
    }
    return report;
  }

  #serves(cleanup: KindCleanup<C>): boolean {
    return cleanup.removeWith === undefined || !(this.#options.unserved?.has(cleanup.removeWith) ?? false);
  }

  /** The removal operation of each kind that has one, for a probe to learn which the target serves. */
  removals(): ReadonlyMap<string, string> {
    return new Map([...this.#kinds].flatMap(([kind, cleanup]) => (cleanup.removeWith === undefined ? [] : [[kind, cleanup.removeWith] as const])));
  }

  /** Records what the kinds' listings show that `find` claims and the ledger does not hold yet. */
  async #find(client: C, find: (id: string) => boolean): Promise<void> {
    for (const cleanup of this.#kinds.values()) {
      if (cleanup.list === undefined) continue;
      const found = await cleanup.list(client, this.#ns.root).catch(() => []);
      for (const entry of found) {
        if (this.#ns.owns(entry.id) && find(entry.id)) this.record(entry);
      }
    }
  }
}

function strip(item: Pending): RecordedEntry {
  return { entry: item.entry, scenario: item.scenario };
}

/** Runs one cleanup call: ok for a 200 (or nothing returned), else the status and why. Never throws. */
async function attempt(call: () => ReturnType<CleanupAction<unknown>>): Promise<{ ok: true } | { ok: false; status: number | undefined; error: string }> {
  try {
    const result = await call();
    if (!result || result.status === 200) return { ok: true };
    return { ok: false, status: result.status, error: `answered ${result.status}: ${describeBody(result.body)}` };
  } catch (error) {
    return { ok: false, status: undefined, error: error instanceof Error ? error.message : String(error) };
  }
}

function describeBody(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body) ?? '';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
