/**
 * Scenarios of rewards and referral programs as created and read: rewards.create,
 * referral_programs.create (an existing id refused) and referral_programs.get.
 */
import { expect } from 'vitest';
import { createFeature, scenario } from '../../support.ts';
import { type CreateBody, fieldsOf, planIds, rewardBody } from './support.ts';

export const programsScenarios = [
  scenario(
    {
      id: 'referrals.create-and-get',
      title: 'rewards.create makes a reward a program can name; referral_programs.create answers the program as sent and get reads it; unknown ids are refused',
      rules: ['REF-REWARD-CREATE', 'REF-REWARD-SHAPE', 'REF-CREATE', 'REF-GET', 'REF-SHAPE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const grant = rewardBody(t, feature.id);
      const reward = t.expectOk(await t.client.call('rewards.create', { feature_grant: grant }), 'REF-REWARD-CREATE');
      // What the answer holds is the shape rule's; that the reward was kept is REF-REWARD-CREATE's, proven below.
      t.check('REF-REWARD-SHAPE', () => expect(reward.feature_grant, 'rewards.create answers the reward as sent').toMatchObject(grant));
      const rewardId = grant.id;
      const [plan] = await planIds(t);
      // A program naming the reward is accepted only if the reward was kept (REF-REWARD-CREATE).
      const create = async (fields: Omit<CreateBody, 'id'>) => t.expectOk(await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), ...fields }), 'REF-REWARD-CREATE');
      const checkout = await create({ reward_id: rewardId, redeem_on: 'checkout', received_by: 'all', max_redemptions: 5, plan_ids: [plan], exclude_trial: true });
      const signUp = await create({ reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer' });
      t.check('REF-CREATE', () => {
        expect(fieldsOf(checkout), 'referral_programs.create answers the program as sent').toMatchObject({ reward_id: rewardId, redeem_on: 'checkout', received_by: 'all', max_redemptions: 5, plan_ids: [plan], exclude_trial: true });
        expect(fieldsOf(signUp), 'a program created without max_redemptions or exclude_trial has no limit and does not exclude trials').toMatchObject({ max_redemptions: null, exclude_trial: false });
      });
      for (const program of [checkout, signUp]) {
        const read = t.expectOk(await t.client.call('referral_programs.get', { referral_program_id: program.id }), 'REF-GET');
        t.check('REF-GET', () => expect(fieldsOf(read), `referral_programs.get reads ${program.id} as created`).toEqual(fieldsOf(program)));
      }

      const orphanId = t.ns.id('refprog');
      const orphan = await t.client.call('referral_programs.create', { id: orphanId, reward_id: t.ns.id('rewardnever'), redeem_on: 'customer_creation', received_by: 'all' });
      t.expectError(orphan, { rule: 'REF-CREATE' });
      t.expectError(await t.client.call('referral_programs.get', { referral_program_id: orphanId }), { status: 404, code: 'reward_program_not_found', rule: 'REF-GET' });
    },
  ),
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
