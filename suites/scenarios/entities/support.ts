/** Builders and checks that several entities scenario modules share. */
import { expect } from 'vitest';
import { SetupFailed } from '../../framework/index.ts';
import type { z } from 'zod';
import type { Entity } from '../../../spec/entities.ts';
import { EmbeddedSubscription } from '../../../spec/listings.ts';
import type { Exchange } from '../../framework/evidence.ts';
import { createEntity, createFeature, type Ops, type T } from '../../support.ts';

export type ListBody = z.input<Ops['entities.list']['request']>;

export type ListedEntity = z.output<typeof Entity>;

export type Rule = Parameters<T['check']>[0];

/**
 * Runs `assertion` as a check of `rule` when the scenario carries it, else as a precondition: for a
 * premise that is another rule's behaviour. A scenario whose own rules own the operation the premise
 * reads must carry `rule` (a precondition there is refused, checks.ts "Preconditions"), so that a
 * deviation seen there FAILs the rule it breaks, and the rules resting on it are BLOCKED by that FAIL.
 */
export function checkAs(t: T, rule: Rule, what: string, assertion: () => void): void {
  if (t.scenario.rules.includes(rule)) t.check(rule, assertion);
  else t.precondition(what, assertion);
}

/**
 * One page of entities.list: with `rule`, being answered is that rule's; without, a setup read. A
 * page asked for one customer must hold that customer's entities only: ENT-CUSTOMER-FILTER's, a
 * check wherever the scenario carries it (every scenario whose rules own entities.list does), a
 * premise elsewhere.
 */
export async function listPage(t: T, body: ListBody, rule?: Rule, options: { readonly followsCursor?: boolean } = {}) {
  const result = await t.client.call('entities.list', body);
  const page = rule === undefined ? t.setup(result, ['list']) : t.expectOk(result, rule);
  // A walk follows next_cursor: without one (a string or null) the page is ENT-LIST-SHAPE's FAIL, recorded by the client, and the walk is its knock-on.
  if (options.followsCursor && result.ok && !(page.next_cursor === null || typeof page.next_cursor === 'string')) t.requireShape(result);
  const customerId = body.customer_id;
  if (customerId !== undefined && customerId !== '') {
    checkAs(t, 'ENT-CUSTOMER-FILTER', `entities.list with customer_id ${customerId} lists that customer's entities only`, () =>
      expect((page.list ?? []).filter((entity) => entity.customer_id !== customerId).map((entity) => entity.id), `entities.list with customer_id ${customerId} lists that customer's entities only`).toEqual([]),
    );
  }
  return page;
}

/** The customer's entities as entities.list shows them, by id (a setup read; the customer filter is a premise). */
export async function entitiesById(t: T, customerId: string): Promise<Map<string, ListedEntity>> {
  return new Map((await listPage(t, { customer_id: customerId, limit: 100 })).list.map((entity) => [entity.id, entity]));
}

/** Creates an entity (setup) and requires that it was created with its name: names are ENT-CREATE's, which a scenario matching or comparing names rests on. */
export async function namedEntity(t: T, customerId: string, featureId: string, name: string) {
  const entity = await createEntity(t, customerId, featureId, name);
  t.precondition(`entities.create gave ${entity.id} its name`, () => expect(entity.name).toBe(name));
  return entity;
}

export async function listIds(t: T, body: ListBody, rule?: Rule): Promise<string[]> {
  return ((await listPage(t, body, rule)).list ?? []).map((entity) => entity.id);
}

/** The feature seats are tied to, a metered feature with a monthly balance, and a flag. */
export async function entityCatalogue(t: T) {
  return { seat: await createFeature(t, 'allocated'), messages: await createFeature(t, 'consumable'), flag: await createFeature(t, 'boolean') };
}

export function planIds(entity: { subscriptions: readonly { plan_id: string }[] }): string[] {
  return entity.subscriptions.map((subscription) => subscription.plan_id);
}

/**
 * The id of the customer's (or entity's) record of `planId`, for the control plane's
 * records.force_state (fake only: a target with a control plane serves subscriptions.list). A
 * setup read: a record it does not show blocks the scenario, naming the read.
 */
export async function recordIdOf(t: T, customerId: string, planId: string, entityId?: string): Promise<string> {
  const result = await t.client.call('subscriptions.list', { customer_id: customerId, plan_id: planId, ...(entityId !== undefined && { entity_id: entityId }) });
  const { list } = t.setup(result, ['list']);
  // Only this holder's record: that the listing holds no other is LIST-CUSTOMER-FILTER's.
  const record = list.find((r) => r.plan_id === planId && r.customer_id === customerId && (entityId === undefined || r.entity_id === entityId));
  if (record === undefined) throw new SetupFailed('setup subscriptions.list', `setup subscriptions.list shows no record of ${planId} for ${entityId ?? customerId}, whose id records.force_state needs`, result.exchange);
  return record.id;
}

/**
 * Before a MUST rule relies on the plan filter of entities.list (a wire name interface.md does not
 * show): with the filter naming a plan none of the customer's entities holds, the listing is empty;
 * without it, it is not.
 */
export async function requirePlanFilter(t: T, customerId: string, unheldPlanId: string): Promise<void> {
  await t.requireWireName('entities.list.plan_filter', (send) => listIds(t, { customer_id: customerId, ...(send && { plans: [{ id: unheldPlanId }] }) }));
}

/** Before a MUST rule relies on search (a wire name interface.md does not show): a text no entity's id or name holds lists none of the customer's entities. */
export async function requireSearch(t: T, customerId: string, matchingNothing: string): Promise<void> {
  await t.requireWireName('entities.list.search', (send) => listIds(t, { customer_id: customerId, ...(send && { search: matchingNothing }) }));
}

/** Forces a record into a state through the control plane (fake only); an answer in another state blocks the scenario, naming the call. */
export async function forceState(t: T, recordId: string, state: 'scheduled' | 'expired' | 'past_due'): Promise<void> {
  const forced = await t.control.call('records.force_state', { record_id: recordId, state });
  const reached = state === 'past_due' ? forced.past_due : forced.status === state;
  if (!reached) throw new SetupFailed('control records.force_state', `control records.force_state of ${recordId} to ${state} answered ${JSON.stringify(forced)}`);
}

/** The plans an entity holds as entities.get shows them (a setup read: no entities.list rule owns it). */
export async function plansHeld(t: T, customerId: string, entityId: string): Promise<string[]> {
  return planIds(t.setup(await t.client.call('entities.get', { customer_id: customerId, entity_id: entityId }), ['subscriptions']));
}

/** Exactly the documented fields of the embedded subscriptions of a listing, read from its raw JSON (the client's parse drops unknown keys). */
export function expectEmbeddedFieldsOnly(t: T, listing: Exchange | undefined): void {
  const documented = Object.keys(EmbeddedSubscription.shape).sort();
  const body = listing?.response?.body as { list?: { id: string; subscriptions: Record<string, unknown>[] }[] } | undefined;
  t.precondition('the raw entities.list answer is at hand (not truncated)', () => expect(Array.isArray(body?.list)).toBe(true));
  t.check('ENT-EMBEDDED-SUBSCRIPTION-FIELDS', () => {
    for (const entity of body!.list!) {
      for (const subscription of entity.subscriptions ?? []) {
        expect(Object.keys(subscription).sort(), `a subscription embedded in entity ${entity.id} carries ${documented.join(', ')} only`).toEqual(documented);
      }
    }
  });
}
