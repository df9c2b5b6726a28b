/**
 * The suite against a remote target, on one machine: the fake behind a loopback TCP proxy that holds
 * every chunk `delayMs` in each direction (25 ms: a 50 ms round trip, a staging deployment across a
 * network). `npm run conformance` runs against the proxy's URL as against a deployment, once per
 * concurrency asked (1: one scenario after another), each against a fresh fake that counts the
 * requests it answers. Reported: wall time and request count per run, whether every rule's verdict
 * is the same in all of them, and what bounds the time, modelled from an in-process run of every
 * scenario: a scenario's calls depend on one another (each waits a round trip), so a run lasts at
 * least the scenarios that need the target alone one after another, plus the longest of the others
 * or their share of the concurrency, whichever is more.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeApp, createFakeServer } from '../fake-server/index.ts';
import { otherTenantKey } from '../fake-server/tenants.ts';
import { concurrencyNow, DEFAULT_CONCURRENCY } from '../suites/framework/config.ts';
import { placement } from '../suites/framework/schedule.ts';
import { runScenarios } from '../suites/framework/scenario.ts';
import { InProcessDispatcher } from '../suites/meta/in-process-fake.ts';
import { SCENARIOS } from '../suites/scenarios/index.ts';
import { inProcessTarget } from '../suites/support.ts';
import type { ConformanceReport } from '../suites/report/schema.ts';

const ROOT = join(import.meta.dirname, '..');

export interface LatencyOptions {
  /** Added to every chunk in each direction, ms. */
  readonly delayMs: number;
  /** One run per value; 1 is the sequential run, `default` the suite's own (doubled for a far target: config.ts FAR_TARGET_MS). */
  readonly concurrency: readonly Concurrency[];
}

export type Concurrency = number | 'default';

/** The scenarios at once a run at this round trip has: as asked, or the suite's default, doubled once the answers take FAR_TARGET_MS. */
function effective(concurrency: Concurrency, roundTripMs: number): number {
  return concurrency === 'default' ? concurrencyNow({ concurrency: DEFAULT_CONCURRENCY, concurrencySource: 'default' }, roundTripMs) : concurrency;
}

export interface LatencyRun {
  readonly concurrency: Concurrency;
  readonly seconds: number;
  /** Requests the fake answered (preflight, probes, scenarios, cleanup). */
  readonly requests: number;
  readonly exitCode: number | null;
  /** Rule → status in the run's report. */
  readonly verdicts: Readonly<Record<string, string>>;
}

/** What bounds a run at this round trip: modelled from each scenario's request count (calls within a scenario wait for one another). */
export interface LatencyBound {
  readonly scenarios: number;
  readonly scenarioRequests: number;
  /** Those that run alone (schedule.ts), one after another. */
  readonly alone: { readonly scenarios: number; readonly requests: number; readonly seconds: number };
  /** Those that would run alone but run in an organisation of their own, beside the others (two requests more each: its creation and deletion). */
  readonly ownTenant: number;
  /** The scenario with the most requests among the others: the longest chain of dependent calls. */
  readonly longest: { readonly scenario: string; readonly requests: number; readonly seconds: number };
  /** For each concurrency run: alone + max(longest, the others' requests / concurrency), in seconds. */
  readonly floorSeconds: Readonly<Record<string, number>>;
}

export interface LatencyResult {
  readonly delayMs: number;
  readonly roundTripMs: number;
  readonly runs: readonly LatencyRun[];
  /** Rules whose status differs between the runs (empty: identical verdicts). */
  readonly differingVerdicts: readonly string[];
  readonly bound: LatencyBound;
}

/** A TCP proxy to `port` on loopback that delivers every chunk `delayMs` late, in order, both ways. */
export async function startDelayProxy(port: number, delayMs: number): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), delayMs));
    from.on('end', () => setTimeout(() => to.end(), delayMs));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  };
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      // No Nagle: a chunk goes out when its delay is up, not when the peer's delayed ACK comes.
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `npm run conformance` against `baseUrl` in a child process; resolves with its exit code and report. */
function conformanceRun(baseUrl: string, env: Record<string, string>, concurrency: Concurrency): Promise<{ exitCode: number | null; report: ConformanceReport | undefined; seconds: number }> {
  const reportDir = mkdtempSync(join(tmpdir(), 'bench-latency-'));
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'suites/cli.mjs'), 'run', '--base-url', baseUrl, '--report-dir', reportDir, ...(concurrency === 'default' ? [] : ['--concurrency', String(concurrency)])], {
    cwd: ROOT,
    env: { ...process.env, ...env, CI: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      let report: ConformanceReport | undefined;
      try {
        report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as ConformanceReport;
      } catch {
        report = undefined;
      }
      rmSync(reportDir, { recursive: true, force: true });
      resolve({ exitCode: code, report, seconds });
    });
  });
}

async function measureRun(delayMs: number, concurrency: Concurrency): Promise<LatencyRun> {
  let requests = 0;
  const fake = await createFakeServer({ onRequest: () => requests++ });
  const proxy = await startDelayProxy(Number(new URL(fake.url).port), delayMs);
  try {
    const env = { API_KEY: fake.apiKey, ...(fake.otherTenantApiKey === undefined ? {} : { OTHER_TENANT_API_KEY: fake.otherTenantApiKey }) };
    const { exitCode, report, seconds } = await conformanceRun(proxy.url, env, concurrency);
    const verdicts = Object.fromEntries(Object.entries(report?.rules ?? {}).map(([rule, result]) => [rule, result.status]));
    console.error(`bench: latency ${2 * delayMs} ms round trip, concurrency ${concurrency}: ${seconds.toFixed(1)} s, ${requests} requests, exit ${exitCode}`);
    return { concurrency, seconds, requests, exitCode, verdicts };
  } finally {
    await proxy.close();
    await fake.close();
  }
}

/** Each scenario's request count and whether it runs alone, from one in-process run against a fresh fake (no sockets, so it takes seconds). */
export async function modelBound(roundTripMs: number, concurrency: readonly Concurrency[]): Promise<LatencyBound> {
  const app = createFakeApp();
  const apiKey = app.keys[0]!.key;
  const target = await inProcessTarget({ url: 'http://fake.invalid', apiKey, otherTenantApiKey: otherTenantKey(app.keys, apiKey) }, new InProcessDispatcher(app));
  try {
    const outcomes = await runScenarios(SCENARIOS, target, { concurrency: 1 });
    const scenarios = SCENARIOS.map((scenario, i) => {
      const where = placement(scenario, target.capabilities);
      return { id: scenario.id, requests: outcomes[i]!.evidence.length + (where === 'own-tenant' ? 2 : 0), alone: where === 'alone', ownTenant: where === 'own-tenant' };
    });
    const seconds = (requests: number) => (requests * roundTripMs) / 1000;
    const alone = scenarios.filter((s) => s.alone);
    const others = scenarios.filter((s) => !s.alone);
    const aloneRequests = alone.reduce((sum, s) => sum + s.requests, 0);
    const othersRequests = others.reduce((sum, s) => sum + s.requests, 0);
    const longest = others.reduce((max, s) => (s.requests > max.requests ? s : max), others[0]!);
    return {
      scenarios: scenarios.length,
      scenarioRequests: aloneRequests + othersRequests,
      alone: { scenarios: alone.length, requests: aloneRequests, seconds: seconds(aloneRequests) },
      ownTenant: scenarios.filter((s) => s.ownTenant).length,
      longest: { scenario: longest.id, requests: longest.requests, seconds: seconds(longest.requests) },
      floorSeconds: Object.fromEntries(concurrency.map((c) => [String(c), seconds(aloneRequests) + Math.max(seconds(longest.requests), seconds(othersRequests) / effective(c, roundTripMs))])),
    };
  } finally {
    await target.close();
  }
}

export async function measureLatency(options: LatencyOptions): Promise<LatencyResult> {
  const roundTripMs = 2 * options.delayMs;
  const bound = await modelBound(roundTripMs, options.concurrency);
  const runs: LatencyRun[] = [];
  for (const concurrency of options.concurrency) runs.push(await measureRun(options.delayMs, concurrency));
  const rules = new Set(runs.flatMap((run) => Object.keys(run.verdicts)));
  const differingVerdicts = [...rules].filter((rule) => new Set(runs.map((run) => run.verdicts[rule] ?? 'absent')).size > 1).sort();
  return { delayMs: options.delayMs, roundTripMs, runs, differingVerdicts, bound };
}

/** The lines `npm run bench` prints for this part. */
export function latencyLines(result: LatencyResult): string[] {
  const { bound } = result;
  const lines = [
    '',
    `Suite against the fake behind a proxy adding ${result.delayMs} ms each way (${result.roundTripMs} ms round trip):`,
    '| concurrency | wall s | requests | exit | floor s (model) |',
    '|---|---|---|---|---|',
    ...result.runs.map((run) => `| ${run.concurrency === 1 ? '1 (sequential)' : run.concurrency === 'default' ? `the default (${effective('default', result.roundTripMs)})` : run.concurrency} | ${run.seconds.toFixed(1)} | ${run.requests.toLocaleString('en-US')} | ${run.exitCode} | ${bound.floorSeconds[String(run.concurrency)]?.toFixed(1) ?? '—'} |`),
    result.differingVerdicts.length === 0
      ? `Verdicts: identical in every run (${Object.keys(result.runs[0]?.verdicts ?? {}).length} rules).`
      : `Verdicts DIFFER between runs for: ${result.differingVerdicts.join(', ')}`,
    `Bound: ${bound.scenarios} scenarios send ${bound.scenarioRequests.toLocaleString('en-US')} requests; ${bound.alone.scenarios} run alone, ${bound.alone.requests} requests one after another (${bound.alone.seconds.toFixed(1)} s); ${bound.ownTenant} run in an organisation of their own, beside the others; ` +
      `the longest chain of dependent calls among the others is ${bound.longest.scenario}, ${bound.longest.requests} requests (${bound.longest.seconds.toFixed(1)} s).`,
  ];
  return lines;
}

/** The bench's targets for this part: the concurrent runs under two minutes at a 50 ms round trip, with the sequential run's verdicts. */
export function latencyTargets(result: LatencyResult): { figure: string; value: string; target: string; met: boolean }[] {
  return [
    ...result.runs
      .filter((run) => run.concurrency !== 1)
      .map((run) => ({ figure: `suite at ${result.roundTripMs} ms round trip, concurrency ${run.concurrency} (s)`, value: run.seconds.toFixed(1), target: '< 120', met: run.seconds < 120 })),
    { figure: 'rules whose verdict differs between the latency runs', value: String(result.differingVerdicts.length), target: '0', met: result.differingVerdicts.length === 0 },
  ];
}
