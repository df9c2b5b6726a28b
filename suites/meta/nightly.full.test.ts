/**
 * Ten nights (issue 27's "done when"; `npm run test:full`, not `npm test`: about 20 minutes on a
 * loaded 2-core machine). One fake, given by URL, stands for shared staging; the docs' nightly
 * command line (the ```yaml ci-nightly block) runs ten times as written, in one report directory
 * whose state/ a CI cache would keep. Night 1 starts with no journal and no baseline file (it must
 * PASS and write JUnit); nights 2, 4, 6 and 8 are stopped at a random point (SIGTERM to the process
 * group, SIGKILL of the runner, the run's deadline: each at least once); the others run to their end.
 * - every night after an interrupted one PASSES;
 * - every report's leftovers are what the fake holds when the night ends (a SIGKILLed runner writes
 *   no report: then its journal knows everything the fake holds);
 * - after the last night, `besi-conformance cleanup --namespace nightly` leaves 0 records.
 * TEST_SEED picks the points (printed); each night's figures are printed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFakeServer, type FakeServer } from '../../fake-server/index.ts';
import { seededFaker } from '../../fixtures/factories.ts';
import { testSeed } from '../../fixtures/random.ts';
import { recordsOf } from './fake-records.ts';
import { ciBlocks, conformanceLines, forTarget, outstanding, reuseJournal, runNight, type Stop } from './nightly-runs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SEED = testSeed();
let fake: FakeServer;
const dir = mkdtempSync(join(tmpdir(), 'conformance-nights-'));
const reportDir = join(dir, 'reports');
const journal = reuseJournal(join(reportDir, 'state'), 'nightly');

beforeAll(async () => {
  fake = await createFakeServer();
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const held = () => [...recordsOf(fake, fake.apiKey), ...recordsOf(fake, fake.otherTenantApiKey!)].sort();

/** The stops of nights 2, 4, 6 and 8: each kind once, the fourth drawn, at random points. */
function stops(random: () => number): Stop[] {
  const at = (): Stop[] => [
    // A whole night makes about 1,500 records. Its deadline: a fraction (0.1–0.4) of the shortest whole night so far as
    // its report measures it (the deadline's own clock: not the process's start, nor the journal's sweep before the
    // scenarios), read as thousandths here and scaled when the night comes, so that it falls inside the run on a fast
    // machine or a slow one, and on a machine whose load changes by half between nights.
    { kind: 'sigterm-group', afterMade: 30 + Math.floor(random() * 900) },
    { kind: 'sigkill-runner', afterMade: 30 + Math.floor(random() * 900) },
    { kind: 'deadline', ms: 100 + Math.floor(random() * 300) },
  ];
  const kinds = at().sort(() => random() - 0.5);
  return [...kinds, at()[Math.floor(random() * 3)]!];
}

it(`ten nights of the docs' command line against one fake, four stopped at random points (seed ${SEED}), end with nothing of the namespace left`, { timeout: 60 * 60_000 }, async () => {
  const [block] = ciBlocks();
  const line = forTarget(conformanceLines(block!.text)[0]!, fake.url);
  expect(line).toMatch(/--reuse-namespace nightly --baseline conformance-baseline\.json/);
  // Night 1 has no baseline file yet: the command line must still run (as the docs' YAML is).
  expect(existsSync(join(ROOT, 'conformance-baseline.json'))).toBe(false);
  const faker = seededFaker(SEED, 'nights');
  const planned = stops(() => faker.number.float({ min: 0, max: 1 }));
  const figures: string[] = [];
  let previousInterrupted = false;
  let shortestWholeNightMs = Infinity;
  for (let night = 1; night <= 10; night++) {
    const drawn: Stop = night % 2 === 0 && night <= 8 ? planned[night / 2 - 1]! : { kind: 'none' };
    const stop: Stop = drawn.kind === 'deadline' ? { kind: 'deadline', ms: Math.round((drawn.ms / 1000) * shortestWholeNightMs) } : drawn;
    const result = await runNight(line, { env: { API_KEY: fake.apiKey }, reportDir, journal, stop });
    if (stop.kind === 'none') shortestWholeNightMs = Math.min(shortestWholeNightMs, result.report?.run.durationMs ?? result.ms);
    const now = held();
    const reported = result.report?.leftovers?.records.map(({ kind, id }) => `${kind} ${id}`).sort();
    const interrupted = result.stopped || result.report?.run.interrupted !== undefined;
    figures.push(
      `night ${night}: ${stop.kind}${'afterMade' in stop ? ` after ${stop.afterMade} made` : 'ms' in stop ? ` ${stop.ms} ms` : ''}${stop.kind !== 'none' && !result.stopped ? ' (ended first)' : ''}, ` +
        `exit ${result.exitCode}, ${(result.ms / 1000).toFixed(0)} s, target holds ${now.length}, report lists ${reported?.length ?? 'nothing (no final report)'}, journal says ${outstanding(journal).length} may remain`,
    );
    console.log(`nightly (seed ${SEED}): ${figures.at(-1)}`);
    if (stop.kind === 'sigkill-runner' && result.stopped) {
      // A SIGKILLed runner writes nothing more: its journal is what the next night reads.
      expect(outstanding(journal)).toEqual(expect.arrayContaining(now));
    } else {
      expect(result.files['junit.xml'], result.console.slice(-2000)).toMatch(/^<\?xml/);
      const why = result.report?.leftovers?.records.slice(0, 3).map((r) => `${r.kind} ${r.id}: ${r.error ?? 'left'}`).join('; ');
      expect(reported, `night ${night}: ${why ?? ''}\n${result.console.slice(-2000)}`).toEqual(now);
      expect(result.report?.leftovers?.checked).toBe(true);
    }
    if (stop.kind === 'none') {
      expect(result.exitCode, `night ${night} (after ${previousInterrupted ? 'an interrupted' : 'a complete'} night): ${result.console.slice(-3000)}`).toBe(0);
      expect(now).toEqual([]);
    } else {
      expect(result.stopped, `night ${night} ended before its ${stop.kind}: ${figures.at(-1)}`).toBe(true);
      expect(result.exitCode).not.toBe(0);
      if (stop.kind !== 'sigkill-runner') expect(result.files['summary.md']).toMatch(/^# Conformance: \w+\n\n> \*\*Interrupted\*\*/);
    }
    previousInterrupted = interrupted;
  }
  // Run as a person would, in the same place: the journal is in the report directory's state/.
  const cleanup = await runNight('node suites/cli.mjs cleanup --namespace nightly', { env: { BASE_URL: fake.url, API_KEY: fake.apiKey }, reportDir, journal, stop: { kind: 'none' } });
  console.log(`nightly (seed ${SEED}): cleanup exit ${cleanup.exitCode}: ${cleanup.console.trim().split('\n').at(-1)}`);
  expect(cleanup.exitCode, cleanup.console).toBe(0);
  expect(held()).toEqual([]);
  expect(readFileSync(journal, 'utf8')).toBe('{"reuse":"nightly"}\n');
  console.log(['nightly figures:', ...figures].join('\n  '));
});
