/** Builders and checks that several plans scenario modules share. */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Plan, PlanItemInput, PlansCreateRequest, PlansUpdateRequest } from '../../../spec/plans.ts';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import type { T } from '../../support.ts';

/** A plans.create body without its id and name. */
export type PlanBody = Omit<z.input<typeof PlansCreateRequest>, 'plan_id' | 'name'>;

export const DAY_MS = 86_400_000;

/** plans.get as a read (setup); the rule using it checks what it answers. */
export async function readPlan(t: T, planId: string, version?: number): Promise<Plan> {
  return t.setup(await t.client.call('plans.get', { plan_id: planId, ...(version !== undefined && { version }) }));
}

/** plans.get as the subject of `rule`: a refusal FAILs it. */
export async function getPlan(t: T, rule: RuleId, planId: string, version?: number): Promise<Plan> {
  return t.expectOk(await t.client.call('plans.get', { plan_id: planId, ...(version !== undefined && { version }) }), rule);
}

export async function updatePlan(t: T, body: z.input<typeof PlansUpdateRequest>): Promise<Plan> {
  return t.setup(await t.client.call('plans.update', body));
}

/** A customer's active customer-level subscriptions, through the documented subscriptions.list (a read here). */
export async function activeSubscriptions(t: T, customerId: string) {
  const { list } = t.setup(await t.client.call('subscriptions.list', { customer_id: customerId, limit: 200 }), ['list']);
  return list.filter((sub) => sub.customer_id === customerId && sub.status === 'active' && sub.entity_id == null);
}

/** The plan ids of a customer's active customer-level subscriptions, sorted. */
export async function activePlanIds(t: T, customerId: string): Promise<string[]> {
  return (await activeSubscriptions(t, customerId)).map((sub) => sub.plan_id).sort();
}

export async function track(t: T, customerId: string, featureId: string, value: number): Promise<void> {
  t.setup(await t.client.call('balances.track', { customer_id: customerId, feature_id: featureId, value }));
}

/** A consumable item: `included` units returning every month. */
export function monthly(featureId: string, included: number): z.input<typeof PlanItemInput> {
  return { feature_id: featureId, included, reset: { interval: 'month' } };
}

/** "now" of the target: the fake's clock where there is one, else this machine's. */
export async function targetNow(t: T): Promise<number> {
  return t.has('control-plane') ? (await t.control.call('clock.get', {})).now : Date.now();
}

/**
 * CONV-TIMESTAMPS-MS of every timestamp given that the answer carried (a missing one is the shape
 * rule's): an integer number of milliseconds (above 10^12) between `from` and `to`.
 */
export function expectMilliseconds(t: T, [from, to]: readonly [number, number], stamps: Record<string, unknown>): void {
  t.check('CONV-TIMESTAMPS-MS', () => {
    for (const [what, stamp] of Object.entries(stamps)) {
      if (stamp === undefined || stamp === null) continue;
      expect(Number.isInteger(stamp), `${what} ${String(stamp)} is an integer`).toBe(true);
      expect(stamp as number, `${what} is in milliseconds`).toBeGreaterThan(1e12);
      expect(stamp as number, `${what} is a time in milliseconds after ${from}`).toBeGreaterThanOrEqual(from);
      expect(stamp as number, `${what} is a time in milliseconds before ${to}`).toBeLessThanOrEqual(to);
    }
  });
}
