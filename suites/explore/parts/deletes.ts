/**
 * Deletes and what they leave behind (issue 25): each command builds something worth deleting,
 * deletes it with the reference's delete (a setup operation), reads it back through every read that
 * could still show it (listings and their filters, checks and locks, pools, entities' hydration),
 * and makes it again under the same ID, which must come back new, not as it was (an auto-enable
 * plan reaches a customer made again; a plan made again starts at version 1). Refused deletes of
 * what is still in use are read back too. The last command deletes (or now and then makes) between
 * two page calls of a walk. What the deletes answer is the reference's (SHOULD); what documented reads show after is
 * the document's.
 */
import fc from 'fast-check';
import { defineCommand, pick, rarely, type CommandSpec, type Observation, type RunContext } from '../command.ts';
import { attach, balanceRead, createEntity, createFeature, createPlan, newCustomer, readAll, seatFeature } from './build.ts';
import { learnPlan } from './plans.ts';

export const ALL_STATUSES = ['active', 'scheduled', 'past_due', 'expired'];

/** What the program knows of a customer goes with it: its entities, locks and holdings. */
export function forgetCustomer(context: RunContext, id: string): void {
  const { world } = context;
  world.customers = world.customers.filter((c) => c !== id);
  world.entities = world.entities.filter((e) => e.customerId !== id);
  world.locks = world.locks.filter((l) => l.customerId !== id);
  world.holdings = world.holdings.filter((h) => h.customerId !== id);
}

/** Every read that could still show a customer: itself, its balances, pools, entities and records, in listings filtered on it and across customers. */
function customerReads(customerId: string, featureId: string, planId: string, entityId: string | undefined): Observation[] {
  return [
    { operation: 'customers.get', body: { customer_id: customerId }, customerId },
    balanceRead(customerId, featureId),
    { operation: 'licenses.list', body: { customer_id: customerId }, customerId },
    { operation: 'entities.list', body: { customer_id: customerId, limit: 200 }, customerId },
    ...(entityId ? [{ operation: 'entities.get' as const, body: { customer_id: customerId, entity_id: entityId }, customerId }, { operation: 'entities.list' as const, body: { search: entityId } }] : []),
    { operation: 'subscriptions.list', body: { customer_id: customerId, statuses: ALL_STATUSES }, customerId },
    { operation: 'subscriptions.list', body: { plan_id: planId, statuses: ALL_STATUSES } },
    { operation: 'purchases.list', body: { customer_id: customerId, statuses: ALL_STATUSES }, customerId },
    { operation: 'billing.preview_multi_update', body: { customer_id: customerId, updates: [{ plan_id: planId, cancel_action: 'cancel_immediately' }] }, customerId },
  ];
}

export const deleteCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'deletes.customer',
    part: 'customers',
    weight: 1,
    reaches: ['deleted-customer', 'recreated-same-id'],
    args: fc.record({ autoEnable: fc.boolean(), pool: fc.boolean(), lock: fc.boolean(), deletePlan: fc.boolean(), entityPlan: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      const seat = await seatFeature(context);
      if (featureId === undefined || seat === undefined) return;
      const planId = await createPlan(context, { items: [{ feature_id: featureId, included: 5, reset: { interval: 'month' } }, { feature_id: seat, included: 3 }] });
      if (planId === undefined) return;
      // Where the program has the tenant to itself: a free auto-enable plan, which must reach the customer again when it is made again.
      const autoEnable = args.autoEnable && context.can.exclusiveTenant ? await createPlan(context, { add_on: true, auto_enable: true, items: [{ feature_id: featureId, included: 2, reset: { interval: 'month' } }] }) : undefined;
      const customerId = await newCustomer(context);
      if (!(await attach(context, customerId, planId))) return;
      if (args.pool) {
        const licensePlan = await createPlan(context, { items: [{ feature_id: seat, included: 1 }] });
        const parent = licensePlan && (await createPlan(context, { add_on: true, licenses: [{ license_plan_id: licensePlan, included: 2 }] }));
        if (licensePlan && parent && (await attach(context, customerId, parent, {}, ['add-on', 'license-quantities']))) {
          await context.send({ operation: 'licenses.attach', body: { customer_id: customerId, plan_id: licensePlan, entities: [{ entity_id: context.ns.id('seat'), name: 'Seat', feature_id: seat }] }, customerId });
        }
      }
      const entityId = await createEntity(context, customerId, seat);
      // A plan the customer's entity holds: its record goes with the customer too, from every listing.
      const entityPlan = args.entityPlan && entityId ? await createPlan(context, { add_on: true, items: [{ feature_id: featureId, included: 1 }] }) : undefined;
      const heldByEntity = entityPlan !== undefined && (await attach(context, customerId, entityPlan, { entity_id: entityId }, ['add-on', 'entity'])) ? entityPlan : undefined;
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: 2 }, customerId });
      const lockId = context.ns.id('lock');
      if (args.lock) await context.send({ operation: 'balances.check', body: { customer_id: customerId, feature_id: featureId, required_balance: 1, lock: { lock_id: lockId, enabled: true } }, customerId, tags: ['lock'] });
      const entityRecords: Observation[] = heldByEntity ? [{ operation: 'subscriptions.list', body: { plan_id: heldByEntity, statuses: ALL_STATUSES } }, { operation: 'entities.list', body: { plans: [{ id: heldByEntity }] } }] : [];
      const { model } = await context.send({ operation: 'customers.delete', body: { customer_id: customerId }, customerId, observe: [...customerReads(customerId, featureId, planId, entityId), ...entityRecords] });
      if (model.status !== 200) return;
      forgetCustomer(context, customerId);
      context.reached('deleted-customer');
      if (args.lock) await context.send({ operation: 'balances.finalize', body: { lock_id: lockId, action: 'confirm' }, customerId, tags: ['confirm'] });
      // The same ID again: a new customer, holding nothing of the old one (but the auto-enable plan).
      await newCustomer(context, { id: customerId, observe: customerReads(customerId, featureId, planId, entityId) });
      context.reached('recreated-same-id');
      if (autoEnable !== undefined) context.reached('auto-enable');
      // A plan whose only customer was deleted can be deleted (PLAN-DELETE), unless the customer made again holds it.
      if (args.deletePlan) {
        for (const id of [planId, ...(heldByEntity ? [heldByEntity] : [])]) {
          const deleted = await context.send({ operation: 'plans.delete', body: { plan_id: id, all_versions: true }, observe: { operation: 'plans.get', body: { plan_id: id } } });
          if (deleted.model.status === 200) context.world.plans = context.world.plans.filter((p) => p.id !== id);
        }
      }
    },
  }),
  defineCommand({
    name: 'deletes.plan',
    part: 'plans',
    weight: 1,
    reaches: ['deleted-plan-version', 'deleted-plan', 'recreated-same-id', 'plan-versions'],
    args: fc.record({ versions: fc.constantFrom(2, 3), heldFirst: fc.boolean(), refusedFirst: rarely(2) }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      if (featureId === undefined) return;
      const item = (included: number) => ({ items: [{ feature_id: featureId, included, reset: { interval: 'month' } }] });
      const versioned = await createPlan(context, item(5));
      const whole = await createPlan(context, item(4));
      if (versioned === undefined || whole === undefined) return;
      for (const planId of [versioned, whole]) {
        for (let v = 2; v <= args.versions; v++) {
          const { model } = await context.send({ operation: 'plans.update', body: { plan_id: planId, ...item(5 + v) }, tags: ['new-version'] });
          if (model.status === 200) learnPlan(context, model.body);
        }
      }
      context.reached('plan-versions');
      const holder = await newCustomer(context);
      // A customer on the first version: that version stays, the latest can go.
      if (args.heldFirst) await attach(context, holder, versioned, { version: 1 }, ['version']);
      const held = args.refusedFirst ? await createPlan(context, item(3)) : undefined;
      if (held !== undefined && (await attach(context, holder, held))) {
        // Refused while held: the plan stays as it was.
        await context.send({ operation: 'plans.delete', body: { plan_id: held, all_versions: true }, observe: [{ operation: 'plans.get', body: { plan_id: held } }, { operation: 'plans.list', body: { all_versions: true } }] });
      }
      const reads = (planId: string): Observation[] => [
        { operation: 'plans.get', body: { plan_id: planId } },
        { operation: 'plans.get', body: { plan_id: planId, version: args.versions } },
        { operation: 'plans.get', body: { plan_id: planId, version: 1 } },
        { operation: 'plans.list', body: { all_versions: true, include_archived: true } },
        { operation: 'entities.list', body: { plans: [{ id: planId }] } },
        { operation: 'subscriptions.list', body: { plan_id: planId, statuses: ALL_STATUSES } },
      ];
      // The latest version only: the one before it is the plan now.
      const latest = await context.send({ operation: 'plans.delete', body: { plan_id: versioned }, tags: ['latest-version'], observe: reads(versioned) });
      if (latest.model.status === 200) {
        context.reached('deleted-plan-version');
        const now = await context.modelRead('plans.get', { plan_id: versioned });
        if (now.status === 200) learnPlan(context, now.body);
        const next = await newCustomer(context);
        await attach(context, next, versioned);
        await context.send(balanceRead(next, featureId));
        // A version made after the delete: its number, and what the customers hold.
        const { model } = await context.send({ operation: 'plans.update', body: { plan_id: versioned, ...item(20) }, tags: ['new-version'], observe: reads(versioned) });
        if (model.status === 200) learnPlan(context, model.body);
      }
      // Every version: nothing of the plan is left, and it can be made again from version 1.
      const all = await context.send({ operation: 'plans.delete', body: { plan_id: whole, all_versions: true }, observe: reads(whole) });
      if (all.model.status !== 200) return;
      context.world.plans = context.world.plans.filter((p) => p.id !== whole);
      context.reached('deleted-plan');
      await context.send({ operation: 'billing.attach', body: { customer_id: holder, plan_id: whole }, customerId: holder, intent: 'ERR-PLAN-NOT-FOUND', observe: balanceRead(holder, featureId) });
      if ((await createPlan(context, item(1), { id: whole })) !== undefined) {
        context.reached('recreated-same-id');
        await readAll(context, reads(whole));
      }
    },
  }),
  defineCommand({
    name: 'deletes.feature',
    part: 'features',
    weight: 1,
    reaches: ['deleted-feature', 'recreated-same-id'],
    args: fc.record({ againAs: fc.constantFrom<'boolean' | 'consumable' | 'allocated'>('boolean', 'consumable', 'allocated'), refused: fc.constantFrom('plan', 'credit-system', 'entity') }),
    async run(context, args) {
      const customerId = await newCustomer(context);
      // In use: refused, and the feature stays.
      const used = await createFeature(context, args.refused === 'credit-system' ? 'consumable' : 'allocated');
      if (used !== undefined) {
        if (args.refused === 'plan') await createPlan(context, { items: [{ feature_id: used, included: 1 }] });
        if (args.refused === 'credit-system') await context.send({ operation: 'features.create', body: { feature_id: context.ns.id('credits'), name: 'Credits', type: 'credit_system', credit_schema: [{ metered_feature_id: used, credit_cost: 1 }] } });
        if (args.refused === 'entity') await createEntity(context, customerId, used);
        await context.send({ operation: 'features.delete', body: { feature_id: used }, observe: [{ operation: 'features.get', body: { feature_id: used } }, balanceRead(customerId, used)] });
      }
      // Unused: deleted, then every read of it.
      const featureId = await createFeature(context, 'consumable');
      if (featureId === undefined) return;
      const reads: Observation[] = [
        { operation: 'features.get', body: { feature_id: featureId } },
        { operation: 'features.list', body: {} },
        balanceRead(customerId, featureId),
        { operation: 'balances.check', body: { customer_id: customerId, feature_id: featureId, send_event: true }, customerId, tags: ['send-event'] },
      ];
      const { model } = await context.send({ operation: 'features.delete', body: { feature_id: featureId }, observe: reads });
      if (model.status !== 200) return;
      context.world.features = context.world.features.filter((f) => f.id !== featureId);
      context.reached('deleted-feature');
      await context.send({ operation: 'plans.create', body: { plan_id: context.ns.id('plan'), name: 'On a deleted feature', items: [{ feature_id: featureId, included: 1, reset: { interval: 'month' } }] }, intent: 'ERR-FEATURE-NOT-FOUND' });
      // The same ID again, now of another kind: nothing of the old feature comes back.
      if ((await createFeature(context, args.againAs, { id: featureId })) !== undefined) {
        context.reached('recreated-same-id');
        await readAll(context, reads.slice(0, 3));
      }
    },
  }),
  defineCommand({
    name: 'deletes.referral',
    part: 'referrals',
    weight: 1,
    reaches: ['deleted-referral', 'recreated-same-id'],
    args: fc.record({ checkout: fc.boolean(), max: fc.constantFrom(null, 2) }),
    async run(context, args) {
      const featureId = context.world.features.find((f) => f.type !== 'boolean')?.id ?? (await createFeature(context, 'consumable'));
      if (featureId === undefined) return;
      const rewardId = context.ns.id('reward');
      const reward = { feature_grant: { id: rewardId, name: 'Reward', grants: [{ feature_id: featureId, included: 5, expiry: null }], promo_codes: [{ code: context.ns.code('PROMO'), max_uses: null }] } };
      if ((await context.send({ operation: 'rewards.create', body: reward })).model.status !== 200) return;
      context.world.rewards.push(rewardId);
      const planId = context.world.plans.find((p) => !p.archived)?.id;
      const programId = context.ns.id('refprog');
      const checkout = args.checkout && planId !== undefined;
      const program = { id: programId, reward_id: rewardId, redeem_on: checkout ? 'checkout' : 'customer_creation', received_by: 'referrer', max_redemptions: args.max, ...(checkout ? { plan_ids: [planId] } : {}) };
      if ((await context.send({ operation: 'referral_programs.create', body: program })).model.status !== 200) return;
      context.world.programs.push({ id: programId, redeemOn: program.redeem_on });
      const reads: Observation[] = [{ operation: 'referral_programs.get', body: { referral_program_id: programId } }];
      // Linked: the reward cannot go (REF-REWARD-DELETE-LINKED).
      await context.send({ operation: 'rewards.delete', body: { reward_id: rewardId }, observe: reads });
      const { model } = await context.send({ operation: 'referral_programs.delete', body: { referral_program_id: programId }, observe: reads });
      if (model.status !== 200) return;
      context.world.programs = context.world.programs.filter((p) => p.id !== programId);
      context.reached('deleted-referral');
      await context.send({ operation: 'referral_programs.update', body: { referral_program_id: programId, received_by: 'all' }, intent: 'REF-UNKNOWN-PROGRAM' });
      // Unlinked now: the reward goes, and a program can no longer name it.
      const gone = await context.send({ operation: 'rewards.delete', body: { reward_id: rewardId } });
      if (gone.model.status === 200) {
        context.world.rewards = context.world.rewards.filter((r) => r !== rewardId);
        await context.send({ operation: 'referral_programs.create', body: { ...program, id: context.ns.id('refprog') }, intent: 'REF-REWARD-CREATE' });
        // Both again under their IDs: a new reward and a new program, as made now.
        if ((await context.send({ operation: 'rewards.create', body: { feature_grant: { ...reward.feature_grant, name: 'Reward again', promo_codes: [{ code: context.ns.code('PROMO'), max_uses: 1 }] } } })).model.status === 200) {
          context.world.rewards.push(rewardId);
          const again = await context.send({ operation: 'referral_programs.create', body: { ...program, received_by: 'all' }, observe: reads });
          if (again.model.status === 200) {
            context.world.programs.push({ id: programId, redeemOn: program.redeem_on });
            context.reached('recreated-same-id');
          }
        }
      }
    },
  }),
  defineCommand({
    name: 'deletes.entity',
    part: 'entities',
    weight: 1,
    reaches: ['deleted-entity', 'recreated-same-id'],
    args: fc.record({ which: fc.constantFrom('plain', 'seat', 'holder'), again: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      const seat = await seatFeature(context);
      const flag = await createFeature(context, 'boolean');
      if (featureId === undefined || seat === undefined || flag === undefined) return;
      const planId = await createPlan(context, { items: [{ feature_id: featureId, included: 5, reset: { interval: 'month' } }, { feature_id: seat, included: 5 }] });
      const addOn = await createPlan(context, { add_on: true, items: [{ feature_id: flag }] });
      const licensePlan = await createPlan(context, { items: [{ feature_id: flag }] });
      const parent = licensePlan && (await createPlan(context, { add_on: true, licenses: [{ license_plan_id: licensePlan, included: 2 }] }));
      if (planId === undefined || addOn === undefined || licensePlan === undefined || parent === undefined) return;
      const customerId = await newCustomer(context);
      await attach(context, customerId, planId);
      await attach(context, customerId, parent, {}, ['add-on', 'license-quantities']);
      const plain = await createEntity(context, customerId, seat);
      const holder = await createEntity(context, customerId, seat);
      const seated = context.ns.id('seat');
      await context.send({ operation: 'licenses.attach', body: { customer_id: customerId, plan_id: licensePlan, entities: [{ entity_id: seated, name: 'Seated', feature_id: seat }] }, customerId });
      if (!context.world.entities.some((e) => e.id === seated)) context.world.entities.push({ id: seated, customerId, featureId: seat });
      if (holder) await attach(context, customerId, addOn, { entity_id: holder }, ['add-on', 'entity']);
      if (plain) await context.send({ operation: 'balances.track', body: { customer_id: customerId, entity_id: plain, feature_id: featureId, value: 1 }, customerId });
      // An entity holding a plan of its own is deleted only where the program has a tenant of its own: the 2.3.0 reference keeps that plan at customer level (ENT-DELETE), which later reads would show.
      const which = args.which === 'holder' && !context.can.controlPlane ? 'plain' : args.which;
      const entityId = { plain, seat: seated, holder }[which];
      if (entityId === undefined) return;
      const reads: Observation[] = [
        { operation: 'entities.get', body: { customer_id: customerId, entity_id: entityId }, customerId },
        { operation: 'entities.list', body: { customer_id: customerId }, customerId },
        { operation: 'entities.list', body: { plans: [{ id: addOn }, { id: licensePlan }] } },
        { operation: 'licenses.list', body: { customer_id: customerId }, customerId },
        { operation: 'licenses.list_assignments', body: { customer_id: customerId, active: false }, customerId },
        balanceRead(customerId, featureId, entityId),
        balanceRead(customerId, seat),
        balanceRead(customerId, flag),
        { operation: 'subscriptions.list', body: { customer_id: customerId, statuses: ALL_STATUSES }, customerId },
        { operation: 'customers.get', body: { customer_id: customerId }, customerId },
      ];
      const { model } = await context.send({ operation: 'entities.delete', body: { customer_id: customerId, entity_id: entityId }, customerId, observe: reads });
      if (model.status !== 200) return;
      context.world.entities = context.world.entities.filter((e) => e.id !== entityId);
      context.world.holdings = context.world.holdings.filter((h) => h.entityId !== entityId);
      context.reached('deleted-entity');
      // The same ID again: by a license (a new seat, created with its feature) or as an entity of its own.
      if (which === 'seat' || args.again) {
        await context.send({ operation: 'licenses.attach', body: { customer_id: customerId, plan_id: licensePlan, entities: [{ entity_id: entityId, name: 'Seated again', feature_id: seat }] }, customerId, observe: reads });
        if (!context.world.entities.some((e) => e.id === entityId)) context.world.entities.push({ id: entityId, customerId, featureId: seat });
      } else if ((await createEntity(context, customerId, seat, { id: entityId, name: 'Again' })) !== undefined) await readAll(context, reads);
      context.reached('recreated-same-id');
    },
  }),
  defineCommand({
    name: 'deletes.mid-walk',
    part: 'entities',
    weight: 1,
    reaches: ['delete-mid-walk', 'paged-walk'],
    args: fc.record({ listing: fc.constantFrom('entities', 'entities', 'subscriptions'), change: fc.constantFrom('delete', 'delete', 'insert'), count: fc.constantFrom(3, 4, 6), victim: fc.nat({ max: 5 }), limit: fc.constantFrom(1, 2) }),
    async run(context, args) {
      const seat = await seatFeature(context);
      if (seat === undefined) return;
      if (args.listing === 'subscriptions') {
        // Records of several customers; between two pages of a walk across customers, one customer deleted (its records go) or a record made.
        const featureId = await createFeature(context, 'allocated');
        const planId = featureId && (await createPlan(context, { items: [{ feature_id: featureId, included: 1 }] }));
        if (planId === undefined) return;
        const customers: string[] = [];
        for (let i = 0; i < args.count; i++) {
          const customerId = await newCustomer(context);
          if (await attach(context, customerId, planId)) customers.push(customerId);
        }
        const victim = args.change === 'insert' ? await newCustomer(context) : pick(customers, args.victim);
        if (victim === undefined) return;
        const write = args.change === 'insert' ? { operation: 'billing.attach' as const, body: { customer_id: victim, plan_id: planId }, customerId: victim } : { operation: 'customers.delete' as const, body: { customer_id: victim }, customerId: victim };
        await context.walkAround({ operation: 'subscriptions.list', body: { plan_id: planId, limit: args.limit } }, write, { field: 'customer_id', values: [victim] });
        if (args.change === 'delete') forgetCustomer(context, victim);
        return;
      }
      // Entities of one customer (none holding a plan of its own); between two pages, one deleted or one made.
      const customerId = await newCustomer(context);
      const made: string[] = [];
      for (let i = 0; i < args.count; i++) {
        const entityId = await createEntity(context, customerId, seat, { name: `Walked ${i}` });
        if (entityId !== undefined) made.push(entityId);
      }
      const victim = args.change === 'insert' ? context.ns.id('ent') : pick(made, args.victim);
      if (victim === undefined) return;
      const write = args.change === 'insert' ? { operation: 'entities.create' as const, body: { customer_id: customerId, entity_id: victim, feature_id: seat, name: 'Made mid-walk' }, customerId } : { operation: 'entities.delete' as const, body: { customer_id: customerId, entity_id: victim }, customerId };
      await context.walkAround({ operation: 'entities.list', body: { customer_id: customerId, limit: args.limit }, customerId }, write, { field: 'id', values: [victim] });
      if (args.change === 'delete') context.world.entities = context.world.entities.filter((e) => e.id !== victim);
      else context.world.entities.push({ id: victim, customerId, featureId: seat });
    },
  }),
];
