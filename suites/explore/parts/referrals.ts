/**
 * Generators of referrals: `rewards.create`, `referral_programs.create` and `.get` (setup), and
 * `referral_programs.update` (documented), with partial updates (fields left out, set, or set to
 * null to remove them) and the refusals of its bounds, enumerations and conditions.
 */
import fc from 'fast-check';
import { defineCommand, index, maybeIndex, pick, variantArb, type CommandSpec } from '../command.ts';

/** A field of an update: left out, set, or (where allowed) null. */
const field = <T>(values: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant<'omit'>('omit'), weight: 3 }, { arbitrary: values, weight: 2 });

export const referralCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'rewards.create',
    part: 'referrals',
    weight: 2,
    args: fc.record({ feature: index, included: fc.constantFrom(null, 1, 10, 2.5), expiry: fc.constantFrom(null, { type: 'month', length: 1 }, { type: 'day', length: 30 }) }),
    applies: (world) => world.features.length > 0,
    async run(context, args) {
      const feature = pick(context.world.features, args.feature)!;
      const id = context.ns.id('reward');
      // A boolean feature is granted with included null: the reference refuses any other amount (leeway.ts REWARD-BOOLEAN-GRANT-INCLUDED).
      const included = feature.type === 'boolean' ? null : args.included;
      const body = { feature_grant: { id, name: `Reward ${id.slice(-4)}`, grants: [{ feature_id: feature.id, included, expiry: args.expiry }], promo_codes: [{ code: context.ns.code('PROMO'), max_uses: null }] } };
      const { model } = await context.send({ operation: 'rewards.create', body });
      if (model.status === 200) context.world.rewards.push(id);
    },
  }),
  defineCommand({
    name: 'referral_programs.create',
    part: 'referrals',
    weight: 2,
    args: fc.record({ reward: index, checkout: fc.boolean(), plans: fc.array(index, { minLength: 1, maxLength: 2 }), receivedBy: fc.constantFrom('referrer', 'all'), max: fc.constantFrom(undefined, null, 1, 5, Number.MAX_SAFE_INTEGER), excludeTrial: fc.constantFrom(undefined, true, false), again: maybeIndex(5, 1) }),
    applies: (world) => world.rewards.length > 0,
    async run(context, args) {
      const { world } = context;
      const planIds = [...new Set(args.plans.map((i) => pick(world.plans, i)?.id).filter((id) => id !== undefined))];
      const checkout = args.checkout && planIds.length > 0;
      // Now and then the ID of a program that exists: refused, and the program left as it was.
      const existing = args.again >= 0 ? pick(world.programs, args.again) : undefined;
      const id = existing?.id ?? context.ns.id('refprog');
      const body = {
        id,
        reward_id: pick(world.rewards, args.reward)!,
        redeem_on: checkout ? 'checkout' : 'customer_creation',
        received_by: args.receivedBy,
        ...(checkout ? { plan_ids: planIds } : {}),
        ...(args.max !== undefined ? { max_redemptions: args.max } : {}),
        ...(args.excludeTrial !== undefined ? { exclude_trial: args.excludeTrial } : {}),
      };
      const { model } = await context.send({ operation: 'referral_programs.create', body, ...(existing ? { intent: 'REF-CREATE-DUPLICATE-ID' as const, observe: { operation: 'referral_programs.get', body: { referral_program_id: id } } } : {}) });
      if (model.status === 200 && !existing) world.programs.push({ id, redeemOn: body.redeem_on });
    },
  }),
  defineCommand({
    name: 'referral_programs.update',
    part: 'referrals',
    weight: 3,
    args: fc.record({
      program: index,
      reward: field(index),
      redeemOn: field(fc.constantFrom('customer_creation', 'checkout')),
      receivedBy: field(fc.constantFrom('referrer', 'all')),
      max: field(fc.constantFrom(null, 1, 3, Number.MAX_SAFE_INTEGER)),
      plans: field(fc.oneof(fc.constant(null), fc.array(index, { minLength: 1, maxLength: 2 }))),
      excludeTrial: field(fc.constantFrom(null, true, false)),
      variant: variantArb,
    }),
    applies: (world) => world.programs.length > 0,
    async run(context, args) {
      const { world } = context;
      const program = pick(world.programs, args.program)!;
      const planIds = args.plans === 'omit' || args.plans === null ? args.plans : [...new Set(args.plans.map((i) => pick(world.plans, i)?.id).filter((id) => id !== undefined))];
      const redeemOn = args.redeemOn === 'omit' ? undefined : args.redeemOn;
      // "plan_ids … required when redeem_on is checkout": a switch to checkout always brings its plans.
      const plans = redeemOn === 'checkout' ? (Array.isArray(planIds) && planIds.length > 0 ? planIds : world.plans.slice(0, 1).map((p) => p.id)) : planIds;
      if (redeemOn === 'checkout' && (plans as string[]).length === 0) return;
      const body = {
        referral_program_id: program.id,
        ...(args.reward !== 'omit' && world.rewards.length > 0 ? { reward_id: pick(world.rewards, args.reward)! } : {}),
        ...(redeemOn !== undefined ? { redeem_on: redeemOn } : {}),
        ...(args.receivedBy !== 'omit' ? { received_by: args.receivedBy } : {}),
        ...(args.max !== 'omit' ? { max_redemptions: args.max } : {}),
        ...(plans !== 'omit' && !(Array.isArray(plans) && plans.length === 0) ? { plan_ids: plans } : {}),
        ...(args.excludeTrial !== 'omit' ? { exclude_trial: args.excludeTrial } : {}),
      };
      // The stored program must stay valid: a checkout program whose plans are removed is refused.
      const intent = program.redeemOn === 'checkout' && redeemOn === undefined && body.plan_ids === null ? 'REF-UPDATE-CHECKOUT-NEEDS-PLANS' : undefined;
      const { model } = await context.send({ operation: 'referral_programs.update', body, variant: args.variant, ...(intent ? { intent } : {}) });
      if (model.status === 200) world.programs = world.programs.map((p) => (p.id === program.id ? { id: p.id, redeemOn: (model.body as { redeem_on: string }).redeem_on } : p));
    },
  }),
  defineCommand({
    name: 'referral_programs.update-refused',
    part: 'referrals',
    weight: 2,
    refusal: true,
    args: fc.record({ program: index, how: fc.constantFrom('max-zero', 'max-high', 'plans-empty', 'plans-twice', 'redeem-on', 'received-by', 'checkout-without-plans', 'reward-empty', 'program-empty', 'program-missing', 'unknown-program', 'unknown-key') }),
    async run(context, { program, how }) {
      // Refusals of the request's own bounds come before the program is looked up: any program ID does.
      const id = pick(context.world.programs, program)?.id ?? context.ns.id('refprog');
      const planId = pick(context.world.plans, 0)?.id ?? 'p';
      const bodies = {
        'max-zero': { referral_program_id: id, max_redemptions: 0 },
        'max-high': { referral_program_id: id, max_redemptions: Number.MAX_SAFE_INTEGER + 1 },
        'plans-empty': { referral_program_id: id, plan_ids: [] },
        'plans-twice': { referral_program_id: id, plan_ids: [planId, planId] },
        'redeem-on': { referral_program_id: id, redeem_on: 'signup' },
        'received-by': { referral_program_id: id, received_by: 'everyone' },
        'checkout-without-plans': { referral_program_id: id, redeem_on: 'checkout' },
        'reward-empty': { referral_program_id: id, reward_id: '' },
        'program-empty': { referral_program_id: '' },
        'program-missing': { received_by: 'all' },
        'unknown-program': { referral_program_id: context.ns.id('noprog'), received_by: 'all' },
        'unknown-key': { referral_program_id: id, reward: 'x' },
      };
      const intents = {
        'max-zero': 'REF-MAX-REDEMPTIONS-BOUNDS',
        'max-high': 'REF-MAX-REDEMPTIONS-BOUNDS',
        'plans-empty': 'REF-PLAN-IDS-MIN-ONE',
        'plans-twice': 'REF-PLAN-IDS-UNIQUE',
        'redeem-on': 'REF-REDEEM-ON-ENUM',
        'received-by': 'REF-RECEIVED-BY-ENUM',
        'checkout-without-plans': 'REF-UPDATE-CHECKOUT-NEEDS-PLANS',
        'reward-empty': 'REF-REWARD-ID-MIN-LENGTH',
        'program-empty': 'REF-PROGRAM-ID-MIN-LENGTH',
        'program-missing': 'REF-UPDATE-REQUIRED-ID',
        'unknown-program': 'REF-UNKNOWN-PROGRAM',
        'unknown-key': 'ERR-OUT-OF-BOUNDS-REFERENCE',
      } as const;
      context.reached('refusal');
      await context.send({ operation: 'referral_programs.update', body: bodies[how], intent: intents[how] });
    },
  }),
  defineCommand({
    name: 'referral_programs.get',
    part: 'referrals',
    weight: 1,
    reads: true,
    args: fc.record({ program: index, unknown: fc.boolean(), variant: variantArb }),
    applies: (world) => world.programs.length > 0,
    async run(context, { program, unknown, variant }) {
      const id = unknown ? context.ns.id('noprog') : pick(context.world.programs, program)!.id;
      await context.send({ operation: 'referral_programs.get', body: { referral_program_id: id }, variant });
    },
  }),
  defineCommand({
    // The reference's deletes (setup operations): a reward a program links is refused until the program is gone.
    name: 'referral_programs.delete',
    part: 'referrals',
    weight: 1,
    args: fc.record({ program: index }),
    applies: (world) => world.programs.length > 0,
    async run(context, { program }) {
      const id = pick(context.world.programs, program)!.id;
      const { model } = await context.send({ operation: 'referral_programs.delete', body: { referral_program_id: id } });
      if (model.status === 200) context.world.programs = context.world.programs.filter((p) => p.id !== id);
    },
  }),
  defineCommand({
    name: 'rewards.delete',
    part: 'referrals',
    weight: 1,
    args: fc.record({ reward: index }),
    applies: (world) => world.rewards.length > 0,
    async run(context, { reward }) {
      const id = pick(context.world.rewards, reward)!;
      const { model } = await context.send({ operation: 'rewards.delete', body: { reward_id: id } });
      if (model.status === 200) context.world.rewards = context.world.rewards.filter((r) => r !== id);
    },
  }),
];
