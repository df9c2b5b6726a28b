/**
 * Every documented bound, default, enum and required-together rule of the request schemas, tested
 * at and beyond each edge (fixed cases), and over whole ranges with fast-check (seeded by
 * TEST_SEED; a failure prints the seed and the counterexample).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { testSeed } from '../fixtures/random.ts';
import { BalancesCheckRequest } from './balances.ts';
import { EntitiesListRequest } from './entities.ts';
import { FeaturesCreateRequest } from './features.ts';
import { RecordListRequest } from './listings.ts';
import { PlansCreateRequest } from './plans.ts';
import { PreviewMultiUpdateRequest } from './preview.ts';
import { ReferralProgramsUpdateRequest } from './referrals.ts';

const runs = { seed: testSeed(), numRuns: 200 };

function accepts(schema: z.ZodType, body: unknown): boolean {
  return schema.safeParse(body).success;
}

/** The distinct paths of the issues a body raises. */
function issuePaths(schema: z.ZodType, body: unknown): string[] {
  const result = schema.safeParse(body);
  return result.success ? [] : [...new Set(result.error.issues.map((issue) => issue.path.join('.')))];
}

describe('subscriptions.list and purchases.list bodies [LIST-LIMIT-BOUNDS, LIST-LIMIT-DEFAULT, LIST-STATUSES-MIN-ONE, LIST-STATUSES-ENUM, LIST-START-CURSOR-DEFAULT, LIST-ENTITY-REQUIRES-CUSTOMER]', () => {
  it('defaults limit to 50, start_cursor to "" and statuses to active and scheduled', () => {
    expect(RecordListRequest.parse({})).toEqual({ limit: 50, start_cursor: '', statuses: ['active', 'scheduled'] });
  });

  it('takes limit 1 and 200 and refuses 0, 201 and fractions', () => {
    for (const limit of [1, 200]) expect(accepts(RecordListRequest, { limit })).toBe(true);
    for (const limit of [0, 201, 1.5, -1]) expect(issuePaths(RecordListRequest, { limit })).toEqual(['limit']);
  });

  it('accepts exactly the integers from 1 to 200 (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -1_000, max: 1_000 }), fc.double({ noNaN: true })), (limit) => {
        expect(accepts(RecordListRequest, { limit })).toBe(Number.isInteger(limit) && limit >= 1 && limit <= 200);
      }),
      runs,
    );
  });

  it('needs at least one status, each from the enum, past_due included', () => {
    expect(issuePaths(RecordListRequest, { statuses: [] })).toEqual(['statuses']);
    expect(accepts(RecordListRequest, { statuses: ['past_due'] })).toBe(true);
    expect(accepts(RecordListRequest, { statuses: ['active', 'scheduled', 'past_due', 'expired'] })).toBe(true);
    expect(issuePaths(RecordListRequest, { statuses: ['canceled'] })).toEqual(['statuses.0']);
  });

  it('refuses entity_id without customer_id, and takes them together', () => {
    expect(issuePaths(RecordListRequest, { entity_id: 'ent' })).toEqual(['entity_id']);
    expect(accepts(RecordListRequest, { customer_id: 'cus', entity_id: 'ent' })).toBe(true);
  });
});

describe('entities.list bodies [ENT-LIMIT-BOUNDS, ENT-LIMIT-DEFAULT, ENT-CUSTOMER-ID-MIN-LENGTH, ENT-STATUSES-DEFAULT, ENT-STATUSES-ENUM]', () => {
  it('defaults limit to 50 and statuses to active and scheduled', () => {
    expect(EntitiesListRequest.parse({})).toMatchObject({ limit: 50, start_cursor: '', statuses: ['active', 'scheduled'] });
  });

  it('accepts exactly the integers from 1 to 5000 (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -10, max: 6_000 }), fc.constantFrom(0, 1, 5_000, 5_001, 2.5)), (limit) => {
        expect(accepts(EntitiesListRequest, { limit })).toBe(Number.isInteger(limit) && limit >= 1 && limit <= 5_000);
      }),
      runs,
    );
  });

  it('refuses an empty customer_id and statuses outside active and scheduled', () => {
    expect(issuePaths(EntitiesListRequest, { customer_id: '' })).toEqual(['customer_id']);
    expect(accepts(EntitiesListRequest, { customer_id: 'c' })).toBe(true);
    expect(issuePaths(EntitiesListRequest, { statuses: ['expired'] })).toEqual(['statuses.0']);
  });
});

describe('plans.create bodies [PLAN-ID-PATTERN, PLAN-NAME-MIN-LENGTH, PLAN-CREATE-REQUIRED-FIELDS]', () => {
  const PATTERN = /^[a-zA-Z0-9_-]+$/;

  it('takes ids of letters, digits, "_" and "-" of any length from 1, and refuses anything else (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (planId) => {
        expect(accepts(PlansCreateRequest, { plan_id: planId, name: 'P' })).toBe(PATTERN.test(planId));
      }),
      runs,
    );
    expect(accepts(PlansCreateRequest, { plan_id: 'a', name: 'P' })).toBe(true);
    expect(issuePaths(PlansCreateRequest, { plan_id: '', name: 'P' })).toContain('plan_id');
    expect(issuePaths(PlansCreateRequest, { plan_id: 'bad id!', name: 'P' })).toEqual(['plan_id']);
  });

  it('needs a name of at least one character, and both required fields', () => {
    expect(accepts(PlansCreateRequest, { plan_id: 'p', name: 'x' })).toBe(true);
    expect(issuePaths(PlansCreateRequest, { plan_id: 'p', name: '' })).toEqual(['name']);
    expect(issuePaths(PlansCreateRequest, {}).sort()).toEqual(['name', 'plan_id']);
  });

  it('defaults add_on and auto_enable to false and items to none', () => {
    expect(PlansCreateRequest.parse({ plan_id: 'p', name: 'P' })).toMatchObject({ add_on: false, auto_enable: false, items: [] });
  });
});

describe('referral_programs.update bodies [REF-MAX-REDEMPTIONS-BOUNDS, REF-PLAN-IDS-MIN-ONE, REF-PLAN-IDS-UNIQUE, REF-UPDATE-CHECKOUT-NEEDS-PLANS, REF-UPDATE-NULL-REMOVES, REF-PROGRAM-ID-MIN-LENGTH, REF-REWARD-ID-MIN-LENGTH, REF-REDEEM-ON-ENUM, REF-RECEIVED-BY-ENUM]', () => {
  const base = { referral_program_id: 'prog' };

  it('takes max_redemptions from 1 to 9007199254740991, or null, and refuses the rest', () => {
    for (const max of [1, Number.MAX_SAFE_INTEGER, null]) expect(accepts(ReferralProgramsUpdateRequest, { ...base, max_redemptions: max })).toBe(true);
    for (const max of [0, -1, Number.MAX_SAFE_INTEGER + 1, 1.5]) expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, max_redemptions: max })).toEqual(['max_redemptions']);
  });

  it('accepts exactly the positive safe integers as max_redemptions (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constant(2 ** 53), fc.double({ noNaN: true, noDefaultInfinity: true })), (max) => {
        expect(accepts(ReferralProgramsUpdateRequest, { ...base, max_redemptions: max })).toBe(Number.isSafeInteger(max) && max >= 1);
      }),
      runs,
    );
  });

  it('takes plan_ids with at least one unique id, or null', () => {
    expect(accepts(ReferralProgramsUpdateRequest, { ...base, plan_ids: ['a'] })).toBe(true);
    expect(accepts(ReferralProgramsUpdateRequest, { ...base, plan_ids: null })).toBe(true);
    expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, plan_ids: [] })).toEqual(['plan_ids']);
    expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, plan_ids: ['a', 'a'] })).toEqual(['plan_ids']);
  });

  it('needs plan_ids when redeem_on is checkout', () => {
    expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, redeem_on: 'checkout' })).toEqual(['plan_ids']);
    expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, redeem_on: 'checkout', plan_ids: null })).toEqual(['plan_ids']);
    expect(accepts(ReferralProgramsUpdateRequest, { ...base, redeem_on: 'checkout', plan_ids: ['pro'] })).toBe(true);
    expect(accepts(ReferralProgramsUpdateRequest, { ...base, redeem_on: 'customer_creation' })).toBe(true);
  });

  it('takes null for exclude_trial, needs non-empty ids, and keeps to the enums', () => {
    expect(accepts(ReferralProgramsUpdateRequest, { ...base, exclude_trial: null })).toBe(true);
    expect(issuePaths(ReferralProgramsUpdateRequest, { referral_program_id: '' })).toEqual(['referral_program_id']);
    expect(issuePaths(ReferralProgramsUpdateRequest, {})).toEqual(['referral_program_id']);
    expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, reward_id: '' })).toEqual(['reward_id']);
    expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, redeem_on: 'signup' })).toEqual(['redeem_on']);
    expect(issuePaths(ReferralProgramsUpdateRequest, { ...base, received_by: 'both' })).toEqual(['received_by']);
  });
});

describe('other documented bounds [PREV-UPDATES-MIN-ONE, PREV-REFUND-MODE-ENUM, FEAT-AI-DEFAULT-MARKUP-MIN, FEAT-TYPE-ENUM, CHECK-REQUIRED-BALANCE-DEFAULT]', () => {
  it('billing.preview_multi_update needs at least one update and a known refund mode', () => {
    const update = { plan_id: 'pro', cancel_action: 'cancel_immediately' };
    expect(issuePaths(PreviewMultiUpdateRequest, { customer_id: 'c', updates: [] })).toEqual(['updates']);
    expect(accepts(PreviewMultiUpdateRequest, { customer_id: 'c', updates: [update] })).toBe(true);
    for (const mode of ['prorated', 'full']) expect(accepts(PreviewMultiUpdateRequest, { customer_id: 'c', updates: [update], refund_last_payment: mode })).toBe(true);
    expect(issuePaths(PreviewMultiUpdateRequest, { customer_id: 'c', updates: [update], refund_last_payment: 'partial' })).toEqual(['refund_last_payment']);
  });

  it('features.create takes a default markup of -100 and above only (property), and the four types only', () => {
    const ai = (markup: number) => ({ feature_id: 'ai', name: 'AI', type: 'ai_credit_system', default_markup: markup });
    expect(accepts(FeaturesCreateRequest, ai(-100))).toBe(true);
    expect(issuePaths(FeaturesCreateRequest, ai(-100.01))).toEqual(['default_markup']);
    fc.assert(
      fc.property(fc.double({ min: -1_000, max: 1_000, noNaN: true }), (markup) => {
        expect(accepts(FeaturesCreateRequest, ai(markup))).toBe(markup >= -100);
      }),
      runs,
    );
    for (const type of ['boolean', 'metered']) expect(accepts(FeaturesCreateRequest, { feature_id: 'f', name: 'F', type })).toBe(true);
    expect(issuePaths(FeaturesCreateRequest, { feature_id: 'f', name: 'F', type: 'gauge' })).toEqual(['type']);
  });

  it('balances.check defaults required_balance to 1', () => {
    expect(BalancesCheckRequest.parse({ customer_id: 'c', feature_id: 'f' }).required_balance).toBe(1);
    expect(BalancesCheckRequest.parse({ customer_id: 'c', feature_id: 'f', required_balance: 0 }).required_balance).toBe(0);
  });
});
