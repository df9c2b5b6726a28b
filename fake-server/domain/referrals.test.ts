/** The referrals domain module, called through the handler table with inputs parsed by the spec. */
import fc from 'fast-check';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { testSeed } from '../../fixtures/random.ts';
import { type Operations, operations } from '../../spec/operations.ts';
import type { ReferralProgram } from '../../spec/referrals.ts';
import type { DomainContext } from './context.ts';
import { callHandler, domainErrorCode, testContext } from './testing.ts';

const NOW = Date.UTC(2026, 3, 1);
type UpdateBody = z.input<Operations['referral_programs.update']['request']>;



/** A tenant with two rewards (`r1`, `r2`) and a sign-up program `p` on `r1`. */
function setup(): { ctx: DomainContext; program: ReferralProgram } {
  const ctx = testContext(NOW);
  callHandler(ctx, 'features.create', { feature_id: 'msg', name: 'Msg', type: 'metered', consumable: true });
  for (const id of ['r1', 'r2']) {
    callHandler(ctx, 'rewards.create', { feature_grant: { id, name: id, grants: [{ feature_id: 'msg', included: 50, expiry: null }], promo_codes: [{ code: id.toUpperCase(), max_uses: null }] } });
  }
  const program = callHandler(ctx, 'referral_programs.create', { id: 'p', reward_id: 'r1', redeem_on: 'customer_creation', received_by: 'referrer' });
  return { ctx, program };
}

describe('rewards.create and referral_programs.create', () => {
  it('[REF-REWARD-CREATE] [REF-REWARD-SHAPE] [REF-CREATE] a reward answers as sent; a program names it and answers with defaults filled', () => {
    const { ctx, program } = setup();
    expect(callHandler(ctx, 'referral_programs.get', { referral_program_id: 'p' })).toEqual(program);
    expect(program).toEqual({ id: 'p', reward_id: 'r1', redeem_on: 'customer_creation', received_by: 'referrer', max_redemptions: null, plan_ids: null, exclude_trial: false, created_at: NOW });
    const missingReward = { id: 'q', reward_id: 'nope', redeem_on: 'customer_creation' as const, received_by: 'all' as const };
    expect(domainErrorCode(() => callHandler(ctx, 'referral_programs.create', missingReward))).toBe('reward_not_found');
    expect(domainErrorCode(() => callHandler(ctx, 'referral_programs.create', { ...missingReward, id: 'p', reward_id: 'r2' }))).toBe('invalid_request');
  });
});

describe('referral_programs.update', () => {
  it('[REF-PARTIAL-UPDATE] [REF-UPDATE-SETS-FIELDS] [REF-UPDATE-NULL-REMOVES] a sequence of updates ends where a merge model says', () => {
    const field = {
      reward_id: fc.constantFrom('r1', 'r2'),
      redeem_on: fc.constantFrom('customer_creation' as const, 'checkout' as const),
      received_by: fc.constantFrom('referrer' as const, 'all' as const),
      max_redemptions: fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
      plan_ids: fc.option(fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1 })),
      exclude_trial: fc.option(fc.boolean()),
    };
    const update = fc.record(field, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.array(update, { maxLength: 8 }), (updates) => {
        const { ctx, program } = setup();
        let model: ReferralProgram = program;
        for (const change of updates) {
          const body: UpdateBody = { referral_program_id: 'p', ...change };
          const merged: ReferralProgram = { ...model, ...change, exclude_trial: change.exclude_trial === undefined ? model.exclude_trial : (change.exclude_trial ?? false) };
          const valid = operations['referral_programs.update'].request.safeParse(body).success && (merged.redeem_on !== 'checkout' || merged.plan_ids !== null);
          if (valid) {
            expect(callHandler(ctx, 'referral_programs.update', body)).toEqual(merged);
            model = merged;
          } else if (operations['referral_programs.update'].request.safeParse(body).success) {
            expect(domainErrorCode(() => callHandler(ctx, 'referral_programs.update', body))).toBe('invalid_request');
          }
          expect(callHandler(ctx, 'referral_programs.get', { referral_program_id: 'p' })).toEqual(model);
        }
      }),
      { seed: testSeed(), numRuns: 100 },
    );
  });

  it('[REF-UPDATE-CHECKOUT-NEEDS-PLANS] checkout needs plans on the program as it would be stored, whichever request removes them', () => {
    const { ctx } = setup();
    const request = operations['referral_programs.update'].request;
    expect(request.safeParse({ referral_program_id: 'p', redeem_on: 'checkout' }).success).toBe(false);
    expect(request.safeParse({ referral_program_id: 'p', redeem_on: 'checkout', plan_ids: null }).success).toBe(false);
    callHandler(ctx, 'referral_programs.update', { referral_program_id: 'p', redeem_on: 'checkout', plan_ids: ['pro'] });
    expect(domainErrorCode(() => callHandler(ctx, 'referral_programs.update', { referral_program_id: 'p', plan_ids: null }))).toBe('invalid_request');
    expect(callHandler(ctx, 'referral_programs.get', { referral_program_id: 'p' })).toMatchObject({ redeem_on: 'checkout', plan_ids: ['pro'] });
  });

  it('[REF-MAX-REDEMPTIONS-BOUNDS] [REF-PLAN-IDS-MIN-ONE] [REF-PLAN-IDS-UNIQUE] the request schema holds the bounds at and beyond each edge', () => {
    const accepts = (change: Partial<UpdateBody>) => operations['referral_programs.update'].request.safeParse({ referral_program_id: 'p', ...change }).success;
    expect([1, Number.MAX_SAFE_INTEGER].map((max_redemptions) => accepts({ max_redemptions }))).toEqual([true, true]);
    expect([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1].map((max_redemptions) => accepts({ max_redemptions }))).toEqual([false, false, false, false]);
    expect([['a'], ['a', 'b']].map((plan_ids) => accepts({ plan_ids }))).toEqual([true, true]);
    expect([[], ['a', 'a'], ['']].map((plan_ids) => accepts({ plan_ids }))).toEqual([false, false, false]);
  });

  it('[REF-UNKNOWN-PROGRAM] [REF-GET] an unknown program is reward_program_not_found, and an unknown reward reward_not_found', () => {
    const { ctx } = setup();
    expect(domainErrorCode(() => callHandler(ctx, 'referral_programs.update', { referral_program_id: 'nope', max_redemptions: 3 }))).toBe('reward_program_not_found');
    expect(domainErrorCode(() => callHandler(ctx, 'referral_programs.get', { referral_program_id: 'nope' }))).toBe('reward_program_not_found');
    expect(domainErrorCode(() => callHandler(ctx, 'referral_programs.update', { referral_program_id: 'p', reward_id: 'nope' }))).toBe('reward_not_found');
  });
});
