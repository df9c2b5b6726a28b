/**
 * Referral programs: `referral_programs.update` (documented) and the setup calls
 * `referral_programs.create`, `referral_programs.get` and `rewards.create` (reference). The
 * reference's referral and reward bodies are strict: an unknown key is an error.
 */
import { z } from 'zod';
import { Amount, ID_MAX_LENGTH, Timestamp } from './common.ts';
import { fromReference } from './meta.ts';

export const RedeemOn = z.enum(['customer_creation', 'checkout']);
export const ReceivedBy = z.enum(['referrer', 'all']);

/** "greater than 0 and at most 9007199254740991". */
export const MaxRedemptions = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/** "at least 1 item; IDs unique". */
export const PlanIds = z
  .array(z.string().min(1))
  .min(1)
  .refine((ids) => new Set(ids).size === ids.length, 'Plan IDs must be unique');

export const ReferralProgram = z
  .object({
    id: z.string(),
    reward_id: z.string(),
    redeem_on: RedeemOn,
    received_by: ReceivedBy,
    max_redemptions: z.int().nullable(),
    plan_ids: z.array(z.string()).nullable(),
    exclude_trial: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: 'ReferralProgram' });
export type ReferralProgram = z.infer<typeof ReferralProgram>;

/** Strict, as in the reference (exchanges/124-referral_programs.update-unknown-key.json): an unknown key is an error. */
export const ReferralProgramsUpdateRequest = z
  .strictObject({
    referral_program_id: z.string().min(1),
    reward_id: z.string().min(1).optional(),
    redeem_on: RedeemOn.optional(),
    received_by: ReceivedBy.optional(),
    max_redemptions: MaxRedemptions.nullable().optional(),
    plan_ids: PlanIds.nullable().optional(),
    exclude_trial: z.boolean().nullable().optional(),
  })
  .refine((body) => body.redeem_on !== 'checkout' || (body.plan_ids !== undefined && body.plan_ids !== null), {
    message: 'plan_ids is required when redeem_on is checkout',
    path: ['plan_ids'],
  })
  .meta({ id: 'ReferralProgramsUpdateRequest' });

export const ReferralProgramsCreateRequest = fromReference(
  z
    .strictObject({
      id: z.string().min(1).max(ID_MAX_LENGTH),
      reward_id: z.string().min(1),
      redeem_on: RedeemOn,
      received_by: ReceivedBy,
      max_redemptions: MaxRedemptions.nullable().optional(),
      plan_ids: PlanIds.nullable().optional(),
      exclude_trial: z.boolean().optional(),
    })
    .refine((body) => body.redeem_on !== 'checkout' || (body.plan_ids ?? []).length > 0, {
      message: 'At least one plan is required when redeem_on is checkout',
      path: ['plan_ids'],
    }),
  'exchanges/115-referral_programs.create-checkout.json',
  'exchanges/117-referral_programs.create-checkout-without-plan-ids.json',
);

export const ReferralProgramsGetRequest = fromReference(
  z.strictObject({ referral_program_id: z.string().min(1) }),
  'exchanges/128-referral_programs.get-id-key.json',
);

/** `referral_programs.delete` (reference): strict, like the other program calls. */
export const ReferralProgramsDeleteRequest = fromReference(
  z.strictObject({ referral_program_id: z.string().min(1) }),
  'exchanges/172-referral_programs.delete-program.json',
  'openapi-2.3.0 /v1/referral_programs.delete',
);

const FeatureGrant = z.strictObject({
  id: z.string().min(1).max(ID_MAX_LENGTH),
  name: z.string().min(1),
  grants: z
    .array(
      z.strictObject({
        feature_id: z.string().min(1),
        included: Amount.nonnegative().nullable(),
        expiry: z.strictObject({ type: z.enum(['day', 'month', 'year']), length: z.int().positive() }).nullable(),
      }),
    )
    .min(1)
    .refine((grants) => new Set(grants.map((g) => g.feature_id)).size === grants.length, 'each feature at most once'),
  promo_codes: z.array(z.strictObject({ code: z.string().min(1), max_uses: z.int().positive().nullable() })).min(1),
});

/** A feature-grant reward, the kind of reward a referral program points at. */
export const RewardsCreateRequest = fromReference(
  z.strictObject({ feature_grant: FeatureGrant }),
  'exchanges/114-rewards.create-feature-grant.json',
);
export const Reward = fromReference(
  z.object({ feature_grant: FeatureGrant.extend({ created_at: Timestamp }) }),
  'exchanges/114-rewards.create-feature-grant.json',
);

/** `rewards.delete` (reference): strict; a reward a referral program links is refused. */
export const RewardsDeleteRequest = fromReference(
  z.strictObject({ reward_id: z.string().min(1) }),
  'exchanges/173-rewards.delete-reward.json',
  'openapi-2.3.0 /v1/rewards.delete',
);
