/**
 * The IDs a reuse namespace makes, learnt when no journal of it survives (a CI job whose cache was
 * lost): every run of a reuse namespace makes the same IDs whatever its seed, so a run of the suite
 * against the embedded fake under that name, journalling what it creates, names every record an
 * earlier run against the real target may have left. Used by a reuse run that finds no journal
 * (prepare.ts) and by `besi-conformance cleanup --namespace` (cleanup-command.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_COMMAND, PROJECT_ROOT } from './conformance-project.ts';
import { Journal, readJournal } from './framework/journal.ts';
import type { LedgerEntry } from './framework/ledger.ts';
import { LEARN_IDS } from './framework/run.ts';
import { shownPath } from './report/write.ts';

/** What the learning run must not take from this process: the target, its keys, the profile, and what vitest set here. */
const NOT_INHERITED = /^(BASE_URL|API_KEY|OTHER_TENANT_API_KEY|CONFORMANCE_PROFILE|CONFORMANCE_CONFIG|VITEST.*|NODE_ENV|TEST|MODE|DEV|PROD|SSR)$/;

/** Counters tried past the last one the learning run made, per scope and kind: a run with another seed may make a few more. */
const COUNTERS_PAST_LEARNT = 3;

/**
 * No journal of reuse namespace `name` survives: a run of the suite against the embedded fake
 * under that name journals every ID the namespace makes; each goes into `path` as an `intent`
 * (what the target may hold), with a few counters past the last of each scope and kind.
 */
export async function learnIds(name: string, path: string): Promise<void> {
  console.log(`conformance: no journal of namespace ${name} at ${shownPath(path)}: learning its IDs from a run of the suite against the embedded fake (a minute or so)`);
  const dir = mkdtempSync(join(tmpdir(), 'besi-learn-ids-'));
  try {
    const learnt = join(dir, 'journal.jsonl');
    // A run of its own against the embedded fake (default profile: every scenario), under the name only.
    const inherited = Object.entries(process.env).filter(([variable]) => !NOT_INHERITED.test(variable));
    const env = { ...Object.fromEntries(inherited), [LEARN_IDS]: learnt, CONFORMANCE_EXPLORE_RUNS: '0', CONFORMANCE_REUSE_NAMESPACE: name, REPORT_DIR: join(dir, 'reports'), CONFORMANCE_STATE_DIR: join(dir, 'state') };
    const code = await new Promise<number | null>((done) => {
      const child = spawn(process.execPath, [...CLI_COMMAND, 'run'], { cwd: PROJECT_ROOT, env, stdio: 'ignore' });
      child.on('close', done);
    });
    const records = readJournal(learnt).map((r) => r.entry);
    if (records.length === 0) throw new Error(`learning the IDs of namespace ${name}: the run against the embedded fake made no record (exit ${code})`);
    new Journal(path).write('intent', withCountersPast(records, COUNTERS_PAST_LEARNT));
    console.log(`conformance: learnt ${records.length} ID(s) of namespace ${name}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The records, and for each scope and kind of ID (`…_<kind>_<n>`) the next `extra` counters past the highest, as the same kind of record. */
export function withCountersPast(records: readonly LedgerEntry[], extra: number): LedgerEntry[] {
  const highest = new Map<string, { entry: LedgerEntry; stem: string; n: number }>();
  for (const entry of records) {
    const match = /^(.*_)(\d+)$/.exec(entry.id);
    if (match === null) continue;
    const [, stem, digits] = match as unknown as [string, string, string];
    const key = `${entry.kind}\u0000${stem}`;
    const n = Number(digits);
    if ((highest.get(key)?.n ?? 0) < n) highest.set(key, { entry, stem, n });
  }
  const more = [...highest.values()].flatMap(({ entry, stem, n }) => Array.from({ length: extra }, (_, i) => ({ ...entry, id: `${stem}${n + i + 1}` })));
  return [...records, ...more];
}

