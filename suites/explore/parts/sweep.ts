/**
 * The sweep every program ends with: the documented reads of what the program made, each compared.
 * A program's random steps read little of what its writes changed; a write whose effect differs
 * somewhere they did not look (a delete's leftovers in another listing, a clock move over a holder
 * no step read again, one of two features drawn on together) would pass unseen. The sweep reads
 * every holder the program knows (a few at each end of a long list: the first made and the last),
 * their balances of each feature, their entities and the entities' balances of what they hold, their records and pools, and the
 * catalogue; what differs is charged, like any read, to the write whose effect it shows.
 */
import fc from 'fast-check';
import { ALL_STATUSES } from './deletes.ts';
import { defineCommand, type Abilities, type CommandSpec, type RunContext, type SendSpec } from '../command.ts';

/** Holders read at each end of a list (a scale program holds hundreds): the first made and the last. */
const AT_EACH_END = 3;
/** Features each holder's balances are read for. */
const FEATURES_READ = 6;

function ends<T>(list: readonly T[]): T[] {
  return list.length <= 2 * AT_EACH_END ? [...list] : [...list.slice(0, AT_EACH_END), ...list.slice(-AT_EACH_END)];
}

/**
 * The reads of the sweep, in the order they are sent: the documented reads first (balances, records,
 * entities, pools), then those only the reference shows (customers.get, entities.get, the catalogue),
 * since the first read that differs names the finding and a reference-only answer charges a SHOULD
 * rule of its own where a documented one charges the rule of the write.
 */
export function sweepReads(context: Pick<RunContext, 'world'>): SendSpec[] {
  const { world } = context;
  const features = world.features.slice(0, FEATURES_READ);
  const pools = new Set(world.poolHolders());
  const holders = ends(world.customers).map((customerId) => ({ customerId, entities: ends(world.entities.filter((e) => e.customerId === customerId)) }));
  const documented: SendSpec[] = [];
  const referenceOnly: SendSpec[] = [];
  for (const { customerId, entities } of holders) {
    for (const feature of features) documented.push({ operation: 'balances.check', body: { customer_id: customerId, feature_id: feature.id }, customerId, tags: ['plain'] });
    for (const entity of entities) {
      // An entity's balances of what it holds itself: of a grant only its customer holds, the 2.3.0 reference answers otherwise than the model where the document is not explicit (the reference-like target charged CHECK-BALANCE-NULL).
      const held = new Set(world.holdings.filter((h) => h.entityId === entity.id).flatMap((h) => h.featureIds));
      for (const feature of features.filter((f) => held.has(f.id))) documented.push({ operation: 'balances.check', body: { customer_id: customerId, entity_id: entity.id, feature_id: feature.id }, customerId, tags: ['plain'] });
      referenceOnly.push({ operation: 'entities.get', body: { customer_id: customerId, entity_id: entity.id }, customerId });
    }
    documented.push({ operation: 'subscriptions.list', body: { customer_id: customerId, statuses: ALL_STATUSES, limit: 200 }, customerId });
    documented.push({ operation: 'entities.list', body: { customer_id: customerId, limit: 200 }, customerId });
    if (pools.has(customerId)) documented.push({ operation: 'licenses.list', body: { customer_id: customerId }, customerId });
    referenceOnly.push({ operation: 'customers.get', body: { customer_id: customerId }, customerId });
  }
  if (world.plans.length > 0) referenceOnly.push({ operation: 'plans.list', body: {} });
  if (world.features.length > 0) referenceOnly.push({ operation: 'features.list', body: {} });
  for (const program of ends(world.programs)) referenceOnly.push({ operation: 'referral_programs.get', body: { referral_program_id: program.id } });
  return [...documented, ...referenceOnly];
}

/** How the second pass sends a read again: each way the conventions allow, the same answer due. */
const AGAIN: readonly Pick<SendSpec, 'variant' | 'caller'>[] = [
  { caller: { agent: 'published-client' } },
  { variant: 'media-type-case' },
  { variant: 'charset' },
  { variant: 'scheme-space' },
  { variant: 'header-case' },
  { variant: 'scheme-case' },
];
/** Reads sent again in the second pass. */
const SENT_AGAIN = 6;

/**
 * The second pass: a few of the documented reads sent again as other callers and envelopes the
 * conventions allow (the published client's User-Agent, the media type's case and parameters, the
 * spaces after the scheme, the headers' case), which must answer as the plain read did; the first
 * holder's ID in the other case, which names nobody the program made; its records asked by the
 * organisation's other environment (an organisation of the program's own) or by another organisation
 * (a shared tenant with another tenant's key). `turn` rotates the ways
 * between programs. Sent as observations, they reach no dimension: steering still sends the
 * callers' own commands (writes by the published client, the other environment, pipelined pairs).
 */
export function sweepAgain(reads: readonly SendSpec[], turn: number, can: Pick<Abilities, 'controlPlane' | 'otherTenant'>): SendSpec[] {
  const documented = reads.filter((read) => read.operation === 'balances.check' || read.operation === 'subscriptions.list' || read.operation === 'entities.list' || read.operation === 'licenses.list');
  const again = documented.slice(0, SENT_AGAIN).map((read, i) => ({ ...read, ...AGAIN[(turn + i) % AGAIN.length]! }));
  const check = documented.find((read) => read.operation === 'balances.check');
  const records = documented.find((read) => read.operation === 'subscriptions.list');
  if (check !== undefined) {
    const customerId = String(check.body['customer_id']);
    const swapped = [...customerId].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    if (swapped !== customerId) again.push({ ...check, body: { ...check.body, customer_id: swapped }, customerId: swapped });
  }
  // Who else may ask: where the program has an organisation of its own, that organisation's other
  // environment (its "other" key is its own live key there); in a shared tenant, another organisation.
  if (records !== undefined && can.controlPlane) again.push({ ...records, caller: { environment: 'live' } });
  else if (records !== undefined && can.otherTenant) again.push({ ...records, variant: 'other-tenant' });
  return again;
}

/** Appended to every program (explorer.ts), never drawn as a step: it changes nothing and reaches no dimension of its own. */
export const sweepCommand: CommandSpec<unknown> = defineCommand({
  name: 'sweep',
  part: 'customers',
  weight: 0,
  reads: true,
  args: fc.constant(null),
  async run(context) {
    // A few at a time, each compared as it comes; a check is no writer here (it observes).
    const reads = sweepReads(context);
    await context.observeAll(reads);
    await context.observeAll(sweepAgain(reads, context.lockstep.steps.length, context.can));
  },
});
