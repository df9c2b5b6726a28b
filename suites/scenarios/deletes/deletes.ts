/**
 * Conformance scenarios of the reference's delete operations (setup endpoints the interface does
 * not document, what a run's cleanup uses): customers.delete, plans.delete, features.delete,
 * referral_programs.delete and rewards.delete. Each proves what a cleanup relies on: the object is
 * gone afterwards, and what something still uses is refused until that user is deleted first (the
 * order a cleanup follows). Deletes that only build state here are setup, with a precondition that
 * they took effect, so a target that keeps what it says it deleted blocks these, never fails them.
 */
import { expect } from 'vitest';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { attach, createCustomer, createFeature, createPlan, scenario, type T } from '../../support.ts';

/** A reward granting a feature, with a promo code of letters and digits only (the reference refuses others). */
async function createReward(t: T, featureId: string): Promise<string> {
  const id = t.ns.id('reward');
  t.setup(await t.client.call('rewards.create', { feature_grant: { id, name: `Reward ${id}`, grants: [{ feature_id: featureId, included: 5, expiry: null }], promo_codes: [{ code: t.ns.code('PROMO'), max_uses: null }] } }), ['feature_grant']);
  return id;
}

async function createProgram(t: T, rewardId: string): Promise<string> {
  return t.setup(await t.client.call('referral_programs.create', { id: t.ns.id('refprog'), reward_id: rewardId, redeem_on: 'customer_creation', received_by: 'referrer' }), ['id']).id;
}

type Answer = Parameters<T['expectOk']>[0];

/** A kind's delete, and the read that shows whether a record of it is there (answering 404 with `code` when not). */
interface Deletion {
  readonly kind: string;
  readonly remove: (id: string) => Promise<Answer>;
  readonly read: (id: string) => Promise<Answer>;
  readonly code?: string;
}

function deletions(t: T) {
  return {
    customer: { kind: 'customer', remove: (id) => t.client.call('customers.delete', { customer_id: id }), read: (id) => t.client.call('customers.get', { customer_id: id }), code: 'customer_not_found' },
    plan: { kind: 'plan', remove: (id) => t.client.call('plans.delete', { plan_id: id }), read: (id) => t.client.call('plans.get', { plan_id: id }) },
    feature: { kind: 'feature', remove: (id) => t.client.call('features.delete', { feature_id: id }), read: (id) => t.client.call('features.get', { feature_id: id }) },
    program: {
      kind: 'referral program',
      remove: (id) => t.client.call('referral_programs.delete', { referral_program_id: id }),
      read: (id) => t.client.call('referral_programs.get', { referral_program_id: id }),
      code: 'reward_program_not_found',
    },
  } satisfies Record<string, Deletion>;
}

/**
 * The delete of `id` is accepted and the record is gone: a read of it then answers as a read of an
 * ID never created does (404, with the kind's code). That a never-created ID reads so is the read's
 * own rule, a precondition here: a target whose reads answer unknown IDs otherwise blocks this check,
 * never fails it.
 */
async function expectDeleted(t: T, rule: RuleId, deletion: Deletion, id: string): Promise<void> {
  const never = await deletion.read(t.ns.id('never'));
  t.precondition(`a read of a ${deletion.kind} never created answers 404${deletion.code === undefined ? '' : ` ${deletion.code}`}`, () => {
    expect(never.status).toBe(404);
    if (deletion.code !== undefined) expect((never.body as { code?: unknown } | null)?.code).toBe(deletion.code);
  });
  t.expectOk(await deletion.remove(id), rule);
  t.expectError(await deletion.read(id), { status: 404, ...(deletion.code === undefined ? {} : { code: deletion.code }), rule });
}

/** Precondition: a read of what a setup delete removed answers 404 (the delete's own rule proves it elsewhere). */
function requireGone(t: T, what: string, result: { readonly status: number }): void {
  t.precondition(`${what} is gone after its delete`, () => expect(result.status, `${what} is still read`).toBe(404));
}

export const deletesScenarios = [
  scenario(
    {
      id: 'deletes.customer',
      title: 'customers.delete removes the customer it names, also one holding a plan, and no other: customers.get then answers 404 customer_not_found',
      rules: ['CUS-DELETE', 'CUS-DELETE-SHAPE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const plan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const [holder, bare, bystander] = [await createCustomer(t), await createCustomer(t), await createCustomer(t)];
      await attach(t, holder.id, plan.id);
      await attach(t, bystander.id, plan.id);
      for (const customer of [holder, bare]) {
        t.setup(await t.client.call('customers.get', { customer_id: customer.id }));
        await expectDeleted(t, 'CUS-DELETE', deletions(t).customer, customer.id);
      }
      const kept = t.expectOk(await t.client.call('customers.get', { customer_id: bystander.id }), 'CUS-DELETE');
      t.check('CUS-DELETE', () => expect((kept.subscriptions ?? []).map((s) => s.plan_id), 'another customer on the same plan keeps it').toContain(plan.id));
    },
  ),

  scenario(
    {
      id: 'deletes.plan',
      title: 'plans.delete removes a plan no customer holds, and one whose only customer was deleted: plans.get then answers 404',
      rules: ['PLAN-DELETE', 'PLAN-DELETE-SHAPE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const unused = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const held = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, held.id);

      const deletePlan = (planId: string) => expectDeleted(t, 'PLAN-DELETE', deletions(t).plan, planId);
      await deletePlan(unused.id);
      t.setup(await t.client.call('plans.get', { plan_id: held.id }));

      // Its only customer goes first (CUS-DELETE proves that delete), as a cleanup does.
      t.setup(await t.client.call('customers.delete', { customer_id: customer.id }));
      requireGone(t, `customer ${customer.id}`, await t.client.call('customers.get', { customer_id: customer.id }));
      await deletePlan(held.id);
    },
  ),

  scenario(
    {
      id: 'deletes.feature-in-use',
      title: 'features.delete refuses a feature two plans use (one archived), which stays; a feature no plan uses, and the first once both plans are deleted, are deleted',
      rules: ['FEAT-DELETE-IN-USE', 'FEAT-DELETE-SHAPE'],
    },
    async (t) => {
      const used = await createFeature(t, 'consumable');
      const unused = await createFeature(t, 'consumable');
      const item = { feature_id: used.id, included: 10, reset: { interval: 'month' as const } };
      const plans = [await createPlan(t, { items: [item] }), await createPlan(t, { items: [item] })];
      t.setup(await t.client.call('plans.update', { plan_id: plans[1]!.id, archived: true }));

      const refuse = async (why: string) => {
        t.expectError(await t.client.call('features.delete', { feature_id: used.id }), { rule: 'FEAT-DELETE-IN-USE' });
        const still = await t.client.call('features.get', { feature_id: used.id });
        t.check('FEAT-DELETE-IN-USE', () => expect(still.status, `the refused feature stays (${why})`).toBe(200));
      };
      await refuse('two plans use it');
      // The nearest valid request: a feature no plan uses.
      const deleteFeature = (featureId: string) => expectDeleted(t, 'FEAT-DELETE-IN-USE', deletions(t).feature, featureId);
      await deleteFeature(unused.id);

      // Its plans go first (PLAN-DELETE proves that delete), as a cleanup does: one left is still a user, archived or not.
      for (const [i, plan] of plans.entries()) {
        t.setup(await t.client.call('plans.delete', { plan_id: plan.id }));
        requireGone(t, `plan ${plan.id}`, await t.client.call('plans.get', { plan_id: plan.id }));
        if (i === 0) await refuse('an archived plan still uses it');
      }
      await deleteFeature(used.id);
    },
  ),

  scenario(
    {
      id: 'deletes.referral-program',
      title: 'referral_programs.delete removes the program it names and no other: referral_programs.get then answers 404 reward_program_not_found',
      rules: ['REF-PROGRAM-DELETE', 'REF-DELETE-SHAPE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const rewardId = await createReward(t, feature.id);
      const [gone, kept] = [await createProgram(t, rewardId), await createProgram(t, rewardId)];
      await expectDeleted(t, 'REF-PROGRAM-DELETE', deletions(t).program, gone);
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
      const programId = await createProgram(t, rewardId);
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
];
