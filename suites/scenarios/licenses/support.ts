/** Builders and checks that several licenses scenario modules share. */
import { expect } from 'vitest';
import type { RuleId } from '../../../spec/rules/catalogue.ts';
import { createEntity, type LicenseSetup, type T } from '../../support.ts';
import { checkAs } from '../entities/support.ts';

/**
 * One customer's pool of `licensePlanId` as licenses.list shows it; that the customer has exactly one
 * such pool is LIC-LIST-CUSTOMER-POOLS's, a check where the scenario carries it (every scenario
 * whose rules own licenses.list does), a premise elsewhere.
 */
export async function poolOf(t: T, customerId: string, licensePlanId: string) {
  const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customerId }), ['list']);
  const pools = list.filter((p) => p.license_plan_id === licensePlanId);
  checkAs(t, 'LIC-LIST-CUSTOMER-POOLS', `licenses.list of ${customerId} shows one pool of ${licensePlanId}`, () => expect(pools, `licenses.list of ${customerId} shows one pool of ${licensePlanId}`).toHaveLength(1));
  return pools[0];
}

export type AttachItem = { entity_id: string; name: string; feature_id?: string };

type Pool = { granted: number; usage: number; remaining: number; paid_quantity: number };

/** The pool of the setup's license plan as licenses.list shows it (a read that is setup here), or undefined when it is not listed. */
export async function pool(t: T, setup: LicenseSetup): Promise<Pool | undefined> {
  const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
  return list.find((p) => p.license_plan_id === setup.licensePlan.id && p.parent_plan_id === setup.parentPlan.id);
}

const COUNTER_RULES = { granted: 'LIC-POOL-GRANTED', usage: 'LIC-POOL-USAGE', remaining: 'LIC-POOL-REMAINING', paid_quantity: 'LIC-POOL-PAID-QUANTITY' } as const satisfies Record<keyof Pool, RuleId>;

/** Steps whose sentence is about which entities hold the license ("Assigns licenses to one or more entities"), not about seats (a skip that takes none, a release that frees one). */
const ASSIGNING: ReadonlySet<RuleId> = new Set(['LIC-ATTACH-BATCH']);

/**
 * The pool after a step that proves `rule`. `rule` FAILs when the pool is not listed or the step's
 * effect shows in neither `usage` nor `remaining` (so a fault of one counter alone is not charged to
 * the step), nor when both are off after a step of assigning (`ASSIGNING`) but entities.list shows
 * as many entities holding the license as it should have left (the counters misreport a step that
 * did its part; where the scenario carries both counters' rules). Then each given counter whose
 * rule the scenario declares is checked exactly, charged to that counter's rule (LIC-POOL-*); a
 * counter whose rule it does not declare is not checked exactly.
 */
export async function expectPool(t: T, setup: LicenseSetup, rule: RuleId, expected: Partial<Pool> & Pick<Pool, 'usage' | 'remaining'>, why: string): Promise<void> {
  const seen = await pool(t, setup);
  // Both counters off: the step failed, unless it is one whose sentence is about assigning (not about seats) and
  // the entities holding the license (entities.list, documented) are as many as it should have left: then it
  // did its part and the counters misreport it (their own rules, where the scenario carries both).
  const countersOnly =
    ASSIGNING.has(rule) &&
    seen !== undefined &&
    seen.usage !== expected.usage &&
    seen.remaining !== expected.remaining &&
    (['usage', 'remaining'] as const).every((counter) => t.scenario.rules.includes(COUNTER_RULES[counter])) &&
    (await holders(t, setup)).length === expected.usage;
  t.check(rule, () => {
    expect(seen, `${why}: licenses.list shows the pool of ${setup.licensePlan.id} offered by ${setup.parentPlan.id}`).toBeDefined();
    if (countersOnly) return;
    expect(seen!.usage === expected.usage || seen!.remaining === expected.remaining, `${why}: usage ${seen!.usage} and remaining ${seen!.remaining}, expected ${expected.usage} and ${expected.remaining}`).toBe(true);
  });
  for (const [counter, value] of Object.entries(expected) as [keyof Pool, number][]) {
    const counterRule = COUNTER_RULES[counter];
    if (counterRule !== rule && !t.scenario.rules.includes(counterRule)) continue;
    const because = countersOnly ? ` (the ${expected.usage} entities entities.list shows holding the license say the step did its part)` : '';
    t.check(counterRule, () => expect(seen![counter], `${why}: ${counter}${because}`).toBe(value));
  }
}

export function attachLicenses(t: T, setup: LicenseSetup, entities: readonly AttachItem[]) {
  return t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities: [...entities] });
}

export function releaseLicenses(t: T, setup: LicenseSetup, entityIds: readonly string[]) {
  return t.client.call('licenses.release', { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [...entityIds] });
}

/** The customer's entities as entities.list shows them (a documented read, setup here), with their active and scheduled records. */
export async function entitiesOf(t: T, setup: LicenseSetup) {
  return t.setup(await t.client.call('entities.list', { customer_id: setup.customerId, limit: 200 }), ['list']).list;
}

/** The active records of the setup's license plan that an entity holds, as entities.list shows them. */
export async function licenseRecordsOf(t: T, setup: LicenseSetup, entityId: string) {
  const entity = (await entitiesOf(t, setup)).find((e) => e.id === entityId);
  return (entity?.subscriptions ?? []).filter((subscription) => subscription.plan_id === setup.licensePlan.id && subscription.status === 'active');
}

/**
 * The entities holding an active record of the setup's license plan, sorted, as entities.list shows
 * them: documented, so MUST rules can rest on it (licenses.list_assignments is the reference's).
 */
export async function holders(t: T, setup: LicenseSetup): Promise<string[]> {
  return licenseHolders(t, setup.customerId, setup.licensePlan.id);
}

/**
 * The entities of `customerId` holding an active record of `licensePlanId`, sorted, as entities.list
 * (documented) shows them; only that customer's, whatever else the listing holds (its customer filter
 * is ENT-CUSTOMER-FILTER's, not the license rules'). One page of the largest limit the document
 * allows, so a pool of a few hundred seats fits on it, also beside other customers' entities.
 */
export async function licenseHolders(t: T, customerId: string, licensePlanId: string): Promise<string[]> {
  const { list } = t.setup(await t.client.call('entities.list', { customer_id: customerId, limit: 5000 }), ['list']);
  return list
    .filter((entity) => entity.customer_id === customerId)
    .filter((entity) => (entity.subscriptions ?? []).some((subscription) => subscription.plan_id === licensePlanId && subscription.status === 'active'))
    .map((entity) => entity.id)
    .sort();
}

/**
 * Assigns `items` (licenses.attach builds state here) and requires that they hold the license
 * afterwards: LIC-ATTACH-BATCH's, a check where the scenario carries it (every scenario whose rules
 * own licenses.attach does), so a batch the target mishandles FAILs that rule and blocks the rest.
 */
export async function assignSeats(t: T, setup: LicenseSetup, items: readonly AttachItem[]): Promise<void> {
  t.setup(await attachLicenses(t, setup, items));
  const held = await holders(t, setup);
  checkAs(t, 'LIC-ATTACH-BATCH', `${items.length} attached entities hold the license`, () =>
    expect(held, `the ${items.length} entities of the batch hold the license`).toEqual(expect.arrayContaining(items.map((item) => item.entity_id))),
  );
}

/**
 * Entities created through entities.create (setup), as attach items without feature_id: for
 * scenarios whose subject is not licenses.attach creating entities (LIC-ATTACH-CREATES-ENTITY).
 */
export async function existingSeats(t: T, setup: LicenseSetup, count: number): Promise<AttachItem[]> {
  const items: AttachItem[] = [];
  for (let i = 0; i < count; i++) {
    const entity = await createEntity(t, setup.customerId, setup.seatFeature.id);
    items.push({ entity_id: entity.id, name: entity.name ?? entity.id });
  }
  return items;
}

export function sorted(ids: readonly string[]): string[] {
  return [...ids].sort();
}

/** A body with one field left out, sent as is (the client does not validate requests). */
export function without<B extends object>(body: B, field: keyof B): B {
  const { [field]: _, ...rest } = body;
  return rest as B;
}
