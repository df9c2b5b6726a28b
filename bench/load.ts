/**
 * The load generator of `npm run bench`, in its own process so it never shares the server's event
 * loop: forked by bench/run.ts, it runs one autocannon job per message and sends back the figures.
 */
import autocannon, { type AutocannonRequest } from 'autocannon';
import { HEADERS, LICENSE_SLOTS, workload } from './workloads.ts';

export interface LoadJob {
  readonly url: string;
  readonly workload: string;
  readonly connections: number;
  readonly seconds: number;
}

export interface LoadResult {
  /** Answers per second with a 2xx status. */
  readonly rps: number;
  /** Answers with a 2xx status. */
  readonly answers: number;
  readonly p50: number;
  readonly p99: number;
  /** Non-2xx answers, connection errors and timeouts: anything but 0 spoils the figure. */
  readonly failures: number;
}

/** autocannon's request sequence for a workload: each pass through it takes a slot (an entity) and gives it back at the end. */
function requestsOf(name: string): AutocannonRequest[] {
  const { sequence } = workload(name);
  const bodies = Array.from({ length: LICENSE_SLOTS }, (_, slot) => sequence(slot).map((request) => ({ path: request.path, body: JSON.stringify(request.body) })));
  const free = Array.from({ length: LICENSE_SLOTS }, (_, slot) => slot);
  const length = bodies[0]!.length;
  return Array.from({ length }, (_, index) => ({
    method: 'POST',
    setupRequest: (request, context) => {
      if (index === 0) context['slot'] = free.pop();
      return { ...request, ...bodies[context['slot'] as number]![index]! };
    },
    ...(index === length - 1 && { onResponse: (_status: number, _body: string, context: Record<string, unknown>) => void free.push(context['slot'] as number) }),
  }));
}

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const result = await autocannon({ url: job.url, connections: job.connections, duration: job.seconds, headers: { ...HEADERS }, requests: requestsOf(job.workload) });
  return { rps: result['2xx'] / result.duration, answers: result['2xx'], p50: result.latency.p50, p99: result.latency.p99, failures: result.non2xx + result.errors + result.timeouts };
}

process.on('message', (job: LoadJob) => {
  runLoad(job).then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) => process.send!({ ok: false, message: String(error) }),
  );
});
