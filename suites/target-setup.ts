/**
 * What the suite tells the framework about its target, in a module the run's global setup can load
 * (nothing from vitest's runtime): what each operation's answer creates, how each kind is cleaned up
 * and in which order, and the probes run once per run (capabilities, and which deletes are served).
 */
import { ErrorBody } from '../spec/common.ts';
import { learnIds } from './learn-ids.ts';
import { type OperationName, operations } from '../spec/operations.ts';
import { field, idOf, type CleanupPlan, type Creates } from './framework/cleanup.ts';
import type { Client } from './framework/client.ts';
import type { LedgerEntry } from './framework/ledger.ts';
import type { CreateTargetOptions, MixedCaller } from './framework/target.ts';
import { clientAnsweredAsDocumented, PUBLISHED_CLIENT_AGENT } from '../spec/reference/differences.ts';
import type { PrepareOptions, ProbeContext } from './framework/prepare.ts';

type Ops = typeof operations;
type C = Client<Ops, typeof ErrorBody>;

/** A ledger entry, or none when the ID is not known (the answer and the request both lack it). */
function entry(kind: string, id: string | undefined, parents: Readonly<Record<string, string | undefined>> = {}): LedgerEntry | undefined {
  if (id === undefined) return undefined;
  const known = Object.fromEntries(Object.entries(parents).filter((pair): pair is [string, string] => pair[1] !== undefined));
  return { ...known, kind, id };
}

/** A read that tells whether a record is still there: 200 yes, 404 no, anything else cannot tell. */
async function present(read: Promise<{ readonly status: number }>): Promise<boolean | undefined> {
  const { status } = await read;
  return status === 200 ? true : status === 404 ? false : undefined;
}

/** The entities whose id or name holds `root` (the run's namespace), page by page, with their customers. */
async function listEntities(client: C, root: string): Promise<LedgerEntry[]> {
  const found: LedgerEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.call('entities.list', { search: root, limit: 100, ...(cursor === undefined ? {} : { start_cursor: cursor }) });
    if (!result.ok) break;
    for (const item of result.body.list ?? []) {
      found.push({ kind: 'entity', id: item.id, customer_id: item.customer_id }, { kind: 'customer', id: item.customer_id });
    }
    cursor = result.body.next_cursor ?? undefined;
    if (cursor === undefined) break;
  }
  return found;
}

async function listed(result: Promise<{ readonly ok: boolean; readonly body: unknown }>, kind: string): Promise<LedgerEntry[]> {
  const { ok, body } = await result;
  if (!ok) return [];
  const items = field(body, 'list');
  return Array.isArray(items) ? items.flatMap((item) => entry(kind, idOf(field(item, 'id'))) ?? []) : [];
}

type Body = Record<string, unknown>;
const creates = (make: (request: Body, response: Body | undefined) => LedgerEntry | readonly (LedgerEntry | undefined)[] | undefined): Creates =>
  ((request: Body, response?: Body) => {
    const made = make(request, response);
    return Array.isArray(made) ? made.filter((item): item is LedgerEntry => item !== undefined) : made;
  }) as Creates;

/**
 * Everything the suite creates, recorded from the answer (the request where the answer does not
 * say), and how the cleanup removes it, dependents first: entities, customers (with what they hold),
 * referral programs, rewards, plans (every version; archived where plans.delete is not served or is
 * refused), features. A kind the target cannot remove stays, and the report says so.
 */
export const LEDGER = {
  order: ['entity', 'customer', 'referral_program', 'reward', 'plan', 'feature'],
  cleanup: {
    entity: {
      remove: (e, client) => client.call('entities.delete', { ...(e['customer_id'] === undefined ? {} : { customer_id: e['customer_id'] }), entity_id: e.id }),
      removeWith: 'entities.delete',
      exists: (e, client) => present(client.call('entities.get', { ...(e['customer_id'] === undefined ? {} : { customer_id: e['customer_id'] }), entity_id: e.id })),
      list: listEntities,
    },
    customer: {
      remove: (e, client) => client.call('customers.delete', { customer_id: e.id }),
      removeWith: 'customers.delete',
      exists: (e, client) => present(client.call('customers.get', { customer_id: e.id })),
    },
    referral_program: {
      remove: (e, client) => client.call('referral_programs.delete', { referral_program_id: e.id }),
      removeWith: 'referral_programs.delete',
      exists: (e, client) => present(client.call('referral_programs.get', { referral_program_id: e.id })),
    },
    reward: {
      remove: (e, client) => client.call('rewards.delete', { reward_id: e.id }),
      removeWith: 'rewards.delete',
    },
    plan: {
      remove: (e, client) => client.call('plans.delete', { plan_id: e.id, all_versions: true }),
      removeWith: 'plans.delete',
      fallback: (e, client) => client.call('plans.update', { plan_id: e.id, archived: true }),
      exists: (e, client) => present(client.call('plans.get', { plan_id: e.id })),
      // A target may keep a plan whose create it refused (the reference does): found here.
      list: (client) => listed(client.call('plans.list', { include_archived: true }), 'plan'),
    },
    feature: {
      remove: (e, client) => client.call('features.delete', { feature_id: e.id }),
      removeWith: 'features.delete',
      exists: (e, client) => present(client.call('features.get', { feature_id: e.id })),
      list: (client) => listed(client.call('features.list', {}), 'feature'),
    },
  },
  creates: {
    'plans.create': creates((req, res) => entry('plan', idOf(res?.['id'], req['plan_id']))),
    'features.create': creates((req, res) => entry('feature', idOf(res?.['id'], req['feature_id']))),
    'customers.get_or_create': creates((req, res) => entry('customer', idOf(res?.['id'], req['customer_id']))),
    // The reference creates the customer of a new entity when it does not exist.
    'entities.create': creates((req, res) => {
      const customerId = idOf(res?.['customer_id'], req['customer_id']);
      return [entry('entity', idOf(res?.['id'], req['entity_id']), { customer_id: customerId }), entry('customer', customerId)];
    }),
    // Entities named with a feature are created on the fly.
    'licenses.attach': creates((req) => {
      const entities = Array.isArray(req['entities']) ? req['entities'] : [];
      return entities.map((item: unknown) => entry('entity', idOf(field(item, 'entity_id')), { customer_id: idOf(req['customer_id']) }));
    }),
    'rewards.create': creates((req, res) => entry('reward', idOf(field(res, 'feature_grant', 'id'), field(req, 'feature_grant', 'id')))),
    'referral_programs.create': creates((req, res) => entry('referral_program', idOf(res?.['id'], req['id']))),
  },
} as const satisfies CleanupPlan<C> & Pick<CreateTargetOptions<Ops, typeof ErrorBody>, 'cleanup' | 'creates' | 'order'>;

type Probes = NonNullable<CreateTargetOptions<Ops, typeof ErrorBody>['probes']>;

/** How the suite tries the capabilities it cannot take a profile's word for. */
/**
 * The published client (autumn-js, known by its User-Agent) sends every other call of every
 * scenario where the document decides the whole answer whoever asks (not a body its mode takes
 * otherwise, nor a listing it reads otherwise): interface.md does not tell callers apart, so a
 * target answering the client otherwise fails the rule the scenario checks.
 */
export const PUBLISHED_CLIENT_CALLER: MixedCaller = {
  headers: { 'user-agent': PUBLISHED_CLIENT_AGENT },
  sends: (operation, body) => Object.hasOwn(operations, operation) && clientAnsweredAsDocumented(operation as OperationName, body),
};

export const PROBES: Probes = {
  'paid-attach': async ({ client, ns }) => {
    const planId = ns.id('probepaid');
    const plan = await client.call('plans.create', { plan_id: planId, name: `Probe ${planId}`, price: { amount: 10, interval: 'month' } });
    if (!plan.ok) return `plans.create of a paid plan answered ${plan.status}`;
    const customerId = ns.id('probecus');
    const customer = await client.call('customers.get_or_create', { customer_id: customerId, name: 'Capability probe', email: `${customerId.toLowerCase()}@example.com` });
    if (!customer.ok) return `customers.get_or_create answered ${customer.status}`;
    const attached = await client.call('billing.attach', { customer_id: customerId, plan_id: planId });
    if (!attached.ok) return `billing.attach of a paid plan answered ${attached.status}`;
    const paymentUrl = (attached.body as { payment_url?: unknown }).payment_url;
    return typeof paymentUrl === 'string' ? 'billing.attach of a paid plan answered a checkout URL' : undefined;
  },
  'multi-currency': async ({ client, ns }) => {
    const planId = ns.id('probecur');
    const price = { amount: 10, interval: 'month' as const, additional_currencies: [{ currency: 'eur', amount: 9 }] };
    const plan = await client.call('plans.create', { plan_id: planId, name: `Probe ${planId}`, price });
    return plan.ok ? undefined : `plans.create of a plan priced in two currencies answered ${plan.status}`;
  },
};

/**
 * One record of each kind a delete removes, nothing using another, so that cleaning them up tells
 * which deletes the target serves: a feature, a plan, a customer, a reward and a program linking it.
 */
export async function probeDeletes({ client, ns }: ProbeContext<Ops, typeof ErrorBody>): Promise<void> {
  const featureId = ns.id('probefeat');
  await client.call('plans.create', { plan_id: ns.id('probeplan'), name: 'Cleanup probe' });
  await client.call('customers.get_or_create', { customer_id: ns.id('probecus'), name: 'Cleanup probe' });
  if (!(await client.call('features.create', { feature_id: featureId, name: 'Cleanup probe', type: 'boolean' })).ok) return;
  const rewardId = ns.id('probereward');
  const grant = { id: rewardId, name: 'Cleanup probe', grants: [{ feature_id: featureId, included: null, expiry: null }], promo_codes: [{ code: ns.code('PROBE'), max_uses: 1 }] };
  if (!(await client.call('rewards.create', { feature_grant: grant })).ok) return;
  await client.call('referral_programs.create', { id: ns.id('probeprog'), reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer' });
}

/** Everything the run's preparation (global setup) needs: the operation table, the cleanup plan, the probes, how to learn a namespace's IDs. */
export const PREPARE: PrepareOptions<Ops, typeof ErrorBody> = { operations, errorBody: ErrorBody, ...LEDGER, probes: PROBES, probeDeletes, learn: learnIds };
