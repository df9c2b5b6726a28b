/** Broken variants of the referrals rules. */
import type { OperationName } from '../../spec/operations.ts';
import { fail } from '../domain/context.ts';
import { mergeProgramUpdate, requireProgram, requireReward } from '../domain/referrals.ts';
import { deleteThatKeeps, type Fault } from './fault.ts';

type Body = Record<string, unknown>;

/** Rewrites a referral_programs.update body before validation. */
function updateBody(rewrite: (body: Body) => Body): NonNullable<Fault['input']> {
  return (operation: OperationName, body: unknown) =>
    operation === 'referral_programs.update' && typeof body === 'object' && body !== null ? rewrite(body as Body) : body;
}

/** Ids the faults put in place of a missing or empty referral_program_id, to get past validation. */
const MISSING_ID = '\u0000missing';
const EMPTY_ID = '\u0000empty';
/** Put in place of missing plan_ids when redeem_on is checkout, to get past validation. */
const NO_PLANS = '\u0000none';

const MAX_REDEMPTIONS = Number.MAX_SAFE_INTEGER;

export const referralsFaults: readonly Fault[] = [
  {
    rule: 'REF-SHAPE',
    breaks: 'referral_programs.update answers the program without created_at',
    output: (operation, body) => {
      if (operation !== 'referral_programs.update') return body;
      const { created_at: _createdAt, ...rest } = body as Body;
      return rest;
    },
  },
  {
    rule: 'REF-UPDATE-SETS-FIELDS',
    breaks: 'referral_programs.update ignores received_by',
    handlers: { 'referral_programs.update': (real) => (ctx, { received_by: _receivedBy, ...input }) => real(ctx, input) },
  },
  {
    rule: 'REF-PARTIAL-UPDATE',
    breaks: 'an update that omits max_redemptions removes the limit',
    handlers: { 'referral_programs.update': (real) => (ctx, input) => real(ctx, { max_redemptions: null, ...input }) },
  },
  {
    rule: 'REF-UPDATE-REQUIRED-ID',
    breaks: 'an update without referral_program_id updates the most recently created program',
    input: updateBody((body) => (body['referral_program_id'] === undefined ? { ...body, referral_program_id: MISSING_ID } : body)),
    handlers: {
      'referral_programs.update': (real) => (ctx, input) =>
        real(ctx, input.referral_program_id === MISSING_ID ? { ...input, referral_program_id: [...ctx.store.referralPrograms.keys()].at(-1) ?? MISSING_ID } : input),
    },
  },
  {
    rule: 'REF-PROGRAM-ID-MIN-LENGTH',
    breaks: 'an empty referral_program_id matches, as a prefix, the first program',
    input: updateBody((body) => (body['referral_program_id'] === '' ? { ...body, referral_program_id: EMPTY_ID } : body)),
    handlers: {
      'referral_programs.update': (real) => (ctx, input) =>
        real(ctx, input.referral_program_id === EMPTY_ID ? { ...input, referral_program_id: [...ctx.store.referralPrograms.keys()].find((id) => id.startsWith('')) ?? EMPTY_ID } : input),
    },
  },
  {
    rule: 'REF-REWARD-ID-MIN-LENGTH',
    breaks: 'an empty reward_id is taken as no reward_id',
    input: updateBody(({ reward_id, ...rest }) => (reward_id === '' ? rest : { reward_id, ...rest })),
  },
  {
    rule: 'REF-REDEEM-ON-ENUM',
    breaks: 'a redeem_on outside the enum is taken as customer_creation',
    input: updateBody((body) => ('redeem_on' in body && body['redeem_on'] !== 'checkout' ? { ...body, redeem_on: 'customer_creation' } : body)),
  },
  {
    rule: 'REF-RECEIVED-BY-ENUM',
    breaks: 'a received_by outside the enum is taken as all',
    input: updateBody((body) => ('received_by' in body && body['received_by'] !== 'referrer' ? { ...body, received_by: 'all' } : body)),
  },
  {
    rule: 'REF-MAX-REDEMPTIONS-BOUNDS',
    breaks: 'max_redemptions is rounded and clamped into 1..9007199254740991 instead of refused',
    input: updateBody((body) =>
      typeof body['max_redemptions'] === 'number' ? { ...body, max_redemptions: Math.min(MAX_REDEMPTIONS, Math.max(1, Math.round(body['max_redemptions']))) } : body,
    ),
  },
  {
    rule: 'REF-PLAN-IDS-MIN-ONE',
    breaks: 'an empty plan_ids is taken as null',
    input: updateBody((body) => (Array.isArray(body['plan_ids']) && body['plan_ids'].length === 0 ? { ...body, plan_ids: null } : body)),
  },
  {
    rule: 'REF-PLAN-IDS-UNIQUE',
    breaks: 'repeated plan ids are silently deduplicated',
    input: updateBody((body) => (Array.isArray(body['plan_ids']) ? { ...body, plan_ids: [...new Set(body['plan_ids'])] } : body)),
  },
  {
    rule: 'REF-UPDATE-CHECKOUT-NEEDS-PLANS',
    breaks: 'a program may redeem on checkout without plan ids',
    input: updateBody((body) => (body['redeem_on'] === 'checkout' && (body['plan_ids'] ?? null) === null ? { ...body, plan_ids: [NO_PLANS] } : body)),
    handlers: {
      'referral_programs.update': () => (ctx, input) => {
        const current = requireProgram(ctx.store, input.referral_program_id);
        if (input.reward_id !== undefined) requireReward(ctx.store, input.reward_id);
        const updated = mergeProgramUpdate(current, input.plan_ids?.[0] === NO_PLANS ? { ...input, plan_ids: current.plan_ids } : input);
        ctx.store.referralPrograms.set(updated.id, updated);
        return updated;
      },
    },
  },
  {
    rule: 'REF-UPDATE-NULL-REMOVES',
    breaks: 'max_redemptions null keeps the limit instead of removing it',
    handlers: {
      'referral_programs.update': (real) => (ctx, { max_redemptions, ...input }) => real(ctx, { ...input, ...(max_redemptions !== null && { max_redemptions }) }),
    },
  },
  {
    rule: 'REF-UNKNOWN-PROGRAM',
    breaks: 'an update of an unknown program is answered with 400 invalid_request',
    handlers: {
      'referral_programs.update': (real) => (ctx, input) =>
        ctx.store.referralPrograms.has(input.referral_program_id) ? real(ctx, input) : fail('invalid_request', `Cannot update ${input.referral_program_id}`),
    },
  },
  {
    rule: 'REF-REWARD-CREATE',
    breaks: 'rewards.create answers the reward but does not keep it',
    handlers: {
      'rewards.create': (real) => (ctx, input) => {
        const reward = real(ctx, input);
        ctx.store.rewards.delete(input.feature_grant.id);
        return reward;
      },
    },
  },
  {
    rule: 'REF-REWARD-SHAPE',
    breaks: 'rewards.create answers the reward without its feature_grant wrapper',
    output: (operation, body) => (operation === 'rewards.create' ? (body as { feature_grant: unknown }).feature_grant : body),
  },
  {
    rule: 'REF-CREATE',
    breaks: 'referral_programs.create ignores exclude_trial',
    handlers: { 'referral_programs.create': (real) => (ctx, { exclude_trial: _excludeTrial, ...input }) => real(ctx, input) },
  },
  {
    rule: 'REF-CREATE-DUPLICATE-ID',
    breaks: 'referral_programs.create with the id of an existing program replaces that program',
    handlers: {
      'referral_programs.create': (real) => (ctx, input) => {
        ctx.store.referralPrograms.delete(input.id);
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'REF-GET',
    breaks: 'referral_programs.get answers an unknown program with 400 invalid_request',
    handlers: {
      'referral_programs.get': (real) => (ctx, input) =>
        ctx.store.referralPrograms.has(input.referral_program_id) ? real(ctx, input) : fail('invalid_request', `Cannot read ${input.referral_program_id}`),
    },
  },
  {
    rule: 'REF-PROGRAM-DELETE',
    breaks: 'referral_programs.delete answers success but keeps the program',
    handlers: deleteThatKeeps('referral_programs.delete', (ctx, input) => requireProgram(ctx.store, input.referral_program_id)),
  },
  {
    rule: 'REF-REWARD-DELETE-LINKED',
    breaks: 'rewards.delete of a reward a referral program links answers success and keeps it',
    handlers: {
      'rewards.delete': (real) => (ctx, input) => {
        const linked = [...ctx.store.referralPrograms.values()].some((program) => program.reward_id === input.reward_id);
        return linked ? { success: true } : real(ctx, input);
      },
    },
  },
  {
    rule: 'REF-DELETE-SHAPE',
    breaks: 'referral_programs.delete and rewards.delete answer {deleted: true} instead of {success: true}',
    output: (operation, body) => (operation === 'referral_programs.delete' || operation === 'rewards.delete' ? { deleted: true } : body),
  },
];
