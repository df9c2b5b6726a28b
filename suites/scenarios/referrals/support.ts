/** Builders and checks that several referrals scenario modules share. */
import type { z } from 'zod';
import type { ReferralProgram } from '../../../spec/referrals.ts';
import { createPlan, type Ops, type T } from '../../support.ts';

export type CreateBody = z.input<Ops['referral_programs.create']['request']>;

export const rewardBody = (t: T, featureId: string) => {
  const id = t.ns.id('reward');
  return { id, name: `Reward ${id}`, grants: [{ feature_id: featureId, included: 50, expiry: null }], promo_codes: [{ code: t.ns.code('PROMO'), max_uses: 100 }] };
};

/** Three plan ids, for plan_ids (created, in case a target checks that they exist). */
export async function planIds(t: T): Promise<[string, string, string]> {
  return [(await createPlan(t)).id, (await createPlan(t)).id, (await createPlan(t)).id];
}

/** The program's own fields, without created_at (whose presence is REF-SHAPE's). */
export function fieldsOf(program: Partial<ReferralProgram>) {
  const { id, reward_id, redeem_on, received_by, max_redemptions, plan_ids, exclude_trial } = program;
  return { id, reward_id, redeem_on, received_by, max_redemptions, plan_ids, exclude_trial };
}
