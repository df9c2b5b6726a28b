/**
 * Nights that survive an interruption (issue 27), the cheap version kept in `npm test`: the docs'
 * nightly command line (one area of it, `--only referrals`, for time) against one fake given by
 * URL, a night stopped by SIGTERM to its process group, the next one's runner SIGKILLed, then a
 * night that runs to its end. Every report is final and its leftovers are what the fake holds at
 * that moment; a killed runner's journal knows all it holds; the night after interrupted ones PASSES
 * and leaves nothing. nightly.full.test.ts runs the whole suite ten times, each stop followed by a
 * night that runs to its end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeServer, type FakeServer } from '../../fake-server/index.ts';
import { Journal } from '../framework/journal.ts';
import { recordsOf } from './fake-records.ts';
import { ciBlocks, conformanceLines, forTarget, outstanding, reuseJournal, runNight, type Night, type Stop } from './nightly-runs.ts';

let fake: FakeServer;
const dir = mkdtempSync(join(tmpdir(), 'conformance-nightly-'));
const stateDir = join(dir, 'reports', 'state');
const journal = reuseJournal(stateDir, 'nightly');

beforeAll(async () => {
  fake = await createFakeServer();
  // The state an earlier night left in the CI cache: an empty journal of the namespace (night 1, with none, is nightly.full.test.ts's).
  new Journal(journal, { reuse: 'nightly' });
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the fake holds, over both keys. */
const held = () => [...recordsOf(fake, fake.apiKey), ...recordsOf(fake, fake.otherTenantApiKey!)].sort();
const leftovers = (night: Night) => (night.report?.leftovers?.records ?? []).map(({ kind, id }) => `${kind} ${id}`).sort();

/** The docs' CI command line. */
const [line] = ciBlocks().flatMap((block) => conformanceLines(block.text));

function night(stop: Stop): Promise<Night> {
  return runNight(`${forTarget(line!, fake.url)} --only referrals`, { env: { API_KEY: fake.apiKey }, reportDir: join(dir, 'reports'), journal, stop });
}

describe('nightly runs of the docs’ command line, interrupted and not', () => {
  it('the docs give the CI command line in a ```yaml ci-nightly block', () => {
    expect(line).toMatch(/^npm run conformance -- .*--reuse-namespace nightly --baseline conformance-baseline\.json/);
  });

  it('a night stopped by SIGTERM to its process group writes final reports whose leftovers are what the fake holds', { timeout: 600_000 }, async () => {
    const stopped = await night({ kind: 'sigterm-group', afterMade: 40 });
    expect(stopped.stopped, stopped.console).toBe(true);
    expect(stopped.exitCode, stopped.console).not.toBe(0);
    expect(stopped.report?.run.interrupted?.cause).toBe('SIGTERM');
    expect(stopped.report?.leftovers?.checked).toBe(true);
    expect(leftovers(stopped)).toEqual(held());
    expect(stopped.files['summary.md']).toMatch(/^# Conformance: \w+\n\n> \*\*Interrupted\*\* \(SIGTERM after [\d.]+ s\): \d+ of \d+ scenario\(s\) ran/);
    expect(stopped.files['junit.xml']).toMatch(/<testcase classname="run" name="interrupted \(SIGTERM\)" [^>]*>\n\s*<error message="interrupted \(SIGTERM/);
  });

  // The night after the stopped one: its runner SIGKILLed in turn (two interrupted nights in a row), then one that runs to its end.
  it('the next night, its runner SIGKILLed, leaves a journal that knows all the fake holds, and the night after removes it and PASSES', { timeout: 600_000 }, async () => {
    const killed = await night({ kind: 'sigkill-runner', afterMade: 60 });
    expect(killed.stopped, killed.console).toBe(true);
    const left = held();
    expect(left.length).toBeGreaterThan(0);
    expect(outstanding(journal)).toEqual(expect.arrayContaining(left));

    const next = await night({ kind: 'none' });
    expect(next.exitCode, next.console.slice(-3000)).toBe(0);
    expect(next.report?.run.interrupted).toBeUndefined();
    expect(leftovers(next)).toEqual([]);
    expect(held()).toEqual([]);
    // What the killed night left, removed by this one before its scenarios.
    expect(next.report!.cleanup.reduce((sum, file) => sum + file.undone, 0)).toBeGreaterThanOrEqual(left.length);
  });
});
