/** Rules of referral programs: the resource, `referral_programs.update`, and the referral setup endpoints. */
import type { RuleDef } from './rule.ts';

const PROGRAM = 'Resources and their fields > Referral program';
const UPDATE = 'Endpoints > POST /v1/referral_programs.update';
const ENDPOINTS = 'Endpoints';
const OP = ['referral_programs.update'] as const;
/** Why redemption effects are excluded: they show only when a code is redeemed. */
const NO_REDEMPTION =
  'Observable only by redeeming a referral code (and, for checkout, by completing a paid checkout); the interface describes no redemption or checkout operation.';

export const referralsRules = [
  // --- The resource and what a program does ---
  {
    id: 'REF-SHAPE',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'Response 200: Referral program.',
    operations: [...OP, 'referral_programs.create', 'referral_programs.get'],
  },
  {
    id: 'REF-REWARD-ON-REDEMPTION',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: 'What the service does',
    quote: 'Referral programs grant a reward when a referral code is redeemed.',
    operations: [],
    excluded: NO_REDEMPTION,
  },
  {
    id: 'REF-REDEMPTION-EFFECTS',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: PROGRAM,
    quote:
      '`referrer` (referrer only) or `all` (both parties) … Redemption limit per code … Plans whose checkout triggers the reward; used only when `redeem_on` is `checkout` … Checkouts that start a trial skip the reward',
    operations: [],
    excluded: NO_REDEMPTION,
  },

  // --- referral_programs.update ---
  {
    id: 'REF-UPDATE-SETS-FIELDS',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'Updates a referral program',
    operations: [...OP, 'referral_programs.get'],
  },
  {
    id: 'REF-PARTIAL-UPDATE',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'omitted fields keep their current value',
    operations: [...OP, 'referral_programs.get'],
  },
  {
    id: 'REF-UPDATE-REQUIRED-ID',
    level: 'SHOULD',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'referral_program_id … string … required',
    operations: [...OP],
  },
  {
    id: 'REF-PROGRAM-ID-MIN-LENGTH',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'referral_program_id … required; minimum length 1',
    operations: [...OP],
  },
  {
    id: 'REF-REWARD-ID-MIN-LENGTH',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'reward_id … string … minimum length 1',
    operations: [...OP],
  },
  {
    id: 'REF-REDEEM-ON-ENUM',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'redeem_on … enum `customer_creation`, `checkout`',
    operations: [...OP],
  },
  {
    id: 'REF-RECEIVED-BY-ENUM',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'received_by … enum `referrer`, `all`',
    operations: [...OP],
  },
  {
    id: 'REF-MAX-REDEMPTIONS-BOUNDS',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: 'Limits',
    quote: 'referral_programs.update … `max_redemptions` greater than 0, at most 9007199254740991',
    operations: [...OP],
  },
  {
    id: 'REF-PLAN-IDS-MIN-ONE',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: 'Limits',
    quote: 'referral_programs.update … `plan_ids` at least 1 item',
    operations: [...OP],
  },
  {
    id: 'REF-PLAN-IDS-UNIQUE',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: 'Limits',
    quote: 'referral_programs.update … `plan_ids` at least 1 item, unique',
    operations: [...OP],
  },
  {
    id: 'REF-UPDATE-CHECKOUT-NEEDS-PLANS',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'plan_ids … required when `redeem_on` is `checkout`',
    operations: [...OP],
  },
  {
    // One rule for the three nullable fields: the same statement ("omit to leave unchanged; null removes …") on each row.
    id: 'REF-UPDATE-NULL-REMOVES',
    level: 'MUST',
    provenance: 'documented',
    part: 'referrals',
    section: UPDATE,
    quote: 'max_redemptions … null removes the limit … plan_ids … null removes them … exclude_trial … null removes it',
    operations: [...OP, 'referral_programs.get'],
  },
  {
    id: 'REF-UNKNOWN-PROGRAM',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'referrals',
    section: UPDATE,
    quote: '`referral_programs.update` of an unknown `referral_program_id` is answered with 404 `reward_program_not_found`.',
    source: 'exchanges/125-referral_programs.update-unknown-program.json',
    operations: [...OP],
  },

  // --- Setup endpoints rewards.create, referral_programs.create, referral_programs.get ---
  {
    id: 'REF-REWARD-CREATE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'referrals',
    section: ENDPOINTS,
    quote: '`rewards.create` with a `feature_grant` creates a reward whose id a referral program can name as `reward_id`.',
    source: 'exchanges/114-rewards.create-feature-grant.json',
    operations: ['rewards.create', 'referral_programs.create'],
  },
  {
    id: 'REF-REWARD-SHAPE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'referrals',
    section: ENDPOINTS,
    quote: '`rewards.create` answers the reward as sent, e.g. `{feature_grant: {id, name, grants, promo_codes, created_at}}`.',
    source: 'exchanges/114-rewards.create-feature-grant.json',
    operations: ['rewards.create'],
  },
  {
    id: 'REF-CREATE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'referrals',
    section: ENDPOINTS,
    quote:
      '`referral_programs.create` with `{id, reward_id, redeem_on, received_by}` and optional `max_redemptions`, `plan_ids`, `exclude_trial` creates the program and returns it.',
    source: 'exchanges/115-referral_programs.create-checkout.json',
    operations: ['referral_programs.create'],
  },
  {
    id: 'REF-GET',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'referrals',
    section: ENDPOINTS,
    quote: '`referral_programs.get` with `referral_program_id` returns the program as last updated; an unknown id is answered with 404 `reward_program_not_found`.',
    source: 'exchanges/126-referral_programs.get-checkout-program.json',
    operations: ['referral_programs.get'],
  },
] as const satisfies readonly RuleDef[];
