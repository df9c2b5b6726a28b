/**
 * Scenarios of referral_programs.update: partial updates (also as random sequences against a merge
 * model), null removing a field, bounds, enums, the checkout rule, and an unknown program.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { ReferralProgram } from '../../../spec/referrals.ts';
import { inBatches, isRouteNotServed } from '../../framework/index.ts';
import { checkProperty, createFeature, createPlan, type Ops, SETUP_WIDTH, scenario, type T } from '../../support.ts';
import { type CreateBody, fieldsOf, planIds, rewardBody } from './support.ts';

type UpdateBody = z.input<Ops['referral_programs.update']['request']>;

type UpdateFields = Omit<UpdateBody, 'referral_program_id'>;

type Rule = Parameters<T['check']>[0];

/** How many plans the long plan_ids list names: far more than any scenario's few, so a list kept or checked only in part shows. */
const MANY_PLAN_IDS = 40;

/** A reward to name in programs (setup). */
async function createReward(t: T): Promise<string> {
  const feature = await createFeature(t, 'consumable');
  return t.setup(await t.client.call('rewards.create', { feature_grant: rewardBody(t, feature.id) }), ['feature_grant']).feature_grant.id;
}

/** A program to update (setup): it must start as sent, which REF-CREATE proves elsewhere. */
async function createProgram(t: T, fields: Omit<CreateBody, 'id'>): Promise<ReferralProgram> {
  const program = t.setup(await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), ...fields }), ['id']);
  t.precondition('referral_programs.create made the program as sent', () => expect(program).toMatchObject(fields));
  return program;
}

/** Which rule each part of an accepted update proves; a part left out is a precondition (another rule proves it). */
interface UpdateRules {
  /** That the update is accepted at all. */
  readonly accepted?: Rule;
  /** That the fields it gives (not null) take their new values. */
  readonly set?: Rule;
  /** That the fields it gives as null are removed. */
  readonly removed?: Rule;
  /** That the fields it does not give keep their values. */
  readonly kept?: Rule;
}

/**
 * Sends an update that must succeed and leave `expected`. Each part of its answer (documented) is
 * checked as its rule in `rules`: the fields given, those given as null, the others. A get then
 * reads the program as the update left it: that is REF-GET's ("as last updated"), since get is the
 * reference's call and no MUST verdict may rest on it.
 */
async function expectUpdated(t: T, body: UpdateBody, expected: ReferralProgram, why: string, rules: UpdateRules): Promise<void> {
  const result = await t.client.call('referral_programs.update', body);
  const answered = rules.accepted === undefined ? t.setup(result) : t.expectOk(result, rules.accepted);
  const want = fieldsOf(expected) as Record<string, unknown>;
  const given = Object.keys(body).filter((key) => key !== 'referral_program_id');
  const nulled = given.filter((key) => (body as Record<string, unknown>)[key] === null);
  const parts: [string[], Rule | undefined, string][] = [
    [given.filter((key) => !nulled.includes(key)), rules.set, 'takes the values given'],
    [nulled, rules.removed, 'removes the fields given as null'],
    [Object.keys(want).filter((key) => key !== 'id' && !given.includes(key)), rules.kept, 'keeps the fields not given'],
  ];
  for (const [keys, rule, what] of parts) {
    if (keys.length === 0) continue;
    const pick = (program: Record<string, unknown>) => Object.fromEntries(keys.map((key) => [key, program[key]]));
    const assertion = () => expect(pick(fieldsOf(answered)), `${why}: referral_programs.update ${what}`).toEqual(pick(want));
    if (rule === undefined) t.precondition(`${why}: the update ${what}`, assertion);
    else t.check(rule, assertion);
  }
  await expectRead(t, expected, `${why}: referral_programs.get reads the program as the update left it`);
}

/** referral_programs.get reads `program` as it was last updated (REF-GET). */
async function expectRead(t: T, program: ReferralProgram, what: string): Promise<void> {
  const read = t.setup(await t.client.call('referral_programs.get', { referral_program_id: program.id }));
  t.check('REF-GET', () => expect(fieldsOf(read), what).toEqual(fieldsOf(program)));
}

/**
 * Sends an update that must be refused with a 4xx (checked as `rule`); a get then reads the program
 * as it was before (REF-GET: "as last updated", and a refused update is none).
 */
async function expectRefused(t: T, body: Record<string, unknown>, before: ReferralProgram, why: string, rule: Rule): Promise<void> {
  const result = await t.client.call('referral_programs.update', body as UpdateBody);
  t.check(rule, () => expect(result.ok, `${why}: the update must be refused`).toBe(false));
  t.expectError(result, { rule });
  await expectRead(t, before, `${why}: the refused update changed nothing`);
}

/** A program with every field set: sign-up redemption, so that plan_ids can change freely. */
async function fullProgram(t: T, rewardId: string, plans: readonly string[]): Promise<ReferralProgram> {
  return createProgram(t, { reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer', max_redemptions: 5, plan_ids: [plans[0]!], exclude_trial: true });
}

/**
 * Random sequences of partial updates of a full program, each checked against a merge model. With
 * `nulls`, fields are also sent as null: the acceptance of an update with a null is then
 * REF-UPDATE-NULL-REMOVES's, so that REF-UPDATE-SETS-FIELDS is decided on updates without null
 * (a target that refuses null, as the 2.3.0 reference does, fails only the null rule).
 */
async function checkUpdateModel(t: T, nulls: boolean, numRuns: number): Promise<void> {
  const plans = await planIds(t);
  const rewards = [await createReward(t), await createReward(t)] as const;
  const optional = <V>(value: fc.Arbitrary<V>) => (nulls ? fc.option(value) : value);
  const fields = {
    reward_id: fc.constantFrom(...rewards),
    redeem_on: fc.constantFrom('customer_creation' as const, 'checkout' as const),
    received_by: fc.constantFrom('referrer' as const, 'all' as const),
    max_redemptions: optional(fc.oneof(fc.constantFrom(1, Number.MAX_SAFE_INTEGER), fc.integer({ min: 1, max: 1000 }))),
    plan_ids: optional(fc.uniqueArray(fc.constantFrom(...plans), { minLength: 1 })),
    exclude_trial: optional(fc.boolean()),
  };
  const updates = fc.array(fc.record(fields, { requiredKeys: [] }), { minLength: 1, maxLength: 5 });
  await checkProperty(
    t,
    fc.asyncProperty(updates, async (changes) => {
      let model = await fullProgram(t, rewards[0], plans);
      for (const generated of changes) {
        // Only updates that every reading of the checkout rule accepts: redeem_on checkout comes with
        // its plans, and a checkout program keeps some.
        const change: UpdateFields = { ...generated };
        if (change.redeem_on === 'checkout' && !change.plan_ids) change.plan_ids = [plans[0]!];
        if ((change.redeem_on ?? model.redeem_on) === 'checkout' && change.plan_ids === null) delete change.plan_ids;
        const merged: ReferralProgram = { ...model, ...change, exclude_trial: change.exclude_trial === undefined ? model.exclude_trial : (change.exclude_trial ?? false) } as ReferralProgram;
        const withNull = Object.values(change).includes(null);
        await expectUpdated(t, { referral_program_id: model.id, ...change }, merged, `update ${JSON.stringify(change)}`, {
          accepted: withNull ? 'REF-UPDATE-NULL-REMOVES' : 'REF-UPDATE-SETS-FIELDS',
          set: 'REF-UPDATE-SETS-FIELDS',
          removed: 'REF-UPDATE-NULL-REMOVES',
          kept: 'REF-PARTIAL-UPDATE',
        });
        model = merged;
      }
    }),
    numRuns,
  );
}

export const updateScenarios = [
  scenario(
    {
      id: 'referrals.update-partial',
      title: 'referral_programs.update sets each field it is given and keeps every field it is not given',
      rules: ['REF-UPDATE-SETS-FIELDS', 'REF-PARTIAL-UPDATE', 'REF-SHAPE', 'REF-GET'],
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
        await expectUpdated(t, { referral_program_id: program.id, ...fields }, program, why, { accepted: 'REF-UPDATE-SETS-FIELDS', set: 'REF-UPDATE-SETS-FIELDS', kept: 'REF-PARTIAL-UPDATE' });
      }
    },
  ),
  scenario(
    {
      id: 'referrals.update-model',
      title: 'random sequences of partial updates without null leave the program where a merge model says',
      rules: ['REF-PARTIAL-UPDATE', 'REF-UPDATE-SETS-FIELDS', 'REF-GET'],
    },
    (t) => checkUpdateModel(t, false, 15),
  ),
  scenario(
    {
      id: 'referrals.update-model-with-nulls',
      title: 'random sequences of partial updates, nulls among them, leave the program where a merge model says',
      rules: ['REF-PARTIAL-UPDATE', 'REF-UPDATE-SETS-FIELDS', 'REF-UPDATE-NULL-REMOVES', 'REF-GET'],
    },
    (t) => checkUpdateModel(t, true, 10),
  ),
  scenario(
    {
      id: 'referrals.update-null-removes',
      title: 'null removes max_redemptions, plan_ids and exclude_trial, one at a time and all at once, and keeps the other fields; a checkout program cannot lose its plans to null',
      rules: ['REF-UPDATE-NULL-REMOVES', 'REF-PARTIAL-UPDATE', 'REF-UPDATE-SETS-FIELDS', 'REF-UPDATE-CHECKOUT-NEEDS-PLANS', 'REF-GET'],
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
        await expectUpdated(t, { referral_program_id: program.id, ...fields }, program, why, { accepted: 'REF-UPDATE-NULL-REMOVES', removed: 'REF-UPDATE-NULL-REMOVES', kept: 'REF-PARTIAL-UPDATE' });
      }
      program = { ...program, max_redemptions: 7, plan_ids: [plans[1]], exclude_trial: true };
      await expectUpdated(t, { referral_program_id: program.id, max_redemptions: 7, plan_ids: [plans[1]], exclude_trial: true }, program, 'setting the fields again', {
        accepted: 'REF-UPDATE-SETS-FIELDS',
        set: 'REF-UPDATE-SETS-FIELDS',
        kept: 'REF-PARTIAL-UPDATE',
      });
      program = { ...program, max_redemptions: null, plan_ids: null, exclude_trial: false };
      await expectUpdated(t, { referral_program_id: program.id, max_redemptions: null, plan_ids: null, exclude_trial: null }, program, 'all three null at once', {
        accepted: 'REF-UPDATE-NULL-REMOVES',
        removed: 'REF-UPDATE-NULL-REMOVES',
        kept: 'REF-PARTIAL-UPDATE',
      });
      // null meets the checkout rule: a checkout program keeps its plans, and loses them once it redeems on sign-up.
      const checkout = 'REF-UPDATE-CHECKOUT-NEEDS-PLANS';
      program = { ...program, redeem_on: 'checkout', plan_ids: [plans[0]!] };
      await expectUpdated(t, { referral_program_id: program.id, redeem_on: 'checkout', plan_ids: [plans[0]!] }, program, 'redeem_on checkout with a plan', { accepted: checkout });
      await expectRefused(t, { referral_program_id: program.id, plan_ids: null }, program, 'removing the plans of a checkout program', checkout);
      program = { ...program, redeem_on: 'customer_creation', plan_ids: null };
      await expectUpdated(t, { referral_program_id: program.id, redeem_on: 'customer_creation', plan_ids: null }, program, 'back to customer_creation without plans', {
        accepted: 'REF-UPDATE-NULL-REMOVES',
        set: 'REF-UPDATE-SETS-FIELDS',
        removed: 'REF-UPDATE-NULL-REMOVES',
        kept: 'REF-PARTIAL-UPDATE',
      });
    },
  ),
  scenario(
    {
      id: 'referrals.max-redemptions-bounds',
      title: 'max_redemptions takes 1 and 9007199254740991, and refuses 0, -1, 9007199254740992 and fractions without changing the program',
      rules: ['REF-MAX-REDEMPTIONS-BOUNDS', 'REF-GET'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      for (const max_redemptions of [1, Number.MAX_SAFE_INTEGER, 2]) {
        program = { ...program, max_redemptions };
        await expectUpdated(t, { referral_program_id: program.id, max_redemptions }, program, `max_redemptions ${max_redemptions}`, { accepted: 'REF-MAX-REDEMPTIONS-BOUNDS', set: 'REF-MAX-REDEMPTIONS-BOUNDS' });
      }
      for (const max_redemptions of [0, -1, Number.MAX_SAFE_INTEGER + 1, 2 ** 60, 1.5]) {
        await expectRefused(t, { referral_program_id: program.id, max_redemptions }, program, `max_redemptions ${max_redemptions}`, 'REF-MAX-REDEMPTIONS-BOUNDS');
      }
    },
  ),
  scenario(
    {
      id: 'referrals.plan-ids-bounds',
      title: 'plan_ids takes one or more unique ids, and refuses an empty list or a repeated id without changing the program',
      rules: ['REF-PLAN-IDS-MIN-ONE', 'REF-PLAN-IDS-UNIQUE', 'REF-GET'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      await expectRefused(t, { referral_program_id: program.id, plan_ids: [] }, program, 'plan_ids []', 'REF-PLAN-IDS-MIN-ONE');
      for (const [ids, rule] of [[[plans[1]], 'REF-PLAN-IDS-MIN-ONE'], [[plans[0], plans[1], plans[2]], 'REF-PLAN-IDS-UNIQUE']] as const) {
        program = { ...program, plan_ids: [...ids] };
        await expectUpdated(t, { referral_program_id: program.id, plan_ids: [...ids] }, program, `plan_ids ${JSON.stringify(ids)}`, { accepted: rule });
      }
      for (const ids of [[plans[0], plans[0]], [plans[0], plans[1], plans[0]]]) {
        await expectRefused(t, { referral_program_id: program.id, plan_ids: ids }, program, `plan_ids ${JSON.stringify(ids)}`, 'REF-PLAN-IDS-UNIQUE');
      }
    },
  ),
  scenario(
    {
      id: 'referrals.many-plan-ids',
      title: `plan_ids of ${MANY_PLAN_IDS} plans are all answered and read back; the same list with its first id repeated at its end is refused without changing the program`,
      rules: ['REF-UPDATE-SETS-FIELDS', 'REF-PLAN-IDS-UNIQUE', 'REF-GET'],
    },
    async (t) => {
      const plans = (await inBatches(Array.from({ length: MANY_PLAN_IDS }), SETUP_WIDTH, () => createPlan(t))).map((plan) => plan.id);
      const before = await fullProgram(t, await createReward(t), plans);
      // interface.md bounds plan_ids below only: a target refusing a list this long is not judged on it.
      const result = await t.client.call('referral_programs.update', { referral_program_id: before.id, plan_ids: plans });
      if (!result.ok && result.status < 500 && !isRouteNotServed(result.status, result.body)) {
        for (const rule of ['REF-UPDATE-SETS-FIELDS', 'REF-PLAN-IDS-UNIQUE', 'REF-GET'] as const) t.notVerified(rule, `plan_ids of ${MANY_PLAN_IDS} plans: the target refused the list (${result.status})`);
        return;
      }
      const answered = t.expectOk(result, 'REF-UPDATE-SETS-FIELDS');
      // Compared as sets: the document says nothing of their order.
      const sorted = (ids: readonly string[] | null | undefined) => [...(ids ?? [])].sort();
      t.check('REF-UPDATE-SETS-FIELDS', () => expect(sorted(answered.plan_ids), `referral_programs.update answers every one of the ${MANY_PLAN_IDS} plan ids`).toEqual(sorted(plans)));
      const program = { ...before, plan_ids: plans };
      const readBack = async (why: string) => {
        const read = t.setup(await t.client.call('referral_programs.get', { referral_program_id: program.id }));
        t.check('REF-GET', () => expect(sorted(read.plan_ids), `${why}: referral_programs.get reads every one of the ${MANY_PLAN_IDS} plan ids`).toEqual(sorted(plans)));
      };
      await readBack('after the update');
      // The same valid list, with its first id again at its end: the repeat is as far from its twin as the list allows.
      const repeated = [...plans, plans[0]!];
      const refused = await t.client.call('referral_programs.update', { referral_program_id: program.id, plan_ids: repeated });
      t.check('REF-PLAN-IDS-UNIQUE', () => expect(refused.ok, `plan_ids of ${repeated.length} entries whose first and last are the same plan must be refused`).toBe(false));
      t.expectError(refused, { rule: 'REF-PLAN-IDS-UNIQUE' });
      await readBack('after the refused update');
    },
  ),
  scenario(
    {
      id: 'referrals.update-ids-and-enums',
      title: 'referral_programs.update refuses a missing or empty referral_program_id, an empty reward_id, and redeem_on or received_by outside their enums; each enum value is accepted',
      rules: ['REF-UPDATE-REQUIRED-ID', 'REF-PROGRAM-ID-MIN-LENGTH', 'REF-REWARD-ID-MIN-LENGTH', 'REF-REDEEM-ON-ENUM', 'REF-RECEIVED-BY-ENUM', 'REF-GET'],
    },
    async (t) => {
      const plans = await planIds(t);
      let program = await fullProgram(t, await createReward(t), plans);
      // The nearest valid requests first: the same updates with the ID and values right are accepted.
      for (const redeem_on of ['checkout', 'customer_creation'] as const) {
        program = { ...program, redeem_on, plan_ids: [plans[0]] };
        await expectUpdated(t, { referral_program_id: program.id, redeem_on, plan_ids: [plans[0]] }, program, `redeem_on ${redeem_on}`, { accepted: 'REF-REDEEM-ON-ENUM' });
      }
      for (const received_by of ['all', 'referrer'] as const) {
        program = { ...program, received_by };
        await expectUpdated(t, { referral_program_id: program.id, received_by }, program, `received_by ${received_by}`, { accepted: 'REF-RECEIVED-BY-ENUM' });
      }
      await expectRefused(t, { received_by: 'all' }, program, 'no referral_program_id', 'REF-UPDATE-REQUIRED-ID');
      await expectRefused(t, { referral_program_id: '', received_by: 'all' }, program, 'an empty referral_program_id', 'REF-PROGRAM-ID-MIN-LENGTH');
      await expectRefused(t, { referral_program_id: program.id, reward_id: '' }, program, 'an empty reward_id', 'REF-REWARD-ID-MIN-LENGTH');
      for (const redeem_on of ['signup', 'Checkout', '']) {
        await expectRefused(t, { referral_program_id: program.id, redeem_on, plan_ids: [plans[0]] }, program, `redeem_on ${JSON.stringify(redeem_on)}`, 'REF-REDEEM-ON-ENUM');
      }
      for (const received_by of ['referee', 'both', 'ALL']) {
        await expectRefused(t, { referral_program_id: program.id, received_by }, program, `received_by ${JSON.stringify(received_by)}`, 'REF-RECEIVED-BY-ENUM');
      }
    },
  ),
  scenario(
    {
      id: 'referrals.checkout-needs-plans',
      title: 'a program cannot redeem on checkout without plan ids: checkout is refused without plans or with an empty list, accepted with a plan',
      rules: ['REF-UPDATE-CHECKOUT-NEEDS-PLANS', 'REF-GET'],
    },
    async (t) => {
      const [plan] = await planIds(t);
      const rewardId = await createReward(t);
      let program = await createProgram(t, { reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'all', max_redemptions: 3 });
      const rule = 'REF-UPDATE-CHECKOUT-NEEDS-PLANS';
      await expectRefused(t, { referral_program_id: program.id, redeem_on: 'checkout' }, program, 'redeem_on checkout on a program without plans', rule);
      // An empty list names no plan either (also REF-PLAN-IDS-MIN-ONE's refusal; null is REF-UPDATE-NULL-REMOVES's scenario).
      await expectRefused(t, { referral_program_id: program.id, redeem_on: 'checkout', plan_ids: [] }, program, 'redeem_on checkout with plan_ids []', rule);
      program = { ...program, redeem_on: 'checkout', plan_ids: [plan] };
      await expectUpdated(t, { referral_program_id: program.id, redeem_on: 'checkout', plan_ids: [plan] }, program, 'redeem_on checkout with a plan', { accepted: rule });
      program = { ...program, redeem_on: 'customer_creation' };
      await expectUpdated(t, { referral_program_id: program.id, redeem_on: 'customer_creation' }, program, 'back to customer_creation, keeping the plans', { accepted: rule });
      await expectRefused(t, { referral_program_id: program.id, redeem_on: 'checkout', plan_ids: [] }, program, 'redeem_on checkout again with plan_ids []', rule);
    },
  ),
  scenario(
    {
      id: 'referrals.unknown-program',
      title: 'referral_programs.update of an unknown program is 404 reward_program_not_found and creates nothing',
      rules: ['REF-UNKNOWN-PROGRAM'],
    },
    async (t) => {
      // The nearest valid request: the same update of a program that exists is accepted.
      const program = await fullProgram(t, await createReward(t), await planIds(t));
      t.setup(await t.client.call('referral_programs.update', { referral_program_id: program.id, max_redemptions: 3 }));
      const unknown = t.ns.id('refprognever');
      t.expectError(await t.client.call('referral_programs.update', { referral_program_id: unknown, max_redemptions: 3 }), { status: 404, code: 'reward_program_not_found' });
      const after = await t.client.call('referral_programs.get', { referral_program_id: unknown });
      t.check('REF-UNKNOWN-PROGRAM', () => expect(after.ok, 'the refused update must not have created the program').toBe(false));
    },
  ),
];
