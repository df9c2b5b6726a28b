/**
 * `npm run bench:profile -- <workload> [iterations]`: one workload of `npm run bench` driven
 * in-process through the fake's socket fast path (`reply`), with no socket and no load generator,
 * under `--cpu-prof`: the profile lands in reports/profiles/ (open it in Chrome's DevTools). What
 * the fake itself spends on a request, which throughput ratios on a shared machine cannot show.
 * Prints one JSON line (time per iteration, bytes answered). Also runs without the profiler:
 *
 *   node --import tsx bench/profile.ts <workload> [iterations]
 */
import { createFakeApp } from '../fake-server/app.ts';
import type { SocketRequestHead } from '../fake-server/http/request-head.ts';
import { HEADERS, LICENSE_SLOTS, sender, setUpFake, workload } from './workloads.ts';

function head(path: string): SocketRequestHead {
  return { method: 'POST', path, header: (name) => HEADERS[name] ?? null, headers: () => new Headers(HEADERS) };
}

async function main(name: string, iterations: number): Promise<void> {
  const app = createFakeApp();
  await setUpFake(sender('http://fake.invalid', app.fetch));
  const chosen = workload(name);
  const sequences = Array.from({ length: LICENSE_SLOTS }, (_, slot) => chosen.sequence(slot).map((request) => ({ head: head(request.path), text: JSON.stringify(request.body) })));
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    for (const request of sequences[i % LICENSE_SLOTS]!) {
      const answer = app.reply!(request.head, { ok: true, text: request.text });
      if (answer instanceof Promise || answer.status !== 200) throw new Error(`${name}: ${answer instanceof Promise ? 'async' : answer.body}`);
      bytes += Buffer.byteLength(answer.body);
    }
  }
  const ms = performance.now() - started;
  console.log(JSON.stringify({ workload: name, iterations, ms: Number(ms.toFixed(1)), perIterationUs: Number(((ms * 1000) / iterations).toFixed(1)), bytes }));
}

main(process.argv[2] ?? 'balances.check', Number(process.argv[3] ?? 10_000)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
