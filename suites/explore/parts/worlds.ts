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
import { defineCommand, index, rarely, type CommandSpec } from '../command.ts';
import { liveRecords, selectRecord } from './control.ts';
import { attach, createFeature, createPlan, someCustomer } from './build.ts';
import { learnPlan } from './plans.ts';

export const worldCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'world.license-pool',
    part: 'licenses',
    weight: 1,
    builds: true,
    reaches: ['two-licenses'],
    args: fc.record({ customer: index, included: fc.constantFrom(0, 1, 2, 3, 5), bought: fc.constantFrom(undefined, undefined, 0, 3, 6), licenseItem: fc.constantFrom('flag', 'seat'), secondLicense: rarely(3), secondParent: rarely(3), group: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, args.licenseItem === 'flag' ? 'boolean' : 'allocated');
      if (featureId === undefined) return;
      if (args.licenseItem === 'flag' && !context.world.features.some((f) => f.type === 'metered' && !f.consumable)) await createFeature(context, 'allocated');
      const licensePlan = await createPlan(context, { items: [{ feature_id: featureId, ...(args.licenseItem === 'seat' ? { included: 1 } : {}) }] });
      if (licensePlan === undefined) return;
      // Now and then a parent offering two license plans: an entity may hold a seat of each, and one license's seats never count for the other.
      const otherLicense = args.secondLicense ? await createPlan(context, { items: [{ feature_id: featureId, ...(args.licenseItem === 'seat' ? { included: 1 } : {}) }] }) : undefined;
      const offered = [licensePlan, ...(otherLicense ? [otherLicense] : [])];
      const parent = await createPlan(context, { ...(args.group ? { group: context.world.groups[0] } : {}), licenses: offered.map((id) => ({ license_plan_id: id, included: args.included })) });
      if (parent === undefined) return;
      if (otherLicense) context.reached('two-licenses');
      const customerId = await someCustomer(context, args.customer);
      const seats = args.bought === undefined ? {} : { license_quantities: offered.map((id) => ({ license_plan_id: id, quantity: args.bought! })) };
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
      await attach(context, await someCustomer(context, args.customer), plan);
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
      const customerId = await someCustomer(context, args.customer);
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

/** More compound worlds, each the prelude of one focus (explorer.ts FOCUSES). */
export const focusWorldCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'world.plan-versions',
    part: 'plans',
    weight: 1,
    builds: true,
    args: fc.record({ customer: index, metadata: fc.boolean(), archive: fc.boolean(), group: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      if (featureId === undefined) return;
      const plan = await createPlan(context, { ...(args.group ? { group: context.world.groups[0] } : {}), items: [{ feature_id: featureId, included: 5, reset: { interval: 'month' } }], metadata: { v: 1 } });
      if (plan === undefined) return;
      const first = await someCustomer(context, args.customer);
      await attach(context, first, plan);
      // A configuration change: version 2, which the next customer gets while the first keeps version 1.
      const { model } = await context.send({ operation: 'plans.update', body: { plan_id: plan, items: [{ feature_id: featureId, included: 8, reset: { interval: 'month' } }] }, tags: ['new-version'] });
      if (model.status === 200) learnPlan(context, model.body);
      context.reached('plan-versions');
      const second = context.ns.id('cus');
      await context.send({ operation: 'customers.get_or_create', body: { customer_id: second }, customerId: second });
      context.world.customers.push(second);
      await attach(context, second, plan);
      if (args.metadata) await context.send({ operation: 'plans.update', body: { plan_id: plan, metadata: { v: 2 } }, tags: ['metadata'] });
      if (args.archive) {
        const archived = await context.send({ operation: 'plans.update', body: { plan_id: plan, archived: true }, tags: ['archive'] });
        if (archived.model.status === 200) learnPlan(context, archived.model.body);
        context.reached('archived-plan');
      }
    },
  }),
  defineCommand({
    name: 'world.paid-subscriptions',
    part: 'preview',
    weight: 1,
    builds: true,
    args: fc.record({ customer: index, amounts: fc.tuple(fc.constantFrom(10, 9.99, 30), fc.constantFrom(5, 12.5)), prepaid: fc.boolean(), trial: fc.boolean(), onEntity: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      if (featureId === undefined) return;
      const main = await createPlan(context, {
        group: context.world.groups[1],
        price: { amount: args.amounts[0], interval: 'month' },
        items: [{ feature_id: featureId, included: 2, reset: { interval: 'month' }, ...(args.prepaid ? { price: { amount: 1, interval: 'month', billing_method: 'prepaid' } } : {}) }],
        ...(args.trial ? { free_trial: { duration_length: 7, duration_type: 'day', card_required: true } } : {}),
      });
      const addOn = await createPlan(context, { add_on: true, price: { amount: args.amounts[1], interval: 'month' } });
      const free = await createPlan(context, { add_on: true, items: [] });
      if (main === undefined || addOn === undefined || free === undefined) return;
      const customerId = await someCustomer(context, args.customer);
      await attach(context, customerId, main, args.prepaid ? { feature_quantities: [{ feature_id: featureId, quantity: 3 }] } : {}, ['prepaid', ...(args.trial ? ['trial'] : [])]);
      await attach(context, customerId, addOn, {}, ['add-on']);
      await attach(context, customerId, free, {}, ['add-on']);
      if (!args.onEntity) return;
      const seat = context.world.features.find((f) => f.type === 'metered' && !f.consumable)?.id ?? (await createFeature(context, 'allocated'));
      const entityId = context.ns.id('ent');
      const { model } = await context.send({ operation: 'entities.create', body: { customer_id: customerId, entity_id: entityId, feature_id: seat, name: 'Paid seat' }, customerId });
      if (model.status !== 200 || seat === undefined) return;
      context.world.entities.push({ id: entityId, customerId, featureId: seat });
      await attach(context, customerId, addOn, { entity_id: entityId }, ['add-on', 'entity']);
    },
  }),
  defineCommand({
    name: 'world.referral-program',
    part: 'referrals',
    weight: 1,
    builds: true,
    args: fc.record({ checkout: fc.boolean(), max: fc.constantFrom(null, 3), excludeTrial: fc.boolean() }),
    async run(context, args) {
      const feature = context.world.features[0];
      const featureId = feature?.id ?? (await createFeature(context, 'consumable'));
      if (featureId === undefined) return;
      const rewardId = context.ns.id('reward');
      // A boolean feature is granted with included null, as the reference requires.
      const included = feature?.type === 'boolean' ? null : 5;
      const reward = await context.send({ operation: 'rewards.create', body: { feature_grant: { id: rewardId, name: 'Reward', grants: [{ feature_id: featureId, included, expiry: null }], promo_codes: [{ code: context.ns.code('PROMO'), max_uses: null }] } } });
      if (reward.model.status !== 200) return;
      context.world.rewards.push(rewardId);
      const planId = context.world.plans[0]?.id;
      const checkout = args.checkout && planId !== undefined;
      const id = context.ns.id('refprog');
      const body = { id, reward_id: rewardId, redeem_on: checkout ? 'checkout' : 'customer_creation', received_by: 'referrer', max_redemptions: args.max, exclude_trial: args.excludeTrial, ...(checkout ? { plan_ids: [planId] } : {}) };
      const { model } = await context.send({ operation: 'referral_programs.create', body });
      if (model.status === 200) context.world.programs.push({ id, redeemOn: body.redeem_on });
    },
  }),
  defineCommand({
    name: 'world.purchases',
    part: 'listings',
    weight: 1,
    builds: true,
    args: fc.record({ customers: fc.constantFrom(1, 2), onEntity: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'allocated');
      if (featureId === undefined) return;
      const oneOff = await createPlan(context, { price: { amount: 25, interval: 'one_off' }, add_on: true, items: [{ feature_id: featureId, included: 3 }] });
      const recurring = await createPlan(context, { items: [{ feature_id: featureId, included: 1 }] });
      if (oneOff === undefined || recurring === undefined) return;
      for (let i = 0; i < args.customers; i++) {
        const customerId = context.ns.id('cus');
        await context.send({ operation: 'customers.get_or_create', body: { customer_id: customerId }, customerId });
        context.world.customers.push(customerId);
        await attach(context, customerId, recurring);
        await attach(context, customerId, oneOff, {}, ['add-on']);
        if (args.onEntity) {
          const entityId = context.ns.id('ent');
          const { model } = await context.send({ operation: 'entities.create', body: { customer_id: customerId, entity_id: entityId, feature_id: featureId, name: `Holder ${i}` }, customerId });
          if (model.status === 200) {
            context.world.entities.push({ id: entityId, customerId, featureId });
            await attach(context, customerId, oneOff, { entity_id: entityId }, ['add-on', 'entity']);
          }
        }
      }
      if (args.customers > 1) context.reached('two-customers');
    },
  }),
];

/** The world of the entities focus: two customers, each with named entities holding plans of their own, next to their customer's. */
export const entityWorldCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'world.entities',
    part: 'entities',
    weight: 1,
    builds: true,
    args: fc.record({ perCustomer: fc.constantFrom(1, 2, 3), scheduled: fc.boolean(), pastDue: fc.boolean() }),
    async run(context, args) {
      const seat = await createFeature(context, 'allocated');
      const flag = await createFeature(context, 'boolean');
      if (seat === undefined || flag === undefined) return;
      const customerPlan = await createPlan(context, { items: [{ feature_id: seat, included: 5 }] });
      const entityPlan = await createPlan(context, { add_on: true, items: [{ feature_id: flag }] });
      if (customerPlan === undefined || entityPlan === undefined) return;
      for (const n of [1, 2]) {
        const customerId = context.ns.id('cus');
        await context.send({ operation: 'customers.get_or_create', body: { customer_id: customerId, name: `Owner ${n}` }, customerId });
        context.world.customers.push(customerId);
        await attach(context, customerId, customerPlan);
        for (let i = 0; i < args.perCustomer; i++) {
          const entityId = context.ns.id('ent');
          const { model } = await context.send({ operation: 'entities.create', body: { customer_id: customerId, entity_id: entityId, feature_id: seat, name: `${i % 2 === 0 ? 'Alpha' : 'Beta'} Holder ${n}` }, customerId });
          if (model.status !== 200) continue;
          context.world.entities.push({ id: entityId, customerId, featureId: seat });
          if (i % 2 === 0) await attach(context, customerId, entityPlan, { entity_id: entityId }, ['entity']);
        }
      }
      context.reached('two-customers');
      context.reached('entity-balances');
      if (!context.can.controlPlane || !(args.scheduled || args.pastDue)) return;
      // A record of each state the listings filter on, where the control plane can make it.
      const customerId = context.world.customers.at(-1)!;
      const records = await liveRecords(context.lockstep, context.command, 'model', customerId);
      const targets = await liveRecords(context.lockstep, context.command, 'target', customerId);
      const chosen = records[0];
      if (chosen === undefined) return;
      const select = { customer_id: customerId, plan_id: chosen.plan_id, entity_id: chosen.entity_id, nth: 0 };
      const mine = selectRecord(targets, select);
      if (mine === undefined) return;
      const state = args.scheduled ? 'scheduled' : 'past_due';
      context.reached('forced-state');
      await context.lockstep.control(context.command, 'records.force_state', { model: { record_id: chosen.id, state }, target: { record_id: mine.id, state } }, [state], select);
      // What the listings show of it by default (active and scheduled records; an entity's hydration likewise).
      await context.send({ operation: 'subscriptions.list', body: { customer_id: customerId }, customerId });
      await context.send({ operation: 'entities.list', body: { customer_id: customerId }, customerId });
    },
  }),
];
