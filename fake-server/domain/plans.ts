/**
 * Plans: `plans.create`, `plans.get` (documented), `plans.list` and `plans.update` (setup).
 * Every version of a plan is stored in its wire shape. A change of configuration (items, price,
 * free trial, license links, billing controls) creates a new version, which becomes the only active
 * one; name, group and flags change in place; metadata and archiving apply to every version.
 */
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { BasePriceInput, ItemPrice, LicenseLinkInput, Plan, PlanItemInput } from '../../spec/plans.ts';
import type { TenantStore } from '../store/tenant-store.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { basePriceDisplay, itemDisplay } from './display.ts';
import { requireFeature } from './features.ts';

type PlanItemView = Plan['items'][number];

/** The active version of a plan, or 404. */
export function requireActivePlan(store: TenantStore, planId: string): Plan {
  const versions = store.plans.get(planId) ?? fail('product_not_found', `Product ${planId} not found`);
  return versions.find((plan) => plan.active) ?? versions.at(-1)!;
}

/** A given version (or the active one), or 404. */
export function requirePlanVersion(store: TenantStore, planId: string, version?: number): Plan {
  if (version === undefined) return requireActivePlan(store, planId);
  const versions = store.plans.get(planId) ?? fail('product_not_found', `Product ${planId} not found`);
  return versions.find((plan) => plan.version === version) ?? fail('product_not_found', `Product ${planId} (version ${version}) not found`);
}

/** A plan bills once (a purchase) when its prices are all one-off; free and recurring plans are subscriptions. */
export function isOneOff(plan: Plan): boolean {
  const intervals = [plan.price?.interval, ...plan.items.map((item) => item.price?.interval)].filter((i) => i !== undefined);
  return intervals.length > 0 && intervals.every((interval) => interval === 'one_off');
}

/** True when attaching the plan costs money up front or per use. */
export function hasPrices(plan: Plan): boolean {
  return plan.price !== null || plan.items.some((item) => item.price !== null);
}

function itemView(store: TenantStore, input: z.infer<typeof PlanItemInput>): PlanItemView {
  const feature = requireFeature(store, input.feature_id);
  const unlimited = input.unlimited ?? false;
  const price: ItemPrice | null =
    input.price === undefined
      ? null
      : {
          ...(input.price.amount !== undefined && { amount: input.price.amount }),
          ...(input.price.tiers !== undefined && { tiers: input.price.tiers, tier_behavior: input.price.tier_behavior ?? 'graduated' }),
          interval: input.price.interval,
          ...(input.price.interval_count !== undefined && input.price.interval_count !== 1 && { interval_count: input.price.interval_count }),
          billing_units: input.price.billing_units,
          billing_method: input.price.billing_method,
          max_purchase: input.price.max_purchase ?? null,
          ...(input.price.additional_currencies !== undefined && { additional_currencies: input.price.additional_currencies }),
        };
  const included = unlimited || feature.type === 'boolean' ? 0 : (input.included ?? 0);
  return {
    feature_id: feature.id,
    included,
    unlimited,
    // An unlimited item never resets; the reference spells that `one_off`.
    reset: input.reset ?? (unlimited ? { interval: 'one_off' } : null),
    price,
    display: itemDisplay(feature, { included, unlimited, price }),
  };
}

function basePriceView(price: z.infer<typeof BasePriceInput>): NonNullable<Plan['price']> {
  return {
    amount: price.amount,
    interval: price.interval,
    ...(price.interval_count !== undefined && price.interval_count !== 1 && { interval_count: price.interval_count }),
    ...(price.additional_currencies !== undefined && { additional_currencies: price.additional_currencies }),
    display: basePriceDisplay(price),
  };
}

function licenseLinksView(store: TenantStore, planId: string, links: z.output<typeof LicenseLinkInput>[]): NonNullable<Plan['licenses']> {
  const seen = new Set<string>();
  return links.map((link) => {
    if (link.license_plan_id === planId) fail('invalid_request', `Plan ${planId} cannot offer itself as a license`);
    if (seen.has(link.license_plan_id)) fail('invalid_request', `Duplicate license ${link.license_plan_id} in licenses`);
    seen.add(link.license_plan_id);
    const licensePlan = requireActivePlan(store, link.license_plan_id);
    if (licensePlan.archived) fail('invalid_request', `License plan ${link.license_plan_id} is archived`);
    return { license_plan_id: link.license_plan_id, version: licensePlan.version, included: link.included, prepaid_only: link.prepaid_only ?? true };
  });
}

/** The rules every version must satisfy: auto-enable plans are free and one per group; trials recur. */
function validatePlan(store: TenantStore, plan: Plan): void {
  if (plan.auto_enable) {
    const defaultTrial = plan.free_trial !== undefined && !plan.free_trial.card_required;
    if (hasPrices(plan) && !defaultTrial) fail('invalid_request', 'Cannot make a plan auto-enable if it has prices on it.');
    for (const versions of store.plans.values()) {
      const other = versions.find((candidate) => candidate.active)!;
      if (other.id !== plan.id && other.auto_enable && !other.archived && !other.add_on && !plan.add_on && other.group === plan.group) {
        fail('invalid_request', `You have another default product (${other.id}). Please remove default from that product first.`);
      }
    }
  }
  if (plan.free_trial !== undefined && isOneOff(plan)) fail('invalid_request', 'A one-off plan cannot have a free trial.');
}

export function createPlan(ctx: DomainContext, input: InputOf<'plans.create'>): OutputOf<'plans.create'> {
  const { store } = ctx;
  if (store.plans.has(input.plan_id)) fail('product_already_exists', `Product ${input.plan_id} already exists`);
  const plan: Plan = {
    id: input.plan_id,
    name: input.name,
    description: input.description || null,
    group: input.group || null,
    version: 1,
    version_slug: 'v1',
    active: true,
    add_on: input.add_on,
    auto_enable: input.auto_enable,
    price: input.price === undefined ? null : basePriceView(input.price),
    items: input.items.map((item) => itemView(store, item)),
    created_at: ctx.clock.now(),
    env: store.env,
    archived: false,
    base_variant_id: null,
    config: { ignore_past_due: input.config?.ignore_past_due ?? false },
    billing_controls: input.billing_controls ?? {},
    metadata: input.metadata ?? {},
    ...(input.free_trial !== undefined && { free_trial: { ...input.free_trial, on_end: null } }),
    ...(input.licenses !== undefined && input.licenses.length > 0 && { licenses: licenseLinksView(store, input.plan_id, input.licenses) }),
  };
  validatePlan(store, plan);
  store.plans.set(plan.id, [plan]);
  return plan;
}

export function getPlan(ctx: DomainContext, input: InputOf<'plans.get'>): OutputOf<'plans.get'> {
  return requirePlanVersion(ctx.store, input.plan_id, input.version);
}

export function listPlans(ctx: DomainContext, input: InputOf<'plans.list'>): OutputOf<'plans.list'> {
  const list: Plan[] = [];
  for (const versions of ctx.store.plans.values()) {
    const shown = input.all_versions ? versions : [versions.find((plan) => plan.active) ?? versions.at(-1)!];
    list.push(...shown.filter((plan) => input.include_archived || !plan.archived));
  }
  return { list };
}

/** The parts of a version whose change makes a new version. */
function configurationOf(plan: Plan): unknown {
  return { price: plan.price, items: plan.items, free_trial: plan.free_trial, licenses: plan.licenses, billing_controls: plan.billing_controls };
}

export function updatePlan(ctx: DomainContext, input: InputOf<'plans.update'>): OutputOf<'plans.update'> {
  const { store } = ctx;
  const current = requireActivePlan(store, input.plan_id);
  const versions = store.plans.get(input.plan_id)!;
  const { free_trial: _freeTrial, licenses: _licenses, ...unchanged } = current;
  const next: Plan = {
    ...unchanged,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description || null }),
    ...(input.group !== undefined && { group: input.group || null }),
    ...(input.add_on !== undefined && { add_on: input.add_on }),
    ...(input.auto_enable !== undefined && { auto_enable: input.auto_enable }),
    ...(input.config !== undefined && { config: { ignore_past_due: input.config.ignore_past_due ?? current.config.ignore_past_due } }),
    ...(input.billing_controls !== undefined && { billing_controls: input.billing_controls }),
    ...(input.metadata !== undefined && { metadata: input.metadata }),
    ...(input.archived !== undefined && { archived: input.archived }),
    price: input.price === undefined ? current.price : input.price === null ? null : basePriceView(input.price),
    items: input.items === undefined ? current.items : input.items.map((item) => itemView(store, item)),
  };
  const freeTrial = input.free_trial === undefined ? current.free_trial : input.free_trial === null ? undefined : { ...input.free_trial, on_end: null };
  if (freeTrial !== undefined) next.free_trial = freeTrial;
  const licenses = input.licenses === undefined ? current.licenses : licenseLinksView(store, input.plan_id, input.licenses);
  if (licenses !== undefined && licenses.length > 0) next.licenses = licenses;
  validatePlan(store, next);

  const shared = { metadata: next.metadata, archived: next.archived };
  for (const version of versions) Object.assign(version, shared);
  if (isDeepStrictEqual(configurationOf(next), configurationOf(current))) {
    Object.assign(current, next);
    return current;
  }
  const version = Math.max(...versions.map((plan) => plan.version)) + 1;
  current.active = false;
  const created: Plan = { ...next, version, version_slug: `v${version}`, active: true, created_at: ctx.clock.now() };
  versions.push(created);
  return created;
}
