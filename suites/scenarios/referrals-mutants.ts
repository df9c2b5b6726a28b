/**
 * Referral scenarios found missing by mutation testing (`npm run mutation`, README "Mutation
 * testing"): behaviour of the fake's referral programs that could be changed without any other
 * scenario noticing.
 */
import { expect } from 'vitest';
import { createFeature, scenario } from '../support.ts';

export const referralsMutantScenarios = [
  scenario(
    {
      id: 'referrals.create-duplicate-id',
      title: 'referral_programs.create with the id of an existing program is refused with 400 invalid_request, and the program stays as it was',
      rules: ['REF-CREATE-DUPLICATE-ID'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const rewardId = t.ns.id('reward');
      const grant = { id: rewardId, name: `Reward ${rewardId}`, grants: [{ feature_id: feature.id, included: 50, expiry: null }], promo_codes: [{ code: t.ns.code('PROMO'), max_uses: 100 }] };
      t.setup(await t.client.call('rewards.create', { feature_grant: grant }));
      const id = t.ns.id('refprog');
      // The first create is the valid request the refusal is paired with.
      const first = t.setup(await t.client.call('referral_programs.create', { id, reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer' }), ['id']);
      const again = await t.client.call('referral_programs.create', { id, reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'all', max_redemptions: 3 });
      t.expectError(again, { rule: 'REF-CREATE-DUPLICATE-ID', status: 400, code: 'invalid_request' });
      const kept = t.setup(await t.client.call('referral_programs.get', { referral_program_id: id }));
      t.check('REF-CREATE-DUPLICATE-ID', () =>
        expect({ received_by: kept.received_by, max_redemptions: kept.max_redemptions }, 'the existing program is left as it was').toEqual({ received_by: first.received_by, max_redemptions: first.max_redemptions }),
      );
    },
  ),
];
