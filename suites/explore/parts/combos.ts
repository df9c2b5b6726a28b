/**
 * Two features together, and what earlier runs left unreached (issue 25): a credit system paying for
 * an entity's usage, and a lock through it; prepaid quantities with billing units; a boolean flag an
 * entity inherits; license links that differ across versions of the parent plan; two grants of one
 * feature with different reset intervals; monthly resets anchored on a month end; a preview over
 * several paid lines part-way through their period; the edges of the entity search. Each builds
 * what it needs and reads it back; the clock moves only where the target has the control plane.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import type { Balance } from '../../../spec/balances.ts';
import { defineCommand, type CommandSpec, type Observation, type RunContext } from '../command.ts';
import { attach, balanceRead, createCreditSystem, createEntity, createFeature, createPlan, newCustomer, readAll, seatFeature } from './build.ts';
import { moveClock } from './control.ts';
import { learnPlan } from './plans.ts';
import { entityWorldCommands, focusWorldCommands, worldCommands } from './worlds.ts';

const DAY = 86_400_000;

/** The model's balance of a feature for a subject (a read of the model only). */
async function modelBalance(context: RunContext, customerId: string, featureId: string, entityId?: string): Promise<z.output<typeof Balance> | undefined> {
  const answer = await context.modelRead('balances.check', { customer_id: customerId, feature_id: featureId, required_balance: 0, ...(entityId ? { entity_id: entityId } : {}) });
  return answer.status === 200 ? ((answer.body as { balance: z.output<typeof Balance> | null }).balance ?? undefined) : undefined;
}

/** The last day of the month of `at` (or of the next month, when that day is less than an hour away), at noon UTC. */
function nextMonthEnd(at: number): number {
  const date = new Date(at);
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0, 12);
  return end > at + 3_600_000 ? end : Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 2, 0, 12);
}

/** An existing compound world with some of its arguments pinned, as the goal that reaches a dimension on purpose. */
function pinned(from: readonly CommandSpec<unknown>[], name: string, pin: Record<string, unknown>, reaches: CommandSpec<unknown>['reaches'], control = false): CommandSpec<unknown> {
  const spec = from.find((c) => c.name === name)!;
  return defineCommand({ ...spec, name: `${name} (${Object.keys(pin).join(', ') || 'moving the clock'})`, weight: 0, builds: false, ...(control ? { control } : {}), ...(reaches ? { reaches } : {}), args: spec.args.map((args) => ({ ...(args as object), ...pin })) });
}

const combos: readonly CommandSpec<unknown>[] = [
  pinned(focusWorldCommands, 'world.plan-versions', { archive: true }, ['archived-plan', 'plan-versions']),
  pinned(worldCommands, 'world.license-pool', { secondParent: true, bought: 3 }, ['two-pools']),
  pinned(entityWorldCommands, 'world.entities', { scheduled: true }, ['forced-state', 'entity-balances', 'two-customers'], true),
  defineCommand({
    name: 'combos.credits',
    part: 'balances',
    weight: 1,
    reaches: ['credit-entity-usage', 'lock-credit-system', 'credit-system-several-features'],
    // The locked feature never costs 1 credit: at a rate of 1, units and credits are the same numbers, and a lock that gives back units for credits goes unseen.
    args: fc.record({ costs: fc.tuple(fc.constantFrom(2.5, 3), fc.constantFrom(1, 0.25)), credits: fc.constantFrom(20, 7.5), action: fc.constantFrom('confirm', 'release'), override: fc.constantFrom(undefined, 1), acrossReset: fc.boolean() }),
    async run(context, args) {
      const first = await createFeature(context, 'consumable');
      const second = await createFeature(context, 'consumable');
      const seat = await seatFeature(context);
      if (first === undefined || second === undefined || seat === undefined) return;
      const credits = await createCreditSystem(context, [[first, args.costs[0]], [second, args.costs[1]]]);
      const planId = credits && (await createPlan(context, { items: [{ feature_id: credits, included: args.credits, reset: { interval: 'month' } }, { feature_id: seat, included: 5 }] }));
      if (credits === undefined || planId === undefined) return;
      const customerId = await newCustomer(context);
      if (!(await attach(context, customerId, planId))) return;
      const entityId = await createEntity(context, customerId, seat);
      if (entityId === undefined) return;
      const reads: Observation[] = [balanceRead(customerId, credits), balanceRead(customerId, first, entityId), balanceRead(customerId, credits, entityId), { operation: 'entities.get', body: { customer_id: customerId, entity_id: entityId }, customerId }];
      // An entity's usage of a metered feature the customer's credit system pays for.
      const used = await context.send({ operation: 'balances.check', body: { customer_id: customerId, feature_id: first, entity_id: entityId, required_balance: 3, send_event: true }, customerId, tags: ['send-event', 'credit-system'], observe: reads });
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, entity_id: entityId, feature_id: second, value: 2 }, customerId, tags: ['credit-system'], observe: reads });
      context.reached('credit-entity-usage');
      if (used.model.status === 200 && (used.model.body as { balances?: Record<string, unknown> }).balances?.[credits] != null) context.reached('credit-system-several-features');
      // A lock through the credit system, confirmed or released (after a reset, where the clock can move).
      const lockId = context.ns.id('lock');
      const locked = await context.send({ operation: 'balances.check', body: { customer_id: customerId, feature_id: first, required_balance: 2, lock: { lock_id: lockId, enabled: true } }, customerId, tags: ['lock', 'credit-system'], observe: reads });
      if (locked.model.status !== 200 || !(locked.model.body as { allowed: boolean }).allowed) return;
      context.world.locks.push({ lockId, customerId, featureId: first });
      const reset = (await modelBalance(context, customerId, credits))?.next_reset_at;
      if (args.acrossReset && context.can.controlPlane && typeof reset === 'number' && reset > context.world.now) await moveClock(context, reset - context.world.now);
      await context.send({ operation: 'balances.finalize', body: { lock_id: lockId, action: args.action, ...(args.override !== undefined && args.action === 'confirm' ? { override_value: args.override } : {}) }, customerId, tags: [args.action], observe: reads });
      context.world.locks = context.world.locks.filter((l) => l.lockId !== lockId);
      context.reached('lock-credit-system');
    },
  }),
  defineCommand({
    name: 'combos.amounts',
    part: 'balances',
    weight: 1,
    reaches: ['huge-amount', 'fractional-amount', 'amount-at-cap'],
    args: fc.record({ included: fc.constantFrom(2.5, 1e9, 123_456_789_012), used: fc.constantFrom(0.25, 1.5, 0.1), lock: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      const planId = featureId && (await createPlan(context, { items: [{ feature_id: featureId, included: args.included, reset: { interval: 'month' } }] }));
      if (featureId === undefined || planId === undefined) return;
      const customerId = await newCustomer(context);
      if (!(await attach(context, customerId, planId))) return;
      const read = balanceRead(customerId, featureId);
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: args.used }, customerId, observe: read });
      context.reached('fractional-amount');
      // Exactly what is left, then a little more, then a very large amount.
      const left = (await modelBalance(context, customerId, featureId))?.remaining ?? 0;
      for (const [required, mode] of [[left, args.lock ? 'lock' : 'send-event'], [left + 0.5, 'plain'], [1e12, 'send-event']] as const) {
        const lockId = mode === 'lock' ? context.ns.id('lock') : undefined;
        const { model } = await context.send({ operation: 'balances.check', body: { customer_id: customerId, feature_id: featureId, required_balance: required, ...(mode === 'send-event' ? { send_event: true } : {}), ...(lockId ? { lock: { lock_id: lockId, enabled: true } } : {}) }, customerId, tags: [mode], observe: read });
        if (model.status === 200 && lockId && (model.body as { allowed: boolean }).allowed) context.world.locks.push({ lockId, customerId, featureId });
      }
      context.reached('amount-at-cap');
      context.reached('huge-amount');
    },
  }),
  defineCommand({
    name: 'combos.prepaid',
    part: 'billing',
    weight: 1,
    needs: (can) => can.paidAttach,
    reaches: ['prepaid-billing-units'],
    args: fc.record({ units: fc.constantFrom(5, 10, 100), packs: fc.constantFrom(0, 1, 3), extra: fc.constantFrom(0, 1, 7), included: fc.constantFrom(0, 1), allocated: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, args.allocated ? 'allocated' : 'consumable');
      if (featureId === undefined) return;
      // The included amount a whole number of billing units (the reference refuses any other: leeway.ts PREPAID-INCLUDED-DIVISIBLE).
      const item = { feature_id: featureId, included: args.included * args.units, ...(args.allocated ? {} : { reset: { interval: 'month' } }), price: { amount: 3, interval: 'month', billing_method: 'prepaid', billing_units: args.units } };
      const planId = await createPlan(context, { items: [item] });
      if (planId === undefined) return;
      const customerId = await newCustomer(context);
      // A quantity that is not a whole number of units, now and then.
      const quantity = args.packs * args.units + args.extra;
      const reads: Observation[] = [balanceRead(customerId, featureId), { operation: 'customers.get', body: { customer_id: customerId }, customerId }];
      const { model } = await context.send({ operation: 'billing.attach', body: { customer_id: customerId, plan_id: planId, feature_quantities: [{ feature_id: featureId, quantity }] }, customerId, tags: ['prepaid'], observe: reads });
      context.reached('prepaid-billing-units');
      if (model.status !== 200) return;
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: args.units }, customerId, observe: reads });
      await context.send({ operation: 'billing.preview_multi_update', body: { customer_id: customerId, updates: [{ plan_id: planId, cancel_action: 'cancel_immediately' }], refund_last_payment: 'prorated' }, customerId, tags: ['no-changes'] });
    },
  }),
  defineCommand({
    name: 'combos.inherited-flag',
    part: 'entities',
    weight: 1,
    reaches: ['boolean-inherited', 'entity-balances'],
    args: fc.record({ siblings: fc.constantFrom(1, 2) }),
    async run(context, args) {
      const flag = await createFeature(context, 'boolean');
      const own = await createFeature(context, 'boolean');
      const seat = await seatFeature(context);
      if (flag === undefined || own === undefined || seat === undefined) return;
      const planId = await createPlan(context, { items: [{ feature_id: flag }, { feature_id: seat, included: 5 }] });
      const addOn = await createPlan(context, { add_on: true, items: [{ feature_id: own }] });
      if (planId === undefined || addOn === undefined) return;
      const customerId = await newCustomer(context);
      if (!(await attach(context, customerId, planId))) return;
      const siblings: string[] = [];
      for (let i = 0; i < args.siblings; i++) {
        const id = await createEntity(context, customerId, seat);
        if (id) siblings.push(id);
      }
      const holder = await createEntity(context, customerId, seat);
      if (holder === undefined || siblings.length === 0) return;
      await attach(context, customerId, addOn, { entity_id: holder }, ['add-on', 'entity']);
      await readAll(context, [
        balanceRead(customerId, flag),
        ...siblings.map((id) => balanceRead(customerId, flag, id)),
        balanceRead(customerId, own, holder),
        // The customer's flag, inherited by an entity that holds a plan of its own too: its own grants add to what it inherits.
        balanceRead(customerId, flag, holder),
        balanceRead(customerId, own),
        { operation: 'balances.check', body: { customer_id: customerId, feature_id: own, with_preview: true }, customerId, tags: ['plain'] },
        balanceRead(customerId, own, siblings[0]),
        { operation: 'entities.get', body: { customer_id: customerId, entity_id: siblings[0]! }, customerId },
        { operation: 'entities.list', body: { customer_id: customerId, plans: [{ id: planId }] }, customerId },
        { operation: 'entities.list', body: { plans: [{ id: addOn }] } },
      ]);
      context.reached('boolean-inherited');
      context.reached('entity-balances');
    },
  }),
  defineCommand({
    name: 'combos.license-versions',
    part: 'licenses',
    weight: 1,
    reaches: ['license-across-versions', 'plan-versions'],
    args: fc.record({ included: fc.tuple(fc.constantFrom(1, 2), fc.constantFrom(0, 3)), sameLicense: fc.boolean() }),
    async run(context, args) {
      const flag = await createFeature(context, 'boolean');
      const seat = await seatFeature(context);
      if (flag === undefined || seat === undefined) return;
      const first = await createPlan(context, { items: [{ feature_id: flag }] });
      const second = args.sameLicense ? first : await createPlan(context, { items: [{ feature_id: flag }] });
      const parent = first && (await createPlan(context, { group: context.world.groups[0], licenses: [{ license_plan_id: first, included: args.included[0] }] }));
      if (first === undefined || second === undefined || parent === undefined) return;
      const onFirst = await newCustomer(context);
      await attach(context, onFirst, parent, {}, ['license-quantities']);
      const updated = await context.send({ operation: 'plans.update', body: { plan_id: parent, licenses: [{ license_plan_id: second, included: args.included[1] }] }, tags: ['licenses', 'new-version'] });
      if (updated.model.status !== 200) return;
      learnPlan(context, updated.model.body);
      const onLatest = await newCustomer(context);
      await attach(context, onLatest, parent, {}, ['license-quantities']);
      const onOld = await newCustomer(context);
      await attach(context, onOld, parent, { version: 1, license_quantities: [{ license_plan_id: first, quantity: 4 }] }, ['license-quantities', 'version']);
      context.reached('license-across-versions');
      context.reached('plan-versions');
      const pools = (customerId: string): Observation => ({ operation: 'licenses.list', body: { customer_id: customerId }, customerId });
      await readAll(context, [pools(onFirst), pools(onLatest), pools(onOld), { operation: 'plans.get', body: { plan_id: parent, version: 1 } }]);
      // Each pool of its version's license; the first version's license on a customer of the latest (refused unless it is the same).
      for (const [customerId, licensePlan] of [[onFirst, first], [onLatest, second], [onOld, first], [onLatest, first]] as const) {
        await context.send({ operation: 'licenses.attach', body: { customer_id: customerId, plan_id: licensePlan, entities: [{ entity_id: context.ns.id('seat'), name: 'Versioned seat', feature_id: seat }] }, customerId, observe: pools(customerId) });
      }
      await readAll(context, [
        { operation: 'entities.list', body: { plans: [{ id: parent, versions: [1] }] } },
        { operation: 'entities.list', body: { plans: [{ id: second }] } },
      ]);
      // The parent replaced by another plan of its group: its pool goes, and the seats it gave.
      const replacement = await createPlan(context, { group: context.world.groups[0] });
      if (replacement === undefined) return;
      await context.send({ operation: 'billing.attach', body: { customer_id: onFirst, plan_id: replacement }, customerId: onFirst, tags: ['same-group'], observe: [pools(onFirst), { operation: 'licenses.list_assignments', body: { customer_id: onFirst, active: false }, customerId: onFirst }, { operation: 'entities.list', body: { customer_id: onFirst }, customerId: onFirst }] });
    },
  }),
  defineCommand({
    name: 'combos.two-intervals',
    part: 'balances',
    weight: 1,
    reaches: ['two-intervals', 'two-grants-one-feature'],
    args: fc.record({ interval: fc.constantFrom('day', 'week'), onEntity: fc.boolean(), used: fc.constantFrom(3, 6, 7.5) }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      if (featureId === undefined) return;
      const main = await createPlan(context, { group: context.world.groups[1], items: [{ feature_id: featureId, included: 5, reset: { interval: 'month' } }] });
      // An add-on of the main plan's group: it attaches alongside, never in its place.
      const addOn = await createPlan(context, { add_on: true, group: context.world.groups[1], items: [{ feature_id: featureId, included: 2, reset: { interval: args.interval } }] });
      if (main === undefined || addOn === undefined) return;
      const customerId = await newCustomer(context);
      const seat = args.onEntity ? await seatFeature(context) : undefined;
      const entityId = seat && (await createEntity(context, customerId, seat));
      const on = entityId ? { entity_id: entityId } : {};
      await attach(context, customerId, main, on, entityId ? ['entity'] : []);
      await attach(context, customerId, addOn, on, ['add-on', ...(entityId ? ['entity'] : [])]);
      const read = balanceRead(customerId, featureId, entityId);
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: args.used, ...on }, customerId, observe: read });
      context.reached('two-intervals');
      const balance = await modelBalance(context, customerId, featureId, entityId);
      if ((balance?.breakdown.length ?? 0) >= 2) context.reached('two-grants-one-feature');
      if (!context.can.controlPlane || balance === undefined) return;
      // Onto the shorter grant's reset, then past the next of both.
      const resets = balance.breakdown.map((entry) => entry.reset?.resets_at).filter((at): at is number => typeof at === 'number' && at > context.world.now).sort((a, b) => a - b);
      if (resets[0] === undefined) return;
      await moveClock(context, resets[0] - context.world.now);
      await context.send(read);
      await moveClock(context, 8 * DAY);
      await context.send(read);
    },
  }),
  defineCommand({
    name: 'combos.month-end',
    part: 'control',
    weight: 1,
    control: true,
    reaches: ['month-end', 'clock-on-boundary', 'several-resets-one-move'],
    args: fc.record({ used: fc.constantFrom(2, 5), interval: fc.constantFrom('month', 'month', 'year') }),
    async run(context, args) {
      // To a month end first, so every later monthly reset is anchored there and lands on shorter months.
      const end = nextMonthEnd(context.world.now);
      await moveClock(context, end - context.world.now);
      const featureId = await createFeature(context, 'consumable');
      const planId = featureId && (await createPlan(context, { items: [{ feature_id: featureId, included: 5, reset: { interval: args.interval } }] }));
      if (featureId === undefined || planId === undefined) return;
      const customerId = await newCustomer(context);
      if (!(await attach(context, customerId, planId))) return;
      const read = balanceRead(customerId, featureId);
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: args.used }, customerId, observe: read });
      context.reached('month-end');
      for (const moves of [1, 2]) {
        const next = (await modelBalance(context, customerId, featureId))?.next_reset_at;
        if (typeof next !== 'number' || next <= context.world.now) return;
        // Exactly onto the next reset, then across two more in one move.
        const to = moves === 1 ? next : next + (args.interval === 'month' ? 32 * DAY : DAY);
        await moveClock(context, to - context.world.now);
        await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: 1 }, customerId, observe: read });
      }
      await context.send({ operation: 'subscriptions.list', body: { customer_id: customerId }, customerId });
    },
  }),
  defineCommand({
    name: 'combos.preview-lines',
    part: 'preview',
    weight: 1,
    needs: (can) => can.paidAttach,
    reaches: ['preview-several-lines'],
    args: fc.record({ days: fc.constantFrom(3, 10, 17), refund: fc.constantFrom(undefined, 'prorated', 'full'), amounts: fc.tuple(fc.constantFrom(30, 9.99), fc.constantFrom(12.5, 4)), yearly: fc.boolean() }),
    async run(context, args) {
      const featureId = await createFeature(context, 'consumable');
      const packs = await createFeature(context, 'consumable');
      if (featureId === undefined || packs === undefined) return;
      const main = await createPlan(context, { group: context.world.groups[1], price: { amount: args.amounts[0], interval: 'month' }, items: [{ feature_id: featureId, included: 2, reset: { interval: 'month' }, price: { amount: 0.5, interval: 'month', billing_method: 'usage_based', max_purchase: null } }] });
      const addOn = await createPlan(context, { add_on: true, price: { amount: args.amounts[1], interval: args.yearly ? 'year' : 'month' } });
      const prepaid = await createPlan(context, { add_on: true, items: [{ feature_id: packs, included: 0, reset: { interval: 'month' }, price: { amount: 3, interval: 'month', billing_method: 'prepaid', billing_units: 5 } }] });
      const late = await createPlan(context, { add_on: true, price: { amount: 7, interval: 'month' } });
      if (main === undefined || addOn === undefined || prepaid === undefined || late === undefined) return;
      const customerId = await newCustomer(context);
      await attach(context, customerId, main);
      await attach(context, customerId, addOn, {}, ['add-on']);
      await attach(context, customerId, prepaid, { feature_quantities: [{ feature_id: packs, quantity: 10 }] }, ['add-on', 'prepaid']);
      await context.send({ operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: 5 }, customerId });
      const lines = [main, addOn, prepaid];
      if (context.can.controlPlane) {
        // Part-way through the period, and a plan joining it there.
        await moveClock(context, args.days * DAY + 7 * 3_600_000);
        await attach(context, customerId, late, {}, ['add-on', 'joins-mid-period']);
        context.reached('joins-mid-period');
        lines.push(late);
      }
      const preview = (updates: readonly { plan_id: string; cancel_action: string }[]) =>
        context.send({ operation: 'billing.preview_multi_update', body: { customer_id: customerId, updates, ...(args.refund ? { refund_last_payment: args.refund } : {}) }, customerId, tags: ['no-changes'] });
      await preview(lines.map((planId) => ({ plan_id: planId, cancel_action: 'cancel_immediately' })));
      await preview([{ plan_id: main, cancel_action: 'cancel_immediately' }, { plan_id: addOn, cancel_action: 'cancel_end_of_cycle' }]);
      context.reached('preview-several-lines');
    },
  }),
  defineCommand({
    name: 'combos.trial',
    part: 'billing',
    weight: 1,
    control: true,
    reaches: ['clock-on-boundary'],
    args: fc.record({ days: fc.constantFrom(1, 7), past: fc.constantFrom(0, 1) }),
    async run(context, args) {
      // A paid plan tried without a card: attached at once (observed-behaviour §4), its records trialing until the trial ends.
      const featureId = await createFeature(context, 'consumable');
      const planId = featureId && (await createPlan(context, { price: { amount: 10, interval: 'month' }, items: [{ feature_id: featureId, included: 3, reset: { interval: 'month' } }], free_trial: { duration_length: args.days, duration_type: 'day', card_required: false } }));
      if (featureId === undefined || planId === undefined) return;
      const customerId = await newCustomer(context);
      if (!(await attach(context, customerId, planId, {}, ['trial']))) return;
      const reads: Observation[] = [{ operation: 'subscriptions.list', body: { customer_id: customerId, statuses: ['active', 'scheduled', 'expired'] }, customerId }, balanceRead(customerId, featureId)];
      await readAll(context, reads);
      // Onto the trial's end, or just past it.
      await moveClock(context, args.days * DAY + args.past);
      await readAll(context, reads);
    },
  }),
  defineCommand({
    name: 'combos.search-edges',
    part: 'entities',
    weight: 1,
    reaches: ['entity-search-edge', 'non-ascii'],
    args: fc.record({ acrossCustomers: fc.boolean(), limit: fc.constantFrom(undefined, 1, 2) }),
    async run(context, args) {
      const seat = await seatFeature(context);
      if (seat === undefined) return;
      const customerId = await newCustomer(context);
      // Characters that are wildcards elsewhere (SQL LIKE's `_` and `%`, a regular expression's `.`) are text in a search.
      const names = ['Alpha Team', 'ALPHA beta', 'Gamma  Delta', ' Padded ', 'Ødegård Siège', 'Seat_1', 'SeatX1', '50% off', 'a.b'];
      const ids: string[] = [];
      for (const name of names) {
        const id = await createEntity(context, customerId, seat, { name });
        if (id) ids.push(id);
      }
      const unnamed = context.ns.id('ent');
      const made = await context.send({ operation: 'entities.create', body: { customer_id: customerId, entity_id: unnamed, feature_id: seat }, customerId });
      if (made.model.status === 200) ids.push(unnamed);
      const someId = ids[1] ?? ids[0];
      if (someId === undefined) return;
      const searches = ['   ', ' alpha ', 'ALPHA', 'alpha t', 'gamma  delta', 'gamma delta', 'padded', 'ØDEGÅRD', 'seat_1', '_', '%', '0% o', 'a.b', '.', someId, someId.slice(-5).toUpperCase(), `${someId}x`, 'no such name'];
      for (const search of searches) {
        await context.send({ operation: 'entities.list', body: { search, ...(args.acrossCustomers ? {} : { customer_id: customerId }), ...(args.limit ? { limit: args.limit } : {}) }, ...(args.acrossCustomers ? {} : { customerId }) });
      }
      context.reached('entity-search-edge');
      context.reached('non-ascii');
    },
  }),
];

export const comboCommands: readonly CommandSpec<unknown>[] = [
  ...combos,
  // Where the clock moves: the lock still open across the credit system's reset, a paid plan joining a period part-way.
  pinned(combos, 'combos.credits', { acrossReset: true }, ['lock-across-reset', 'lock-credit-system'], true),
  pinned(combos, 'combos.preview-lines', {}, ['joins-mid-period', 'preview-several-lines'], true),
];
