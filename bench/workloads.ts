/**
 * What `npm run bench` sends: the state the fake is given before the load, and the requests of each
 * workload. Shared by the orchestrator (bench/run.ts), which sets the fake up over HTTP, and the load
 * process (bench/load.ts), which builds autocannon's request sequence from the workload's name.
 */
import { DEFAULT_KEYS } from '../fake-server/tenants.ts';

export const BENCH_KEY = DEFAULT_KEYS[0]!.key;

export const HEADERS: Readonly<Record<string, string>> = {
  authorization: `Bearer ${BENCH_KEY}`,
  'content-type': 'application/json',
  'x-api-version': '2.4.0',
};

export interface BenchRequest {
  readonly path: string;
  readonly body: unknown;
}

export interface Workload {
  readonly name: string;
  /** What one iteration sends, in order; a workload of two requests counts each. */
  readonly sequence: (slot: number) => readonly BenchRequest[];
}

const CHECK = { customer_id: 'cus_bench', feature_id: 'messages' };
const LICENSE_CUSTOMER = 'cus_team';
/** The customer whose entities entities.list pages through: not the license customer, whose seat history grows under load. */
const ENTITY_CUSTOMER = 'cus_members';
/** Entities that license iterations take turns with; each connection holds at most one at a time. */
export const LICENSE_SLOTS = 64;

export const WORKLOADS: readonly Workload[] = [
  { name: 'balances.check', sequence: () => [{ path: '/v1/balances.check', body: CHECK }] },
  { name: 'balances.check send_event', sequence: () => [{ path: '/v1/balances.check', body: { ...CHECK, required_balance: 1, send_event: true } }] },
  {
    name: 'licenses.attach+release',
    sequence: (slot) => [
      { path: '/v1/licenses.attach', body: { customer_id: LICENSE_CUSTOMER, plan_id: 'bench_seat', entities: [{ entity_id: `seat_${slot}`, name: `Seat ${slot}`, feature_id: 'seats' }] } },
      { path: '/v1/licenses.release', body: { customer_id: LICENSE_CUSTOMER, license_plan_id: 'bench_seat', entity_ids: [`seat_${slot}`] } },
    ],
  },
  { name: 'subscriptions.list 50', sequence: () => [{ path: '/v1/subscriptions.list', body: { limit: 50 } }] },
  { name: 'entities.list 200', sequence: () => [{ path: '/v1/entities.list', body: { customer_id: ENTITY_CUSTOMER, limit: 200 } }] },
];

export function workload(name: string): Workload {
  const found = WORKLOADS.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no workload ${name}; there are ${WORKLOADS.map((w) => w.name).join(', ')}`);
  return found;
}

/** One call to a fake, over a socket or in-process. */
export type Send = (path: string, body: unknown) => Promise<{ status: number; text: string }>;

/** A web Request as the bench sends it. */
export function benchRequest(baseUrl: string, path: string, body: unknown): Request {
  return new Request(`${baseUrl}${path}`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
}

/** Sends through a fetch function: the global one (a socket) or a fake's in-process one. */
export function sender(baseUrl: string, fetcher: (request: Request) => Promise<Response> = fetch): Send {
  return async (path, body) => {
    const response = await fetcher(benchRequest(baseUrl, path, body));
    return { status: response.status, text: await response.text() };
  };
}

/** Customers holding a subscription each, so subscriptions.list has more than a page of them. */
const SUBSCRIBERS = 60;
/** Entities of one customer, so entities.list has more than a page of them. */
const ENTITIES = 250;

/** Gives a fresh fake what every workload reads: features, plans, customers with balances, a license pool, subscriptions and entities. */
export async function setUpFake(send: Send): Promise<void> {
  const call = async (path: string, body: unknown) => {
    const { status, text } = await send(path, body);
    if (status !== 200) throw new Error(`bench setup ${path} answered ${status}: ${text}`);
  };
  await call('/v1/features.create', { feature_id: 'messages', name: 'Messages', type: 'metered', consumable: true });
  await call('/v1/features.create', { feature_id: 'seats', name: 'Seats', type: 'metered', consumable: false });
  await call('/v1/plans.create', { plan_id: 'bench_pro', name: 'Pro', group: 'main', items: [{ feature_id: 'messages', included: 1_000_000_000_000, reset: { interval: 'month' } }] });
  await call('/v1/plans.create', { plan_id: 'bench_seat', name: 'Seat', items: [{ feature_id: 'messages', included: 100, reset: { interval: 'month' } }] });
  await call('/v1/plans.create', {
    plan_id: 'bench_team',
    name: 'Team',
    group: 'main',
    items: [{ feature_id: 'seats', included: 100_000 }],
    licenses: [{ license_plan_id: 'bench_seat', included: LICENSE_SLOTS }],
  });
  await call('/v1/customers.get_or_create', { customer_id: 'cus_bench', name: 'Bench', email: 'bench@example.com' });
  await call('/v1/billing.attach', { customer_id: 'cus_bench', plan_id: 'bench_pro' });
  await call('/v1/customers.get_or_create', { customer_id: LICENSE_CUSTOMER, name: 'Team' });
  await call('/v1/billing.attach', { customer_id: LICENSE_CUSTOMER, plan_id: 'bench_team' });
  for (let i = 0; i < SUBSCRIBERS; i++) {
    await call('/v1/customers.get_or_create', { customer_id: `cus_sub_${i}` });
    await call('/v1/billing.attach', { customer_id: `cus_sub_${i}`, plan_id: 'bench_pro' });
  }
  await call('/v1/customers.get_or_create', { customer_id: ENTITY_CUSTOMER, name: 'Members' });
  await call('/v1/billing.attach', { customer_id: ENTITY_CUSTOMER, plan_id: 'bench_team' });
  for (let i = 0; i < ENTITIES; i++) {
    await call('/v1/entities.create', { customer_id: ENTITY_CUSTOMER, entity_id: `member_${i}`, feature_id: 'seats', name: `Member ${i}` });
  }
}
