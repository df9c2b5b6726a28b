/**
 * Conformance scenarios of referral_programs.delete and rewards.delete (a setup operation of the
 * reference the interface does not document, which a run's cleanup uses). They remove what they
 * name; a reward a program links is refused until the program is deleted first (the order a
 * cleanup follows); a deleted program can no longer be updated, and one created again under its ID
 * is new. Deletes that only build state are setup, with a precondition that they took
 * effect, so a target that keeps what it says it deleted blocks these checks, never fails them.
 */
import { expect } from 'vitest';
import { deletionsOf, createFeature, createReferralProgram, createReward, expectDeleted, requireGone, requireNotRead, scenario } from '../../support.ts';


export const referralDeleteScenarios = [
  scenario(
    {
      id: 'deletes.referral-program',
      title: 'referral_programs.delete removes the program it names and no other: referral_programs.get then answers 404 reward_program_not_found',
      rules: ['REF-PROGRAM-DELETE', 'REF-DELETE-SHAPE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const rewardId = await createReward(t, feature.id);
      const [gone, kept] = [await createReferralProgram(t, rewardId), await createReferralProgram(t, rewardId)];
      await expectDeleted(t, 'REF-PROGRAM-DELETE', deletionsOf(t).program, gone);
      const other = await t.client.call('referral_programs.get', { referral_program_id: kept });
      t.check('REF-PROGRAM-DELETE', () => expect(other.status, 'another program of the same reward stays').toBe(200));
    },
  ),

  scenario(
    {
      id: 'deletes.reward-linked',
      title: 'rewards.delete refuses a reward a referral program links; once the program is deleted the reward is, and a program can no longer name it',
      rules: ['REF-REWARD-DELETE-LINKED', 'REF-DELETE-SHAPE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const rewardId = await createReward(t, feature.id);
      const programId = await createReferralProgram(t, rewardId);
      t.expectError(await t.client.call('rewards.delete', { reward_id: rewardId }), { rule: 'REF-REWARD-DELETE-LINKED' });

      // The program goes first (REF-PROGRAM-DELETE proves that delete), as a cleanup does.
      t.setup(await t.client.call('referral_programs.delete', { referral_program_id: programId }));
      requireGone(t, `referral program ${programId}`, await t.client.call('referral_programs.get', { referral_program_id: programId }));
      t.expectOk(await t.client.call('rewards.delete', { reward_id: rewardId }), 'REF-REWARD-DELETE-LINKED');

      const body = { redeem_on: 'customer_creation', received_by: 'referrer' } as const;
      t.expectError(await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), reward_id: rewardId, ...body }), { status: 404, rule: 'REF-REWARD-DELETE-LINKED' });
      // The nearest valid request: the same program naming a reward that exists.
      const otherReward = await createReward(t, feature.id);
      t.setup(await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), reward_id: otherReward, ...body }));
    },
  ),
  scenario(
    {
      id: 'deletes.referral-program-leaves-nothing',
      title:
        'after referral_programs.delete an update of the program is 404 reward_program_not_found, another program of the same reward is untouched, and a program created again under the ID is new, with only the fields sent',
      rules: ['REF-UNKNOWN-PROGRAM', 'REF-CREATE', 'REF-GET'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const rewardId = await createReward(t, feature.id);
      const gone = t.ns.id('refprog');
      t.setup(await t.client.call('referral_programs.create', { id: gone, reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer', max_redemptions: 7, exclude_trial: true }));
      const kept = await createReferralProgram(t, rewardId);
      // Read once before the delete: a target that keeps answers until the data changes must see the delete.
      t.setup(await t.client.call('referral_programs.get', { referral_program_id: gone }));
      t.setup(await t.client.call('referral_programs.delete', { referral_program_id: gone }));
      requireNotRead(t, `referral program ${gone}`, await t.client.call('referral_programs.get', { referral_program_id: gone }));

      t.expectError(await t.client.call('referral_programs.update', { referral_program_id: gone, received_by: 'all' }), { status: 404, code: 'reward_program_not_found', rule: 'REF-UNKNOWN-PROGRAM' });
      const other = t.expectOk(await t.client.call('referral_programs.get', { referral_program_id: kept }), 'REF-GET');
      t.check('REF-GET', () => expect(other, 'another program of the same reward is as it was').toMatchObject({ id: kept, reward_id: rewardId, received_by: 'referrer' }));

      const again = { id: gone, reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'all' } as const;
      t.expectOk(await t.client.call('referral_programs.create', again), 'REF-CREATE');
      const read = t.expectOk(await t.client.call('referral_programs.get', { referral_program_id: gone }), 'REF-GET');
      t.check('REF-GET', () =>
        expect({ received_by: read.received_by, max_redemptions: read.max_redemptions, exclude_trial: read.exclude_trial }, 'the program created again has the fields sent, none of the deleted one').toEqual({
          received_by: 'all',
          max_redemptions: null,
          exclude_trial: false,
        }),
      );
    },
  ),
];
