/**
 * The run journal: every record a run against a target by URL creates, or may have created, written
 * down on disk before the request is sent, so what a killed run left is known to the next run and to
 * `besi-conformance cleanup`, whatever killed it (SIGKILL included: each line is one append).
 *
 * One JSON line per change of a record's state, the last line of a record deciding:
 * - `intent`: a request that creates it is about to be sent (a timeout or a cut-off leaves it so);
 * - `made`: an answer (or a listing) shows it exists;
 * - `refused`: the create was answered with a refusal (most targets then hold nothing, but the
 *   reference keeps a plan whose create it refused, so this is checked, not trusted);
 * - `removed`: a delete removed it, or a read showed it gone;
 * - `left`: it stays, the target offering no removal (a plan archived instead);
 * - `failed`: its removal was refused or failed.
 * Every state but `removed` is a record the target may still hold.
 *
 * The journal lives in the state directory (`stateDir`: the profile's, CONFORMANCE_STATE_DIR, or
 * `<report dir>/state`), one file per namespace: `journal-<prefix>_<run>.jsonl`. A reuse namespace
 * has the same file every run, which is what lets a run remove what the one before it left.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomically } from '../report/write.ts';
import type { LedgerEntry } from './ledger.ts';

export const JOURNAL_STATES = ['intent', 'made', 'refused', 'removed', 'left', 'failed'] as const;
export type JournalState = (typeof JOURNAL_STATES)[number];

/** A record and what the journal last said of it. */
export interface JournalRecord {
  readonly entry: LedgerEntry;
  readonly state: JournalState;
  /** Why its removal failed (`failed`), or the refusal's status (`refused`). */
  readonly note?: string;
}

interface Line {
  readonly s: JournalState;
  readonly kind: string;
  readonly id: string;
  /** Parent IDs (`customer_id` of an entity), when known. */
  readonly p?: Readonly<Record<string, string>>;
  readonly note?: string;
}

const FILE = /^journal-([A-Za-z0-9]+_[a-z0-9]{6})\.jsonl$/;

/** The journal file of a namespace (`<prefix>_<run>`) in a state directory. */
export function journalPath(stateDir: string, root: string): string {
  return join(stateDir, `journal-${root}.jsonl`);
}

/** Every journal in a state directory, with its namespace root. */
export function journalsIn(stateDir: string): { readonly path: string; readonly root: string }[] {
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir).flatMap((name) => {
    const root = FILE.exec(name)?.[1];
    return root === undefined ? [] : [{ path: join(stateDir, name), root }];
  });
}

/** The namespace root a journal file is for, from its name. */
export function rootOfJournal(path: string): string | undefined {
  return FILE.exec(path.split(/[\\/]/).at(-1) ?? '')?.[1];
}

export class Journal {
  readonly path: string;

  /** `reuse`: the journal of that reuse namespace, said so in its first line (kept, even empty, by `compact`). */
  constructor(path: string, options: { readonly reuse?: string | undefined } = {}) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    if (options.reuse !== undefined && !existsSync(path)) appendFileSync(path, `${JSON.stringify({ reuse: options.reuse })}\n`);
    // A line a killed run cut short must not swallow the next one.
    else if (existsSync(path) && !/(^|\n)$/.test(readFileSync(path, 'utf8').slice(-1))) appendFileSync(path, '\n');
  }

  /** The reuse namespace the journal is of, from its first line; undefined for a run's own namespace. */
  reuse(): string | undefined {
    if (!existsSync(this.path)) return undefined;
    const first = readFileSync(this.path, 'utf8').split('\n', 1)[0] ?? '';
    try {
      const name = (JSON.parse(first) as { reuse?: unknown }).reuse;
      return typeof name === 'string' ? name : undefined;
    } catch {
      return undefined;
    }
  }

  /** Appends one state change per record, in one write. */
  write(state: JournalState, entries: readonly LedgerEntry[], note?: string): void {
    if (entries.length === 0) return;
    const lines = entries.map((entry) => JSON.stringify(lineOf(state, entry, note)));
    appendFileSync(this.path, `${lines.join('\n')}\n`);
  }

  /** Each record once, as the journal last said it; a line cut short by a kill is skipped. */
  records(): JournalRecord[] {
    return readJournal(this.path);
  }

  /** The records the target may still hold: every one not `removed`. */
  outstanding(): JournalRecord[] {
    return this.records().filter((r) => r.state !== 'removed');
  }

  /**
   * Rewrites the journal with only what may remain (one line each), so it does not grow night after
   * night. When nothing may, the file is removed, unless it is a reuse namespace's (an empty journal
   * still tells the next run that nothing of the name is left). Only while nothing else writes to it.
   */
  compact(): void {
    const reuse = this.reuse();
    const outstanding = this.outstanding();
    if (outstanding.length === 0 && reuse === undefined) {
      rmSync(this.path, { force: true });
      return;
    }
    const header = reuse === undefined ? '' : `${JSON.stringify({ reuse })}\n`;
    writeAtomically(this.path, header + outstanding.map((r) => `${JSON.stringify(lineOf(r.state, r.entry, r.note))}\n`).join(''));
  }
}

function lineOf(state: JournalState, entry: LedgerEntry, note: string | undefined): Line {
  const { kind, id, ...parents } = entry;
  return { s: state, kind, id, ...(Object.keys(parents).length > 0 ? { p: parents } : {}), ...(note === undefined ? {} : { note }) };
}

export function readJournal(path: string): JournalRecord[] {
  if (!existsSync(path)) return [];
  const byKey = new Map<string, JournalRecord>();
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    const line = parseLine(text);
    if (line === undefined) continue;
    const key = `${line.kind}\u0000${line.id}`;
    const before = byKey.get(key);
    // Parents are learnt once (an entity's customer): a later line without them keeps them.
    const entry: LedgerEntry = { ...before?.entry, ...line.p, kind: line.kind, id: line.id };
    byKey.delete(key);
    byKey.set(key, { entry, state: line.s, ...(line.note === undefined ? {} : { note: line.note }) });
  }
  return [...byKey.values()];
}

function parseLine(text: string): Line | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const line = value as Partial<Line>;
  if (typeof line.kind !== 'string' || typeof line.id !== 'string' || !(JOURNAL_STATES as readonly unknown[]).includes(line.s)) return undefined;
  return line as Line;
}
