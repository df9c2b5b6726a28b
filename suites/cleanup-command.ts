/**
 * `besi-conformance cleanup [--journal PATH | --namespace NAME]`: removes from a target by URL what
 * earlier runs left, as their journals (suites/framework/journal.ts) say, dependents first, with
 * the reference's deletes, and says what it could not remove and why.
 *
 * - `--journal PATH`: that journal (its file name names the namespace);
 * - `--namespace NAME`: the journal of reuse namespace NAME in the state directory; when none
 *   survives, the IDs the namespace makes are learnt from a run of the suite against the embedded
 *   fake under that name (a minute or so), each one's delete is tried (and a few counters past the
 *   last, for scenarios that make more with another seed), and the target's listings find the
 *   plans, features and entities (with their customers) of the namespace whatever their IDs;
 * - neither: every journal in the state directory.
 * Exit codes: 0 nothing stays, 1 records stay (listed), 2 the cleanup could not run.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorBody } from '../spec/common.ts';
import { operations } from '../spec/operations.ts';
import { loadConfig, type ConformanceConfig } from './framework/config.ts';
import { createClient } from './framework/client.ts';
import { EvidenceLog } from './framework/evidence.ts';
import { transportLimits } from './framework/guard.ts';
import { Journal, journalPath, journalsIn, rootOfJournal } from './framework/journal.ts';
import type { CleanupReport } from './framework/ledger.ts';
import { createNamespace, namespaceOfRoot } from './framework/namespace.ts';
import { preflight } from './framework/preflight.ts';
import { sweepJournal } from './framework/prepare.ts';
import { shownPath } from './report/write.ts';
import { learnIds } from './learn-ids.ts';
import { PREPARE } from './target-setup.ts';

export interface CleanupCommandOptions {
  readonly journal?: string;
  readonly namespace?: string;
  readonly baseUrl?: string;
  readonly apiVersion?: string;
  readonly profile?: string;
  readonly stateDir?: string;
  readonly allowLive?: boolean;
}

export class CleanupUsageError extends Error {
  override readonly name = 'CleanupUsageError';
}

export async function cleanupCommand(options: CleanupCommandOptions): Promise<number> {
  if (options.journal !== undefined && options.namespace !== undefined) throw new CleanupUsageError('give --journal or --namespace, not both');
  const config = configOf(options);
  if (config.baseUrl === undefined) throw new CleanupUsageError('cleanup removes what runs left on a target by URL: give --base-url (or BASE_URL) and API_KEY');
  const checked = await preflight(config, { allowLiveKey: options.allowLive === true });
  if (!checked.ok) {
    console.error(`cleanup: cannot run (${checked.kind}): ${checked.message}`);
    return 2;
  }
  const journals = await journalsOf(options, config);
  if (journals.length === 0) {
    console.log(`cleanup: no journal in ${shownPath(config.stateDir)}: nothing is known to remain`);
    return 0;
  }
  const client = createClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey!,
    apiVersion: config.apiVersion,
    timeoutMs: config.timeoutMs,
    operations,
    errorBody: ErrorBody,
    evidence: new EvidenceLog({ secrets: [config.apiKey!], capacity: 100 }),
    ...transportLimits(config, undefined, undefined),
  });
  let stays = 0;
  try {
    for (const { path, root } of journals) {
      console.log(`cleanup: ${shownPath(path)} (namespace ${root}): ${new Journal(path).outstanding().length} record(s) may remain`);
      const journal = new Journal(path);
      const report = await sweepJournal(client, namespaceOfRoot(root), journal, { plan: PREPARE });
      journal.compact();
      stays += report.left.length + report.failed.length;
      for (const line of reportLines(report)) console.log(line);
    }
  } finally {
    await client.close();
  }
  console.log(stays === 0 ? 'cleanup: nothing of these namespaces is left on the target' : `cleanup: ${stays} record(s) stay on the target (listed above), exit 1`);
  return stays === 0 ? 0 : 1;
}

/** The configuration with the command line's options over the environment's. */
function configOf(options: CleanupCommandOptions): ConformanceConfig {
  const env: Record<string, string | undefined> = { ...process.env };
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined) env[name] = value;
  };
  set('BASE_URL', options.baseUrl);
  set('API_VERSION', options.apiVersion);
  set('CONFORMANCE_PROFILE', options.profile);
  set('CONFORMANCE_STATE_DIR', options.stateDir);
  if (options.allowLive) env['CONFORMANCE_ALLOW_LIVE'] = '1';
  return loadConfig({ env });
}

async function journalsOf(options: CleanupCommandOptions, config: ConformanceConfig): Promise<{ path: string; root: string }[]> {
  if (options.journal !== undefined) {
    const path = resolve(options.journal);
    const root = rootOfJournal(path);
    if (root === undefined) throw new CleanupUsageError(`--journal: ${options.journal} is not named as a run journal (journal-<prefix>_<run>.jsonl), so its namespace is unknown`);
    if (!existsSync(path)) throw new CleanupUsageError(`--journal: ${options.journal} does not exist`);
    return [{ path, root }];
  }
  if (options.namespace !== undefined) {
    const { root } = createNamespace({ prefix: config.namespacePrefix, seed: 0, reuse: options.namespace });
    const path = journalPath(config.stateDir, root);
    if (!existsSync(path)) {
      new Journal(path, { reuse: options.namespace });
      await learnIds(options.namespace, path);
    }
    return [{ path, root }];
  }
  return journalsIn(config.stateDir);
}

/** What the sweep removed, and each record that stays with why. */
function reportLines(report: CleanupReport): string[] {
  const lines = [`cleanup: removed ${report.undone.length} record(s)${report.alreadyGone.length > 0 ? ` (${report.alreadyGone.length} already gone)` : ''}`];
  for (const { entry } of report.left) lines.push(`  stays: ${entry.kind} ${entry.id}: the target offers no removal for it${entry.kind === 'plan' ? ' (archived)' : ''}`);
  for (const { entry, error } of report.failed) lines.push(`  stays: ${entry.kind} ${entry.id}: ${error}`);
  return lines;
}
