/**
 * Referral programs: `referral_programs.update` (documented; partial: an omitted field keeps its
 * value, null removes it), and `referral_programs.create`, `referral_programs.get` and
 * `rewards.create` (setup).
 */
import type { ReferralProgram } from '../../spec/referrals.ts';
import type { TenantStore } from '../store/tenant-store.ts';
import { type DomainContext, fail, type InputOf, type OutputOf } from './context.ts';
import { requireFeature } from './features.ts';

export function requireProgram(store: TenantStore, programId: string): ReferralProgram {
  return store.referralPrograms.get(programId) ?? fail('reward_program_not_found', `Referral program ${programId} not found`);
}

export function requireReward(store: TenantStore, rewardId: string): void {
  if (!store.rewards.has(rewardId)) fail('reward_not_found', `Reward ${rewardId} not found`);
}

/** "`plan_ids` … required when `redeem_on` is `checkout`", checked on the program as it would be stored. */
function validateProgram(program: ReferralProgram): void {
  if (program.redeem_on === 'checkout' && (program.plan_ids === null || program.plan_ids.length === 0)) {
    fail('invalid_request', 'When redeem_on is checkout, plan_ids must list at least one plan.');
  }
}

export function createReward(ctx: DomainContext, input: InputOf<'rewards.create'>): OutputOf<'rewards.create'> {
  const { store } = ctx;
  const grant = input.feature_grant;
  if (store.rewards.has(grant.id)) fail('invalid_request', `Reward ${grant.id} already exists`);
  for (const entry of grant.grants) requireFeature(store, entry.feature_id);
  const reward = { ...grant, created_at: ctx.clock.now() };
  store.rewards.set(reward.id, reward);
  return { feature_grant: reward };
}

export function createReferralProgram(ctx: DomainContext, input: InputOf<'referral_programs.create'>): OutputOf<'referral_programs.create'> {
  const { store } = ctx;
  if (store.referralPrograms.has(input.id)) fail('invalid_request', `Referral program ${input.id} already exists`);
  requireReward(store, input.reward_id);
  const program: ReferralProgram = {
    id: input.id,
    reward_id: input.reward_id,
    redeem_on: input.redeem_on,
    received_by: input.received_by,
    max_redemptions: input.max_redemptions ?? null,
    plan_ids: input.plan_ids ?? null,
    exclude_trial: input.exclude_trial ?? false,
    created_at: ctx.clock.now(),
  };
  validateProgram(program);
  store.referralPrograms.set(program.id, program);
  return program;
}

export function getReferralProgram(ctx: DomainContext, input: InputOf<'referral_programs.get'>): OutputOf<'referral_programs.get'> {
  return requireProgram(ctx.store, input.referral_program_id);
}

/** The program an update would leave: an omitted field keeps its value, null removes it. */
export function mergeProgramUpdate(current: ReferralProgram, input: InputOf<'referral_programs.update'>): ReferralProgram {
  return {
    ...current,
    ...(input.reward_id !== undefined && { reward_id: input.reward_id }),
    ...(input.redeem_on !== undefined && { redeem_on: input.redeem_on }),
    ...(input.received_by !== undefined && { received_by: input.received_by }),
    ...(input.max_redemptions !== undefined && { max_redemptions: input.max_redemptions }),
    ...(input.plan_ids !== undefined && { plan_ids: input.plan_ids }),
    // A removed exclude_trial reads as false, its unset value.
    ...(input.exclude_trial !== undefined && { exclude_trial: input.exclude_trial ?? false }),
  };
}

export function updateReferralProgram(ctx: DomainContext, input: InputOf<'referral_programs.update'>): OutputOf<'referral_programs.update'> {
  const { store } = ctx;
  const current = requireProgram(store, input.referral_program_id);
  if (input.reward_id !== undefined) requireReward(store, input.reward_id);
  const updated = mergeProgramUpdate(current, input);
  validateProgram(updated);
  store.referralPrograms.set(updated.id, updated);
  return updated;
}
