/**
 * The scale figure of `npm run bench`: a fake seeded with `customers` customers (names and emails
 * from the seeded faker factories), 10 entities each, a subscription per customer and per entity but
 * one (100,000 customers: 1M entities, 1M subscriptions), each a call through the fake's request path
 * without a socket. Reports the time to seed, the RSS after a
 * garbage collection, and the latency of a listing's first page against a page a million rows deep,
 * reached by the cursor the fake hands out at that position. Prints one JSON line.
 *
 *   node --expose-gc --import tsx bench/scale.ts <customers>
 */
import { person, seededFaker } from '../fixtures/factories.ts';
import { createFakeApp, type FakeApp, type SeedCall } from '../fake-server/app.ts';
import { encodeCursor } from '../fake-server/domain/cursor.ts';
import type { SocketRequestHead } from '../fake-server/http/request-head.ts';
import { spread } from './stats.ts';
import { HEADERS } from './workloads.ts';

export interface ScaleResult {
  readonly customers: number;
  readonly subscriptions: number;
  readonly entities: number;
  readonly seedSeconds: number;
  readonly rssMiB: number;
  readonly heapMiB: number;
  readonly pages: readonly { operation: string; limit: number; depth: number; firstMs: number; deepMs: number; deepVsFirst: number }[];
}

const ENTITIES_PER_CUSTOMER = 10;
const PAGE_REPEATS = 30;
/** How many rows (in creation order) lie beyond the deep cursors: twice a page, so the deep page is a full one. */
const DEEP_SUBSCRIPTION = 100;
const DEEP_ENTITY = 400;

/** Features, two plans, then each customer with its entities and subscriptions, as calls. */
function* seedCalls(customers: number): Generator<SeedCall> {
  yield { operation: 'features.create', body: { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false } };
  yield { operation: 'features.create', body: { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true } };
  yield {
    operation: 'plans.create',
    body: {
      plan_id: 'scale_base',
      name: 'Base',
      group: 'main',
      items: [
        { feature_id: 'seats', included: ENTITIES_PER_CUSTOMER },
        { feature_id: 'messages', included: 1000, reset: { interval: 'month' } },
      ],
    },
  };
  yield { operation: 'plans.create', body: { plan_id: 'scale_member', name: 'Member', items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }] } };
  const faker = seededFaker(1, 'bench-scale');
  for (let c = 0; c < customers; c++) {
    const customerId = `cus_${c}`;
    yield { operation: 'customers.get_or_create', body: { customer_id: customerId, ...person(faker) } };
    yield { operation: 'billing.attach', body: { customer_id: customerId, plan_id: 'scale_base' } };
    for (let e = 0; e < ENTITIES_PER_CUSTOMER; e++) {
      yield { operation: 'entities.create', body: { customer_id: customerId, entity_id: `ent_${c}_${e}`, feature_id: 'seats', name: `Member ${e}` } };
      if (e > 0) yield { operation: 'billing.attach', body: { customer_id: customerId, entity_id: `ent_${c}_${e}`, plan_id: 'scale_member' } };
    }
  }
}

function head(path: string): SocketRequestHead {
  return { method: 'POST', path, header: (name) => HEADERS[name] ?? null, headers: () => new Headers(HEADERS) };
}

/** One call through the fake's request path (JSON body, validation, domain, JSON answer), without a socket; the answer's text. */
function call(app: FakeApp, operation: string, body: unknown): string {
  const answer = app.reply!(head(`/v1/${operation}`), { ok: true, text: JSON.stringify(body) });
  if (answer instanceof Promise || answer.status !== 200) throw new Error(`${operation} failed: ${answer instanceof Promise ? 'async' : answer.body}`);
  return answer.body;
}

/**
 * Median milliseconds of one page, computed afresh each time: a call that may change data comes
 * first (untimed), so no text the fake keeps of an earlier read answers it.
 */
function pageLatency(app: FakeApp, path: string, body: unknown): number {
  const text = JSON.stringify(body);
  const times: number[] = [];
  for (let i = 0; i < PAGE_REPEATS; i++) {
    call(app, 'customers.get_or_create', { customer_id: 'cus_0' });
    const started = performance.now();
    app.reply!(head(path), { ok: true, text });
    times.push(performance.now() - started);
  }
  return spread(times).median;
}

/** The cursor a listing hands out after the oldest row of one customer: about `position` rows (in creation order) lie beyond it. */
function cursorAfterOldest(app: FakeApp, operation: string, position: number): string {
  const customerId = `cus_${position / ENTITIES_PER_CUSTOMER}`;
  const oldest = (JSON.parse(call(app, operation, { customer_id: customerId, limit: 100 })) as { list: { id: string; created_at: number }[] }).list.at(-1)!;
  return encodeCursor({ t: oldest.created_at, id: oldest.id });
}

function main(customers: number): ScaleResult {
  const started = performance.now();
  const app = createFakeApp();
  for (const { operation, body } of seedCalls(customers)) call(app, operation, body);
  const seedSeconds = (performance.now() - started) / 1000;
  const subscriptions = customers * ENTITIES_PER_CUSTOMER;
  const entities = customers * ENTITIES_PER_CUSTOMER;
  globalThis.gc?.();
  const memory = process.memoryUsage();
  const pages = [
    { operation: 'subscriptions.list', limit: 50, position: DEEP_SUBSCRIPTION, depth: subscriptions - DEEP_SUBSCRIPTION },
    { operation: 'entities.list', limit: 200, position: DEEP_ENTITY, depth: entities - DEEP_ENTITY },
  ].map(({ operation, limit, position, depth }) => {
    const path = `/v1/${operation}`;
    const cursor = cursorAfterOldest(app, operation, position);
    // Warm both up before timing either.
    pageLatency(app, path, { limit });
    pageLatency(app, path, { limit, start_cursor: cursor });
    const firstMs = pageLatency(app, path, { limit });
    const deepMs = pageLatency(app, path, { limit, start_cursor: cursor });
    return { operation, limit, depth, firstMs, deepMs, deepVsFirst: deepMs / firstMs };
  });
  return { customers, subscriptions, entities, seedSeconds, rssMiB: memory.rss / 2 ** 20, heapMiB: memory.heapUsed / 2 ** 20, pages };
}

console.log(JSON.stringify(main(Number(process.argv[2] ?? 100_000))));
