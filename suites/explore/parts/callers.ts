/**
 * Callers that differ (issue 25): the two environments of one organisation (the program's sandbox
 * key and the live key of the same organisation, where the program has a tenant of its own, both
 * clocks frozen together), the published client (its User-Agent) mixed with plain calls, and two
 * reads pipelined on one connection, each with another key, version or agent than the other.
 * None changes what the document says an answer is: each call is compared like a plain one.
 */
import fc from 'fast-check';
import { defineCommand, type CommandSpec, type RunContext, type SendSpec } from '../command.ts';
import { PUBLISHED_CLIENT as CLIENT, type Caller } from '../sides.ts';
import { attach, balanceRead, createEntity, createFeature, createPlan, newCustomer, readAll, seatFeature } from './build.ts';
import { moveClock } from './control.ts';
import { forgetCustomer } from './deletes.ts';

const LIVE: Caller = { environment: 'live' };

/** A customer of the program holding a plan over a consumable feature, made when there is none. */
async function heldBalance(context: RunContext): Promise<{ customerId: string; featureId: string; planId: string } | undefined> {
  const holding = context.world.holdings.find((h) => h.entityId === undefined && h.featureIds.length > 0);
  if (holding) return { customerId: holding.customerId, featureId: holding.featureIds[0]!, planId: holding.planId };
  if (context.can.readOnly) return undefined;
  const featureId = await createFeature(context, 'consumable');
  const planId = featureId && (await createPlan(context, { items: [{ feature_id: featureId, included: 5, reset: { interval: 'month' } }] }));
  if (featureId === undefined || planId === undefined) return undefined;
  const customerId = await newCustomer(context);
  return (await attach(context, customerId, planId)) ? { customerId, featureId, planId } : undefined;
}

export const callerCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'callers.environments',
    part: 'customers',
    weight: 1,
    // Writes with the live key only where the program has an organisation of its own (a deployment's live key is production).
    control: true,
    reaches: ['both-environments', 'other-tenant-read', 'recreated-same-id'],
    args: fc.record({ deleteIn: fc.constantFrom('sandbox', 'live'), move: fc.boolean(), included: fc.tuple(fc.constantFrom(5, 2.5), fc.constantFrom(9, 1)) }),
    async run(context, args) {
      context.world.live = true;
      // The same IDs in both environments: two features, two plans, two customers, each environment's own.
      // Named apart, so that a read answered from the other environment's shows it.
      const featureId = await createFeature(context, 'consumable');
      if (featureId === undefined || (await createFeature(context, 'consumable', { id: featureId, name: 'Live units', caller: LIVE })) === undefined) return;
      const item = (included: number) => ({ items: [{ feature_id: featureId, included, reset: { interval: 'month' } }] });
      const planId = await createPlan(context, item(args.included[0]));
      if (planId === undefined || (await createPlan(context, item(args.included[1]), { id: planId, caller: LIVE })) === undefined) return;
      const customerId = await newCustomer(context);
      await newCustomer(context, { id: customerId, caller: LIVE });
      await attach(context, customerId, planId);
      await attach(context, customerId, planId, {}, [], LIVE);
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: 1 }, customerId, caller: LIVE });
      // An entity of the same ID in both, named apart.
      const seats = await createFeature(context, 'allocated');
      const entityId = seats === undefined ? undefined : await createEntity(context, customerId, seats, { name: 'Sandbox seat' });
      if (seats !== undefined && entityId !== undefined && (await createFeature(context, 'allocated', { id: seats, caller: LIVE })) !== undefined) {
        await createEntity(context, customerId, seats, { id: entityId, name: 'Live seat', caller: LIVE });
      }
      const both = (read: SendSpec): SendSpec[] => [read, { ...read, caller: LIVE }];
      const reads = [
        ...both(balanceRead(customerId, featureId)),
        ...both({ operation: 'customers.get', body: { customer_id: customerId }, customerId }),
        ...both({ operation: 'plans.get', body: { plan_id: planId } }),
        ...both({ operation: 'features.get', body: { feature_id: featureId } }),
        ...both({ operation: 'subscriptions.list', body: { customer_id: customerId, statuses: ['active', 'expired'] }, customerId }),
        ...both({ operation: 'entities.list', body: { customer_id: customerId }, customerId }),
      ];
      await readAll(context, reads);
      context.reached('both-environments');
      // Something of one environment only, read with the other's key: not found.
      const sandboxOnly = await newCustomer(context);
      await context.send({ operation: 'customers.get', body: { customer_id: sandboxOnly }, customerId: sandboxOnly, variant: 'other-tenant' });
      const liveOnly = await newCustomer(context, { caller: LIVE });
      await context.send({ operation: 'customers.get', body: { customer_id: liveOnly }, customerId: liveOnly, intent: 'AUTH-TENANT-ISOLATION' });
      // A delete in one environment leaves the other's customer of the same ID as it was.
      const caller = args.deleteIn === 'live' ? LIVE : undefined;
      const { model } = await context.send({ operation: 'customers.delete', body: { customer_id: customerId }, customerId, ...(caller ? { caller } : {}), observe: reads });
      if (model.status === 200 && caller === undefined) forgetCustomer(context, customerId);
      if (model.status === 200) {
        await newCustomer(context, { id: customerId, ...(caller ? { caller } : {}), observe: reads });
        context.reached('recreated-same-id');
      }
      // One move over both environments' clocks, past the reset both hold.
      const reset = context.world.upcoming()[0];
      if (args.move && reset !== undefined) {
        await moveClock(context, reset - context.world.now);
        await readAll(context, reads);
      }
    },
  }),
  defineCommand({
    name: 'callers.published-client',
    part: 'customers',
    weight: 1,
    reaches: ['published-client'],
    args: fc.record({ license: fc.boolean(), preview: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      const seat = await seatFeature(context);
      const planId = featureId && (await createPlan(context, { items: [{ feature_id: featureId, included: 5, reset: { interval: 'month' } }] }));
      if (featureId === undefined || seat === undefined || planId === undefined) return;
      // The client's calls, each followed now and then by the same read sent plain.
      const customerId = await newCustomer(context, { caller: CLIENT, name: 'Client customer' });
      await attach(context, customerId, planId, {}, [], CLIENT);
      const entityId = await createEntity(context, customerId, seat, { caller: CLIENT });
      await context.send({ operation: 'balances.check', body: { customer_id: customerId, feature_id: featureId, required_balance: 2, send_event: true }, customerId, tags: ['send-event'], caller: CLIENT, observe: balanceRead(customerId, featureId) });
      await readAll(context, [
        { operation: 'customers.get', body: { customer_id: customerId }, customerId, caller: CLIENT },
        { operation: 'customers.get', body: { customer_id: customerId }, customerId },
        { operation: 'entities.list', body: { customer_id: customerId }, customerId, caller: CLIENT },
        ...(entityId ? [{ operation: 'entities.get' as const, body: { customer_id: customerId, entity_id: entityId }, customerId, caller: CLIENT }] : []),
        { operation: 'plans.get', body: { plan_id: planId }, caller: CLIENT },
        { operation: 'subscriptions.list', body: { customer_id: customerId }, customerId, caller: CLIENT },
      ]);
      if (args.license) {
        const flag = await createFeature(context, 'boolean');
        const licensePlan = flag && (await createPlan(context, { items: [{ feature_id: flag }] }));
        const parent = licensePlan && (await createPlan(context, { add_on: true, licenses: [{ license_plan_id: licensePlan, included: 2 }] }));
        if (licensePlan && parent && (await attach(context, customerId, parent, {}, ['add-on', 'license-quantities'], CLIENT))) {
          const seatId = context.ns.id('seat');
          const pools = { operation: 'licenses.list' as const, body: { customer_id: customerId }, customerId };
          await context.send({ operation: 'licenses.attach', body: { customer_id: customerId, plan_id: licensePlan, entities: [{ entity_id: seatId, name: 'Client seat', feature_id: seat }] }, customerId, caller: CLIENT, observe: pools });
          await context.send({ operation: 'licenses.release', body: { customer_id: customerId, license_plan_id: licensePlan, entity_ids: [seatId] }, customerId, caller: CLIENT, observe: pools });
        }
      }
      if (args.preview) await context.send({ operation: 'billing.preview_multi_update', body: { customer_id: customerId, updates: [{ plan_id: planId, cancel_action: 'cancel_immediately' }] }, customerId, caller: CLIENT });
    },
  }),
  defineCommand({
    name: 'callers.pipelined',
    part: 'customers',
    weight: 1,
    reads: true,
    reaches: ['pipelined-pair'],
    args: fc.record({ pairs: fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 2, maxLength: 3 }) }),
    async run(context, args) {
      const held = await heldBalance(context);
      if (held === undefined) return;
      const { customerId, featureId, planId } = held;
      const customer: SendSpec = { operation: 'customers.get', body: { customer_id: customerId }, customerId };
      // The second of each pair differs from the first in who asks or how: another key, version, agent or envelope.
      const other: SendSpec = context.can.controlPlane ? { ...customer, caller: LIVE } : { ...customer, variant: 'other-tenant' };
      const pairs: readonly (readonly [SendSpec, SendSpec])[] = [
        [customer, other],
        [balanceRead(customerId, featureId), { operation: 'plans.get', body: { plan_id: planId }, caller: CLIENT }],
        [customer, { ...customer, variant: 'bad-version' }],
        [{ operation: 'licenses.list', body: { customer_id: customerId }, customerId }, { ...customer, variant: 'unknown-key' }],
        [{ operation: 'features.get', body: { feature_id: featureId }, variant: 'media-type-case' }, balanceRead(customerId, featureId)],
        [{ ...customer, variant: 'no-key' }, { operation: 'plans.get', body: { plan_id: planId } }],
      ];
      if (other.caller !== undefined) context.world.live = true;
      for (const at of args.pairs) await context.pair(...pairs[at]!);
    },
  }),
];
