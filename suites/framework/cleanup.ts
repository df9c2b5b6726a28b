/**
 * How a target's answers feed its cleanup ledger, shared by the test files' targets (target.ts) and
 * the run's preparation in the main process (prepare.ts): what each operation's answer creates, the
 * recorder the root client carries (so `call` and `raw` alike are recorded, whatever a scenario's
 * scope adds), and the probes' cleanup, done once per run and reported by exactly one test file.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SetupFailed } from './checks.ts';
import type { AnswerListener, SendListener } from './client.ts';
import type { HeaderOverrides } from './http.ts';
import type { Journal } from './journal.ts';
import { type CleanupAction, type CleanupReport, type KindCleanup, Ledger, type LedgerEntry, type LedgerOptions, type ScenarioLedger } from './ledger.ts';
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

/** The entries of the run's namespace that `operation` creates, read from its answer (when given) and request. */
export function createdBy(creates: Readonly<Record<string, Creates>>, ns: Pick<Namespace, 'owns'>, operation: string, request: unknown, response?: unknown): LedgerEntry[] {
  const made = (creates[operation] as ((request: unknown, response?: unknown) => LedgerEntry | readonly LedgerEntry[] | undefined) | undefined)?.(request ?? {}, response);
  const entries: readonly LedgerEntry[] = made === undefined ? [] : Array.isArray(made) ? made : [made as LedgerEntry];
  return entries.filter((entry) => typeof entry.id === 'string' && ns.owns(entry.id));
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
  for (const entry of createdBy(creates, ns, operation, request, response)) ledger.record(entry);
}

/**
 * The root client's listener: every 200 answer to an operation that creates is recorded at once, raw
 * calls included. Not a call made with another tenant's key (an exploration program's own tenant,
 * deleted whole): the run's cleanup, with the run's key, would only find it gone, a call each.
 */
export function answerRecorder(creates: Readonly<Record<string, Creates>>, ns: Pick<Namespace, 'owns'>, ledger: ScenarioLedger, apiKey: string | undefined): AnswerListener {
  return ({ operation, request, status, body, headers }) => {
    if (status !== 200 || (apiKey !== undefined && !withOwnKey(headers, apiKey))) return;
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

/** What a run tells its test files about its journal (RunInfo.journal; prepare.ts decides it). */
export interface JournalInfo {
  readonly path: string;
  /**
   * Records earlier runs of this reuse namespace left that the run could not remove before it
   * started: each is tried again when this run first makes its ID, and the create is not sent
   * (the scenario BLOCKED by the suite's leftover) if it is still there.
   */
  readonly present?: readonly LedgerEntry[];
}

/** Whether a request is sent with the run's own key (no override, or an override carrying it): another key is another tenant. */
function withOwnKey(headers: HeaderOverrides | undefined, apiKey: string): boolean {
  const authorization = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization');
  return authorization === undefined || (authorization[1] ?? '').includes(apiKey);
}

/** Per journal, the IDs this process has claimed: the removal of an earlier run's record, if any, each made once. */
const claims = new Map<string, Map<string, Promise<void>>>();

/**
 * The client listeners that keep the journal: before a request that may create a record of the
 * namespace is sent, its IDs are claimed (an earlier run's record still under the same ID removed
 * first, see JournalInfo) and written down as `intent`; a refusal is written down as `refused` (a 200 is
 * the ledger's to record as `made`). Requests with another tenant's key create nothing of this run's.
 */
export function journalHooks<C>(
  info: JournalInfo,
  journal: Journal,
  options: { readonly creates: Readonly<Record<string, Creates>>; readonly ns: Pick<Namespace, 'owns' | 'root'>; readonly apiKey: string; readonly plan: CleanupPlan<C>; readonly unserved?: ReadonlySet<string>; readonly client: () => C },
): { readonly onSend: SendListener; readonly onAnswer: AnswerListener } {
  const present = new Set((info.present ?? []).map(keyOf));
  const claimed = claims.get(info.path) ?? new Map<string, Promise<void>>();
  claims.set(info.path, claimed);
  const claim = (entry: LedgerEntry): Promise<void> => {
    const key = keyOf(entry);
    let done = claimed.get(key);
    if (done === undefined) {
      done = present.has(key) ? removeEarlier(entry) : Promise.resolve();
      claimed.set(key, done);
    }
    return done;
  };
  const removeEarlier = async (entry: LedgerEntry): Promise<void> => {
    const ledger = new Ledger<C>(options.ns, options.plan.cleanup, { order: options.plan.order ?? [], ...(options.unserved ? { unserved: options.unserved } : {}), journal });
    ledger.record(entry);
    const report = await ledger.cleanup(options.client());
    const stays = [...report.left.map((r) => ({ ...r, error: 'the target offers no removal for it' })), ...report.failed][0];
    if (stays !== undefined) {
      throw new SetupFailed(
        'suite leftover',
        `${entry.kind} ${entry.id} is left on the target by an earlier run of this namespace and could not be removed (${stays.error}): the suite's own leftover, so the create that would meet it is not sent`,
      );
    }
  };
  return {
    onSend: async ({ operation, request, headers }) => {
      if (!withOwnKey(headers, options.apiKey)) return;
      const entries = createdBy(options.creates, options.ns, operation, request);
      if (entries.length === 0) return;
      await Promise.all(entries.map(claim));
      journal.write('intent', entries);
    },
    onAnswer: ({ operation, request, status }) => {
      if (status !== 200) journal.write('refused', createdBy(options.creates, options.ns, operation, request), `answered ${status}`);
    },
  };
}

function keyOf(entry: Pick<LedgerEntry, 'kind' | 'id'>): string {
  return `${entry.kind}\u0000${entry.id}`;
}
