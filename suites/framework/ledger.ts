/**
 * The cleanup ledger: scenarios record what they create; at the end of a run `cleanup` undoes what
 * the API allows, newest first, through one registered action per kind. A 404 counts as already
 * gone; every other outcome is collected into the report, never thrown, so one failure cannot stop
 * the rest. Only IDs of the run's namespace can be recorded, so cleanup never touches anything else.
 */
import type { Namespace } from './namespace.ts';

/** What was created: its kind (`plan`, `entity`…), its ID, and the IDs of its parents (`customer_id`…). */
export interface LedgerEntry {
  readonly kind: string;
  readonly id: string;
  readonly [parent: string]: string;
}

export interface RecordedEntry {
  readonly entry: LedgerEntry;
  /** The scenario that created it. */
  readonly scenario: string | undefined;
}

/** Undoes one entry. Return the call's result (its `status` decides: 200 done, 404 gone), or nothing when done. */
export type CleanupAction<C> = (entry: LedgerEntry, client: C) => Promise<{ readonly status: number; readonly body?: unknown } | void>;

export interface CleanupReport {
  readonly undone: readonly RecordedEntry[];
  readonly alreadyGone: readonly RecordedEntry[];
  /** No cleanup action for the kind (the API cannot undo it): left in the run's namespace. */
  readonly left: readonly RecordedEntry[];
  readonly failed: readonly (RecordedEntry & { readonly error: string })[];
}

/** Records on behalf of one scenario. */
export interface ScenarioLedger {
  record(entry: LedgerEntry): void;
}

export class Ledger<C> {
  readonly #ns: Pick<Namespace, 'owns' | 'root'>;
  readonly #actions = new Map<string, CleanupAction<C>>();
  #entries: RecordedEntry[] = [];

  constructor(ns: Pick<Namespace, 'owns' | 'root'>, actions: Readonly<Record<string, CleanupAction<C>>> = {}) {
    this.#ns = ns;
    for (const [kind, action] of Object.entries(actions)) this.#actions.set(kind, action);
  }

  register(kind: string, action: CleanupAction<C>): void {
    this.#actions.set(kind, action);
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
  }

  forScenario(scenario: string): ScenarioLedger {
    return { record: (entry) => this.record(entry, scenario) };
  }

  entries(): readonly RecordedEntry[] {
    return [...this.#entries];
  }

  /** Undoes every recorded entry, newest first, and forgets them. Never throws. */
  async cleanup(client: C): Promise<CleanupReport> {
    const pending = this.#entries.reverse();
    this.#entries = [];
    const report = { undone: [] as RecordedEntry[], alreadyGone: [] as RecordedEntry[], left: [] as RecordedEntry[], failed: [] as (RecordedEntry & { error: string })[] };
    for (const recorded of pending) {
      const action = this.#actions.get(recorded.entry.kind);
      if (!action) {
        report.left.push(recorded);
        continue;
      }
      try {
        const result = await action(recorded.entry, client);
        if (!result || result.status === 200) report.undone.push(recorded);
        else if (result.status === 404) report.alreadyGone.push(recorded);
        else report.failed.push({ ...recorded, error: `answered ${result.status}: ${describeBody(result.body)}` });
      } catch (error) {
        report.failed.push({ ...recorded, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return report;
  }
}

function describeBody(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body) ?? '';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
