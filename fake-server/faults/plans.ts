/** Broken variants of the plans rules (plan resource, plans.create/get/list/update, plan versions). */
import type { OperationName } from '../../spec/operations.ts';
import type { Plan } from '../../spec/plans.ts';
import { addInterval } from '../clock.ts';
import { endRecord, planOfRecord } from '../domain/billing.ts';
import type { DomainContext, InputOf } from '../domain/context.ts';
import { listPlans, requireActivePlan, requirePlanVersion } from '../domain/plans.ts';
import type { GrantRow, RecordRow } from '../store/tenant-store.ts';
import { deleteThatKeeps, type Fault, type HandlerOverrides, rewriteOutput } from './fault.ts';

type Body = Record<string, unknown>;

const PLAN_ANSWERS: ReadonlySet<OperationName> = new Set(['plans.create', 'plans.get', 'plans.update']);

/** Rewrites every plan of a plans.* answer, on a copy (the answer is the stored plan itself). */
function rewritePlans(operation: OperationName, body: unknown, rewrite: (plan: Plan) => Plan): unknown {
  if (PLAN_ANSWERS.has(operation)) return rewrite(structuredClone(body as Plan));
  if (operation === 'plans.list') return { list: (body as { list: Plan[] }).list.map((plan) => rewrite(structuredClone(plan))) };
  return body;
}

/** Rewrites the body of a plans.create request before validation. */
function rewriteCreate(operation: OperationName, body: unknown, rewrite: (body: Body) => Body): unknown {
  return operation === 'plans.create' && typeof body === 'object' && body !== null ? rewrite(body as Body) : body;
}

function without(body: Body, key: string): Body {
  const { [key]: _dropped, ...rest } = body;
  return rest;
}

/**
 * Drops `key` from a create body when its value is an object, as a target ignoring the
 * field would; an invalid value stays, so the body is refused as it would be without the fault.
 */
function ignoring(key: string): NonNullable<Fault['input']> {
  const wellFormed = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  return (operation, body) => rewriteCreate(operation, body, (create) => (wellFormed(create[key]) ? without(create, key) : create));
}

/** The record a billing.attach just created. */
function attachedRecord(ctx: DomainContext, input: InputOf<'billing.attach'>): RecordRow {
  return ctx.store
    .recordsOf(input.customer_id)
    .filter((record) => record.planId === input.plan_id && record.entityId === (input.entity_id ?? null))
    .at(-1)!;
}

/** billing.attach, then `change` applied to each grant of the new record (replacing it in the store). */
function afterAttachGrants(change: (ctx: DomainContext, grant: GrantRow) => GrantRow): HandlerOverrides {
  return {
    'billing.attach': (real) => (ctx, input) => {
      const result = real(ctx, input);
      for (const grant of ctx.store.grantsOfRecord(attachedRecord(ctx, input).id)) ctx.store.grants.set(grant.id, change(ctx, grant));
      return result;
    },
  };
}

/** The license links a plan may offer: not itself, each license plan once, none archived (unknown plans stay, for the real 404). */
function validLinks<L extends { license_plan_id: string }>(ctx: DomainContext, planId: string, links: readonly L[]): L[] {
  const seen = new Set<string>();
  return links.filter((link) => {
    const fresh = link.license_plan_id !== planId && !seen.has(link.license_plan_id) && ctx.store.plans.get(link.license_plan_id)?.some((plan) => plan.archived) !== true;
    seen.add(link.license_plan_id);
    return fresh;
  });
}

export const plansFaults: readonly Fault[] = [
  // ── The Plan resource ─────────────────────────────────────────────────────
  {
    rule: 'PLAN-SHAPE',
    breaks: 'plans.create, plans.get and plans.update answer without created_at',
    output: (operation, body) => (PLAN_ANSWERS.has(operation) ? rewritePlans(operation, body, (plan) => without(plan, 'created_at') as Plan) : body),
  },
  {
    rule: 'PLAN-GROUP-EXCLUSIVE',
    breaks: 'attaching a main plan leaves the main plan of the same group in place',
    handlers: {
      'billing.attach': (real) => (ctx, input) => {
        const live = ctx.store.recordsOf(input.customer_id).filter((record) => record.status !== 'expired' && record.planId !== input.plan_id);
        const before = live.map((record) => ({ record, status: record.status, canceledAt: record.canceledAt, expiresAt: record.expiresAt }));
        // The replaced records never leave their holder's live records (the store's index of them), whatever the attach ends.
        const { store } = ctx;
        const expireRecord = store.expireRecord;
        const kept = new Set(live.map((record) => record.id));
        store.expireRecord = (row) => (kept.has(row.id) ? undefined : expireRecord.call(store, row));
        try {
          return real(ctx, input);
        } finally {
          store.expireRecord = expireRecord;
          for (const { record, status, canceledAt, expiresAt } of before) Object.assign(record, { status, canceledAt, expiresAt });
        }
      },
    },
  },
  {
    rule: 'PLAN-AUTO-ENABLE',
    breaks: 'a new customer does not get the auto-enable plans',
    handlers: {
      'customers.get_or_create': (real) => (ctx, input) => {
        if (ctx.store.customers.has(input.customer_id)) return real(ctx, input);
        const autoEnabled = [...ctx.store.plans.keys()].map((id) => requireActivePlan(ctx.store, id)).filter((plan) => plan.auto_enable);
        for (const plan of autoEnabled) plan.auto_enable = false;
        try {
          return real(ctx, input);
        } finally {
          for (const plan of autoEnabled) plan.auto_enable = true;
        }
      },
    },
  },
  {
    rule: 'PLAN-ARCHIVED-NOT-ATTACHABLE',
    breaks: 'billing.attach attaches an archived plan',
    handlers: {
      'billing.attach': (real) => (ctx, input) => {
        const plan = requirePlanVersion(ctx.store, input.plan_id, input.version);
        if (!plan.archived) return real(ctx, input);
        plan.archived = false;
        try {
          return real(ctx, input);
        } finally {
          plan.archived = true;
        }
      },
    },
  },
  {
    rule: 'PLAN-PRICE-NULL-FREE',
    breaks: 'a plan without base price answers a price of 0 per month instead of null',
    output: (operation, body) =>
      rewritePlans(operation, body, (plan) =>
        plan.price === null ? { ...plan, price: { amount: 0, interval: 'month', display: { primary_text: '$0', secondary_text: 'per month' } } } : plan,
      ),
  },
  {
    rule: 'PLAN-CONFIG-ROUND-TRIP',
    // Not "ignores config": a target that reads no `config` is told apart (SKIP, the wire name not
    // read) from one that reads it and loses it, which this is.
    breaks: 'plans.get answers ignore_past_due false whatever the plan was created with',
    output: rewriteOutput('plans.get', (plan) => ({ ...plan, config: { ...plan.config, ignore_past_due: false } })),
  },
  {
    rule: 'PLAN-METADATA-SHARED',
    breaks: 'a metadata change reaches only the active version; older versions keep theirs',
    handlers: {
      'plans.update': (real) => (ctx, input) => {
        const versions = ctx.store.plans.get(input.plan_id) ?? [];
        const metadata = new Map(versions.map((plan) => [plan, plan.metadata]));
        const updated = real(ctx, input);
        for (const [plan, kept] of metadata) if (plan !== updated) plan.metadata = kept;
        return updated;
      },
    },
  },
  {
    rule: 'PLAN-PROCESSORS-OMITTED',
    // A placeholder entry, not `{}`: an assertion that only refuses an empty object lets it through.
    breaks: 'plans answer a placeholder processors entry ({default: {connected: false}}) when no processor is connected',
    output: (operation, body) => rewritePlans(operation, body, (plan) => ({ processors: { default: { connected: false } }, ...plan })),
  },
  {
    rule: 'PLAN-FREE-TRIAL-APPLIES',
    breaks: 'attaching a plan with a free trial starts the subscription without the trial',
    handlers: {
      'billing.attach': (real) => (ctx, input) => {
        const result = real(ctx, input);
        attachedRecord(ctx, input).trialEndsAt = null;
        return result;
      },
    },
  },
  {
    rule: 'PLAN-FREE-TRIAL-ROUND-TRIP',
    breaks: 'a free trial always reads back card_required: true',
    output: (operation, body) => rewritePlans(operation, body, (plan) => (plan.free_trial ? { ...plan, free_trial: { ...plan.free_trial, card_required: true } } : plan)),
  },
  {
    rule: 'PLAN-CONSUMABLE-RESET',
    breaks: 'a consumable balance never returns to its included amount: its reset is announced but never happens',
    handlers: afterAttachGrants((_ctx, grant) => (grant.reset === null ? grant : { ...grant, reset: null })),
  },
  {
    rule: 'PLAN-USAGE-PRICE-OVERAGE',
    breaks: 'the usage price of an item is dropped at attach, so use stops at the included amount',
    handlers: afterAttachGrants((_ctx, grant) => (grant.price?.billing_method === 'usage_based' ? { ...grant, price: null } : grant)),
  },
  {
    rule: 'PLAN-ALLOCATED-PERSISTS',
    breaks: 'an allocated (non-resetting) balance is reset every month like a consumable one',
    handlers: afterAttachGrants((ctx, grant) => {
      if (grant.isFlag || grant.unlimited || grant.reset !== null) return grant;
      const nextResetAt = addInterval(ctx.clock.now(), 'month');
      ctx.store.due.schedule(nextResetAt, 'grant.reset', grant.id);
      return { ...grant, reset: { interval: 'month', intervalCount: 1 }, nextResetAt };
    }),
  },
  {
    rule: 'PLAN-PREPAID-UPFRONT',
    breaks: 'the quantity bought for a prepaid price is not granted at attach',
    handlers: afterAttachGrants((_ctx, grant) => ({ ...grant, prepaid: 0 })),
  },
  {
    rule: 'PLAN-CURRENCIES-ROUND-TRIP',
    breaks: 'the additional currencies of price tiers are dropped',
    output: (operation, body) =>
      rewritePlans(operation, body, (plan) => ({
        ...plan,
        items: plan.items.map((item) =>
          item.price?.tiers === undefined ? item : { ...item, price: { ...item.price, tiers: item.price.tiers.map((tier) => without(tier, 'additional_currencies') as typeof tier) } },
        ),
      })),
  },

  // ── plans.create ──────────────────────────────────────────────────────────
  {
    // Surgical: the stored plan differs from the answer in a field only this rule's scenario reads,
    // so scenarios attaching created plans are not touched.
    rule: 'PLAN-CREATE-THEN-GET',
    breaks: 'plans.create answers the plan as sent but stores it without its description',
    handlers: {
      'plans.create': (real) => (ctx, input) => {
        const answer = structuredClone(real(ctx, input));
        const stored = ctx.store.plans.get(input.plan_id)?.at(-1);
        if (stored !== undefined) stored.description = null;
        return answer;
      },
    },
  },
  {
    rule: 'PLAN-CREATE-REQUIRED-FIELDS',
    breaks: 'plans.create without name names the plan after its id',
    input: (operation, body) => rewriteCreate(operation, body, (create) => ('name' in create ? create : { ...create, name: create['plan_id'] })),
  },
  {
    rule: 'PLAN-ID-PATTERN',
    breaks: 'plans.create accepts plan ids with characters outside [a-zA-Z0-9_-] (replacing them by _)',
    input: (operation, body) =>
      rewriteCreate(operation, body, (create) => (typeof create['plan_id'] === 'string' ? { ...create, plan_id: create['plan_id'].replace(/[^a-zA-Z0-9_-]/gu, '_') } : create)),
  },
  {
    rule: 'PLAN-NAME-MIN-LENGTH',
    breaks: 'plans.create accepts an empty name (reading it as "Untitled")',
    input: (operation, body) => rewriteCreate(operation, body, (create) => (create['name'] === '' ? { ...create, name: 'Untitled' } : create)),
  },
  {
    rule: 'PLAN-ADD-ON-ALONGSIDE',
    breaks: 'attaching an add-on that has a group replaces the main plan of that group, as a main plan would',
    handlers: {
      'billing.attach': (real) => (ctx, input) => {
        const result = real(ctx, input);
        const added = attachedRecord(ctx, input);
        const plan = planOfRecord(ctx, added);
        if (!plan.add_on) return result;
        for (const record of ctx.store.recordsOf(input.customer_id)) {
          if (record === added || record.status === 'expired' || record.entityId !== added.entityId) continue;
          const other = planOfRecord(ctx, record);
          if (!other.add_on && plan.group !== null && other.group === plan.group) endRecord(ctx, record);
        }
        return result;
      },
    },
  },
  {
    // Only the answers: the plan keeps resetting, so scenarios relying on resets are not touched.
    rule: 'PLAN-ITEMS-ROUND-TRIP',
    breaks: 'plans answer every item with reset null, whatever reset it was created with, and a purchase cap of 0 as null, no cap (as the reference does: exchanges 174, 175)',
    output: (operation, body) =>
      rewritePlans(operation, body, (plan) => ({
        ...plan,
        items: plan.items.map((item) => ({ ...item, reset: null, price: item.price?.max_purchase === 0 ? { ...item.price, max_purchase: null } : item.price })),
      })),
  },
  {
    rule: 'PLAN-BILLING-METHOD-ENUM',
    breaks: 'plans.create takes an item price billing_method outside usage_based and prepaid as usage_based',
    input: (operation, body) =>
      rewriteCreate(operation, body, (create) =>
        Array.isArray(create['items'])
          ? {
              ...create,
              items: create['items'].map((item: Body) => {
                const price = item['price'] as Body | undefined;
                return price === undefined || price === null || ['usage_based', 'prepaid'].includes(price['billing_method'] as string) ? item : { ...item, price: { ...price, billing_method: 'usage_based' } };
              }),
            }
          : create,
      ),
  },
  {
    rule: 'PLAN-LICENSE-LINKS-OFFER',
    // Not "ignores the links": a target that reads no `licenses` is SKIP (the wire name not read); this one reads them and loses some.
    breaks: 'plans.create keeps only the license links to the first license plan sent, so a plan with links to two plans offers one',
    input: (operation, body) =>
      rewriteCreate(operation, body, (create) => {
        const links = create['licenses'];
        if (!Array.isArray(links) || links.length === 0) return create;
        const first = (links[0] as Body)['license_plan_id'];
        return { ...create, licenses: links.filter((link: Body) => link['license_plan_id'] === first) };
      }),
  },
  {
    rule: 'PLAN-LICENSE-LINKS-REPLACE',
    breaks: 'plans.update adds the license links sent to the existing ones instead of replacing them',
    handlers: {
      'plans.update': (real) => (ctx, input) => {
        if (input.licenses === undefined) return real(ctx, input);
        const sent = new Set(input.licenses.map((link) => link.license_plan_id));
        const kept = (requireActivePlan(ctx.store, input.plan_id).licenses ?? []).filter((link) => !sent.has(link.license_plan_id));
        return real(ctx, { ...input, licenses: [...kept.map(({ license_plan_id, included, prepaid_only }) => ({ license_plan_id, included, prepaid_only })), ...input.licenses] });
      },
    },
  },
  {
    rule: 'PLAN-DUPLICATE-ID',
    breaks: 'plans.create with an existing plan_id replaces the existing plan',
    handlers: {
      'plans.create': (real) => (ctx, input) => {
        ctx.store.plans.delete(input.plan_id);
        return real(ctx, input);
      },
    },
  },
  {
    rule: 'PLAN-AUTO-ENABLE-FREE',
    breaks: 'plans.create accepts auto_enable on a plan with prices and no card-free trial',
    handlers: {
      'plans.create': (real) => (ctx, input) => {
        const priced = input.price !== undefined || input.items.some((item) => item.price !== undefined);
        const defaultTrial = input.free_trial !== undefined && !input.free_trial.card_required;
        if (!input.auto_enable || !priced || defaultTrial) return real(ctx, input);
        const plan = real(ctx, { ...input, auto_enable: false });
        plan.auto_enable = true;
        return plan;
      },
    },
  },
  {
    // Not for auto-enable plans: their trial decides whether prices are allowed (PLAN-AUTO-ENABLE-FREE's).
    rule: 'PLAN-FREE-TRIAL-RECURRING',
    breaks: 'plans.create sets the free trial after validating the plan, so a one-off plan keeps it',
    handlers: {
      'plans.create': (real) => (ctx, input) => {
        const { free_trial: trial, ...withoutTrial } = input;
        if (trial === undefined || input.auto_enable) return real(ctx, input);
        const plan = real(ctx, withoutTrial);
        plan.free_trial = { ...trial, on_end: null };
        return plan;
      },
    },
  },
  {
    rule: 'PLAN-LICENSE-LINKS-VALID',
    breaks: 'license links naming the plan itself, a license plan twice or an archived plan are dropped instead of refused',
    handlers: {
      'plans.create': (real) => (ctx, input) => real(ctx, { ...input, ...(input.licenses && { licenses: validLinks(ctx, input.plan_id, input.licenses) }) }),
      'plans.update': (real) => (ctx, input) => real(ctx, { ...input, ...(input.licenses && { licenses: validLinks(ctx, input.plan_id, input.licenses) }) }),
    },
  },

  // ── plans.get ─────────────────────────────────────────────────────────────
  {
    rule: 'PLAN-GET-REQUIRED-FIELDS',
    breaks: 'plans.get with a version but without plan_id answers the most recently created plan',
    input: (operation, body) => (operation === 'plans.get' && typeof body === 'object' && body !== null && !('plan_id' in body) && 'version' in body ? { ...body, plan_id: '' } : body),
    handlers: {
      'plans.get': (real) => (ctx, input) => (input.plan_id === '' ? (listPlans(ctx, { include_archived: true }).list.at(-1) ?? real(ctx, input)) : real(ctx, input)),
    },
  },
  {
    rule: 'PLAN-GET-VERSION',
    breaks: 'plans.get of an existing version answers the active version instead',
    handlers: {
      'plans.get': (real) => (ctx, input) => {
        const exists = (ctx.store.plans.get(input.plan_id) ?? []).some((plan) => plan.version === input.version);
        return real(ctx, exists ? { plan_id: input.plan_id } : input);
      },
    },
  },
  {
    rule: 'PLAN-GET-DEFAULT-ACTIVE',
    breaks: 'plans.get without version answers version 1 instead of the active version',
    handlers: { 'plans.get': (real) => (ctx, input) => real(ctx, { plan_id: input.plan_id, version: input.version ?? 1 }) },
  },

  // ── Wire names of plans.create fields ───────────────────────────────────────────
  {
    rule: 'PLAN-LICENSES-WIRE',
    breaks: 'a license link sent without included offers 1 seat instead of 0',
    input: (operation, body) =>
      rewriteCreate(operation, body, (create) =>
        Array.isArray(create['licenses']) ? { ...create, licenses: create['licenses'].map((link: Body) => ({ included: 1, ...link })) } : create,
      ),
  },
  {
    rule: 'PLAN-FREE-TRIAL-WIRE',
    breaks: 'plans.create ignores free_trial',
    input: ignoring('free_trial'),
  },
  {
    rule: 'PLAN-CONFIG-WIRE',
    breaks: 'a plan created without config reads ignore_past_due: true',
    input: (operation, body) => rewriteCreate(operation, body, (create) => ('config' in create ? create : { ...create, config: { ignore_past_due: true } })),
  },
  {
    rule: 'PLAN-BILLING-CONTROLS-WIRE',
    breaks: 'plans.create ignores billing_controls',
    input: ignoring('billing_controls'),
  },
  {
    rule: 'PLAN-CREATE-IN-STRIPE-WIRE',
    breaks: 'plans.create refuses create_in_stripe',
    input: (operation, body) => rewriteCreate(operation, body, (create) => ('create_in_stripe' in create ? { ...create, create_in_stripe: 'unsupported' } : create)),
  },
  {
    rule: 'PLAN-METADATA-WIRE',
    breaks: 'plans.create ignores metadata',
    input: ignoring('metadata'),
  },

  // ── plans.update, plans.list and versions ──────────────────────────────────────
  {
    rule: 'PLAN-UPDATE-IN-PLACE',
    breaks: 'plans.update ignores a new description',
    input: (operation, body) => {
      if (operation !== 'plans.update' || typeof body !== 'object' || body === null || !('description' in body)) return body;
      const { description: _description, ...rest } = body;
      return rest;
    },
  },
  {
    rule: 'PLAN-UPDATE-NEW-VERSION',
    breaks: 'customers on the plan are moved to the new version, their grants taking its items',
    handlers: {
      'plans.update': (real) => (ctx, input) => {
        const updated = real(ctx, input) as Plan;
        for (const record of [...ctx.store.records.values()]) {
          if (record.planId !== updated.id || record.planVersion === updated.version || record.status === 'expired') continue;
          ctx.store.records.set(record.id, { ...record, planVersion: updated.version });
          for (const grant of ctx.store.grantsOfRecord(record.id)) {
            const item = updated.items.find((candidate) => candidate.feature_id === grant.featureId);
            if (item !== undefined) ctx.store.grants.set(grant.id, { ...grant, included: item.included });
          }
        }
        return updated;
      },
    },
  },
  {
    rule: 'PLAN-LIST',
    breaks: 'plans.list lists every version of each plan, not only the active one',
    input: (operation, body) => (operation === 'plans.list' && typeof body === 'object' && body !== null && !('all_versions' in body) ? { ...body, all_versions: true } : body),
  },
  {
    rule: 'PLAN-LIST-SHAPE',
    breaks: 'plans.list answers {plans: [...]} instead of {list: [...]}',
    output: (operation, body) => (operation === 'plans.list' ? { plans: (body as { list: Plan[] }).list } : body),
  },
  {
    rule: 'VER-PLAN-VERSION-INCREASES',
    breaks: 'a configuration change is applied to the current version in place; the version number never moves',
    handlers: {
      'plans.update': (real) => (ctx, input) => {
        const versions = ctx.store.plans.get(input.plan_id);
        const count = versions?.length;
        const updated = real(ctx, input) as Plan;
        if (versions === undefined || versions.length === count) return updated;
        versions.pop();
        const current = versions.at(-1)!;
        const inPlace: Plan = { ...updated, version: current.version, version_slug: current.version_slug, created_at: current.created_at };
        versions[versions.length - 1] = inPlace;
        return inPlace;
      },
    },
  },
  {
    rule: 'VER-PLAN-SLUG-DEFAULT',
    breaks: 'version_slug is the bare version number ("2"), not v{n}',
    output: (operation, body) => rewritePlans(operation, body, (plan) => ({ ...plan, version_slug: String(plan.version) })),
  },
  {
    // In the answers only: which version plans.get and attach pick stays the domain's.
    rule: 'VER-PLAN-ONE-ACTIVE',
    breaks: 'older versions of a plan read as active too',
    output: (operation, body) => rewritePlans(operation, body, (plan) => ({ ...plan, active: true })),
  },
  {
    rule: 'ERR-PLAN-NOT-FOUND',
    breaks: 'plans.get of an unknown version of a known plan answers the active version',
    handlers: {
      'plans.get': (real) => (ctx, input) => {
        const versions = ctx.store.plans.get(input.plan_id);
        const known = versions === undefined || versions.some((plan) => plan.version === input.version);
        return real(ctx, known ? input : { plan_id: input.plan_id });
      },
    },
  },
  {
    rule: 'PLAN-DELETE',
    breaks: 'plans.delete answers success but keeps the plan',
    handlers: deleteThatKeeps('plans.delete', (ctx, input) => requireActivePlan(ctx.store, input.plan_id)),
  },
  {
    rule: 'PLAN-DELETE-LATEST-VERSION',
    breaks: 'plans.delete without all_versions deletes every version of the plan, not only the latest',
    handlers: { 'plans.delete': (real) => (ctx, input) => real(ctx, { ...input, all_versions: true }) },
  },
  {
    rule: 'PLAN-DELETE-SHAPE',
    breaks: 'plans.delete answers {deleted: true} instead of {success: true}',
    output: rewriteOutput('plans.delete', () => ({ deleted: true })),
  },
];
