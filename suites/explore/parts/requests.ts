/**
 * Requests of unusual form (issue 25):
 * - wrong in two ways: where the reference's order of checks is recorded (the key, then the version,
 *   then the body, then what the handler looks up: observed-behaviour §1.6), compared as any refusal;
 *   where it is not (two lookups of a handler), either refusal answers it (compare.ts `eitherCode`);
 * - IDs differing only in case, which are different IDs: one is not found by the other, and both can
 *   be made;
 * - envelope variants the conventions allow (the media type in another case, more than one space
 *   after the scheme), on reads and writes;
 * - non-ASCII text in names, descriptions, metadata, event properties and searches.
 */
import fc from 'fast-check';
import type { OperationName } from '../../../spec/operations.ts';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { defineCommand, pick, type CommandSpec, type RunContext, type SendSpec, type VariantName } from '../command.ts';
import { attach, balanceRead, createEntity, createFeature, createPlan, newCustomer, readAll, seatFeature, someCustomer } from './build.ts';
import { learnPlan } from './plans.ts';

interface TwoWays {
  readonly operation: OperationName;
  readonly body: Record<string, unknown>;
  readonly intent: RuleId;
  readonly variant?: VariantName;
  /** The two requests wrong in one way each, when the order is not recorded: either one's refusal is an answer. */
  readonly singles?: readonly [Record<string, unknown>, Record<string, unknown>];
}

/** The codes the model refuses each request wrong in one way with. */
async function codesOf(context: RunContext, operation: OperationName, bodies: readonly Record<string, unknown>[]): Promise<string[]> {
  const codes: string[] = [];
  for (const body of bodies) {
    const answer = await context.modelRead(operation, body);
    const code = (answer.body as { code?: unknown } | undefined)?.code;
    if (answer.status !== 200 && typeof code === 'string') codes.push(code);
  }
  return codes;
}

async function twoWays(context: RunContext, at: number): Promise<TwoWays | undefined> {
  const { world, ns } = context;
  const customerId = pick(world.customers, at) ?? (await newCustomer(context));
  const feature = pick(world.features, at)?.id ?? (await createFeature(context, 'consumable'));
  const entity = pick(world.entities, at)?.id ?? ns.id('ent');
  const unknownCustomer = ns.id('nocus');
  const cases: (() => TwoWays | undefined)[] = [
    () => ({ operation: 'customers.get', body: { customer_id: customerId }, variant: 'no-key-bad-version', intent: 'AUTH-BEARER-REQUIRED' }),
    () => ({ operation: 'entities.list', body: { limit: 0 }, variant: 'bad-version', intent: 'VER-INVALID-VERSION' }),
    () => ({ operation: 'entities.list', body: { limit: 5001 }, variant: 'unknown-key', intent: 'AUTH-SECRET-KEY' }),
    () => ({ operation: 'entities.list', body: { limit: 0, statuses: ['expired'] }, intent: 'ENT-LIMIT-BOUNDS' }),
    () => ({ operation: 'subscriptions.list', body: { customer_id: unknownCustomer, limit: 201 }, intent: 'LIST-LIMIT-BOUNDS' }),
    () => ({ operation: 'subscriptions.list', body: { entity_id: entity, statuses: ['paused'] }, intent: 'LIST-ENTITY-REQUIRES-CUSTOMER', singles: [{ entity_id: entity }, { customer_id: customerId, statuses: ['paused'] }] }),
    () =>
      feature === undefined
        ? undefined
        : { operation: 'balances.check', body: { customer_id: unknownCustomer, feature_id: ns.id('nofeat') }, intent: 'ERR-CUSTOMER-NOT-FOUND', singles: [{ customer_id: unknownCustomer, feature_id: feature }, { customer_id: customerId, feature_id: ns.id('nofeat') }] },
    () => (world.plans[0] === undefined ? undefined : { operation: 'plans.create', body: { plan_id: world.plans[0].id, name: '' }, intent: 'PLAN-NAME-MIN-LENGTH' }),
    () => ({ operation: 'referral_programs.update', body: { referral_program_id: ns.id('noprog'), max_redemptions: 0 }, intent: 'REF-MAX-REDEMPTIONS-BOUNDS' }),
    () => ({ operation: 'billing.preview_multi_update', body: { customer_id: unknownCustomer, updates: [] }, intent: 'PREV-UPDATES-MIN-ONE' }),
    () => ({ operation: 'entities.get', body: { customer_id: unknownCustomer, entity_id: ns.id('noent') }, intent: 'ERR-ENTITY-NOT-FOUND', singles: [{ customer_id: unknownCustomer, entity_id: entity }, { customer_id: customerId, entity_id: ns.id('noent') }] }),
  ];
  return cases[at % cases.length]!();
}

/** `<id>_ab` and `<id>_AB`: two IDs that differ only in case. */
function caseTwins(id: string): readonly [string, string] {
  return [`${id}_ab`, `${id}_AB`];
}

const NON_ASCII = {
  customer: 'Zoë Ångström — 株式会社 🚀',
  feature: 'Crédits ✓',
  plan: 'Plän Été 🌞',
  entity: 'Siège Ødegård 🚀',
  note: 'naïve café ☕',
} as const;

export const requestCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'requests.two-ways',
    part: 'errors',
    weight: 1,
    refusal: true,
    reaches: ['two-ways-wrong', 'refusal'],
    args: fc.array(fc.nat({ max: 63 }), { minLength: 1, maxLength: 3 }),
    async run(context, picks) {
      for (const at of picks) {
        const request = await twoWays(context, at);
        if (request === undefined) continue;
        const eitherCode = request.singles ? await codesOf(context, request.operation, request.singles) : undefined;
        context.reached('two-ways-wrong');
        context.reached('refusal');
        await context.send({ operation: request.operation, body: request.body, intent: request.intent, ...(request.variant ? { variant: request.variant } : {}), ...(eitherCode?.length === 2 ? { eitherCode } : {}) });
      }
    },
  }),
  defineCommand({
    name: 'requests.id-case',
    part: 'customers',
    weight: 1,
    reaches: ['id-case'],
    args: fc.record({ entities: fc.boolean() }),
    async run(context, args) {
      const [lower, upper] = caseTwins(context.ns.id('cus'));
      await newCustomer(context, { id: lower });
      await context.send({ operation: 'customers.get', body: { customer_id: upper }, customerId: upper, intent: 'ERR-CUSTOMER-NOT-FOUND' });
      await newCustomer(context, { id: upper, observe: [{ operation: 'customers.get', body: { customer_id: lower }, customerId: lower }] });
      context.reached('id-case');
      const [featureLower, featureUpper] = caseTwins(context.ns.id('feat'));
      await createFeature(context, 'consumable', { id: featureLower });
      await createFeature(context, 'allocated', { id: featureUpper, intent: 'FEAT-DUPLICATE-ID' });
      const [planLower, planUpper] = caseTwins(context.ns.id('plan'));
      await createPlan(context, { items: [{ feature_id: featureLower, included: 3, reset: { interval: 'month' } }] }, { id: planLower });
      await context.send({ operation: 'plans.get', body: { plan_id: planUpper }, intent: 'ERR-PLAN-NOT-FOUND' });
      await createPlan(context, { add_on: true, items: [{ feature_id: featureUpper, included: 7 }] }, { id: planUpper, intent: 'PLAN-DUPLICATE-ID' });
      await attach(context, upper, planUpper);
      await attach(context, lower, planLower);
      await readAll(context, [
        balanceRead(lower, featureLower),
        balanceRead(lower, featureUpper),
        balanceRead(upper, featureUpper),
        { operation: 'plans.get', body: { plan_id: planLower } },
        { operation: 'subscriptions.list', body: { customer_id: upper }, customerId: upper },
        { operation: 'subscriptions.list', body: { plan_id: planLower } },
      ]);
      if (!args.entities) return;
      const [entityLower, entityUpper] = caseTwins(context.ns.id('ent'));
      await createEntity(context, lower, featureUpper, { id: entityLower });
      await context.send({ operation: 'entities.get', body: { customer_id: lower, entity_id: entityUpper }, customerId: lower, intent: 'ERR-ENTITY-NOT-FOUND' });
      await createEntity(context, lower, featureUpper, { id: entityUpper, intent: 'ENT-CREATE-DUPLICATE' });
      await readAll(context, [
        { operation: 'entities.list', body: { customer_id: lower }, customerId: lower },
        { operation: 'entities.list', body: { customer_id: upper }, customerId: upper },
        balanceRead(lower, featureUpper, entityUpper),
      ]);
    },
  }),
  defineCommand({
    name: 'requests.envelopes',
    part: 'errors',
    weight: 1,
    reaches: ['media-type-case', 'scheme-space', 'envelope-variant'],
    args: fc.record({ customer: fc.nat({ max: 63 }), order: fc.boolean() }),
    async run(context, args) {
      const customerId = await someCustomer(context, args.customer);
      const featureId = context.world.features.find((f) => f.type !== 'boolean')?.id ?? (await createFeature(context, 'consumable'));
      if (featureId === undefined) return;
      const [first, second]: VariantName[] = args.order ? ['media-type-case', 'scheme-space'] : ['scheme-space', 'media-type-case'];
      // A write and a read in each variant.
      const calls: SendSpec[] = [
        { operation: 'customers.get_or_create', body: { customer_id: context.ns.id('cus') }, variant: first },
        { ...balanceRead(customerId, featureId), variant: first },
        { operation: 'balances.track', body: { customer_id: customerId, feature_id: featureId, value: 1 }, customerId, variant: second, observe: balanceRead(customerId, featureId) },
        { operation: 'customers.get', body: { customer_id: customerId }, customerId, variant: second },
      ];
      await readAll(context, calls);
    },
  }),
  defineCommand({
    name: 'requests.non-ascii',
    part: 'customers',
    weight: 1,
    reaches: ['non-ascii'],
    args: fc.record({ events: fc.boolean() }),
    async run(context, args) {
      const customerId = context.ns.id('cus');
      await context.send({ operation: 'customers.get_or_create', body: { customer_id: customerId, name: NON_ASCII.customer, metadata: { note: NON_ASCII.note, mark: '✓' } }, customerId, observe: { operation: 'customers.get', body: { customer_id: customerId }, customerId } });
      context.world.customers.push(customerId);
      context.reached('non-ascii');
      const featureId = context.ns.id('feat');
      const feature = await context.send({ operation: 'features.create', body: { feature_id: featureId, name: NON_ASCII.feature, type: 'metered', consumable: true, display: { singular: 'crédit', plural: 'crédits' } }, observe: { operation: 'features.get', body: { feature_id: featureId } } });
      if (feature.model.status === 200) context.world.features.push({ id: featureId, type: 'metered', consumable: true, eventNames: [], covers: [] });
      const planId = context.ns.id('plan');
      const plan = await context.send({ operation: 'plans.create', body: { plan_id: planId, name: NON_ASCII.plan, description: 'Ünïcödé ✓', metadata: { label: 'ñandú' }, items: feature.model.status === 200 ? [{ feature_id: featureId, included: 5, reset: { interval: 'month' } }] : [] }, observe: { operation: 'plans.get', body: { plan_id: planId } } });
      if (plan.model.status === 200) learnPlan(context, plan.model.body);
      if (plan.model.status === 200) await attach(context, customerId, planId);
      const seat = await seatFeature(context);
      const entityId = seat && (await createEntity(context, customerId, seat, { name: NON_ASCII.entity }));
      if (entityId !== undefined) {
        // Searches in other cases and scripts than the name's.
        for (const search of ['ødegård', 'ØDEGÅRD', '🚀', 'siège']) await context.send({ operation: 'entities.list', body: { customer_id: customerId, search }, customerId });
      }
      if (args.events && feature.model.status === 200) {
        await context.send({ operation: 'balances.check', body: { customer_id: customerId, feature_id: featureId, send_event: true, properties: { note: NON_ASCII.note } }, customerId, tags: ['send-event'] });
        if (context.can.controlPlane) await context.lockstep.events(context.command, customerId);
      }
    },
  }),
];
