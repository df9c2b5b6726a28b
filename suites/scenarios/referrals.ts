/**
 * Conformance scenarios of referral programs: `referral_programs.update` (partial; null removes a
 * field; bounds, enums and the checkout rule), and the setup calls `rewards.create`,
 * `referral_programs.create` and `referral_programs.get`. After every refused update, a get shows
 * the program unchanged. Rewards and programs cannot be deleted through the interface, so their ids
 * are namespaced.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { ReferralProgram } from '../../spec/referrals.ts';
import { checkProperty, createFeature, createPlan, type Ops, scenario, type T } from '../support.ts';

type CreateBody = z.input<Ops['referral_programs.create']['request']>;
type UpdateBody = z.input<Ops['referral_programs.update']['request']>;
type UpdateFields = Omit<UpdateBody, 'referral_program_id'>;

async function createReward(t: T): Promise<string> {
  const feature = await createFeature(t, 'consumable');
  const id = t.ns.id('reward');
  const grant = { id, name: `Reward ${id}`, grants: [{ feature_id: feature.id, included: 50, expiry: null }], promo_codes: [{ code: t.ns.code('PROMO'), max_uses: 100 }] };
  const reward = t.expectOk(await t.client.call('rewards.create', { feature_grant: grant }));
  expect(reward.feature_grant, 'rewards.create answers the reward as sent').toMatchObject(grant);
  return reward.feature_grant.id;
}

/** Three plan ids, for plan_ids (created, in case a target checks that they exist). */
async function planIds(t: T): Promise<[string, string, string]> {
  return [(await createPlan(t)).id, (await createPlan(t)).id, (await createPlan(t)).id];
}

async function createProgram(t: T, fields: Omit<CreateBody, 'id'>): Promise<ReferralProgram> {
  const program = t.expectOk(await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), ...fields }));
  expect(program, 'referral_programs.create answers the program as sent').toMatchObject(fields);
  return program;
}

async function getProgram(t: T, id: string): Promise<ReferralProgram> {
  return t.expectOk(await t.client.call('referral_programs.get', { referral_program_id: id }));
}

/** Sends an update that must succeed and leave `expected`; the answer and a get both show it. */
async function expectUpdated(t: T, body: UpdateBody, expected: ReferralProgram, why: string): Promise<void> {
  expect(t.expectOk(await t.client.call('referral_programs.update', body)), `${why}: referral_programs.update answers the program as updated`).toEqual(expected);
  expect(await getProgram(t, expected.id), `${why}: referral_programs.get reads the program as updated`).toEqual(expected);
}

/** Sends an update that must be refused with a 4xx and must leave `before` as it was. */
async function expectRefused(t: T, body: Record<string, unknown>, before: ReferralProgram, why: string): Promise<void> {
  const result = await t.client.call('referral_programs.update', body as UpdateBody);
  expect(result.ok, `${why}: the update must be refused`).toBe(false);
  t.expectError(result);
  expect(await getProgram(t, before.id), `${why}: the refused update must change nothing`).toEqual(before);
}

/** A program with every field set: sign-up redemption, so that plan_ids can change freely. */
async function fullProgram(t: T, rewardId: string, plans: readonly string[]): Promise<ReferralProgram> {
  return createProgram(t, { reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer', max_redemptions: 5, plan_ids: [plans[0]!], exclude_trial: true });
}

export const referralsScenarios = [
  scenario(
    {
      id: 'referrals.create-and-get',
      title: 'rewards.create makes a reward a program can name; referral_programs.create answers the program as sent and get reads it; unknown ids are refused',
      rules: ['REF-REWARD-CREATE', 'REF-REWARD-SHAPE', 'REF-CREATE', 'REF-GET', 'REF-SHAPE'],
    },
    async (t) => {
      const rewardId = await createReward(t);
      const [plan] = await planIds(t);
      const checkout = await createProgram(t, { reward_id: rewardId, redeem_on: 'checkout', received_by: 'all', max_redemptions: 5, plan_ids: [plan], exclude_trial: true });
      const signUp = await createProgram(t, { reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer' });
      expect(signUp, 'a program created without max_redemptions or exclude_trial has no limit and does not exclude trials').toMatchObject({ max_redemptions: null, exclude_trial: false });
      for (const program of [checkout, signUp]) expect(await getProgram(t, program.id), `referral_programs.get reads ${program.id} as created`).toEqual(program);

      const orphanId = t.ns.id('refprog');
      const orphan = await t.client.call('referral_programs.create', { id: orphanId, reward_id: t.ns.id('rewardnever'), redeem_on: 'customer_creation', received_by: 'all' });
      t.expectError(orphan);
      t.expectError(await t.client.call('referral_programs.get', { referral_program_id: orphanId }), { status: 404, code: 'reward_program_not_found' });
    },
  ),

  scenario(
    {
      id: 'referrals.update-partial',
      title: 'referral_programs.update sets each field it is given and keeps every field it is not given',
      rules: ['REF-UPDATE-SETS-FIELDS', 'REF-PARTIAL-UPDATE', 'REF-SHAPE'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      const otherReward = await createReward(t);
      const steps: [string, UpdateFields][] = [
        ['received_by alone', { received_by: 'all' }],
        ['max_redemptions alone', { max_redemptions: 10 }],
        ['reward_id alone', { reward_id: otherReward }],
        ['exclude_trial alone', { exclude_trial: false }],
        ['plan_ids alone', { plan_ids: [plans[1], plans[2]] }],
        ['redeem_on checkout with its plans', { redeem_on: 'checkout', plan_ids: [plans[0]] }],
        ['redeem_on back to customer_creation', { redeem_on: 'customer_creation' }],
        ['nothing but the id', {}],
      ];
      for (const [why, fields] of steps) {
        program = { ...program, ...(fields as Partial<ReferralProgram>) };
        await expectUpdated(t, { referral_program_id: program.id, ...fields }, program, why);
      }
    },
  ),

  scenario(
    {
      id: 'referrals.update-model',
      title: 'random sequences of partial updates, nulls included, leave the program where a merge model says',
      rules: ['REF-PARTIAL-UPDATE', 'REF-UPDATE-SETS-FIELDS', 'REF-UPDATE-NULL-REMOVES'],
    },
    async (t) => {
      const plans = await planIds(t);
      const rewards = [await createReward(t), await createReward(t)] as const;
      const fields = {
        reward_id: fc.constantFrom(...rewards),
        redeem_on: fc.constantFrom('customer_creation' as const, 'checkout' as const),
        received_by: fc.constantFrom('referrer' as const, 'all' as const),
        max_redemptions: fc.option(fc.oneof(fc.constantFrom(1, Number.MAX_SAFE_INTEGER), fc.integer({ min: 1, max: 1000 }))),
        plan_ids: fc.option(fc.uniqueArray(fc.constantFrom(...plans), { minLength: 1 })),
        exclude_trial: fc.option(fc.boolean()),
      };
      const updates = fc.array(fc.record(fields, { requiredKeys: [] }), { minLength: 1, maxLength: 5 });
      await checkProperty(
        t,
        fc.asyncProperty(updates, async (changes) => {
          let model = await fullProgram(t, rewards[0], plans);
          for (const generated of changes) {
            // Only updates that every reading of the checkout rule accepts: redeem_on checkout comes with
            // its plans, and a checkout program keeps some.
            const change = { ...generated };
            if (change.redeem_on === 'checkout' && !change.plan_ids) change.plan_ids = [plans[0]];
            if ((change.redeem_on ?? model.redeem_on) === 'checkout' && change.plan_ids === null) delete change.plan_ids;
            const merged: ReferralProgram = { ...model, ...change, exclude_trial: change.exclude_trial === undefined ? model.exclude_trial : (change.exclude_trial ?? false) };
            await expectUpdated(t, { referral_program_id: model.id, ...change }, merged, `update ${JSON.stringify(change)}`);
            model = merged;
          }
        }),
        15,
      );
    },
  ),

  scenario(
    {
      id: 'referrals.update-null-removes',
      title: 'null removes max_redemptions, plan_ids and exclude_trial, one at a time and all at once, and keeps the other fields',
      rules: ['REF-UPDATE-NULL-REMOVES'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      const removals: [string, UpdateFields, Partial<ReferralProgram>][] = [
        ['max_redemptions null', { max_redemptions: null }, { max_redemptions: null }],
        ['plan_ids null', { plan_ids: null }, { plan_ids: null }],
        ['exclude_trial null', { exclude_trial: null }, { exclude_trial: false }],
      ];
      for (const [why, fields, removed] of removals) {
        program = { ...program, ...removed };
        await expectUpdated(t, { referral_program_id: program.id, ...fields }, program, why);
      }
      program = { ...program, max_redemptions: 7, plan_ids: [plans[1]], exclude_trial: true };
      await expectUpdated(t, { referral_program_id: program.id, max_redemptions: 7, plan_ids: [plans[1]], exclude_trial: true }, program, 'setting the fields again');
      program = { ...program, max_redemptions: null, plan_ids: null, exclude_trial: false };
      await expectUpdated(t, { referral_program_id: program.id, max_redemptions: null, plan_ids: null, exclude_trial: null }, program, 'all three null at once');
    },
  ),

  scenario(
    {
      id: 'referrals.max-redemptions-bounds',
      title: 'max_redemptions takes 1 and 9007199254740991, and refuses 0, -1, 9007199254740992 and fractions without changing the program',
      rules: ['REF-MAX-REDEMPTIONS-BOUNDS'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      for (const max_redemptions of [1, Number.MAX_SAFE_INTEGER, 2]) {
        program = { ...program, max_redemptions };
        await expectUpdated(t, { referral_program_id: program.id, max_redemptions }, program, `max_redemptions ${max_redemptions}`);
      }
      for (const max_redemptions of [0, -1, Number.MAX_SAFE_INTEGER + 1, 2 ** 60, 1.5]) {
        await expectRefused(t, { referral_program_id: program.id, max_redemptions }, program, `max_redemptions ${max_redemptions}`);
      }
    },
  ),

  scenario(
    {
      id: 'referrals.plan-ids-bounds',
      title: 'plan_ids takes one or more unique ids, and refuses an empty list or a repeated id without changing the program',
      rules: ['REF-PLAN-IDS-MIN-ONE', 'REF-PLAN-IDS-UNIQUE'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      await expectRefused(t, { referral_program_id: program.id, plan_ids: [] }, program, 'plan_ids []');
      for (const ids of [[plans[1]], [plans[0], plans[1], plans[2]]]) {
        program = { ...program, plan_ids: ids };
        await expectUpdated(t, { referral_program_id: program.id, plan_ids: ids }, program, `plan_ids ${JSON.stringify(ids)}`);
      }
      for (const ids of [[plans[0], plans[0]], [plans[0], plans[1], plans[0]]]) {
        await expectRefused(t, { referral_program_id: program.id, plan_ids: ids }, program, `plan_ids ${JSON.stringify(ids)}`);
      }
    },
  ),

  scenario(
    {
      id: 'referrals.update-ids-and-enums',
      title: 'referral_programs.update refuses a missing or empty referral_program_id, an empty reward_id, and redeem_on or received_by outside their enums; each enum value is accepted',
      rules: ['REF-UPDATE-REQUIRED-ID', 'REF-PROGRAM-ID-MIN-LENGTH', 'REF-REWARD-ID-MIN-LENGTH', 'REF-REDEEM-ON-ENUM', 'REF-RECEIVED-BY-ENUM'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      await expectRefused(t, { received_by: 'all' }, program, 'no referral_program_id');
      await expectRefused(t, { referral_program_id: '', received_by: 'all' }, program, 'an empty referral_program_id');
      await expectRefused(t, { referral_program_id: program.id, reward_id: '' }, program, 'an empty reward_id');
      for (const redeem_on of ['signup', 'Checkout', '']) {
        await expectRefused(t, { referral_program_id: program.id, redeem_on, plan_ids: [plans[0]] }, program, `redeem_on ${JSON.stringify(redeem_on)}`);
      }
      for (const received_by of ['referee', 'both', 'ALL']) {
        await expectRefused(t, { referral_program_id: program.id, received_by }, program, `received_by ${JSON.stringify(received_by)}`);
      }
      for (const redeem_on of ['checkout', 'customer_creation'] as const) {
        program = { ...program, redeem_on, plan_ids: [plans[0]] };
        await expectUpdated(t, { referral_program_id: program.id, redeem_on, plan_ids: [plans[0]] }, program, `redeem_on ${redeem_on}`);
      }
      for (const received_by of ['all', 'referrer'] as const) {
        program = { ...program, received_by };
        await expectUpdated(t, { referral_program_id: program.id, received_by }, program, `received_by ${received_by}`);
      }
    },
  ),

  scenario(
    {
      id: 'referrals.checkout-needs-plans',
      title: 'a program cannot redeem on checkout without plan ids, whether the update names checkout without plans or removes the plans of a checkout program',
      rules: ['REF-UPDATE-CHECKOUT-NEEDS-PLANS'],
    },
    async (t) => {
      const [plan] = await planIds(t);
      const rewardId = await createReward(t);
      let program = await createProgram(t, { reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'all', max_redemptions: 3 });
      await expectRefused(t, { referral_program_id: program.id, redeem_on: 'checkout' }, program, 'redeem_on checkout on a program without plans');
      await expectRefused(t, { referral_program_id: program.id, redeem_on: 'checkout', plan_ids: null }, program, 'redeem_on checkout with plan_ids null');
      program = { ...program, redeem_on: 'checkout', plan_ids: [plan] };
      await expectUpdated(t, { referral_program_id: program.id, redeem_on: 'checkout', plan_ids: [plan] }, program, 'redeem_on checkout with a plan');
      await expectRefused(t, { referral_program_id: program.id, plan_ids: null }, program, 'removing the plans of a checkout program');
      program = { ...program, redeem_on: 'customer_creation', plan_ids: null };
      await expectUpdated(t, { referral_program_id: program.id, redeem_on: 'customer_creation', plan_ids: null }, program, 'back to customer_creation without plans');
    },
  ),

  scenario(
    {
      id: 'referrals.unknown-program',
      title: 'referral_programs.update of an unknown program is 404 reward_program_not_found and creates nothing',
      rules: ['REF-UNKNOWN-PROGRAM'],
    },
    async (t) => {
      const unknown = t.ns.id('refprognever');
      t.expectError(await t.client.call('referral_programs.update', { referral_program_id: unknown, max_redemptions: 3 }), { status: 404, code: 'reward_program_not_found' });
      const after = await t.client.call('referral_programs.get', { referral_program_id: unknown });
      expect(after.ok, 'the refused update must not have created the program').toBe(false);
    },
  ),
];
