/**
 * Generators of the listings `subscriptions.list` and `purchases.list` (documented): every filter
 * alone and together, small limits so that the walk crosses pages, and the refusals of their bounds
 * and enumerations. The runner walks every page on each side and compares the rows.
 */
import fc from 'fast-check';
import { defineCommand, index, maybeIndex, pick, rarely, variantArb, type CommandSpec } from '../command.ts';

const STATUS_SETS = [undefined, ['active'], ['scheduled'], ['past_due'], ['expired'], ['active', 'expired'], ['past_due', 'scheduled'], ['active', 'scheduled', 'past_due', 'expired']] as const;

const listArgs = fc.record({
  purchases: rarely(3),
  customer: maybeIndex(1, 3),
  entity: maybeIndex(4, 1),
  plan: maybeIndex(3, 1),
  statuses: fc.nat({ max: STATUS_SETS.length - 1 }),
  limit: fc.constantFrom(undefined, undefined, 1, 2, 3, 200),
  /** The documented defaults sent explicitly: an empty start_cursor, limit 50, statuses active and scheduled. */
  explicitDefaults: rarely(4),
  variant: variantArb,
});

export const listingCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'subscriptions.list',
    part: 'listings',
    weight: 6,
    reads: true,
    args: listArgs,
    async run(context, args) {
      const { world } = context;
      const customerId = args.customer >= 0 ? pick(world.customers, args.customer) : undefined;
      const entity = customerId && args.entity >= 0 ? pick(world.entities.filter((e) => e.customerId === customerId), args.entity) : undefined;
      const plan = args.plan >= 0 ? pick(world.plans, args.plan) : undefined;
      const statuses = STATUS_SETS[args.statuses];
      const body = {
        ...(customerId ? { customer_id: customerId } : {}),
        ...(entity ? { entity_id: entity.id } : {}),
        ...(plan ? { plan_id: plan.id } : {}),
        ...(statuses ? { statuses: [...statuses] } : args.explicitDefaults ? { statuses: ['active', 'scheduled'] } : {}),
        ...(args.limit !== undefined ? { limit: args.limit } : args.explicitDefaults ? { limit: 50 } : {}),
        ...(args.explicitDefaults ? { start_cursor: '' } : {}),
      };
      if (customerId === undefined && world.customers.length >= 2) context.reached('two-customers');
      await context.send({ operation: args.purchases ? 'purchases.list' : 'subscriptions.list', body, ...(customerId ? { customerId } : {}), variant: args.variant });
    },
  }),
  defineCommand({
    name: 'subscriptions.list-refused',
    part: 'listings',
    weight: 2,
    refusal: true,
    reads: true,
    args: fc.record({ purchases: fc.boolean(), how: fc.constantFrom('limit-low', 'limit-high', 'statuses-empty', 'status', 'entity-alone', 'cursor'), customer: index }),
    async run(context, { purchases, how, customer }) {
      const customerId = pick(context.world.customers, customer) ?? context.ns.id('cus');
      const entity = context.world.entities.find((e) => e.customerId === customerId)?.id ?? context.ns.id('ent');
      const bodies = {
        'limit-low': { limit: 0 },
        'limit-high': { limit: 201 },
        'statuses-empty': { statuses: [] },
        status: { statuses: ['paused'] },
        'entity-alone': { entity_id: entity },
        cursor: { customer_id: customerId, start_cursor: 'bm90IGEgY3Vyc29y' },
      };
      const intents = {
        'limit-low': 'LIST-LIMIT-BOUNDS',
        'limit-high': 'LIST-LIMIT-BOUNDS',
        'statuses-empty': 'LIST-STATUSES-MIN-ONE',
        status: 'LIST-STATUSES-ENUM',
        'entity-alone': 'LIST-ENTITY-REQUIRES-CUSTOMER',
        cursor: 'ERR-INVALID-CURSOR',
      } as const;
      context.reached('refusal');
      await context.send({ operation: purchases ? 'purchases.list' : 'subscriptions.list', body: bodies[how], intent: intents[how] });
    },
  }),
];
