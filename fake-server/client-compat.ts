/**
 * Client-compatibility modes (DESIGN.md, decision 8). The fake follows interface.md; where a
 * published client disagrees with it, a mode adds what that client needs, and nothing else:
 * request schemas that accept what the client sends (as the reference does) and handler wrappers
 * that answer in the shape the client validates. Each difference is listed in
 * spec/reference/differences.ts (KNOWN_CLIENT_DIFFERENCES).
 *
 * The mode, `clientCompat` (CLI `--client-compat`):
 * - `auto`, the default: a request from a published client, recognised by its User-Agent, is
 *   answered in that client's mode; any other request as interface.md says. So autumn-js works
 *   against a fake started with no options, and the conformance suite still meets the document.
 * - `autumn-js`: every request in autumn-js's mode (a client with another User-Agent, a proxy).
 * - `none`: every request as interface.md says, whoever sends it (document-strict).
 * A request refused only where a client's mode would accept it is answered with a message naming
 * the mode and why.
 */
import { z } from 'zod';
import { LicenseAttachEntity, LicensesAttachRequest, LicensesReleaseRequest } from '../spec/licenses.ts';
import type { OperationName } from '../spec/operations.ts';
import { EntitiesListRequest } from '../spec/entities.ts';
import { PlanUpdate, PreviewMultiUpdateRequest } from '../spec/preview.ts';
import { fail, type OutputOf } from './domain/context.ts';
import type { HandlerOverrides } from './faults/fault.ts';
import type { RecordRow, TenantStore } from './store/tenant-store.ts';

export const CLIENT_COMPAT_MODES = ['auto', 'autumn-js', 'none'] as const;
export type ClientCompat = (typeof CLIENT_COMPAT_MODES)[number];

export interface CompatAdapter {
  readonly requestSchemas: { readonly [N in OperationName]?: z.ZodType };
  readonly handlers: HandlerOverrides;
}

/** A published client's mode, how to recognise the client, and why each of its request schemas differs from interface.md. */
interface ClientMode extends CompatAdapter {
  readonly name: Exclude<ClientCompat, 'auto' | 'none'>;
  /** Its default User-Agent holds this. */
  readonly userAgentMark: string;
  readonly requestDifferences: { readonly [N in OperationName]?: string };
}

/** The subscriptions an entity holds, its own and those of its customer, to find the record behind an embedded one. */
function heldSubscriptions(store: TenantStore, customerId: string, entityId: string): RecordRow[] {
  return store.recordsOf(customerId).filter((record) => record.kind === 'subscription' && (record.entityId === entityId || record.entityId === null));
}

/** The license plan of the entities' active assignments, when they all hold exactly one and the same. */
function licensePlanOf(store: TenantStore, customerId: string, entityIds: readonly string[]): string {
  const plans = new Set(store.assignmentsOf(customerId).filter((assignment) => assignment.endedAt === null && entityIds.includes(assignment.entityId)).map((assignment) => assignment.licensePlanId));
  if (plans.size === 1) return [...plans][0]!;
  // The reference's messages (observed-behaviour §3.3).
  if (plans.size === 0) fail('invalid_request', `Entity ${entityIds[0]} has no license to release.`);
  fail('invalid_request', `The entities hold multiple licenses (${[...plans].sort().join(', ')}). Provide license_plan_id.`);
}

/**
 * The plan an update without `plan_id` targets, as the reference picks it (observed-behaviour §3.6):
 * the record named by `subscription_id`, else the holder's main paid recurring plan, then its main
 * recurring plan, then a recurring add-on, then a one-off.
 */
function targetPlanOf(store: TenantStore, customerId: string, entityId: string | undefined, subscriptionId: string | undefined): string {
  const held = store.recordsOf(customerId).filter((record) => record.status === 'active' && record.entityId === (entityId ?? null));
  const named = subscriptionId === undefined ? undefined : held.find((record) => record.id === subscriptionId);
  if (named !== undefined) return named.planId;
  const rank = (record: RecordRow) => {
    if (record.kind === 'purchase') return 3;
    const plan = store.plans.get(record.planId)?.find((version) => version.version === record.planVersion);
    return plan?.add_on ? 2 : plan?.price ? 0 : 1;
  };
  const [best] = [...held].sort((a, b) => rank(a) - rank(b));
  return best?.planId ?? fail('cus_product_not_found', `Customer ${customerId} holds no plan this update could target; give plan_id.`);
}

const autumnJs: ClientMode = {
  name: 'autumn-js',
  // "speakeasy-sdk/typescript 0.10.18 2.882.0 2.4.0 @useautumn/sdk" in 1.3.13, sent outside browsers.
  userAgentMark: '@useautumn/sdk',
  requestDifferences: {
    'licenses.attach': 'autumn-js lets entities[].name be left out, which interface.md requires',
    'licenses.release': 'autumn-js lets license_plan_id be left out, which interface.md requires',
    'entities.list': "autumn-js filters by the reference's subscription_status, interface.md by statuses",
    'billing.preview_multi_update': 'autumn-js lets updates[].plan_id be left out, which interface.md requires',
  },
  requestSchemas: {
    // The client lets an entity's name be omitted or null (CLIENT-LICENSE-ATTACH-NAME-OPTIONAL); the reference then creates it without one.
    'licenses.attach': LicensesAttachRequest.extend({
      entities: z.array(LicenseAttachEntity.extend({ name: LicenseAttachEntity.shape.name.nullish().transform((name) => name ?? null) })).min(1),
    }),
    // The client lets license_plan_id be omitted (CLIENT-LICENSE-RELEASE-PLAN-OPTIONAL); the reference then releases the one license each entity holds.
    'licenses.release': LicensesReleaseRequest.partial({ license_plan_id: true }),
    // The client filters by the reference's single `subscription_status` (CLIENT-ENTITIES-LIST-STATUS-FILTER); read it as interface.md's `statuses`.
    'entities.list': z.preprocess((body) => {
      if (typeof body !== 'object' || body === null || !('subscription_status' in body)) return body;
      const { subscription_status: status, ...rest } = body as Record<string, unknown>;
      return 'statuses' in rest || status === undefined || status === null ? rest : { ...rest, statuses: [status] };
    }, EntitiesListRequest),
    // The client lets an update's plan_id be omitted (CLIENT-PREVIEW-PLAN-ID-OPTIONAL); the reference then picks the plan.
    'billing.preview_multi_update': PreviewMultiUpdateRequest.extend({ updates: z.array(PlanUpdate.partial({ plan_id: true })).min(1) }),
  },
  handlers: {
    // The client requires the record `id` on every subscription embedded in a listed entity (CLIENT-ENTITY-SUBSCRIPTION-ID).
    'entities.list': (real) => (ctx, input) => {
      const answer: OutputOf<'entities.list'> = real(ctx, input);
      return {
        ...answer,
        list: answer.list.map((entity) => {
          const held = heldSubscriptions(ctx.store, entity.customer_id, entity.id);
          return {
            ...entity,
            subscriptions: entity.subscriptions.map((embedded) => {
              const record = held.find((row) => row.planId === embedded.plan_id && row.startedAt === embedded.started_at && row.status === embedded.status);
              return { id: record?.id ?? null, ...embedded };
            }),
          };
        }),
      };
    },
    'billing.preview_multi_update': (real) => (ctx, input) =>
      real(ctx, {
        ...input,
        updates: input.updates.map((update) => ({
          ...update,
          plan_id: update.plan_id ?? targetPlanOf(ctx.store, input.customer_id, update.entity_id ?? input.entity_id, update.subscription_id),
        })),
      }),
    'licenses.release': (real) => (ctx, input) => real(ctx, { ...input, license_plan_id: input.license_plan_id ?? licensePlanOf(ctx.store, input.customer_id, input.entity_ids) }),
  },
};

const CLIENT_MODES: readonly ClientMode[] = [autumnJs];
const DOCUMENT_STRICT: CompatAdapter = { requestSchemas: {}, handlers: {} };

/**
 * What the whole fake applies for a mode: a client's schemas and handlers, none (`none`), or
 * nothing chosen yet (`auto`: the router recognises clients request by request, recognisedClient).
 */
export function compatAdapter(mode: ClientCompat): CompatAdapter | undefined {
  switch (mode) {
    case 'auto':
      return undefined;
    case 'none':
      return DOCUMENT_STRICT;
    case 'autumn-js':
      return autumnJs;
  }
}

/** For the `auto` mode: the mode of the published client a User-Agent names, with its handler wrappers around `handlers`. */
export function recognisedClient<H extends object>(handlers: H): (userAgent: string | null) => { readonly requestSchemas: CompatAdapter['requestSchemas']; readonly handlers: H } | undefined {
  const modes = CLIENT_MODES.map((mode) => {
    const wrapped = { ...handlers } as Record<string, unknown>;
    for (const [name, wrap] of Object.entries(mode.handlers)) wrapped[name] = (wrap as (real: unknown) => unknown)(wrapped[name]);
    return { mark: mode.userAgentMark, requestSchemas: mode.requestSchemas, handlers: wrapped as H };
  });
  return (userAgent) => (userAgent === null ? undefined : modes.find((mode) => userAgent.includes(mode.mark)));
}

/**
 * For a body interface.md refuses: when a client's mode would take it, what to do about it (appended
 * to the 400's message); else ''.
 */
export function compatHint(operation: OperationName, body: unknown): string {
  const mode = CLIENT_MODES.find((candidate) => candidate.requestSchemas[operation]?.safeParse(body).success);
  if (mode === undefined) return '';
  return `. ${mode.requestDifferences[operation]}: start the fake with --client-compat ${mode.name} (clientCompat: '${mode.name}') to accept it as the reference does`;
}
