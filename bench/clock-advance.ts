/**
 * The clock-advance figure of `npm run bench`: with `customers` customers each holding a plan whose
 * balance resets every minute, how long one `POST /_fake/clock.advance` of a year takes, in
 * process (no socket). Prints one JSON line.
 *
 *   node --expose-gc --import tsx bench/clock-advance.ts [customers] [runs]
 *
 * With several runs (each on a fresh fake) it prints the median.
 */
import { createFakeApp } from '../fake-server/app.ts';
import { DEFAULT_KEYS } from '../fake-server/tenants.ts';

export interface ClockAdvanceResult {
  readonly customers: number;
  /** Resets the advance applied (a year of minutes per customer). */
  readonly resets: number;
  /** Milliseconds the advance took, and the size of its answer in bytes. */
  readonly ms: number;
  readonly responseBytes: number;
}

const YEAR = 365 * 24 * 60 * 60_000;
const ORIGIN = 'http://fake.invalid';

export async function measureClockAdvance(customers = 1_000): Promise<ClockAdvanceResult> {
  const app = createFakeApp({ now: Date.parse('2026-01-01T00:00:00Z'), frozen: true });
  const call = async (path: string, body: unknown) => {
    const response = await app.fetch(
      new Request(`${ORIGIN}${path}`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_KEYS[0]!.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    );
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text}`);
    return text;
  };
  await call('/v1/features.create', { feature_id: 'calls', name: 'Calls', type: 'metered', consumable: true });
  await call('/v1/plans.create', { plan_id: 'minutely', name: 'Minutely', auto_enable: true, items: [{ feature_id: 'calls', included: 10, reset: { interval: 'minute' } }] });
  for (let i = 0; i < customers; i++) await call('/v1/customers.get_or_create', { customer_id: `cus_${i}` });

  // Setting up leaves garbage; collecting it first keeps a major GC out of the measured call.
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  const answer = await call('/_fake/clock.advance', { ms: YEAR });
  const ms = performance.now() - started;
  const { ran } = JSON.parse(answer) as { ran: Record<string, number> };
  return { customers, resets: ran['grant.reset']!, ms: Math.round(ms * 10) / 10, responseBytes: Buffer.byteLength(answer) };
}

/** The run of median duration among `runs` fresh measurements. */
export async function medianClockAdvance(customers = 1_000, runs = 5): Promise<ClockAdvanceResult> {
  const results: ClockAdvanceResult[] = [];
  for (let i = 0; i < runs; i++) results.push(await measureClockAdvance(customers));
  return results.sort((a, b) => a.ms - b.ms)[Math.floor(runs / 2)]!;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await medianClockAdvance(Number(process.argv[2] ?? 1_000), Number(process.argv[3] ?? 5))));
}
