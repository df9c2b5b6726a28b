/** Builders and checks that several entities scenario modules share. */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Entity } from '../../../spec/entities.ts';
import { createEntity, createFeature, type Ops, type T } from '../../support.ts';

export type ListBody = z.input<Ops['entities.list']['request']>;

export type ListedEntity = z.output<typeof Entity>;

export type Rule = Parameters<T['check']>[0];

/**
 * One page of entities.list: with `rule`, being answered is that rule's; without, a setup read. A
 * page asked for one customer must hold that customer's entities only: ENT-CUSTOMER-FILTER's check
 * in the scenario that proves it, a premise everywhere else (so that its fault blocks them).
 */
export async function listPage(t: T, body: ListBody, rule?: Rule) {
  const result = await t.client.call('entities.list', body);
  const page = rule === undefined ? t.setup(result, ['list']) : t.expectOk(result, rule);
  const customerId = body.customer_id;
  if (customerId !== undefined && customerId !== '' && !t.scenario.rules.includes('ENT-CUSTOMER-FILTER')) {
    t.precondition(`entities.list with customer_id ${customerId} lists that customer's entities only`, () =>
      expect((page.list ?? []).filter((entity) => entity.customer_id !== customerId).map((entity) => entity.id)).toEqual([]),
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

/**
 * Before an error's code is checked: the error came in the documented body (a top-level `code`), or
 * the body is ERR-BODY-SHAPE's FAIL, a premise here. Nothing to require when the call was accepted:
 * that fails the rule expecting the refusal.
 */
function requireErrorBody(t: T, result: { readonly ok: boolean; readonly body?: unknown }): void {
  if (result.ok) return;
  t.precondition('the error answer has the documented body {message, code, env}', () => expect(typeof (result.body as { code?: unknown } | null)?.code).toBe('string'));
}

/** `t.expectError` of a refusal with its code, after requireErrorBody. */
export function expectCodedError(t: T, result: Parameters<T['expectError']>[0], expected: Parameters<T['expectError']>[1]): void {
  requireErrorBody(t, result);
  t.expectError(result, expected);
}

/** The feature seats are tied to, a metered feature with a monthly balance, and a flag. */
export async function entityCatalogue(t: T) {
  return { seat: await createFeature(t, 'allocated'), messages: await createFeature(t, 'consumable'), flag: await createFeature(t, 'boolean') };
}

export function planIds(entity: { subscriptions: readonly { plan_id: string }[] }): string[] {
  return entity.subscriptions.map((subscription) => subscription.plan_id);
}
