/**
 * Generators of balances: `balances.check` (documented) on customers and entities, for every kind
 * of feature, with the default, fractional, huge and exactly-at-the-edge amounts, with `send_event`,
 * locks and previews; and the setup calls `balances.track` (by feature or by a shared event name,
 * with each overage behaviour) and `balances.finalize`. Amounts that depend on the balance are
 * resolved against the model's balance when the command runs.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import type { Balance } from '../../../spec/balances.ts';
import { defineCommand, index, pick, rarely, variantArb, weighted, type CommandSpec, type RunContext } from '../command.ts';
import type { FeatureInfo } from '../world.ts';
import { amountChoice, isFractional, isHuge, resolveAmount, type AmountChoice } from './amounts.ts';

type BalanceView = z.output<typeof Balance>;

interface Subject {
  readonly customerId: string;
  readonly entityId?: string;
}

/** A customer, or one of its entities; now and then another customer's entity (which is not the customer's). */
function subjectOf(context: RunContext, customer: number, entity: number, scope: 'customer' | 'entity' | 'foreign-entity'): Subject | undefined {
  const { world } = context;
  const customerId = pick(world.customers, customer);
  if (customerId === undefined) return undefined;
  if (scope === 'customer') return { customerId };
  const pool = scope === 'entity' ? world.entities.filter((e) => e.customerId === customerId) : world.entities.filter((e) => e.customerId !== customerId);
  const chosen = pick(pool, entity);
  return chosen ? { customerId, entityId: chosen.id } : { customerId };
}

/** The model's balance of a feature for a subject (a check of nothing), to resolve amounts against. */
async function modelBalance(context: RunContext, subject: Subject, featureId: string): Promise<BalanceView | null | undefined> {
  const answer = await context.modelRead('balances.check', { customer_id: subject.customerId, feature_id: featureId, required_balance: 0, ...(subject.entityId ? { entity_id: subject.entityId } : {}) });
  return answer.status === 200 ? ((answer.body as { balance: BalanceView | null }).balance ?? null) : undefined;
}

function featureFor(context: RunContext, feature: number, kinds: readonly string[]): FeatureInfo | undefined {
  const kindOf = (f: FeatureInfo) => (f.type === 'metered' ? (f.consumable ? 'consumable' : 'allocated') : f.type);
  return pick(context.world.features.filter((f) => kinds.includes(kindOf(f))), feature) ?? pick(context.world.features, feature);
}

/** A check of nothing: reads a subject's balance of a feature right after a write to it. */
function readBack(subject: Subject, featureId: string) {
  return { operation: 'balances.check' as const, body: { customer_id: subject.customerId, feature_id: featureId, required_balance: 0, ...(subject.entityId ? { entity_id: subject.entityId } : {}) }, customerId: subject.customerId, tags: ['plain'] };
}

/** Dimensions a balance and an amount reach. */
function noteAmount(context: RunContext, amount: number | undefined, choice: AmountChoice, balance: BalanceView | null | undefined): void {
  if (isFractional(amount)) context.reached('fractional-amount');
  if (isHuge(amount)) context.reached('huge-amount');
  if (choice.kind === 'remaining' && choice.delta === 0) context.reached('amount-at-cap');
  if (choice.kind === 'cap' && choice.delta === 0 && balance?.overage_allowed) context.reached('amount-at-cap');
}

function noteBalance(context: RunContext, feature: FeatureInfo, answer: unknown, subject: Subject): void {
  const result = answer as { balance?: BalanceView | null; balances?: Record<string, BalanceView | null> } | undefined;
  if ((result?.balance?.breakdown.length ?? 0) >= 2) context.reached('two-grants-one-feature');
  const systems = Object.keys(result?.balances ?? {}).map((id) => context.world.features.find((f) => f.id === id));
  if (systems.some((s) => s?.type === 'credit_system' && s.covers.length >= 2 && result?.balances?.[s.id] != null)) context.reached('credit-system-several-features');
  if (subject.entityId !== undefined && result?.balance != null) context.reached('entity-balances');
  void feature;
}

/** A subject and feature the model granted (most of the time), else any pair. */
function grantedPair(context: RunContext, held: number): { subject: Subject; featureId: string } | undefined {
  const holding = pick(context.world.holdings, held);
  const featureId = holding === undefined ? undefined : pick(holding.featureIds, held >> 2);
  if (holding === undefined || featureId === undefined) return undefined;
  return { subject: { customerId: holding.customerId, ...(holding.entityId ? { entityId: holding.entityId } : {}) }, featureId };
}

const DAY_MS = 86_400_000;

const checkArgs = fc.record({
  granted: fc.oneof({ arbitrary: index, weight: 4 }, { arbitrary: fc.constant(-1), weight: 1 }),
  customer: index,
  entity: index,
  scope: weighted({ customer: 6, entity: 2, 'foreign-entity': 1 }),
  feature: index,
  kind: fc.constantFrom('consumable', 'consumable', 'consumable', 'allocated', 'boolean', 'credit_system'),
  unknownFeature: rarely(15),
  unknownEntity: rarely(15),
  amount: amountChoice,
  mode: weighted({ plain: 5, 'send-event': 5, lock: 3 }),
  /**
   * Now and then a negative amount, in a plain check only (met by any balance): with send_event or a
   * lock the document gives no bound, and the reference records the negative usage where the fake refuses.
   */
  negative: rarely(12),
  lockExpiry: fc.constantFrom('none', 'none', 'hour', 'next-instant'),
  withPreview: rarely(3),
  properties: fc.boolean(),
  variant: variantArb,
});

export const balanceCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'balances.check',
    part: 'balances',
    weight: 14,
    args: checkArgs,
    applies: (world) => world.customers.length > 0 && world.features.length > 0,
    async run(context, args) {
      const granted = args.granted >= 0 && args.scope !== 'foreign-entity' ? grantedPair(context, args.granted) : undefined;
      const subject = granted?.subject ?? subjectOf(context, args.customer, args.entity, args.scope);
      const feature = (granted && context.world.features.find((f) => f.id === granted.featureId)) || featureFor(context, args.feature, [args.kind]);
      if (subject === undefined || feature === undefined) return;
      const featureId = args.unknownFeature ? context.ns.id('nofeat') : feature.id;
      if (args.unknownEntity) {
        context.reached('refusal');
        await context.send({ operation: 'balances.check', body: { customer_id: subject.customerId, feature_id: featureId, entity_id: context.ns.id('noent') }, customerId: subject.customerId, tags: ['plain'], intent: 'ERR-ENTITY-NOT-FOUND' });
        return;
      }
      const balance = await modelBalance(context, subject, featureId);
      const resolved = resolveAmount(args.amount, balance);
      const amount = args.negative && args.mode === 'plain' ? -(resolved ?? 1) - 0.5 : resolved;
      noteAmount(context, amount, args.amount, balance);
      const lockId = args.mode === 'lock' ? context.ns.id('lock') : undefined;
      const upcoming = context.world.upcoming()[0];
      // A lock's expiry at most a day ahead: the document gives no bound, the reference refuses a later one (leeway.ts LOCK-EXPIRES-WITHIN-A-DAY).
      const withinADay = upcoming !== undefined && upcoming <= context.world.now + DAY_MS ? upcoming : undefined;
      const expiresAt = args.lockExpiry === 'hour' ? context.world.now + 3_600_000 : args.lockExpiry === 'next-instant' ? withinADay : undefined;
      const body = {
        customer_id: subject.customerId,
        feature_id: featureId,
        ...(subject.entityId ? { entity_id: subject.entityId } : {}),
        ...(amount !== undefined ? { required_balance: amount } : {}),
        ...(args.mode === 'send-event' ? { send_event: true } : {}),
        ...(args.mode === 'send-event' && args.properties ? { properties: { source: 'explore', step: context.lockstep.steps.length } } : {}),
        ...(lockId ? { lock: { lock_id: lockId, enabled: true, ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}) } } : {}),
        ...(args.withPreview ? { with_preview: true } : {}),
      };
      const tags = [args.mode === 'plain' ? 'plain' : args.mode, ...(isFractional(amount) ? ['fractional'] : []), ...(feature.covers.length > 0 || context.world.features.some((f) => f.covers.includes(featureId)) ? ['credit-system'] : [])];
      const booleanEvent = args.mode !== 'plain' && feature.type === 'boolean';
      const intent = booleanEvent ? 'CHECK-SEND-EVENT-BOOLEAN' : subject.entityId && args.scope === 'foreign-entity' ? 'CHECK-ENTITY-OWN-CUSTOMER' : undefined;
      if (intent) context.reached('refusal');
      if (subject.entityId && args.scope === 'foreign-entity') context.reached('two-customers');
      // A send_event or lock the model denies must change nothing: what later reads show is the atomicity rule's.
      const retag = (answer: { status: number; body: unknown }) => (answer.status === 200 && args.mode !== 'plain' && (answer.body as { allowed: boolean }).allowed === false ? ['denied'] : []);
      const observe = args.mode === 'plain' ? undefined : readBack(subject, featureId);
      const { model } = await context.send({ operation: 'balances.check', body, customerId: subject.customerId, tags, retag, variant: args.variant, ...(intent ? { intent } : {}), ...(observe ? { observe } : {}) });
      if (model.status !== 200) return;
      noteBalance(context, feature, model.body, subject);
      if (lockId && (model.body as { allowed: boolean }).allowed) context.world.locks.push({ lockId, customerId: subject.customerId, featureId, ...(subject.entityId ? { entityId: subject.entityId } : {}) });
    },
  }),
  defineCommand({
    name: 'balances.track',
    part: 'balances',
    weight: 4,
    args: fc.record({
      granted: fc.oneof({ arbitrary: index, weight: 4 }, { arbitrary: fc.constant(-1), weight: 1 }),
      customer: index,
      entity: index,
      onEntity: rarely(4),
      feature: index,
      byEvent: rarely(3),
      value: amountChoice,
      negative: rarely(8),
      overage: fc.constantFrom(undefined, undefined, 'cap', 'overflow'),
      variant: variantArb,
    }),
    applies: (world) => world.customers.length > 0 && world.features.some((f) => f.type !== 'boolean'),
    async run(context, args) {
      const granted = args.granted >= 0 ? grantedPair(context, args.granted) : undefined;
      const subject = granted?.subject ?? subjectOf(context, args.customer, args.entity, args.onEntity ? 'entity' : 'customer');
      const feature = (granted && context.world.features.find((f) => f.id === granted.featureId)) || featureFor(context, args.feature, ['consumable', 'credit_system', 'allocated']);
      if (subject === undefined || feature === undefined || feature.type === 'boolean') return;
      const byEvent = args.byEvent && context.world.features.some((f) => f.eventNames.includes(context.world.eventName) && f.type !== 'boolean');
      const balance = await modelBalance(context, subject, feature.id);
      const resolved = resolveAmount(args.value, balance);
      const value = resolved === undefined ? undefined : args.negative ? -resolved : resolved;
      noteAmount(context, value, args.value, balance);
      const body = {
        customer_id: subject.customerId,
        ...(subject.entityId ? { entity_id: subject.entityId } : {}),
        ...(byEvent ? { event_name: context.world.eventName } : { feature_id: feature.id }),
        ...(value !== undefined ? { value } : {}),
        ...(args.overage ? { overage_behavior: args.overage } : {}),
      };
      const tags = [...(byEvent ? ['event-name'] : []), ...(args.overage ? ['overage'] : []), ...(feature.covers.length > 0 ? ['credit-system'] : [])];
      const { model } = await context.send({ operation: 'balances.track', body, customerId: subject.customerId, tags, variant: args.variant, observe: readBack(subject, feature.id) });
      if (model.status === 200) noteBalance(context, feature, model.body, subject);
    },
  }),
  defineCommand({
    name: 'events.list',
    part: 'balances',
    weight: 3,
    reads: true,
    control: true,
    args: fc.record({ customer: index }),
    applies: (world) => world.customers.length > 0,
    async run(context, { customer }) {
      await context.lockstep.events(context.command, pick(context.world.customers, customer)!);
    },
  }),
  defineCommand({
    name: 'balances.finalize',
    part: 'balances',
    weight: 4,
    args: fc.record({ lock: index, action: fc.constantFrom('confirm', 'release'), override: fc.constantFrom(undefined, undefined, 0, 1, 2.5), again: rarely(5) }),
    applies: (world) => world.locks.length > 0,
    async run(context, { lock, action, override, again }) {
      const chosen = pick(context.world.locks, lock)!;
      const body = { lock_id: again ? context.ns.id('nolock') : chosen.lockId, action, ...(override !== undefined && action === 'confirm' ? { override_value: override } : {}) };
      const { model } = await context.send({ operation: 'balances.finalize', body, customerId: chosen.customerId, tags: [action], ...(chosen.featureId ? { observe: readBack(chosen, chosen.featureId) } : {}) });
      if (model.status === 200) context.world.locks = context.world.locks.filter((l) => l.lockId !== chosen.lockId);
    },
  }),
];
