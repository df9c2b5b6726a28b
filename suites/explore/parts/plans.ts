/**
 * Generators of the Plans part: `plans.create`, `plans.get` (documented), `plans.update` and
 * `plans.list` (setup). Plans are built from the program's features with items of every kind
 * (consumable with a reset, allocated, boolean, unlimited, usage-priced with or without a cap,
 * prepaid, tiered), base prices (recurring or one-off), groups, add-ons, trials, license links and
 * metadata; updates give them more versions, archive them or change them in place.
 */
import fc from 'fast-check';
import { defineCommand, index, pick, rarely, variantArb, weighted, type CommandSpec, type RunContext } from '../command.ts';
import type { ItemInfo, PlanInfo } from '../world.ts';
import { fractionalAmount, hugeAmount } from './amounts.ts';

const includedArb = fc.oneof({ arbitrary: fc.constantFrom(0, 1, 2, 3, 5, 10, 100), weight: 8 }, { arbitrary: fractionalAmount, weight: 2 }, { arbitrary: hugeAmount, weight: 1 });

const itemArb = fc.record({
  feature: index,
  included: includedArb,
  unlimited: rarely(8),
  reset: fc.oneof({ arbitrary: fc.constant('month'), weight: 6 }, { arbitrary: fc.constantFrom('day', 'week', 'year'), weight: 2 }),
  price: weighted({ none: 6, usage: 2, prepaid: 1, tiers: 1 }),
  amount: fc.constantFrom(0.5, 1, 2.5, 10),
  maxPurchase: fc.constantFrom(null, null, 0, 2, 5, 20),
});

type ItemArgs = typeof itemArb extends fc.Arbitrary<infer A> ? A : never;

const createArgs = fc.record({
  items: fc.array(itemArb, { maxLength: 3 }),
  base: weighted({ free: 6, monthly: 3, yearly: 1, 'one-off': 1 }),
  baseAmount: fc.constantFrom(10, 9.99, 20, 0),
  group: fc.constantFrom(-1, -1, 0, 1),
  addOn: rarely(3),
  trial: fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: fc.record({ length: fc.constantFrom(1, 7, 14), type: fc.constantFrom('day', 'month'), card: fc.boolean() }), weight: 1 }),
  license: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.record({ plan: index, included: fc.constantFrom(undefined, 0, 1, 2, 3) }), weight: 1 }),
  autoEnable: rarely(8),
  metadata: fc.constantFrom(undefined, { tier: 'gold' }, { n: 1, nested: { list: [1, 2] } }),
  ignorePastDue: fc.constantFrom(undefined, true, false),
  description: fc.constantFrom(undefined, 'A plan'),
  /** Fields only the reference shows the wire form of, sent now and then: create_in_stripe, billing controls. */
  extras: fc.constantFrom('none', 'none', 'none', 'none', 'create-in-stripe', 'billing-controls'),
  currencies: rarely(5),
  variant: variantArb,
});

type CreateArgs = typeof createArgs extends fc.Arbitrary<infer A> ? A : never;

/** A plan item for a feature of the program, shaped by its kind; undefined when nothing fits. */
function itemBody(context: RunContext, item: ItemArgs, used: Set<string>, oneOff: boolean): Record<string, unknown> | undefined {
  const feature = pick(context.world.features, item.feature);
  if (feature === undefined || used.has(feature.id)) return undefined;
  used.add(feature.id);
  if (feature.type === 'boolean') return { feature_id: feature.id };
  const allocated = feature.type === 'metered' && !feature.consumable;
  if (item.unlimited) return { feature_id: feature.id, unlimited: true };
  const interval = oneOff ? 'one_off' : 'month';
  const price =
    item.price === 'usage' && !allocated && !oneOff
      ? { amount: item.amount, interval, billing_method: 'usage_based', max_purchase: item.maxPurchase }
      : item.price === 'prepaid'
        ? { amount: item.amount, interval, billing_method: 'prepaid', billing_units: 1 }
        : item.price === 'tiers' && !allocated && !oneOff
          ? { tiers: [{ to: 10, amount: item.amount }, { to: 'inf', amount: item.amount / 2 }], interval, billing_method: 'usage_based' }
          : undefined;
  // A prepaid item's included amount is a whole number of its billing units: the reference refuses any other (leeway.ts PREPAID-INCLUDED-DIVISIBLE).
  const included = price?.billing_method === 'prepaid' ? Math.round(item.included) : item.included;
  return { feature_id: feature.id, included, ...(allocated ? {} : { reset: { interval: item.reset } }), ...(price ? { price } : {}) };
}

/** Adds a second currency to an item's price (and to each of its tiers). */
function withCurrencies(item: Record<string, unknown>): void {
  const price = item['price'] as Record<string, unknown> | undefined;
  if (price === undefined) return;
  if (typeof price['amount'] === 'number') price['additional_currencies'] = [{ currency: 'eur', amount: (price['amount'] as number) * 2 }];
  const tiers = price['tiers'] as Record<string, unknown>[] | undefined;
  for (const tier of tiers ?? []) tier['additional_currencies'] = [{ currency: 'eur', amount: (tier['amount'] as number) * 2 }];
}

function planInfo(plan: Record<string, unknown>): PlanInfo {
  const items = (plan['items'] as Record<string, unknown>[]).map((item): ItemInfo => {
    const price = item['price'] as Record<string, unknown> | null;
    return {
      featureId: item['feature_id'] as string,
      included: item['included'] as number,
      unlimited: item['unlimited'] as boolean,
      resets: item['reset'] !== null && (item['reset'] as { interval: string }).interval !== 'one_off',
      ...(price ? { billing: price['billing_method'] as 'usage_based' | 'prepaid', maxPurchase: price['max_purchase'] as number | null } : {}),
    };
  });
  const prices = [(plan['price'] as { interval: string } | null)?.interval, ...(plan['items'] as { price: { interval: string } | null }[]).map((i) => i.price?.interval)].filter((i) => i !== undefined);
  return {
    id: plan['id'] as string,
    version: plan['version'] as number,
    addOn: plan['add_on'] as boolean,
    group: plan['group'] as string | null,
    archived: plan['archived'] as boolean,
    paid: prices.length > 0,
    oneOff: prices.length > 0 && prices.every((i) => i === 'one_off'),
    trial: plan['free_trial'] !== undefined,
    autoEnable: plan['auto_enable'] as boolean,
    items,
    licenses: ((plan['licenses'] ?? []) as { license_plan_id: string; included: number }[]).map((link) => ({ licensePlanId: link.license_plan_id, included: link.included })),
  };
}

/** Keeps the world's view of a plan in step with the model's answer. */
export function learnPlan(context: RunContext, plan: unknown): void {
  const info = planInfo(plan as Record<string, unknown>);
  const at = context.world.plans.findIndex((p) => p.id === info.id);
  if (at < 0) context.world.plans.push(info);
  else context.world.plans[at] = info;
}

function createBody(context: RunContext, args: CreateArgs): Record<string, unknown> {
  const { world, ns } = context;
  const id = ns.id('plan');
  const oneOff = args.base === 'one-off';
  const used = new Set<string>();
  const items = args.items.map((item) => itemBody(context, item, used, oneOff)).filter((item) => item !== undefined);
  // Several currencies: explicit amounts on the base price, a feature price and each tier, where the target takes them.
  const currencies = args.currencies && context.can.multiCurrency;
  const price = args.base === 'free' ? undefined : { amount: args.baseAmount, interval: args.base === 'monthly' ? 'month' : args.base === 'yearly' ? 'year' : 'one_off', ...(currencies ? { additional_currencies: [{ currency: 'eur', amount: args.baseAmount + 1 }] } : {}) };
  if (currencies) for (const item of items) withCurrencies(item);
  const licensePlan = args.license === undefined ? undefined : pick(world.plans.filter((p) => !p.archived), args.license.plan);
  // Auto-enable plans reach every new customer of the tenant: only where the run has it to itself, and only free ones.
  const autoEnable = args.autoEnable && context.can.exclusiveTenant && price === undefined && items.every((item) => item['price'] === undefined);
  return {
    plan_id: id,
    name: `Plan ${id.slice(-6)}`,
    items,
    ...(args.description ? { description: args.description } : {}),
    ...(args.group >= 0 ? { group: world.groups[args.group] } : {}),
    ...(args.addOn ? { add_on: true } : {}),
    ...(price ? { price } : {}),
    ...(args.trial && !oneOff ? { free_trial: { duration_length: args.trial.length, duration_type: args.trial.type, card_required: args.trial.card } } : {}),
    ...(licensePlan ? { licenses: [{ license_plan_id: licensePlan.id, ...(args.license!.included === undefined ? {} : { included: args.license!.included }) }] } : {}),
    ...(args.extras === 'create-in-stripe' ? { create_in_stripe: false } : {}),
    ...(args.extras === 'billing-controls' ? { billing_controls: { usage_alerts: [{ threshold: 80, threshold_type: 'usage_percentage' }] } } : {}),
    ...(autoEnable ? { auto_enable: true } : {}),
    ...(args.metadata ? { metadata: args.metadata } : {}),
    ...(args.ignorePastDue !== undefined ? { config: { ignore_past_due: args.ignorePastDue } } : {}),
  };
}

const updateArgs = fc.record({
  plan: index,
  change: weighted({ items: 4, price: 2, name: 2, metadata: 1, archive: 2, unarchive: 1, licenses: 1 }),
  item: itemArb,
  license: index,
});

export const planCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'plans.create',
    part: 'plans',
    weight: 3,
    builds: true,
    args: createArgs,
    async run(context, args) {
      const body = createBody(context, args);
      if (body['auto_enable']) context.reached('auto-enable');
      const { model } = await context.send({ operation: 'plans.create', body, variant: args.variant });
      if (model.status === 200) learnPlan(context, model.body);
    },
  }),
  defineCommand({
    name: 'plans.create-refused',
    part: 'plans',
    weight: 2,
    refusal: true,
    args: fc.record({ how: fc.constantFrom('pattern', 'name', 'duplicate', 'method', 'auto-enable-priced', 'trial-one-off', 'self-license', 'tier-to'), plan: index }),
    async run(context, { how, plan }) {
      const id = context.ns.id('plan');
      const existing = pick(context.world.plans, plan);
      const consumable = context.world.features.filter((f) => f.type === 'metered' && f.consumable).slice(0, 1);
      const bodies = {
        pattern: { plan_id: `${id}.v2`, name: 'Dotted' },
        name: { plan_id: id, name: '' },
        duplicate: { plan_id: existing?.id ?? id, name: 'Again' },
        method: { plan_id: id, name: 'Bad method', items: consumable.map((f) => ({ feature_id: f.id, included: 1, reset: { interval: 'month' }, price: { amount: 1, interval: 'month', billing_method: 'per_seat' } })) },
        'auto-enable-priced': { plan_id: id, name: 'Priced default', auto_enable: true, price: { amount: 5, interval: 'month' } },
        'trial-one-off': { plan_id: id, name: 'One-off trial', price: { amount: 5, interval: 'one_off' }, free_trial: { duration_length: 7, duration_type: 'day', card_required: false } },
        'self-license': { plan_id: id, name: 'Self licence', licenses: [{ license_plan_id: id, included: 1 }] },
        // A tier up to no amount at all: `to` is a (positive) number or `inf`.
        'tier-to': { plan_id: id, name: 'Tier to nothing', items: consumable.map((f) => ({ feature_id: f.id, included: 1, reset: { interval: 'month' }, price: { tiers: [{ to: 0, amount: 1 }, { to: 'inf', amount: 0.5 }], interval: 'month', billing_method: 'usage_based' } })) },
      };
      const intents = {
        pattern: 'PLAN-ID-PATTERN',
        name: 'PLAN-NAME-MIN-LENGTH',
        duplicate: 'PLAN-DUPLICATE-ID',
        method: 'PLAN-BILLING-METHOD-ENUM',
        'auto-enable-priced': 'PLAN-AUTO-ENABLE-FREE',
        'trial-one-off': 'PLAN-FREE-TRIAL-RECURRING',
        'self-license': 'PLAN-LICENSE-LINKS-VALID',
        'tier-to': 'ERR-OUT-OF-BOUNDS-OR-ENUM',
      } as const;
      if (how === 'duplicate' && existing === undefined) return;
      if ((how === 'method' || how === 'tier-to') && consumable.length === 0) return;
      context.reached('refusal');
      await context.send({ operation: 'plans.create', body: bodies[how], intent: intents[how] });
    },
  }),
  defineCommand({
    name: 'plans.update',
    part: 'plans',
    weight: 4,
    args: updateArgs,
    applies: (world) => world.plans.length > 0,
    async run(context, { plan, change, item, license }) {
      const target = pick(context.world.plans, plan)!;
      let body: Record<string, unknown> | undefined;
      const tags: string[] = [];
      switch (change) {
        case 'items': {
          const added = itemBody(context, item, new Set(target.items.map((i) => i.featureId)), target.oneOff);
          const kept = target.items.map((i) => ({ feature_id: i.featureId, ...(i.unlimited ? { unlimited: true } : { included: i.included + 1 }), ...(i.resets ? { reset: { interval: 'month' } } : {}) }));
          // A priced item keeps its price only through a full re-send; the generator re-sends items without prices.
          body = { plan_id: target.id, items: [...kept, ...(added ? [added] : [])] };
          tags.push('new-version');
          break;
        }
        case 'price':
          body = { plan_id: target.id, price: target.oneOff ? { amount: 7, interval: 'one_off' } : { amount: 15, interval: 'month' } };
          tags.push('new-version');
          break;
        case 'name':
          body = { plan_id: target.id, name: `Renamed ${target.id.slice(-4)}`, description: 'Changed in place' };
          break;
        case 'metadata':
          body = { plan_id: target.id, metadata: { changed: true } };
          tags.push('metadata');
          break;
        case 'archive':
        case 'unarchive':
          body = { plan_id: target.id, archived: change === 'archive' };
          tags.push('archive');
          break;
        case 'licenses': {
          const licensePlan = pick(context.world.plans.filter((p) => p.id !== target.id && !p.archived), license);
          body = { plan_id: target.id, licenses: licensePlan ? [{ license_plan_id: licensePlan.id, included: 2 }] : [] };
          tags.push('licenses', 'new-version');
          break;
        }
      }
      if (body === undefined) return;
      const { model } = await context.send({ operation: 'plans.update', body, tags });
      if (model.status !== 200) return;
      learnPlan(context, model.body);
      if ((model.body as { version: number }).version > 1) context.reached('plan-versions');
      if ((model.body as { archived: boolean }).archived) context.reached('archived-plan');
    },
  }),
  defineCommand({
    name: 'plans.get',
    part: 'plans',
    weight: 3,
    reads: true,
    args: fc.record({ plan: index, version: fc.constantFrom('none', 'none', 'first', 'latest', 'previous', 'unknown'), unknown: rarely(6), variant: variantArb }),
    async run(context, { plan, version, unknown, variant }) {
      const target = pick(context.world.plans, plan);
      const planId = unknown || target === undefined ? context.ns.id('noplan') : target.id;
      const latest = target?.version ?? 1;
      const versions = { none: undefined, first: 1, latest, previous: Math.max(1, latest - 1), unknown: latest + 5 };
      const chosen = versions[version as keyof typeof versions];
      if (latest > 1 && chosen !== undefined) context.reached('plan-versions');
      if (target?.archived) context.reached('archived-plan');
      await context.send({ operation: 'plans.get', body: { plan_id: planId, ...(chosen === undefined ? {} : { version: chosen }) }, variant });
    },
  }),
  defineCommand({
    name: 'plans.list',
    part: 'plans',
    weight: 1,
    reads: true,
    args: fc.record({ archived: fc.boolean(), versions: fc.boolean(), variant: variantArb }),
    async run(context, { archived, versions, variant }) {
      await context.send({ operation: 'plans.list', body: { ...(archived ? { include_archived: true } : {}), ...(versions ? { all_versions: true } : {}) }, variant });
    },
  }),
  defineCommand({
    // The reference's delete (a setup operation): refused for a plan a customer holds or held; the
    // latest version only, or every version with all_versions.
    name: 'plans.delete',
    part: 'plans',
    weight: 1,
    args: fc.record({ plan: index, allVersions: fc.boolean() }),
    applies: (world) => world.plans.length > 0,
    async run(context, { plan, allVersions }) {
      const chosen = pick(context.world.plans, plan)!;
      const { model } = await context.send({ operation: 'plans.delete', body: { plan_id: chosen.id, ...(allVersions ? { all_versions: true } : {}) }, ...(allVersions ? {} : { tags: ['latest-version'] }) });
      if (model.status !== 200) return;
      const { world } = context;
      world.plans = allVersions || chosen.version === 1 ? world.plans.filter((p) => p.id !== chosen.id) : world.plans.map((p) => (p.id === chosen.id ? { ...p, version: p.version - 1 } : p));
    },
  }),
];
