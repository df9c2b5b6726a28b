/**
 * Printed commands reproduce what was seen (issue 27): against a faulty fake given by the
 * environment (BASE_URL and API_KEY, as the README tells vendors to run), each `re-run:` line of a
 * run's console and each `replay:` line of an exploration's, copied as printed (the key put where
 * the line says `API_KEY=…`) and run by bash in an environment that names no target, reproduces the
 * FAIL: exit 1. A finding's `--replay <file>` alone goes to the target it was found on.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeServer, type FakeServer } from '../../fake-server/index.ts';
import { childEnvironment } from './child-env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUN_FAULT = 'LIC-ATTACH-SKIP-ASSIGNED';
const EXPLORE_FAULT = 'CHECK-SEND-EVENT-RECORDS';
const dir = mkdtempSync(join(tmpdir(), 'conformance-printed-'));
let fake: FakeServer;

beforeAll(async () => {
  fake = await createFakeServer({ faults: [RUN_FAULT, EXPLORE_FAULT] });
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a command line as a person pastes it: bash, in the repository (the fake answers meanwhile: this process waits, never blocks). */
async function shell(line: string, env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  const child = spawn('bash', ['-c', line], { cwd: ROOT, env: { ...childEnvironment(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { status, output };
}

/** The printed line with the key where the placeholder is. */
const withKey = (line: string) => line.replaceAll('API_KEY=…', `API_KEY=${fake.apiKey}`);

describe('commands the suite prints, run as printed against the target given by the environment', () => {
  it('each re-run: line of a failing run reproduces its FAIL (exit 1)', { timeout: 20 * 60_000 }, async () => {
    const run = await shell(`node suites/cli.mjs run --only ${RUN_FAULT} --report-dir ${join(dir, 'run')}`, { BASE_URL: fake.url, API_KEY: fake.apiKey, CONFORMANCE_EXPLORE_RUNS: '0' });
    expect(run.status, run.output.slice(-3000)).toBe(1);
    const reruns = [...run.output.matchAll(/^ {4}re-run: (.*)$/gm)].map((m) => m[1]!);
    expect(reruns.length).toBeGreaterThan(0);
    expect(run.output).not.toContain(fake.apiKey);
    for (const line of reruns) {
      expect(line).toMatch(new RegExp(`^API_KEY=… node suites/cli.mjs run --base-url ${fake.url} --api-version 2\\.4\\.0 --profile default --only [A-Z-]+ --seed \\d+$`));
      const again = await shell(`${withKey(line)} --report-dir ${join(dir, 'rerun')}`, { CONFORMANCE_EXPLORE_RUNS: '0' });
      expect(again.status, again.output.slice(-3000)).toBe(1);
      expect(again.output).toMatch(new RegExp(`conformance: \\d+ scenarios against ${fake.url}`));
    }
  });

  it("each replay: line of an exploration's finding reproduces it (exit 1), and --replay <file> alone goes where it was found", { timeout: 20 * 60_000 }, async () => {
    const explored = await shell(`node suites/cli.mjs explore --runs 60 --max-steps 25 --max-findings 1 --shrink-runs 20 --seed 7 --report-dir ${join(dir, 'explore')}`, { BASE_URL: fake.url, API_KEY: fake.apiKey });
    expect(explored.status, explored.output.slice(-3000)).toBe(1);
    // It stopped at its one finding, and says so (not the run's deadline).
    expect(explored.output).toMatch(/^explore: stopped after 1 of 60 programs: 1 finding\(s\), as many as --max-findings allows$/m);
    const replays = [...explored.output.matchAll(/^ {2}replay: (.*)$/gm)].map((m) => m[1]!);
    expect(replays).toHaveLength(1);
    expect(replays[0]).toMatch(new RegExp(`^API_KEY=… node suites/cli.mjs explore --base-url ${fake.url} --api-version 2\\.4\\.0 --profile default --replay \\S+finding-1\\.json$`));
    const again = await shell(withKey(replays[0]!), {});
    expect(again.status, again.output.slice(-3000)).toBe(1);
    expect(again.output).toMatch(new RegExp(`against ${fake.url}`));
    const file = /--replay (\S+)$/.exec(replays[0]!)![1]!;
    const alone = await shell(`node suites/cli.mjs explore --replay ${file}`, { API_KEY: fake.apiKey });
    expect(alone.status, alone.output.slice(-3000)).toBe(1);
    expect(alone.output).toMatch(/explore: reproduced/);
  });
});
