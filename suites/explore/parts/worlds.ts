/**
 * Compound builders for the prelude of a program: the combinations the issue found hand-written
 * scenarios never build, made on purpose so random steps act on them. Each is a few setup calls
 * (all compared like any other), and shrinks away as a whole when a finding does not need it.
 *
 * - a license pool: a license plan, a parent plan offering it (with included and bought seats), and
 *   a customer holding the parent; now and then a second parent offering the same license plan;
 * - a credit system pricing two metered features, granted by a plan a customer holds;
 * - stacked grants: a main plan and an add-on granting the same feature (one priced with a cap,
 *   one free), both held by one customer or one entity.
 */
import fc from 'fast-check';
import { defineCommand, index, pick, type CommandSpec, type RunContext } from '../command.ts';
import { learnPlan } from './plans.ts';

async function createFeature(context: RunContext, type: 'boolean' | 'consumable' | 'allocated'): Promise<string | undefined> {
  const id = context.ns.id('feat');
  const body = type === 'boolean' ? { feature_id: id, name: `Flag ${id.slice(-4)}`, type: 'boolean' } : { feature_id: id, name: `Units ${id.slice(-4)}`, type: 'metered', consumable: type === 'consumable' };
  const { model } = await context.send({ operation: 'features.create', body });
  if (model.status !== 200) return undefined;
  context.world.features.push({ id, type: type === 'boolean' ? 'boolean' : 'metered', consumable: type === 'consumable', eventNames: [], covers: [] });
  return id;
}

async function createPlan(context: RunContext, body: Record<string, unknown>): Promise<string | undefined> {
  const id = context.ns.id('plan');
  const { model } = await context.send({ operation: 'plans.create', body: { plan_id: id, name: `Plan ${id.slice(-4)}`, ...body } });
  if (model.status !== 200) return undefined;
  learnPlan(context, model.body);
  return id;
}

async function attach(context: RunContext, customerId: string, planId: string, extra: Record<string, unknown> = {}, tags: readonly string[] = []): Promise<void> {
  await context.send({ operation: 'billing.attach', body: { customer_id: customerId, plan_id: planId, ...extra }, customerId, tags });
}

async function customer(context: RunContext, index: number): Promise<string> {
  const existing = pick(context.world.customers, index);
  if (existing !== undefined) return existing;
  const id = context.ns.id('cus');
  await context.send({ operation: 'customers.get_or_create', body: { customer_id: id }, customerId: id });
  context.world.customers.push(id);
  return id;
}

export const worldCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'world.license-pool',
    part: 'licenses',
    weight: 1,
    builds: true,
    args: fc.record({ customer: index, included: fc.constantFrom(0, 1, 2, 3), bought: fc.constantFrom(undefined, 0, 2, 4), licenseItem: fc.constantFrom('flag', 'seat'), secondParent: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }), group: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, args.licenseItem === 'flag' ? 'boolean' : 'allocated');
      if (featureId === undefined) return;
      if (args.licenseItem === 'flag' && !context.world.features.some((f) => f.type === 'metered' && !f.consumable)) await createFeature(context, 'allocated');
      const licensePlan = await createPlan(context, { items: [{ feature_id: featureId, ...(args.licenseItem === 'seat' ? { included: 1 } : {}) }] });
      if (licensePlan === undefined) return;
      const parent = await createPlan(context, { ...(args.group ? { group: context.world.groups[0] } : {}), licenses: [{ license_plan_id: licensePlan, included: args.included }] });
      if (parent === undefined) return;
      const customerId = await customer(context, args.customer);
      const seats = args.bought === undefined ? {} : { license_quantities: [{ license_plan_id: licensePlan, quantity: args.bought }] };
      await attach(context, customerId, parent, seats, ['license-quantities']);
      if (!args.secondParent) return;
      const second = await createPlan(context, { add_on: true, licenses: [{ license_plan_id: licensePlan, included: 1 }] });
      if (second === undefined) return;
      context.reached('two-pools');
      await attach(context, customerId, second, {}, ['add-on', 'license-quantities']);
    },
  }),
  defineCommand({
    name: 'world.credit-system',
    part: 'features',
    weight: 1,
    builds: true,
    args: fc.record({ customer: index, costs: fc.tuple(fc.constantFrom(1, 2, 0.5), fc.constantFrom(1, 3, 0.25)), credits: fc.constantFrom(5, 10, 2.5), ownGrant: fc.boolean() }),
    async run(context, args) {
      const first = await createFeature(context, 'consumable');
      const second = await createFeature(context, 'consumable');
      if (first === undefined || second === undefined) return;
      const id = context.ns.id('credits');
      const schema = [
        { metered_feature_id: first, credit_cost: args.costs[0] },
        { metered_feature_id: second, credit_cost: args.costs[1] },
      ];
      const { model } = await context.send({ operation: 'features.create', body: { feature_id: id, name: `Credits ${id.slice(-4)}`, type: 'credit_system', credit_schema: schema } });
      if (model.status !== 200) return;
      context.world.features.push({ id, type: 'credit_system', consumable: true, eventNames: [], covers: [first, second] });
      const items = [{ feature_id: id, included: args.credits, reset: { interval: 'month' } }, ...(args.ownGrant ? [{ feature_id: first, included: 1, reset: { interval: 'month' } }] : [])];
      const plan = await createPlan(context, { items });
      if (plan === undefined) return;
      await attach(context, await customer(context, args.customer), plan);
    },
  }),
  defineCommand({
    name: 'world.stacked-grants',
    part: 'balances',
    weight: 1,
    builds: true,
    args: fc.record({ customer: index, onEntity: fc.boolean(), included: fc.tuple(fc.constantFrom(1, 3, 5), fc.constantFrom(0, 2, 2.5)), cap: fc.constantFrom(null, 0, 3), kind: fc.constantFrom('consumable', 'consumable', 'allocated') }),
    async run(context, args) {
      const featureId = await createFeature(context, args.kind as 'consumable' | 'allocated');
      if (featureId === undefined) return;
      const reset = args.kind === 'consumable' ? { reset: { interval: 'month' } } : {};
      const main = await createPlan(context, { group: context.world.groups[1], items: [{ feature_id: featureId, included: args.included[0], ...reset, ...(args.kind === 'consumable' ? { price: { amount: 1, interval: 'month', billing_method: 'usage_based', max_purchase: args.cap } } : {}) }] });
      const addOn = await createPlan(context, { add_on: true, items: [{ feature_id: featureId, included: args.included[1], ...reset }] });
      if (main === undefined || addOn === undefined) return;
      const customerId = await customer(context, args.customer);
      let entity: Record<string, string> = {};
      if (args.onEntity) {
        const seat = context.world.features.find((f) => f.type === 'metered' && !f.consumable)?.id ?? (await createFeature(context, 'allocated'));
        const entityId = context.ns.id('ent');
        const { model } = await context.send({ operation: 'entities.create', body: { customer_id: customerId, entity_id: entityId, feature_id: seat, name: 'Stacked' }, customerId });
        if (model.status === 200 && seat) {
          context.world.entities.push({ id: entityId, customerId, featureId: seat });
          entity = { entity_id: entityId };
        }
      }
      await attach(context, customerId, main, entity, ['usage-price', ...(args.onEntity ? ['entity'] : [])]);
      await attach(context, customerId, addOn, entity, ['add-on', ...(args.onEntity ? ['entity'] : [])]);
    },
  }),
];
