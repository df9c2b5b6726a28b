/**
 * How a target's answers feed its cleanup ledger, shared by the test files' targets (target.ts) and
 * the run's preparation in the main process (prepare.ts): what each operation's answer creates, the
 * recorder the root client carries (so `call` and `raw` alike are recorded, whatever a scenario's
 * scope adds), and the probes' cleanup, done once per run and reported by exactly one test file.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AnswerListener } from './client.ts';
import type { CleanupAction, CleanupReport, KindCleanup, LedgerEntry, LedgerOptions, ScenarioLedger } from './ledger.ts';
import type { Namespace } from './namespace.ts';

/**
 * The ledger entries a successful call creates, read from its answer (the authority: a reward's ID
 * is `feature_grant.id` there) and, where the answer does not say, its request. `response` is
 * undefined when only the request is known (a scenario's own recording).
 */
export type Creates = (request: never, response?: never) => LedgerEntry | readonly LedgerEntry[] | undefined;

/** What a suite tells the framework about cleaning up: how each kind goes, in which order, and what each operation creates. */
export interface CleanupPlan<C> {
  /** How each kind is cleaned up. */
  readonly cleanup: Readonly<Record<string, CleanupAction<C> | KindCleanup<C>>>;
  readonly order?: LedgerOptions['order'];
  readonly creates?: Readonly<Record<string, Creates>>;
}

/** Records in `ledger` what `operation` created, when the entry names an ID of the run's namespace. */
export function recordCreated(
  creates: Readonly<Record<string, Creates>>,
  ns: Pick<Namespace, 'owns'>,
  ledger: ScenarioLedger,
  operation: string,
  request: unknown,
  response?: unknown,
): void {
  const made = (creates[operation] as ((request: unknown, response?: unknown) => LedgerEntry | readonly LedgerEntry[] | undefined) | undefined)?.(request ?? {}, response);
  const entries: readonly LedgerEntry[] = made === undefined ? [] : Array.isArray(made) ? made : [made as LedgerEntry];
  for (const entry of entries) {
    if (typeof entry.id === 'string' && ns.owns(entry.id)) ledger.record(entry);
  }
}

/** The root client's listener: every 200 answer to an operation that creates is recorded at once, raw calls included. */
export function answerRecorder(creates: Readonly<Record<string, Creates>>, ns: Pick<Namespace, 'owns'>, ledger: ScenarioLedger): AnswerListener {
  return ({ operation, request, status, body }) => {
    if (status !== 200) return;
    const answer = typeof body === 'object' && body !== null ? body : undefined;
    recordCreated(creates, ns, ledger, operation, request, answer);
  };
}

/** Reads a field path of an object, or undefined. */
export function field(value: unknown, ...path: readonly string[]): unknown {
  let at = value;
  for (const key of path) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

/** The first of these values that is a non-empty string. */
export function idOf(...candidates: readonly unknown[]): string | undefined {
  return candidates.find((value): value is string => typeof value === 'string' && value !== '');
}

/** Keeps the cleanup of the run's capability probes until one test file claims it for its report. */
export function keepProbeCleanup(file: string, report: CleanupReport): void {
  writeFileSync(file, JSON.stringify(report));
}

/**
 * The probes' cleanup, for the first test file that asks (its report then carries it); undefined for
 * every other file, or when there is none. Removing the file is the claim: only one remover succeeds.
 */
export function claimProbeCleanup(file: string | undefined): CleanupReport | undefined {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    rmSync(file);
  } catch {
    return undefined;
  }
  return JSON.parse(text) as CleanupReport;
}

export function mergeCleanups(a: CleanupReport, b: CleanupReport | undefined): CleanupReport {
  if (b === undefined) return a;
  return { undone: [...a.undone, ...b.undone], alreadyGone: [...a.alreadyGone, ...b.alreadyGone], left: [...a.left, ...b.left], failed: [...a.failed, ...b.failed] };
}
