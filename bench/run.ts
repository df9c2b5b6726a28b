/**
 * `npm run bench [-- options]`: measures the fake side by side with a bare node:http server (the
 * floor) and a stateless Prism mock of spec/openapi.json, writes reports/bench.json and prints a
 * table. Every figure is the median and spread of several runs; the servers, the load generator and
 * each in-process measurement run in processes of their own.
 *
 *   --runs <n>          runs per figure (default 3)
 *   --seconds <n>       seconds of load per run (default 3)
 *   --connections <n>   keep-alive connections of the load (default 10)
 *   --starts <n>        cold starts measured (default 10)
 *   --customers <n>     customers of the scale figure; 10 entities each and a subscription per
 *                       customer and per entity but one (default 100000: 1M entities, 1M subscriptions)
 *   --only <parts>      comma-separated subset of http,inprocess,coldstart,clock,scale,conformance,latency
 *   --delay <ms>        latency: added to every chunk each way by the proxy (default 25: a 50 ms round trip)
 *   --concurrency <ns>  latency: one suite run per value, `default` the suite's own (default 1,default: sequential, and the suite's default)
 *   --workloads <names> comma-separated subset of the HTTP workloads (bench/workloads.ts)
 *   --no-prism          leave the Prism mock out
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { InProcessResult } from './in-process.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { cpuSeconds, freePort, rssMiB, type Started, startPolling, startPrintingUrl } from './processes.ts';
import { type ClockAdvanceResult, medianClockAdvance } from './clock-advance.ts';
import { type ColdStartPair, coldStartLines, measureColdStart } from './cold-start.ts';
import { type Machine, machine, machineLine } from './machine.ts';
import type { ScaleResult } from './scale.ts';
import { formatSpread, type Spread, spread } from './stats.ts';
import { HEADERS, sender, setUpFake, workload, WORKLOADS } from './workloads.ts';
import { latencyLines, latencyTargets, measureLatency, type LatencyResult } from './latency.ts';

const ROOT = join(import.meta.dirname, '..');
const TSX = ['--import', 'tsx'];
const PARTS = ['http', 'inprocess', 'coldstart', 'clock', 'scale', 'conformance', 'latency'] as const;
type Part = (typeof PARTS)[number];

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    starts: { type: 'string', default: '10' },
    customers: { type: 'string', default: '100000' },
    only: { type: 'string', default: PARTS.join(',') },
    'no-prism': { type: 'boolean', default: false },
    workloads: { type: 'string', default: WORKLOADS.map((w) => w.name).join(',') },
    delay: { type: 'string', default: '25' },
    concurrency: { type: 'string', default: '1,default' },
  },
  strict: true,
});

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} takes a positive integer, not ${raw}`);
  return value;
}

const options = {
  runs: positive('runs', args.runs),
  seconds: positive('seconds', args.seconds),
  connections: positive('connections', args.connections),
  starts: positive('starts', args.starts),
  customers: positive('customers', args.customers),
  prism: !args['no-prism'],
  workloads: args.workloads.split(',').map((name) => workload(name).name),
  latency: { delayMs: positive('delay', args.delay), concurrency: args.concurrency.split(',').map((n) => (n === 'default' ? ('default' as const) : positive('concurrency', n))) },
};
const parts = new Set(
  args.only.split(',').map((part) => {
    if (!(PARTS as readonly string[]).includes(part)) throw new Error(`--only takes ${PARTS.join(',')}, not ${part}`);
    return part as Part;
  }),
);

function packageJson(): { scripts: Record<string, string>; bin?: Record<string, string> } {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin?: Record<string, string> };
}

/** Whether this run built dist/ (set once, before any server starts). */
let built = false;

/** The fake's CLI as a user starts it: the package's compiled bin when this run built it, else through tsx. */
function fakeCli(): { command: string; args: string[]; label: string } {
  for (const compiled of built ? [packageJson().bin?.['besi-fake'], 'dist/fake-server/cli.js'] : []) {
    if (compiled !== undefined && existsSync(join(ROOT, compiled))) return { command: process.execPath, args: [join(ROOT, compiled)], label: `node ${compiled.replace(/^\.\//, '')}` };
  }
  return { command: process.execPath, args: [...TSX, join(ROOT, 'fake-server/cli.ts')], label: 'node --import tsx fake-server/cli.ts (no build)' };
}

/** Builds dist/ first when the project has a build script, so the compiled CLI is what is measured; a failed build leaves the tsx CLI, as labelled. */
function buildIfPossible(): boolean {
  if (packageJson().scripts['build'] === undefined) return false;
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) console.error('bench: npm run build failed; the fake is measured through tsx');
  return result.status === 0;
}

function startFake(): Promise<Started> {
  const cli = fakeCli();
  return startPrintingUrl(cli.command, [...cli.args, '--port', '0']);
}

function startFloor(sizes: Record<string, number> = {}): Promise<Started> {
  return startPrintingUrl(process.execPath, [join(ROOT, 'bench/floor.mjs'), JSON.stringify(sizes)]);
}

async function startPrism(): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const bin = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');
  return startPolling(process.execPath, [bin, 'mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'warn', join(ROOT, 'spec/openapi.json')], url, async () => {
    const response = await fetch(`${url}/v1/features.list`, { method: 'POST', headers: HEADERS, body: '{}' });
    await response.arrayBuffer();
    return response.status < 500;
  });
}

/** The forked load generator; one job at a time. */
function loadGenerator() {
  const child = fork(join(ROOT, 'bench/load.ts'), [], { execArgv: TSX, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    run: (job: LoadJob) =>
      new Promise<LoadResult>((resolve, reject) => {
        child.once('message', (reply: { ok: true; result: LoadResult } | { ok: false; message: string }) => (reply.ok ? resolve(reply.result) : reject(new Error(reply.message))));
        child.send(job);
      }),
    stop: () => child.kill('SIGTERM'),
  };
}

interface TargetFigures {
  readonly rps: Spread;
  readonly p50: Spread;
  readonly p99: Spread;
  /** The server process's CPU time (user and system) per answer, in microseconds. */
  readonly cpuPerAnswer: Spread;
  readonly failures: number;
}

/** One load run against one server, with the CPU time the server spent on it. */
interface Measured extends LoadResult {
  readonly cpuPerAnswer: number;
}

function figuresOf(results: readonly Measured[]): TargetFigures {
  return {
    rps: spread(results.map((r) => r.rps)),
    p50: spread(results.map((r) => r.p50)),
    p99: spread(results.map((r) => r.p99)),
    cpuPerAnswer: spread(results.map((r) => r.cpuPerAnswer)),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
  };
}

interface HttpFigure {
  readonly workload: string;
  readonly bytes: number;
  readonly fake: TargetFigures;
  readonly floor: TargetFigures;
  readonly prism: TargetFigures | null;
  /** The fake's throughput and p99 over the floor's, run by run. */
  readonly rpsVsFloor: Spread;
  readonly p99VsFloor: Spread;
  /**
   * The floor's CPU time per answer over the fake's, run by run: the throughput ratio the two would
   * have with a core each to themselves, which load from other processes barely moves.
   */
  readonly cpuVsFloor: Spread;
  readonly rpsVsPrism: Spread | null;
}

async function measureHttp(): Promise<{ figures: HttpFigure[]; rss: { idle: number; afterSetup: number; afterLoad: number } }> {
  const fake = await startFake();
  const load = loadGenerator();
  let floor: Started | undefined;
  let prism: Started | undefined;
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = rssMiB(fake.child.pid!);
    const send = sender(fake.url);
    await setUpFake(send);
    const afterSetup = rssMiB(fake.child.pid!);
    // The floor answers each path with as many bytes as the fake does.
    const sizes: Record<string, number> = {};
    const bytes: Record<string, number> = {};
    for (const workload of WORKLOADS) {
      let total = 0;
      for (const request of workload.sequence(0)) {
        const { status, text } = await send(request.path, request.body);
        if (status !== 200) throw new Error(`${workload.name}: ${request.path} answered ${status}: ${text}`);
        sizes[request.path] = Buffer.byteLength(text);
        total += Buffer.byteLength(text);
      }
      bytes[workload.name] = total;
    }
    floor = await startFloor(sizes);
    if (options.prism) prism = await startPrism();
    const targets = [
      { name: 'floor', url: floor.url, pid: floor.child.pid! },
      { name: 'fake', url: fake.url, pid: fake.child.pid! },
      ...(prism ? [{ name: 'prism', url: prism.url, pid: prism.child.pid! }] : []),
    ];
    const measure = async (target: (typeof targets)[number], job: LoadJob): Promise<Measured> => {
      const cpuBefore = cpuSeconds(target.pid);
      const result = await load.run(job);
      return { ...result, cpuPerAnswer: ((cpuSeconds(target.pid) - cpuBefore) * 1e6) / Math.max(1, result.answers) };
    };
    const figures: HttpFigure[] = [];
    for (const workload of WORKLOADS.filter((w) => options.workloads.includes(w.name))) {
      const job = { workload: workload.name, connections: options.connections };
      // A short warm-up lets each server's JIT settle before the runs that count.
      for (const target of targets) await load.run({ ...job, url: target.url, seconds: 1 });
      const results: Record<string, Measured[]> = { floor: [], fake: [], prism: [] };
      for (let run = 0; run < options.runs; run++) {
        for (const target of targets) results[target.name]!.push(await measure(target, { ...job, url: target.url, seconds: options.seconds }));
      }
      const ratio = (of: Measured[], to: Measured[], pick: (r: Measured) => number) => spread(of.map((r, i) => pick(r) / pick(to[i]!)));
      const figure: HttpFigure = {
        workload: workload.name,
        bytes: bytes[workload.name]!,
        fake: figuresOf(results['fake']!),
        floor: figuresOf(results['floor']!),
        prism: prism ? figuresOf(results['prism']!) : null,
        rpsVsFloor: ratio(results['fake']!, results['floor']!, (r) => r.rps),
        p99VsFloor: ratio(results['fake']!, results['floor']!, (r) => Math.max(r.p99, 1)),
        cpuVsFloor: ratio(results['floor']!, results['fake']!, (r) => r.cpuPerAnswer),
        rpsVsPrism: prism ? ratio(results['fake']!, results['prism']!, (r) => r.rps) : null,
      };
      figures.push(figure);
      console.error(`bench: ${workload.name}: fake ${formatSpread(figure.fake.rps)} req/s, ${formatSpread(figure.rpsVsFloor, 2)} of the floor (CPU per answer: ${formatSpread(figure.cpuVsFloor, 2)})`);
    }
    return { figures, rss: { idle, afterSetup, afterLoad: rssMiB(fake.child.pid!) } };
  } finally {
    load.stop();
    await Promise.all([fake.stop(), floor?.stop(), prism?.stop()]);
  }
}

/** Runs a bench module in a child process of its own and reads the JSON it prints last. */
function runChild<T>(module: string, childArgs: readonly string[], nodeOptions: readonly string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeOptions, ...TSX, join(ROOT, module), ...childArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${module} exited with ${code}`));
      resolve(JSON.parse(output.trim().split('\n').at(-1)!) as T);
    });
  });
}

async function measureInProcess(): Promise<{ rps: Spread; p50: Spread; p99: Spread }> {
  const results: InProcessResult[] = [];
  for (let run = 0; run < options.runs; run++) {
    results.push(await runChild<InProcessResult>('bench/in-process.ts', [String(options.seconds), String(options.connections)]));
  }
  return { rps: spread(results.map((r) => r.rps)), p50: spread(results.map((r) => r.p50)), p99: spread(results.map((r) => r.p99)) };
}

async function measureConformance(): Promise<{ seconds: Spread; exitCodes: number[] }> {
  const seconds: number[] = [];
  const exitCodes: number[] = [];
  for (let run = 0; run < options.runs; run++) {
    const started = performance.now();
    const result = spawnSync('npm', ['run', '--silent', 'conformance'], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, CI: 'true' } });
    seconds.push((performance.now() - started) / 1000);
    exitCodes.push(result.status ?? -1);
  }
  return { seconds: spread(seconds), exitCodes };
}

interface Target {
  readonly figure: string;
  readonly value: string;
  readonly target: string;
  readonly met: boolean;
}

function targetsOf(report: BenchReport): Target[] {
  const targets: Target[] = [];
  const add = (figure: string, value: number, digits: number, target: string, met: boolean) =>
    targets.push({ figure, value: value.toFixed(digits), target, met });
  for (const figure of report.http ?? []) {
    const isCheck = figure.workload === 'balances.check';
    add(`${figure.workload}: throughput vs floor`, figure.rpsVsFloor.median, 2, isCheck ? '≥ 0.80' : '≥ 0.50', figure.rpsVsFloor.median >= (isCheck ? 0.8 : 0.5));
    if (isCheck) add(`${figure.workload}: p99 vs floor`, figure.p99VsFloor.median, 2, '≤ 2.00', figure.p99VsFloor.median <= 2);
  }
  for (const pair of report.coldStart ?? []) add(`cold start, ${pair.fake}${pair.installed ? " (installed)" : ""} over ${pair.floor}`, pair.ratio.median, 2, '≤ 2.00', pair.ratio.median <= 2);
  if (report.rss) add('RSS idle (MiB)', report.rss.idle, 0, '≤ 80', report.rss.idle <= 80);
  if (report.clockAdvance) add(`clock.advance, a year of minute resets for ${report.clockAdvance.customers.toLocaleString('en-US')} customers (ms)`, report.clockAdvance.ms, 1, '< 1000', report.clockAdvance.ms < 1000);
  if (report.scale) {
    // The memory target is set for a million of each; a smaller --customers run only reports the figure.
    if (report.scale.subscriptions >= 1_000_000) add(`RSS with ${report.scale.subscriptions.toLocaleString('en-US')} subscriptions + ${report.scale.entities.toLocaleString('en-US')} entities (MiB)`, report.scale.rssMiB, 0, '≤ 1536', report.scale.rssMiB <= 1536);
    for (const page of report.scale.pages) add(`${page.operation}: deep page vs first page`, page.deepVsFirst, 2, '≤ 2.00', page.deepVsFirst <= 2);
  }
  if (report.conformance) add('conformance suite, embedded fake (s)', report.conformance.seconds.median, 1, '≤ 10', report.conformance.seconds.median <= 10);
  if (report.latency) targets.push(...latencyTargets(report.latency));
  return targets;
}

interface BenchReport {
  readonly machine: Machine;
  readonly options: typeof options & { parts: Part[] };
  readonly startedAt: string;
  readonly seconds?: number;
  http?: HttpFigure[];
  rss?: { idle: number; afterSetup: number; afterLoad: number };
  inProcess?: { rps: Spread; p50: Spread; p99: Spread };
  coldStart?: ColdStartPair[];
  /** A year of minute resets for 1,000 customers in one clock.advance (issue 11: well under a second). */
  clockAdvance?: ClockAdvanceResult;
  scale?: ScaleResult;
  conformance?: { seconds: Spread; exitCodes: number[] };
  latency?: LatencyResult;
  targets?: Target[];
}

function printTable(report: BenchReport): void {
  const lines: string[] = [];
  const { machine: ran } = report;
  lines.push(`Machine: ${machineLine(ran)}`);
  lines.push(`Each figure: median (min–max) of ${report.options.runs} runs; ${report.options.seconds} s of load per run, ${report.options.connections} keep-alive connections.`);
  if (report.http) {
    lines.push(
      '',
      '| workload | bytes | fake req/s | floor req/s | vs floor | CPU µs/answer fake, floor | vs floor by CPU | fake p50/p99 ms | floor p50/p99 ms | p99 vs floor | prism req/s | vs prism |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const f of report.http) {
      lines.push(
        `| ${f.workload} | ${f.bytes} | ${formatSpread(f.fake.rps)} | ${formatSpread(f.floor.rps)} | ${formatSpread(f.rpsVsFloor, 2)} | ${f.fake.cpuPerAnswer.median.toFixed(0)}, ${f.floor.cpuPerAnswer.median.toFixed(0)} | ${formatSpread(f.cpuVsFloor, 2)} | ${f.fake.p50.median}/${formatSpread(f.fake.p99)} | ${f.floor.p50.median}/${formatSpread(f.floor.p99)} | ${formatSpread(f.p99VsFloor, 2)} | ${f.prism ? formatSpread(f.prism.rps) : '—'} | ${f.rpsVsPrism ? formatSpread(f.rpsVsPrism, 1) : '—'} |`,
      );
    }
    lines.push('"vs floor by CPU": the floor\'s CPU time per answer over the fake\'s, run by run; close to the throughput ratio on a quiet machine, and far less moved by other load.');
    const failures = report.http.flatMap((f) => [['fake', f.fake], ['floor', f.floor]] as const).filter(([, t]) => t.failures > 0);
    if (failures.length > 0) lines.push(`Failures (non-2xx, errors, timeouts) spoil some figures: ${failures.map(([name, t]) => `${name} ${t.failures}`).join(', ')}`);
  }
  if (report.inProcess) lines.push('', `In-process createFakeApp().fetch, balances.check: ${formatSpread(report.inProcess.rps)} req/s, p50 ${formatSpread(report.inProcess.p50, 3)} ms, p99 ${formatSpread(report.inProcess.p99, 3)} ms`);
  if (report.coldStart) lines.push('', ...coldStartLines(report.coldStart));
  if (report.rss) lines.push(`Fake RSS: idle ${report.rss.idle.toFixed(0)} MiB, after setup ${report.rss.afterSetup.toFixed(0)} MiB, after load ${report.rss.afterLoad.toFixed(0)} MiB`);
  if (report.scale) {
    const s = report.scale;
    lines.push(`Scale: ${s.customers.toLocaleString('en-US')} customers, ${s.subscriptions.toLocaleString('en-US')} subscriptions, ${s.entities.toLocaleString('en-US')} entities seeded in ${s.seedSeconds.toFixed(1)} s; RSS ${s.rssMiB.toFixed(0)} MiB (heap ${s.heapMiB.toFixed(0)} MiB)`);
    for (const page of s.pages) lines.push(`  ${page.operation}: first page ${page.firstMs.toFixed(3)} ms, page ${page.depth.toLocaleString('en-US')} deep ${page.deepMs.toFixed(3)} ms (×${page.deepVsFirst.toFixed(2)})`);
  }
  if (report.clockAdvance) {
    const c = report.clockAdvance;
    lines.push(`clock.advance by a year, minute resets, ${c.customers.toLocaleString('en-US')} customers: ${c.resets.toLocaleString('en-US')} resets in ${c.ms} ms, answer ${c.responseBytes} bytes`);
  }
  if (report.conformance) lines.push(`Conformance suite against the embedded fake: ${formatSpread(report.conformance.seconds, 1)} s (exit codes ${report.conformance.exitCodes.join(', ')})`);
  if (report.latency) lines.push(...latencyLines(report.latency));
  if (report.targets) {
    lines.push('', '| figure | value | target | met |', '|---|---|---|---|');
    for (const t of report.targets) lines.push(`| ${t.figure} | ${t.value} | ${t.target} | ${t.met ? 'yes' : 'NO'} |`);
  }
  console.log(lines.join('\n'));
}

async function main(): Promise<void> {
  const started = performance.now();
  const report: BenchReport = {
    machine: machine(),
    options: { ...options, parts: [...parts] },
    startedAt: new Date().toISOString(),
  };
  if (parts.has('http') || parts.has('coldstart')) built = buildIfPossible();
  if (parts.has('http')) {
    const http = await measureHttp();
    report.http = http.figures;
    report.rss = http.rss;
  }
  if (parts.has('inprocess')) report.inProcess = await measureInProcess();
  if (parts.has('coldstart')) report.coldStart = await measureColdStart(options.starts, (line) => console.error(line));
  if (parts.has('clock')) report.clockAdvance = await medianClockAdvance();
  if (parts.has('scale')) report.scale = await runChild<ScaleResult>('bench/scale.ts', [String(options.customers)], ['--expose-gc', '--max-old-space-size=6144']);
  if (parts.has('conformance')) report.conformance = await measureConformance();
  if (parts.has('latency')) report.latency = await measureLatency(options.latency);
  report.targets = targetsOf(report);
  const finished: BenchReport = { ...report, seconds: Math.round((performance.now() - started) / 1000) };
  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  writeFileSync(join(ROOT, 'reports/bench.json'), `${JSON.stringify(finished, null, 2)}\n`);
  printTable(finished);
  console.log(`\nreports/bench.json written; the bench took ${finished.seconds} s.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
