/**
 * Measures certification as a vendor meets it: for each fault of fake-server/faults/, a fake started
 * with that fault alone (`besi-fake --fault <rule>`, its own process) is certified by URL with
 * `npm run conformance`'s defaults (scenarios and the exploration beside them), and the run's report
 * says whether the fault's own rule FAILs, which other rules FAIL (those the precision meta-test
 * declares dependent on it, suites/meta/precision.ts, are the same bug seen from another rule), and
 * under which rules the exploration's findings fall. With `--clean`, the clean fake first: every rule
 * must PASS.
 *
 *   npx tsx suites/meta/fault-runs.ts [--faults A,B | --sample <n> | --shard <i>/<n>] [--clean]
 *       [--seed 424242] [--out <results.jsonl>] [--summary <results.jsonl…>]
 *
 * Results are appended to `--out` as they come (a fault already there is not run again, so a long
 * sweep resumes); `--summary` prints the figures of result files without running anything.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FAULTS } from '../../fake-server/faults/index.ts';
import { CLI_COMMAND } from '../conformance-project.ts';
import { expectedFailures } from './precision.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface FaultRun {
  /** The fault's rule, or `clean`. */
  readonly fault: string;
  readonly exitCode: number | null;
  readonly seconds: number;
  /** Rules that FAIL in the run's report. */
  readonly fail: readonly string[];
  /** Rules of the exploration's findings (explore/explore.json), and how each was named. */
  readonly explored: readonly { readonly rule: string; readonly named?: string }[];
  readonly programs?: number;
}

/** Starts the fake CLI with `faults` on a free port; resolves with its URL and keys once it is ready. */
function startFake(faults: readonly string[]): Promise<{ url: string; keys: { key: string; env: string }[]; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'fake-server/cli.ts'), '--port', '0', '--ready-json', ...faults.flatMap((f) => ['--fault', f])], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      const ready = JSON.parse(line) as { url: string; keys: { key: string; env: string }[] };
      resolve({ ...ready, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`the fake exited (${code}) before it was ready`)));
  });
}

/** `npm run conformance` (the CLI's `run`, defaults) against `baseUrl`; the FAIL rules of its report and the exploration's findings. */
function certify(fault: string, baseUrl: string, keys: { key: string; env: string }[], seed: number): Promise<FaultRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'fault-run-'));
  const sandbox = keys.find((k) => k.env === 'sandbox')!.key;
  const live = keys.find((k) => k.env === 'live')?.key;
  const started = performance.now();
  const child = spawn(process.execPath, [...CLI_COMMAND, 'run', '--base-url', baseUrl, '--report-dir', reportDir, '--seed', String(seed)], {
    cwd: ROOT,
    env: { ...process.env, API_KEY: sandbox, ...(live ? { OTHER_TENANT_API_KEY: live } : {}), CI: 'true' },
    stdio: 'ignore',
  });
  return new Promise((resolve) => {
    child.once('exit', (exitCode) => {
      const read = <T>(file: string): T | undefined => (existsSync(join(reportDir, file)) ? (JSON.parse(readFileSync(join(reportDir, file), 'utf8')) as T) : undefined);
      const report = read<{ rules: Record<string, { status: string }> }>('report.json');
      const explored = read<{ programs: number; findings: { rule: string; named?: string }[] }>('explore/explore.json');
      rmSync(reportDir, { recursive: true, force: true });
      resolve({
        fault,
        exitCode,
        seconds: (performance.now() - started) / 1000,
        fail: Object.entries(report?.rules ?? {}).flatMap(([rule, r]) => (r.status === 'FAIL' ? [rule] : [])),
        explored: explored?.findings ?? [],
        ...(explored ? { programs: explored.programs } : {}),
      });
    });
  });
}

async function runOne(fault: string, seed: number): Promise<FaultRun> {
  const fake = await startFake(fault === 'clean' ? [] : [fault]);
  try {
    return await certify(fault, fake.url, fake.keys, seed);
  } finally {
    fake.stop();
  }
}

/** The figures of a set of runs: own rule FAIL, exploration's findings named as the scenarios name the fault. */
export function summarise(runs: readonly FaultRun[]): string[] {
  const clean = runs.find((r) => r.fault === 'clean');
  const faulted = runs.filter((r) => r.fault !== 'clean');
  const own = faulted.filter((r) => r.fail.includes(r.fault));
  const beyond = faulted.filter((r) => r.fail.some((rule) => !expectedFailures(r.fault).includes(rule)));
  const explored = faulted.filter((r) => r.explored.length > 0);
  const namedOwn = explored.filter((r) => r.explored.every((f) => f.rule === r.fault));
  const namedExpected = explored.filter((r) => r.explored.every((f) => expectedFailures(r.fault).includes(f.rule)));
  const pct = (n: number, of: number) => (of === 0 ? '—' : `${((100 * n) / of).toFixed(1)}%`);
  return [
    ...(clean ? [`clean fake: ${clean.fail.length === 0 ? 'every rule PASS' : `FAIL ${clean.fail.join(', ')}`} (exit ${clean.exitCode}, ${clean.seconds.toFixed(0)} s, ${clean.programs ?? 0} programs explored)`] : []),
    `faults: the run FAILs the fault's own rule for ${own.length} of ${faulted.length} (${pct(own.length, faulted.length)})`,
    `faults: a rule beyond the fault's own (and its declared dependents) FAILs for ${beyond.length}: ${beyond.map((r) => `${r.fault} (${r.fail.filter((rule) => !expectedFailures(r.fault).includes(rule)).join(', ')})`).join('; ') || 'none'}`,
    `exploration: findings in ${explored.length} runs; every finding under the fault's own rule in ${namedOwn.length} (${pct(namedOwn.length, explored.length)}), under it or a declared dependent in ${namedExpected.length} (${pct(namedExpected.length, explored.length)})`,
    ...faulted.filter((r) => !r.fail.includes(r.fault)).map((r) => `  own rule not FAILed: ${r.fault} (FAIL: ${r.fail.join(', ') || 'none'}; exit ${r.exitCode})`),
  ];
}

function readRuns(files: readonly string[]): FaultRun[] {
  return files.flatMap((file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as FaultRun) : []));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      faults: { type: 'string' },
      sample: { type: 'string' },
      shard: { type: 'string' },
      clean: { type: 'boolean', default: false },
      seed: { type: 'string', default: '424242' },
      out: { type: 'string', default: join(tmpdir(), 'fault-runs.jsonl') },
      summary: { type: 'string', multiple: true },
    },
  });
  if (values.summary) return void console.log(summarise(readRuns(values.summary)).join('\n'));
  const all = [...FAULTS.keys()];
  let faults = values.faults ? values.faults.split(',') : all;
  if (values.sample) faults = faults.filter((_, i) => i % Math.max(1, Math.floor(all.length / Number(values.sample))) === 0).slice(0, Number(values.sample));
  if (values.shard) {
    const [i, n] = values.shard.split('/').map(Number) as [number, number];
    faults = faults.filter((_, k) => k % n === i - 1);
  }
  const done = new Set(readRuns([values.out]).map((r) => r.fault));
  const todo = [...(values.clean ? ['clean'] : []), ...faults].filter((f) => !done.has(f));
  console.log(`fault-runs: ${todo.length} run(s) (${done.size} already in ${values.out}), seed ${values.seed}`);
  for (const fault of todo) {
    const run = await runOne(fault, Number(values.seed));
    appendFileSync(values.out, `${JSON.stringify(run)}\n`);
    console.log(`${fault}: ${run.fail.includes(fault) ? 'own rule FAILs' : fault === 'clean' ? `FAIL ${run.fail.length}` : 'own rule NOT failed'}; FAIL ${run.fail.join(', ') || 'none'}; explored ${run.explored.map((f) => f.rule).join(', ') || 'nothing'} (${run.seconds.toFixed(0)} s)`);
  }
  console.log(summarise(readRuns([values.out])).join('\n'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
