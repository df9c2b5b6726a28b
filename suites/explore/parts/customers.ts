/**
 * Generators of customers and entities: `customers.get_or_create`, `customers.get`,
 * `entities.create`, `entities.get`, `entities.delete` (setup) and `entities.list` (documented),
 * the listing walked over every page with each of its filters.
 */
import fc from 'fast-check';
import { defineCommand, index, maybeIndex, pick, rarely, variantArb, type CommandSpec, type RunContext } from '../command.ts';
import { forgetCustomer } from './deletes.ts';

/** The entities of the program that still exist. */
function liveEntities(context: RunContext) {
  return context.world.entities;
}

const listArgs = fc.record({
  customer: maybeIndex(1, 3),
  plan: maybeIndex(3, 2),
  planVersion: fc.constantFrom('any', 'any', 'first', 'latest'),
  statuses: fc.constantFrom('default', 'active', 'scheduled', 'both'),
  secondPlan: maybeIndex(3, 1),
  search: fc.constantFrom('none', 'none', 'none', 'id-part', 'upper', 'blank', 'name-part'),
  processors: fc.constantFrom(undefined, undefined, undefined, ['stripe'], ['revenuecat', 'stripe'], ['vercel']),
  limit: fc.constantFrom(undefined, 1, 2, 3, 50, 5000),
  /** The documented defaults sent explicitly: an empty start_cursor names the first page. */
  explicitDefaults: rarely(4),
  variant: variantArb,
});

export const customerCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'customers.get_or_create',
    part: 'customers',
    weight: 2,
    builds: true,
    args: fc.record({ existing: maybeIndex(4, 1), details: fc.boolean(), variant: variantArb }),
    async run(context, { existing, details, variant }) {
      const known = existing >= 0 ? pick(context.world.customers, existing) : undefined;
      const id = known ?? context.ns.id('cus');
      const body = { customer_id: id, ...(details ? { name: `Customer ${id.slice(-4)}`, email: `${id.toLowerCase()}@example.com`, metadata: { source: 'explore' } } : {}) };
      const { model } = await context.send({ operation: 'customers.get_or_create', body, customerId: id, variant, tags: known ? ['existing'] : [] });
      if (model.status === 200 && !context.world.customers.includes(id)) context.world.customers.push(id);
      if (context.world.customers.length >= 2) context.reached('two-customers');
    },
  }),
  defineCommand({
    name: 'customers.get',
    part: 'customers',
    weight: 2,
    reads: true,
    args: fc.record({ customer: index, unknown: rarely(3), variant: variantArb }),
    async run(context, { customer, unknown, variant }) {
      const id = unknown ? context.ns.id('nocus') : pick(context.world.customers, customer);
      if (id === undefined) return;
      await context.send({ operation: 'customers.get', body: { customer_id: id }, customerId: id, variant });
    },
  }),
  defineCommand({
    name: 'entities.create',
    part: 'entities',
    weight: 2,
    builds: true,
    args: fc.record({ customer: index, feature: index, newCustomer: rarely(6), named: fc.boolean(), variant: variantArb }),
    applies: (world) => world.features.some((f) => f.type === 'metered' && !f.consumable),
    async run(context, { customer, feature, newCustomer, named, variant }) {
      const { world, ns } = context;
      const customerId = newCustomer ? ns.id('cus') : (pick(world.customers, customer) ?? ns.id('cus'));
      const featureId = pick(world.features.filter((f) => f.type === 'metered' && !f.consumable), feature)!.id;
      const id = ns.id('ent');
      const body = { customer_id: customerId, entity_id: id, feature_id: featureId, ...(named ? { name: `Seat ${id.slice(-4)} Holder` } : {}) };
      const { model } = await context.send({ operation: 'entities.create', body, customerId, variant });
      if (model.status !== 200) return;
      world.entities.push({ id, customerId, featureId });
      if (!world.customers.includes(customerId)) world.customers.push(customerId);
    },
  }),
  defineCommand({
    name: 'entities.create-refused',
    part: 'entities',
    weight: 2,
    refusal: true,
    args: fc.record({ how: fc.constantFrom('duplicate', 'consumable', 'unknown-feature'), entity: index, feature: index }),
    async run(context, { how, entity, feature }) {
      const { world, ns } = context;
      const existing = pick(liveEntities(context), entity);
      const customerId = existing?.customerId ?? pick(world.customers, 0);
      if (customerId === undefined) return;
      const consumable = pick(world.features.filter((f) => f.consumable), feature);
      const allocated = pick(world.features.filter((f) => f.type === 'metered' && !f.consumable), feature);
      const body =
        how === 'duplicate' && existing
          ? { customer_id: customerId, entity_id: existing.id, feature_id: existing.featureId, name: 'Again' }
          : how === 'consumable' && consumable
            ? { customer_id: customerId, entity_id: ns.id('ent'), feature_id: consumable.id, name: 'Consumable' }
            : { customer_id: customerId, entity_id: ns.id('ent'), feature_id: allocated ? ns.id('nofeat') : ns.id('nofeat'), name: 'Unknown feature' };
      const intent = how === 'duplicate' && existing ? 'ENT-CREATE-DUPLICATE' : how === 'consumable' && consumable ? 'ENT-CREATE' : 'ERR-FEATURE-NOT-FOUND';
      context.reached('refusal');
      await context.send({ operation: 'entities.create', body, customerId, intent });
    },
  }),
  defineCommand({
    name: 'entities.get',
    part: 'entities',
    weight: 2,
    reads: true,
    args: fc.record({ entity: index, withCustomer: fc.boolean(), otherCustomer: rarely(5), unknown: rarely(5), variant: variantArb }),
    applies: (world) => world.entities.length > 0,
    async run(context, { entity, withCustomer, otherCustomer, unknown, variant }) {
      const found = pick(liveEntities(context), entity)!;
      const chosen = unknown ? { ...found, id: context.ns.id('noent') } : found;
      const other = context.world.customers.find((id) => id !== chosen.customerId);
      const customerId = otherCustomer && other ? other : chosen.customerId;
      if (otherCustomer && other) context.reached('two-customers');
      await context.send({ operation: 'entities.get', body: { entity_id: chosen.id, ...(withCustomer || otherCustomer ? { customer_id: customerId } : {}) }, customerId: chosen.customerId, variant });
    },
  }),
  defineCommand({
    name: 'entities.delete',
    part: 'entities',
    weight: 1,
    args: fc.record({ entity: index }),
    applies: (world) => world.entities.length > 0,
    async run(context, { entity }) {
      const chosen = pick(liveEntities(context), entity)!;
      const { model } = await context.send({ operation: 'entities.delete', body: { customer_id: chosen.customerId, entity_id: chosen.id }, customerId: chosen.customerId });
      if (model.status === 200) context.world.entities = context.world.entities.filter((e) => e.id !== chosen.id);
    },
  }),
  defineCommand({
    name: 'entities.list',
    part: 'entities',
    weight: 4,
    reads: true,
    args: listArgs,
    async run(context, args) {
      const { world } = context;
      const customerId = args.customer >= 0 ? pick(world.customers, args.customer) : undefined;
      const plan = args.plan >= 0 ? pick(world.plans, args.plan) : undefined;
      const entity = pick(world.entities, args.customer >= 0 ? args.customer : 0);
      const versions = plan === undefined || args.planVersion === 'any' ? undefined : [args.planVersion === 'first' ? 1 : plan.version];
      const search =
        args.search === 'none' || entity === undefined
          ? undefined
          : { blank: '  ', upper: entity.id.slice(-6).toUpperCase(), 'name-part': 'holder', 'id-part': entity.id.slice(-5) }[args.search];
      const second = args.secondPlan >= 0 ? pick(world.plans, args.secondPlan) : undefined;
      const statuses = { default: undefined, active: ['active'], scheduled: ['scheduled'], both: ['scheduled', 'active'] }[args.statuses];
      const body = {
        ...(customerId ? { customer_id: customerId } : {}),
        ...(plan ? { plans: [{ id: plan.id, ...(versions ? { versions } : {}) }, ...(second && second.id !== plan.id ? [{ id: second.id }] : [])] } : {}),
        ...(statuses ? { statuses } : {}),
        ...(search !== undefined ? { search } : {}),
        ...(args.processors ? { processors: args.processors } : {}),
        ...(args.limit !== undefined ? { limit: args.limit } : args.explicitDefaults ? { limit: 50 } : {}),
        ...(args.explicitDefaults ? { start_cursor: '' } : {}),
      };
      if (customerId === undefined && world.customers.length >= 2) context.reached('two-customers');
      if (versions !== undefined && (plan?.version ?? 1) > 1) context.reached('plan-versions');
      await context.send({ operation: 'entities.list', body, ...(customerId ? { customerId } : {}), variant: args.variant });
    },
  }),
  defineCommand({
    name: 'entities.list-refused',
    part: 'entities',
    weight: 2,
    refusal: true,
    reads: true,
    args: fc.record({ how: fc.constantFrom('limit-low', 'limit-high', 'customer-empty', 'status', 'cursor') }),
    async run(context, { how }) {
      const bodies = { 'limit-low': { limit: 0 }, 'limit-high': { limit: 5001 }, 'customer-empty': { customer_id: '' }, status: { statuses: ['expired'] }, cursor: { start_cursor: 'not-a-cursor' } };
      const intents = { 'limit-low': 'ENT-LIMIT-BOUNDS', 'limit-high': 'ENT-LIMIT-BOUNDS', 'customer-empty': 'ENT-CUSTOMER-ID-MIN-LENGTH', status: 'ENT-STATUSES-ENUM', cursor: 'ERR-INVALID-CURSOR' } as const;
      context.reached('refusal');
      await context.send({ operation: 'entities.list', body: bodies[how], intent: intents[how] });
    },
  }),
  defineCommand({
    // The reference's delete (a setup operation): the customer goes with its plans, entities and balances.
    name: 'customers.delete',
    part: 'customers',
    weight: 1,
    args: fc.record({ customer: index }),
    applies: (world) => world.customers.length > 0,
    async run(context, { customer }) {
      const id = pick(context.world.customers, customer)!;
      const { model } = await context.send({ operation: 'customers.delete', body: { customer_id: id }, customerId: id });
      if (model.status === 200) forgetCustomer(context, id);
    },
  }),
];
