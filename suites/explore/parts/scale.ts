/**
 * Many of a thing (issue 25), built cheaply enough for a run's budget: a license pool of a few
 * hundred seats filled by batches of 150 (one call each, creating the entities), so one customer
 * holds hundreds of records and entities.list walks hundreds of entities with its default and its
 * largest limit; about 300 customers sharing one reset instant, moved across it by one clock move;
 * an auto-enable plan made after more than 100 others. Independent calls go a few at a time
 * (RunContext `sendAll`). These commands come only as goals of a program (weight 0, steering.ts).
 */
import fc from 'fast-check';
import { defineCommand, type CommandSpec, type Observation, type RunContext } from '../command.ts';
import { attach, balanceRead, createFeature, createPlan, newCustomer, readAll } from './build.ts';
import { moveClock } from './control.ts';

/** The largest batch the document's reference takes without complaint is not stated; 150 is past every page size but 5000. */
const BATCH = 150;
const HOLDERS = 300;
/**
 * Where an entity comes again in the refused batch: [the entity, the position of its repeat], picked
 * by the command's other arguments (an argument of their own would reshuffle every program the seeds
 * draw): early, about the 100th, and last.
 */
const REPEATS: readonly (readonly [number, number])[] = [
  [0, 1],
  [98, 100],
  [3, 120],
  [140, 149],
];
const PLANS_BEFORE = 110;

function seats(context: RunContext, count: number, seat: string, name: string) {
  return Array.from({ length: count }, (_, i) => ({ entity_id: context.ns.id('seat'), name: `${name} ${i + 1}`, feature_id: seat }));
}

export const scaleCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'scale.pool',
    part: 'licenses',
    weight: 0,
    reaches: ['pool-hundreds', 'batch-150', 'hundreds-of-records', 'large-limit-walk', 'refusal-in-batch', 'paged-walk'],
    args: fc.record({ included: fc.constantFrom(0, 20), total: fc.constantFrom(300, 320), over: fc.constantFrom('capacity', 'duplicate'), release: fc.constantFrom(50, 100) }),
    async run(context, args) {
      const seat = await createFeature(context, 'allocated');
      const licensePlan = seat && (await createPlan(context, { items: [{ feature_id: seat, included: 1 }] }));
      const parent = licensePlan && (await createPlan(context, { licenses: [{ license_plan_id: licensePlan, included: args.included }] }));
      if (seat === undefined || licensePlan === undefined || parent === undefined) return;
      const customerId = await newCustomer(context);
      const pools: Observation = { operation: 'licenses.list', body: { customer_id: customerId }, customerId };
      if (!(await attach(context, customerId, parent, { license_quantities: [{ license_plan_id: licensePlan, quantity: args.total }] }, ['license-quantities']))) return;
      context.reached('pool-hundreds');
      const licenses = (entities: readonly { entity_id: string; name: string; feature_id?: string }[], extra: Record<string, unknown> = {}) =>
        context.send({ operation: 'licenses.attach', body: { customer_id: customerId, plan_id: licensePlan, entities }, customerId, observe: pools, ...extra });
      const first = seats(context, BATCH, seat, 'Seat');
      if ((await licenses(first)).model.status !== 200) return;
      context.reached('batch-150');
      // A mixed batch of 150: 30 already assigned (skipped), 120 new.
      const second = [...first.slice(0, 30).map(({ entity_id, name }) => ({ entity_id, name })), ...seats(context, BATCH - 30, seat, 'More')];
      await licenses(second, { intent: 'LIC-ATTACH-MIXED-BATCH' as const, tags: ['mixed', 'creates'] });
      const left = args.total - 270;
      // Refused part-way through: one seat more than is left, or an entity given twice in a batch of 150
      // (140 assigned ones and 9 new, within what is left, so the repeat is all that is wrong); nothing of it stays.
      const twice = [...first.slice(0, BATCH - 10).map(({ entity_id, name }) => ({ entity_id, name })), ...seats(context, 9, seat, 'Twice')];
      const [of, at] = REPEATS[(args.total === 320 ? 2 : 0) + (args.release === 100 ? 1 : 0)]!;
      const refused = args.over === 'capacity' ? seats(context, left + 1, seat, 'Over') : [...twice.slice(0, at), { ...twice[of]! }, ...twice.slice(at)];
      await licenses(refused, args.over === 'capacity' ? { intent: 'LIC-ATTACH-CAPACITY' as const, codeRule: 'ERR-CAPACITY-CODE' as const } : { intent: 'LIC-ATTACH-DUPLICATE-IDS' as const, codeRule: 'ERR-DUPLICATE-ENTITY-CODE' as const });
      context.reached('refusal-in-batch');
      for (const e of first.slice(0, 3)) context.world.entities.push({ id: e.entity_id, customerId, featureId: seat });
      context.world.customers.push(customerId);
      // Hundreds of entities and records of one customer, walked with the largest limit, the default one and one in between.
      const walks: Observation[] = [
        { operation: 'entities.list', body: { customer_id: customerId, limit: 5000 }, customerId },
        { operation: 'entities.list', body: { customer_id: customerId }, customerId },
        { operation: 'entities.list', body: { limit: 200, plans: [{ id: licensePlan }] } },
        { operation: 'subscriptions.list', body: { customer_id: customerId, limit: 200 }, customerId },
        { operation: 'licenses.list_assignments', body: { customer_id: customerId }, customerId },
        { operation: 'customers.get', body: { customer_id: customerId }, customerId },
      ];
      await readAll(context, walks);
      context.reached('hundreds-of-records');
      context.reached('large-limit-walk');
      context.reached('paged-walk');
      await context.send({ operation: 'licenses.release', body: { customer_id: customerId, license_plan_id: licensePlan, entity_ids: first.slice(0, args.release).map((e) => e.entity_id) }, customerId, observe: [pools, walks[0]!, walks[4]!] });
    },
  }),
  defineCommand({
    name: 'scale.clock',
    part: 'control',
    weight: 0,
    control: true,
    needs: (can) => can.exclusiveTenant,
    reaches: ['clock-many-holders', 'auto-enable', 'clock-on-boundary'],
    args: fc.record({ included: fc.constantFrom(10, 2.5), used: fc.constantFrom(4, 10) }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      // Every customer made from now on holds this plan, all from the same frozen instant: one reset instant for all.
      const planId = featureId && (await createPlan(context, { add_on: true, auto_enable: true, items: [{ feature_id: featureId, included: args.included, reset: { interval: 'month' } }] }));
      if (featureId === undefined || planId === undefined) return;
      const ids = Array.from({ length: HOLDERS }, () => context.ns.id('cus'));
      await context.sendAll(ids.map((id) => ({ operation: 'customers.get_or_create', body: { customer_id: id }, customerId: id })));
      context.reached('auto-enable');
      const sampled = [0, 99, 100, 199, HOLDERS - 1].map((i) => ids[i]!);
      context.world.customers.push(sampled[0]!, sampled[4]!);
      await context.sendAll(sampled.map((id) => ({ operation: 'balances.track', body: { customer_id: id, feature_id: featureId, value: args.used }, customerId: id })));
      const reset = context.world.upcoming()[0];
      if (reset === undefined) return;
      await moveClock(context, reset - context.world.now, ['reset']);
      context.reached('clock-many-holders');
      context.reached('clock-on-boundary');
      await context.sendAll(sampled.map((id) => balanceRead(id, featureId)));
      await context.send({ operation: 'subscriptions.list', body: { plan_id: planId, limit: 200 } });
    },
  }),
  defineCommand({
    name: 'scale.plans',
    part: 'plans',
    weight: 0,
    needs: (can) => can.exclusiveTenant,
    reaches: ['many-plans-auto-enable', 'auto-enable'],
    args: fc.record({ withItems: fc.boolean(), group: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      if (featureId === undefined) return;
      const ids = Array.from({ length: PLANS_BEFORE }, () => context.ns.id('plan'));
      await context.sendAll(
        ids.map((id, i) => ({ operation: 'plans.create', body: { plan_id: id, name: `Plan ${i + 1}`, add_on: true, ...(args.withItems ? { items: [{ feature_id: featureId, included: i, reset: { interval: 'month' } }] } : {}) } })),
      );
      const autoEnable = await createPlan(context, { auto_enable: true, ...(args.group ? { group: context.world.groups[1] } : {}), items: [{ feature_id: featureId, included: 3, reset: { interval: 'month' } }] });
      if (autoEnable === undefined) return;
      const customerId = await newCustomer(context, { observe: [] });
      context.reached('many-plans-auto-enable');
      context.reached('auto-enable');
      await readAll(context, [
        { operation: 'customers.get', body: { customer_id: customerId }, customerId },
        balanceRead(customerId, featureId),
        { operation: 'subscriptions.list', body: { customer_id: customerId }, customerId },
        { operation: 'plans.list', body: {} },
      ]);
    },
  }),
];
