/**
 * Generators of license pools: `licenses.list`, `licenses.attach`, `licenses.release`
 * (documented) and `licenses.list_assignments` (setup). Batches mix new entities (created with
 * their feature), existing ones, already-assigned ones and duplicates, and may need more seats than
 * are left, so refusals happen part-way through a batch and what they leave behind is read back.
 */
import fc from 'fast-check';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { defineCommand, index, maybeIndex, pick, variantArb, weighted, type CommandSpec, type RunContext } from '../command.ts';
import { learnPlan } from './plans.ts';

interface Pool {
  readonly license_plan_id: string;
  readonly parent_plan_id: string;
  readonly remaining: number;
}

/** The customer's pools, as the model lists them. */
async function poolsOf(context: RunContext, customerId: string): Promise<Pool[]> {
  const answer = await context.modelRead('licenses.list', { customer_id: customerId });
  return answer.status === 200 ? (answer.body as { list: Pool[] }).list : [];
}

/** The entities of the customer holding a seat of the license plan, as the model knows them. */
async function assignedOf(context: RunContext, customerId: string, licensePlanId: string): Promise<string[]> {
  const answer = await context.modelRead('licenses.list_assignments', { customer_id: customerId, plan_id: licensePlanId });
  return answer.status === 200 ? (answer.body as { list: { entity_id: string }[] }).list.map((a) => a.entity_id) : [];
}

const itemArb = fc.record({
  kind: weighted({ new: 3, existing: 3, assigned: 4, duplicate: 1, 'unknown-without-feature': 1 }),
  entity: index,
});

export const licenseCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'licenses.attach',
    part: 'licenses',
    weight: 8,
    args: fc.record({ customer: index, pool: index, items: fc.array(itemArb, { minLength: 1, maxLength: 3 }), variant: variantArb }),
    applies: (world) => world.poolHolders().length > 0,
    async run(context, args) {
      const { world, ns } = context;
      const customerId = pick(world.poolHolders(), args.customer)!;
      const pools = await poolsOf(context, customerId);
      const pool = pick(pools, args.pool);
      if (pool === undefined) return;
      if (pools.filter((p) => p.license_plan_id === pool.license_plan_id).length > 1) context.reached('two-pools');
      const seatFeature = world.features.find((f) => f.type === 'metered' && !f.consumable);
      const assigned = await assignedOf(context, customerId, pool.license_plan_id);
      const own = world.entities.filter((e) => e.customerId === customerId);
      const items: { entity_id: string; name: string; feature_id?: string }[] = [];
      let needsFeature = false;
      for (const item of args.items) {
        if (item.kind === 'new' && seatFeature) items.push({ entity_id: ns.id('seat'), name: 'New seat', feature_id: seatFeature.id });
        else if (item.kind === 'existing') {
          const entity = pick(own.filter((e) => !assigned.includes(e.id)), item.entity);
          if (entity) items.push({ entity_id: entity.id, name: 'Existing seat' });
        } else if (item.kind === 'assigned') {
          const entityId = pick(assigned, item.entity);
          if (entityId) items.push({ entity_id: entityId, name: 'Assigned seat' });
        } else if (item.kind === 'duplicate' && items.length > 0) items.push({ ...pick(items, item.entity)! });
        else if (item.kind === 'unknown-without-feature') {
          items.push({ entity_id: ns.id('seat'), name: 'Unknown seat' });
          needsFeature = true;
        }
      }
      if (items.length === 0) return;
      const ids = items.map((i) => i.entity_id);
      const duplicated = new Set(ids).size !== ids.length;
      const fresh = new Set(ids.filter((id) => !assigned.includes(id))).size;
      const alreadyAssigned = ids.filter((id) => assigned.includes(id)).length;
      const intent: RuleId | undefined = duplicated
        ? 'LIC-ATTACH-DUPLICATE-IDS'
        : needsFeature
          ? 'LIC-ATTACH-UNKNOWN-ENTITY-NEEDS-FEATURE'
          : fresh > pool.remaining
            ? 'LIC-ATTACH-CAPACITY'
            : fresh === 0
              ? 'LIC-ATTACH-ALL-ASSIGNED-OK'
              : alreadyAssigned > 0
                ? 'LIC-ATTACH-MIXED-BATCH'
                : undefined;
      const codeRule: RuleId | undefined = duplicated ? 'ERR-DUPLICATE-ENTITY-CODE' : intent === 'LIC-ATTACH-CAPACITY' ? 'ERR-CAPACITY-CODE' : undefined;
      if (duplicated || needsFeature || intent === 'LIC-ATTACH-CAPACITY') context.reached('refusal-in-batch');
      const tags = [...(alreadyAssigned > 0 && fresh > 0 ? ['mixed'] : alreadyAssigned > 0 ? ['skip'] : []), ...(items.some((i) => i.feature_id) ? ['creates'] : [])];
      const { model } = await context.send({
        operation: 'licenses.attach',
        body: { customer_id: customerId, plan_id: pool.license_plan_id, entities: items },
        customerId,
        observe: { operation: 'licenses.list', body: { customer_id: customerId }, customerId },
        tags,
        variant: args.variant,
        ...(intent ? { intent } : {}),
        ...(codeRule ? { codeRule } : {}),
      });
      if (model.status !== 200) return;
      for (const item of items) {
        if (item.feature_id && !world.entities.some((e) => e.id === item.entity_id)) world.entities.push({ id: item.entity_id, customerId, featureId: item.feature_id });
      }
    },
  }),
  defineCommand({
    name: 'licenses.release',
    part: 'licenses',
    weight: 4,
    args: fc.record({ customer: index, pool: index, picks: fc.array(fc.record({ kind: fc.constantFrom('assigned', 'assigned', 'assigned', 'unassigned', 'duplicate'), entity: index }), { minLength: 1, maxLength: 3 }), variant: variantArb }),
    applies: (world) => world.poolHolders().length > 0,
    async run(context, args) {
      const { world } = context;
      const customerId = pick(world.poolHolders(), args.customer)!;
      const pool = pick(await poolsOf(context, customerId), args.pool);
      if (pool === undefined) return;
      const assigned = await assignedOf(context, customerId, pool.license_plan_id);
      const unassigned = world.entities.filter((e) => e.customerId === customerId && !assigned.includes(e.id)).map((e) => e.id);
      const ids: string[] = [];
      for (const choice of args.picks) {
        const id = choice.kind === 'assigned' ? pick(assigned, choice.entity) : choice.kind === 'unassigned' ? pick(unassigned, choice.entity) : pick(ids, choice.entity);
        if (id !== undefined) ids.push(id);
      }
      if (ids.length === 0) return;
      const duplicated = new Set(ids).size !== ids.length;
      const unheld = ids.some((id) => !assigned.includes(id));
      const intent: RuleId | undefined = unheld ? 'LIC-RELEASE-UNASSIGNED' : duplicated ? 'LIC-RELEASE-DUPLICATE-IDS' : undefined;
      if (intent) context.reached('refusal-in-batch');
      await context.send({
        operation: 'licenses.release',
        body: { customer_id: customerId, license_plan_id: pool.license_plan_id, entity_ids: ids },
        customerId,
        variant: args.variant,
        observe: [
          { operation: 'licenses.list', body: { customer_id: customerId }, customerId },
          { operation: 'entities.list', body: { customer_id: customerId, limit: 200 }, customerId },
        ],
        ...(intent ? { intent } : {}),
      });
    },
  }),
  defineCommand({
    name: 'licenses.list',
    part: 'licenses',
    weight: 4,
    reads: true,
    args: fc.record({ customer: index, entity: maybeIndex(3, 1), unknown: fc.constantFrom('none', 'none', 'none', 'none', 'customer', 'entity'), variant: variantArb }),
    applies: (world) => world.customers.length > 0,
    async run(context, args) {
      const customerId = args.unknown === 'customer' ? context.ns.id('nocus') : pick(context.world.poolHolders(), args.customer) ?? pick(context.world.customers, args.customer)!;
      const entity = args.unknown === 'entity' ? { id: context.ns.id('noent') } : args.entity >= 0 ? pick(context.world.entities.filter((e) => e.customerId === customerId), args.entity) : undefined;
      await context.send({ operation: 'licenses.list', body: { customer_id: customerId, ...(entity ? { entity_id: entity.id } : {}) }, customerId, variant: args.variant, ...(args.unknown === 'entity' ? { intent: 'ERR-ENTITY-NOT-FOUND' as const } : {}) });
    },
  }),
  defineCommand({
    name: 'licenses.relink',
    part: 'licenses',
    weight: 1,
    args: fc.record({ holder: index, plan: index, included: fc.constantFrom(undefined, 1, 2) }),
    applies: (world) => world.plans.some((p) => p.licenses.length > 0),
    async run(context, args) {
      // A parent plan's license links replaced by another set ("the full set replaces existing links").
      const parent = pick(context.world.plans.filter((p) => p.licenses.length > 0), args.holder)!;
      const other = pick(context.world.plans.filter((p) => p.id !== parent.id && !p.archived), args.plan);
      const links = other ? [{ license_plan_id: other.id, ...(args.included === undefined ? {} : { included: args.included }) }] : [];
      const { model } = await context.send({ operation: 'plans.update', body: { plan_id: parent.id, licenses: links }, tags: ['licenses', 'new-version'] });
      if (model.status === 200) learnPlan(context, model.body);
    },
  }),
  defineCommand({
    name: 'licenses.customer-view',
    part: 'licenses',
    weight: 1,
    reads: true,
    args: fc.record({ customer: index }),
    applies: (world) => world.poolHolders().length > 0,
    async run(context, { customer }) {
      const customerId = pick(context.world.poolHolders(), customer)!;
      await context.send({ operation: 'customers.get', body: { customer_id: customerId }, customerId });
    },
  }),
  defineCommand({
    name: 'licenses.list_assignments',
    part: 'licenses',
    weight: 1,
    reads: true,
    args: fc.record({ customer: index, active: fc.boolean() }),
    applies: (world) => world.customers.length > 0,
    async run(context, args) {
      const customerId = pick(context.world.customers, args.customer)!;
      await context.send({ operation: 'licenses.list_assignments', body: { customer_id: customerId, ...(args.active ? {} : { active: false }) }, customerId });
    },
  }),
];
