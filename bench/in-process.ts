/**
 * The in-process figure of `npm run bench`: `createFakeApp().fetch` with no socket, `balances.check`
 * from `connections` concurrent callers for `seconds`. Prints one JSON line.
 *
 *   node --import tsx bench/in-process.ts <seconds> <connections>
 */
import { createFakeApp } from '../fake-server/app.ts';
import { quantile } from './stats.ts';
import { benchRequest, sender, setUpFake, workload } from './workloads.ts';

export interface InProcessResult {
  readonly rps: number;
  /** Milliseconds. */
  readonly p50: number;
  readonly p99: number;
}

const ORIGIN = 'http://fake.invalid';

async function main(seconds: number, connections: number): Promise<InProcessResult> {
  const app = createFakeApp();
  await setUpFake(sender(ORIGIN, app.fetch));
  const [request] = workload('balances.check').sequence(0);
  const latencies: number[] = [];
  const call = async () => {
    const started = performance.now();
    const response = await app.fetch(benchRequest(ORIGIN, request!.path, request!.body));
    await response.text();
    if (response.status !== 200) throw new Error(`balances.check answered ${response.status}`);
    return performance.now() - started;
  };
  // Warm-up, then the measured window.
  for (let i = 0; i < 2_000; i++) await call();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) latencies.push(await call());
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { rps: latencies.length / elapsed, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

main(Number(process.argv[2] ?? 3), Number(process.argv[3] ?? 10)).then(
  (result) => console.log(JSON.stringify(result)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
