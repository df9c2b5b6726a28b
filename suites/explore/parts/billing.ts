/**
 * Generators of billing: `billing.attach` (setup) to a customer or an entity, of the active or an
 * older version, with seats and prepaid units, and `billing.preview_multi_update` (documented) over
 * what the customer holds, with every cancel action, refund mode and per-update entity. Before an
 * attach the model is asked what the subject holds, so the call is tagged with what it does to it
 * (replaces a plan of the same group, joins as an add-on, starts a trial, joins a paid period).
 */
import fc from 'fast-check';
import { defineCommand, index, maybeIndex, pick, rarely, variantArb, weighted, type CommandSpec, type RunContext } from '../command.ts';
import type { PlanInfo } from '../world.ts';

interface Held {
  readonly planId: string;
  readonly status: string;
  readonly startedAt: number;
  readonly currentPeriodEnd: number | null;
}

/** What a subject holds, as the model shows it (active and scheduled records). */
async function heldBy(context: RunContext, customerId: string, entityId: string | undefined): Promise<Held[]> {
  const answer = entityId
    ? await context.modelRead('entities.get', { customer_id: customerId, entity_id: entityId })
    : await context.modelRead('customers.get', { customer_id: customerId });
  if (answer.status !== 200) return [];
  const subscriptions = (answer.body as { subscriptions?: Record<string, unknown>[] }).subscriptions ?? [];
  return subscriptions.map((s) => ({ planId: s['plan_id'] as string, status: s['status'] as string, startedAt: s['started_at'] as number, currentPeriodEnd: s['current_period_end'] as number | null }));
}

function subjectOf(context: RunContext, customer: number, entity: number, onEntity: boolean): { customerId: string; entityId?: string } | undefined {
  const customerId = pick(context.world.customers, customer);
  if (customerId === undefined) return undefined;
  const entities = context.world.entities.filter((e) => e.customerId === customerId);
  const chosen = onEntity ? pick(entities, entity) : undefined;
  return { customerId, ...(chosen ? { entityId: chosen.id } : {}) };
}

/** The tags of an attach: what it does to the subject's state, for the owner of what later reads show. */
function attachTags(plan: PlanInfo, held: readonly Held[], plans: readonly PlanInfo[], entityId: string | undefined, version: number | undefined): string[] {
  const tags: string[] = [];
  const active = held.filter((h) => h.status === 'active').map((h) => plans.find((p) => p.id === h.planId)).filter((p) => p !== undefined);
  if (version !== undefined && version !== plan.version) tags.push('version');
  if (!plan.addOn && active.some((p) => !p.addOn && p.group === plan.group && p.id !== plan.id)) tags.push('same-group');
  if (plan.addOn) tags.push('add-on');
  if (plan.trial) tags.push('trial');
  if (plan.items.some((i) => i.billing === 'prepaid')) tags.push('prepaid');
  if (plan.licenses.length > 0) tags.push('license-quantities');
  if (entityId !== undefined) tags.push('entity');
  if (plan.items.some((i) => i.billing === 'usage_based')) tags.push('usage-price');
  if (plan.items.some((i) => !i.resets && !i.unlimited)) tags.push('allocated');
  return tags;
}

const attachArgs = fc.record({
  /** `replace`: a plan of the group of one the subject holds, so the attach replaces it. */
  mode: weighted({ any: 3, replace: 1 }),
  customer: index,
  entity: index,
  onEntity: rarely(3),
  plan: index,
  version: fc.constantFrom('active', 'active', 'active', 'first', 'previous'),
  seats: fc.constantFrom(undefined, 0, 1, 3, 5),
  prepaid: fc.constantFrom(undefined, 0, 2, 10, 2.5),
  variant: variantArb,
});

export const billingCommands: readonly CommandSpec<unknown>[] = [
  defineCommand({
    name: 'billing.attach',
    part: 'billing',
    weight: 6,
    builds: true,
    args: attachArgs,
    applies: (world) => world.customers.length > 0 && world.plans.length > 0,
    async run(context, args) {
      const { world } = context;
      const subject = subjectOf(context, args.customer, args.entity, args.onEntity);
      if (subject === undefined) return;
      const heldNow = await heldBy(context, subject.customerId, subject.entityId);
      const groups = new Set(heldNow.map((h) => world.plans.find((p) => p.id === h.planId)?.group).filter((g) => g !== null && g !== undefined));
      const replacing = world.plans.filter((p) => !p.addOn && p.group !== null && groups.has(p.group) && !heldNow.some((h) => h.planId === p.id));
      const plan = pick(args.mode === 'replace' && replacing.length > 0 ? replacing : world.plans, args.plan);
      // Attaching a plan the subject already holds is left open by the document; the reference refuses it (leeway.ts REATTACH-REFUSED).
      if (plan === undefined || heldNow.some((h) => h.planId === plan.id)) return;
      const version = args.version === 'active' || plan.version === 1 ? undefined : args.version === 'first' ? 1 : plan.version - 1;
      const held = heldNow;
      const tags = attachTags(plan, held, world.plans, subject.entityId, version);
      const paidSince = held.some((h) => h.status === 'active' && h.currentPeriodEnd !== null && h.startedAt < world.now);
      if (plan.paid && paidSince) {
        tags.push('joins-mid-period');
        context.reached('joins-mid-period');
      }
      if (version !== undefined) context.reached('plan-versions');
      if (plan.archived) context.reached('archived-plan');
      if (subject.entityId) context.reached('entity-balances');
      const body = {
        customer_id: subject.customerId,
        plan_id: plan.id,
        ...(subject.entityId ? { entity_id: subject.entityId } : {}),
        ...(version !== undefined ? { version } : {}),
        ...(args.seats !== undefined && plan.licenses.length > 0 ? { license_quantities: plan.licenses.map((l) => ({ license_plan_id: l.licensePlanId, quantity: args.seats })) } : {}),
        ...(args.prepaid !== undefined ? { feature_quantities: plan.items.filter((i) => i.billing === 'prepaid').map((i) => ({ feature_id: i.featureId, quantity: args.prepaid })) } : {}),
      };
      const intent = plan.archived && version === undefined ? 'PLAN-ARCHIVED-NOT-ATTACHABLE' : undefined;
      await context.send({ operation: 'billing.attach', body, customerId: subject.customerId, tags, variant: args.variant, ...(intent ? { intent } : {}) });
    },
  }),
  defineCommand({
    name: 'billing.preview_multi_update',
    part: 'preview',
    weight: 3,
    reads: true,
    args: fc.record({
      customer: index,
      updates: fc.array(fc.record({ held: index, action: fc.constantFrom('cancel_immediately', 'cancel_immediately', 'cancel_end_of_cycle', 'uncancel'), entity: maybeIndex(3, 1), noProration: rarely(5) }), { minLength: 1, maxLength: 3 }),
      entity: maybeIndex(3, 1),
      refund: fc.constantFrom(undefined, undefined, 'prorated', 'full'),
      params: fc.boolean(),
      variant: variantArb,
    }),
    applies: (world) => world.customers.length > 0,
    async run(context, args) {
      const customerId = pick(context.world.customers, args.customer)!;
      const entities = context.world.entities.filter((e) => e.customerId === customerId);
      const requestEntity = args.entity >= 0 ? pick(entities, args.entity)?.id : undefined;
      const updates: { plan_id: string; cancel_action: string; entity_id?: string; proration_behavior?: string }[] = [];
      for (const update of args.updates) {
        const entityId = update.entity >= 0 ? pick(entities, update.entity)?.id : undefined;
        const held = (await heldBy(context, customerId, entityId ?? requestEntity)).filter((h) => h.status === 'active');
        // Not a plan that offers licenses: the reference does not preview those yet (leeway.ts PREVIEW-LICENSE-BACKED).
        const target = pick(held.filter((h) => (context.world.plans.find((p) => p.id === h.planId)?.licenses.length ?? 0) === 0), update.held);
        // One update per plan and holder: a second one of the same is a refusal (billing.preview-refused `twice`), not a preview.
        if (target === undefined || updates.some((u) => u.plan_id === target.planId && u.entity_id === entityId)) continue;
        updates.push({ plan_id: target.planId, cancel_action: update.action, ...(entityId ? { entity_id: entityId } : {}), ...(update.noProration ? { proration_behavior: 'none' } : {}) });
      }
      if (updates.length === 0) return;
      const body = {
        customer_id: customerId,
        updates,
        ...(requestEntity ? { entity_id: requestEntity } : {}),
        ...(args.refund ? { refund_last_payment: args.refund } : {}),
        ...(args.params ? { subscription_params: { proration_date: 'now' } } : {}),
      };
      await context.send({ operation: 'billing.preview_multi_update', body, customerId, variant: args.variant, tags: ['no-changes'] });
    },
  }),
  defineCommand({
    name: 'billing.preview-refused',
    part: 'preview',
    weight: 2,
    refusal: true,
    reads: true,
    args: fc.record({ customer: index, how: fc.constantFrom('no-updates', 'refund', 'action', 'not-held', 'twice', 'unknown-customer') }),
    applies: (world) => world.customers.length > 0,
    async run(context, { customer, how }) {
      const customerId = pick(context.world.customers, customer)!;
      const held = (await heldBy(context, customerId, undefined)).filter((h) => h.status === 'active');
      const planId = held[0]?.planId ?? pick(context.world.plans, 0)?.id ?? context.ns.id('noplan');
      const update = { plan_id: planId, cancel_action: 'cancel_immediately' };
      const bodies = {
        'no-updates': { customer_id: customerId, updates: [] },
        refund: { customer_id: customerId, updates: [update], refund_last_payment: 'partial' },
        action: { customer_id: customerId, updates: [{ plan_id: planId, cancel_action: 'pause' }] },
        'not-held': { customer_id: customerId, updates: [{ plan_id: context.ns.id('noplan'), cancel_action: 'cancel_immediately' }] },
        twice: { customer_id: customerId, updates: [update, update] },
        'unknown-customer': { customer_id: context.ns.id('nocus'), updates: [update] },
      };
      const intents = {
        'no-updates': 'PREV-UPDATES-MIN-ONE',
        refund: 'PREV-REFUND-MODE-ENUM',
        action: 'PREV-CANCEL-ACTION-ENUM',
        'not-held': 'PREV-TARGET-HELD',
        twice: 'PREV-ONE-UPDATE-PER-PLAN',
        'unknown-customer': 'ERR-CUSTOMER-NOT-FOUND',
      } as const;
      if (how === 'twice' && held.length === 0) return;
      context.reached('refusal');
      await context.send({ operation: 'billing.preview_multi_update', body: bodies[how], customerId, intent: intents[how] });
    },
  }),
];
