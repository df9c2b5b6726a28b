/**
 * The reference's delete operations (setup; not in interface.md): `customers.delete`, `plans.delete`,
 * `features.delete`, `referral_programs.delete` and `rewards.delete`, what a conformance run's
 * cleanup uses. Like the reference, each refuses to delete what something else still uses, so
 * nothing the fake keeps ever names a missing row: a plan version a customer holds or held (expired
 * records included), a feature a plan version or a credit system uses, a reward a referral program
 * links. Where the reference has no word, the fake refuses the same way for what it would otherwise
 * leave dangling: a plan another plan offers as a license, a feature an entity is tied to.
 */
import { IN_USE_ERROR } from '../../spec/common.ts';
import type { DomainContext, InputOf, OutputOf } from './context.ts';
import { fail } from './context.ts';
import { requireCustomer } from './customers.ts';
import { requireFeature } from './features.ts';
import { requireProgram, requireReward } from './referrals.ts';

/** Refused because something still uses it: the reference's 409 `invalid_request`. */
function failInUse(message: string): never {
  fail(IN_USE_ERROR.code, message, IN_USE_ERROR.status);
}

/** Removes the customer with everything it holds: entities, plans, balances, license pools, usage events, locks. */
export function deleteCustomer(ctx: DomainContext, input: InputOf<'customers.delete'>): OutputOf<'customers.delete'> {
  requireCustomer(ctx.store, input.customer_id);
  ctx.store.removeCustomer(input.customer_id);
  return { success: true };
}

/**
 * Removes the latest version of a plan, or every version with `all_versions`. Refused while a
 * customer holds or held one of those versions (the reference counts expired records too), and,
 * when the whole plan would go, while another plan offers it as a license.
 */
export function deletePlan(ctx: DomainContext, input: InputOf<'plans.delete'>): OutputOf<'plans.delete'> {
  const { store } = ctx;
  const planId = input.plan_id;
  const versions = store.plans.get(planId) ?? fail('product_not_found', `Product ${planId} not found`);
  const latest = Math.max(...versions.map((plan) => plan.version));
  const doomed = new Set(input.all_versions ? versions.map((plan) => plan.version) : [latest]);
  const holders = new Set([...store.records.values()].filter((record) => record.planId === planId && doomed.has(record.planVersion)).map((record) => record.customerId));
  if (holders.size > 0) fail('invalid_request', `Product ${planId} has ${holders.size} customers (expired or active) on it and therefore cannot be deleted`);
  const kept = versions.filter((plan) => !doomed.has(plan.version));
  if (kept.length === 0) {
    for (const other of store.plans.values()) {
      const offering = other.find((plan) => plan.id !== planId && (plan.licenses ?? []).some((link) => link.license_plan_id === planId));
      if (offering !== undefined) failInUse(`Plan ${planId} is offered as a license by plan ${offering.id}. Delete that plan first.`);
    }
    store.plans.delete(planId);
    return { success: true };
  }
  // The newest version left becomes the active one, as if the deleted versions had never been made.
  if (!kept.some((plan) => plan.active)) kept.at(-1)!.active = true;
  store.plans.set(planId, kept);
  return { success: true };
}

/** Removes a feature no plan version, no credit system and no entity uses. */
export function deleteFeature(ctx: DomainContext, input: InputOf<'features.delete'>): OutputOf<'features.delete'> {
  const { store } = ctx;
  const feature = requireFeature(store, input.feature_id);
  const creditSystem = [...store.features.values()].find((other) => (other.credit_schema ?? []).some((entry) => entry.metered_feature_id === feature.id));
  if (creditSystem !== undefined) failInUse(`Feature ${feature.id} is used by credit system ${creditSystem.id}`);
  const inPlan = [...store.plans.values()].some((versions) => versions.some((plan) => plan.items.some((item) => item.feature_id === feature.id)));
  if (inPlan) failInUse(`Feature ${feature.id} is used in a product. You must delete the product first, or archive it instead.`);
  const entity = [...store.entities.values()].find((row) => row.featureId === feature.id);
  if (entity !== undefined) failInUse(`Feature ${feature.id} is used by entity ${entity.id}. Delete the entity first.`);
  store.features.delete(feature.id);
  return { success: true };
}

export function deleteReferralProgram(ctx: DomainContext, input: InputOf<'referral_programs.delete'>): OutputOf<'referral_programs.delete'> {
  requireProgram(ctx.store, input.referral_program_id);
  ctx.store.referralPrograms.delete(input.referral_program_id);
  return { success: true };
}

/** Removes a reward no referral program links (the reference refuses rather than drop the programs). */
export function deleteReward(ctx: DomainContext, input: InputOf<'rewards.delete'>): OutputOf<'rewards.delete'> {
  const { store } = ctx;
  requireReward(store, input.reward_id);
  const linked = [...store.referralPrograms.values()].filter((program) => program.reward_id === input.reward_id).map((program) => program.id);
  if (linked.length > 0) fail('invalid_request', `Reward ${input.reward_id} is linked to referral programs: ${linked.join(', ')}. Delete them first.`);
  store.rewards.delete(input.reward_id);
  return { success: true };
}
