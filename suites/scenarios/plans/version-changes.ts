/**
 * Scenarios of every kind of configuration change a plan can take, one after another on one plan:
 * each makes the next version, the version before still reads its own configuration, and a customer
 * on it keeps theirs; an archived plan stays archived through such a change.
 */
import { expect } from 'vitest';
import type { z } from 'zod';
import type { Plan, PlansUpdateRequest } from '../../../spec/plans.ts';
import { isRouteNotServed } from '../../framework/index.ts';
import { attach, createCustomer, createFeature, createPlan, readBalance, scenario, type T } from '../../support.ts';
import { checkFlagsShowPlans, createFlaggedPlan, DAY_MS, FLAG_RULES, holdsPlans, monthly, readPlan, targetNow, updatePlan } from './support.ts';

type PlanChange = Omit<z.input<typeof PlansUpdateRequest>, 'plan_id'>;

/** One kind of configuration change, and the check of what a customer on the version before it still holds after it. */
interface ConfigurationChange {
  readonly what: string;
  readonly change: PlanChange;
  readonly kept?: (customerId: string, version: number) => Promise<void>;
}

/** What interface.md says a plan bundles: its base price, its items (included units, reset, price) and its free trial. */
function configurationOf(plan: Plan) {
  return {
    price: plan.price && { amount: plan.price.amount, interval: plan.price.interval },
    items: plan.items.map((item) => ({
      feature_id: item.feature_id,
      included: item.included,
      reset: item.reset?.interval ?? null,
      price: item.price && { amount: item.price.amount, interval: item.price.interval, billing_method: item.price.billing_method },
    })),
    free_trial: plan.free_trial ? { duration_length: plan.free_trial.duration_length, duration_type: plan.free_trial.duration_type } : null,
  };
}

/**
 * plans.update (the reference's; setup) of a change interface.md does not say a target must take:
 * the plan it answers, or undefined when the target refuses it (a 4xx other than "not served").
 */
async function updateUnlessRefused(t: T, planId: string, change: PlanChange): Promise<Plan | undefined> {
  const result = await t.client.call('plans.update', { plan_id: planId, ...change });
  if (!result.ok && result.status < 500 && !isRouteNotServed(result.status, result.body)) return undefined;
  return t.setup(result);
}

/**
 * Makes each change in turn, each while a new customer is on the current version (the reference
 * makes a new version only then), and checks that it answered the next version and that plans.get
 * of the version before still reads the configuration that version had: a change applied to it in
 * place is a configuration change without a new version. The configurations compared are the
 * target's own answers, so a field it answers otherwise than sent is not this rule's.
 */
async function expectEachChangeVersions(t: T<'VER-PLAN-VERSION-INCREASES' | 'PLAN-GET-VERSION'>, created: Plan, changes: readonly ConfigurationChange[]): Promise<void> {
  // The version the first change starts from, as plans.get reads it (a check, so the precondition below rests on no answer of plans.create).
  let current = await readPlan(t, created.id, created.version);
  t.check('PLAN-GET-VERSION', () => expect(current.version, `plans.get of version ${created.version} of a new plan answers that version`).toBe(created.version));
  for (const { what, change, kept } of changes) {
    const holder = await createCustomer(t);
    await attach(t, holder.id, created.id);
    const next = await updateUnlessRefused(t, created.id, change);
    if (next === undefined) {
      t.notVerified('VER-PLAN-VERSION-INCREASES', `a change of ${what}, which the target refused`);
      continue;
    }
    t.precondition(`plans.update answers the plan with ${what} changed`, () => expect(configurationOf(next)).not.toEqual(configurationOf(current)));
    t.check('VER-PLAN-VERSION-INCREASES', () => expect(next.version, `a change of ${what} answers the next version`).toBe(current.version + 1));
    const before = await readPlan(t, created.id, current.version);
    t.check('PLAN-GET-VERSION', () => expect(before.version, `plans.get of version ${current.version} answers that version`).toBe(current.version));
    t.check('VER-PLAN-VERSION-INCREASES', () =>
      expect(configurationOf(before), `after a change of ${what}, version ${current.version} still reads as it was: the change made a new version, not an edit of it`).toEqual(configurationOf(current)),
    );
    await kept?.(holder.id, current.version);
    current = next;
  }
}

export const versionChangesScenarios = [
  scenario(
    {
      id: 'plans.every-item-change-versions',
      title:
        "each change of a plan's items (an included amount, a reset interval, an item added, an item removed) and a base price added to the free plan makes the next version; the version before reads as it was, and its customer keeps its items",
      rules: ['VER-PLAN-VERSION-INCREASES', 'PLAN-GET-VERSION', 'PLAN-UPDATE-NEW-VERSION'],
      // "Now", for the next reset of a customer, is the fake's clock where there is one.
      uses: ['control-plane'],
    },
    async (t) => {
      const [units, extra] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const yearly = { feature_id: units.id, included: 200, reset: { interval: 'year' as const } };
      const granted = async (customerId: string, featureId: string) => (await readBalance(t, customerId, featureId))?.granted ?? 0;
      const changes: ConfigurationChange[] = [
        {
          what: 'the included amount of an item',
          change: { items: [monthly(units.id, 200)] },
          kept: async (customerId, version) => {
            const held = await granted(customerId, units.id);
            t.check('PLAN-UPDATE-NEW-VERSION', () => expect(held, `the customer on version ${version} keeps its 100 included units`).toBe(100));
          },
        },
        {
          what: 'the reset interval of an item',
          change: { items: [yearly] },
          kept: async (customerId, version) => {
            const balance = await readBalance(t, customerId, units.id);
            const now = await targetNow(t);
            t.check('PLAN-UPDATE-NEW-VERSION', () =>
              expect(balance?.next_reset_at, `the customer on version ${version} keeps its monthly reset: the next one within a month`).toBeLessThanOrEqual(now + 31 * DAY_MS),
            );
          },
        },
        {
          what: 'an item added',
          change: { items: [yearly, monthly(extra.id, 50)] },
          kept: async (customerId, version) => {
            const held = await granted(customerId, extra.id);
            t.check('PLAN-UPDATE-NEW-VERSION', () => expect(held, `the customer on version ${version} is not granted the item the next version added`).toBe(0));
          },
        },
        {
          what: 'an item removed',
          change: { items: [yearly] },
          kept: async (customerId, version) => {
            const held = await granted(customerId, extra.id);
            t.check('PLAN-UPDATE-NEW-VERSION', () => expect(held, `the customer on version ${version} keeps the item the next version removed`).toBe(50));
          },
        },
        // Last: the customer of each change is attached to the version before it, and from here on the plan has a price.
        { what: 'a base price added', change: { price: { amount: 10, interval: 'month' } } },
      ];
      await expectEachChangeVersions(t, await createPlan(t, { group: t.ns.id('grp'), items: [monthly(units.id, 100)] }), changes);
    },
  ),
  scenario(
    {
      id: 'plans.every-price-change-versions',
      title: "each change of a paid plan's prices (the base price's amount, an item price's amount, a price added to an item) and a free trial added makes the next version; the version before reads as it was",
      rules: ['VER-PLAN-VERSION-INCREASES', 'PLAN-GET-VERSION'],
      // A customer on each version before its change: every version has a price.
      needs: ['paid-attach'],
    },
    async (t) => {
      const [calls, tokens] = [await createFeature(t, 'consumable'), await createFeature(t, 'consumable')];
      const usagePrice = (amount: number) => ({ amount, interval: 'month' as const, billing_method: 'usage_based' as const });
      const calledAt = (amount: number) => ({ ...monthly(calls.id, 10), price: usagePrice(amount) });
      const changes: ConfigurationChange[] = [
        { what: 'the amount of the base price', change: { price: { amount: 30, interval: 'month' } } },
        { what: 'the amount of an item price', change: { items: [calledAt(1), monthly(tokens.id, 5)] } },
        { what: 'a price added to an item', change: { items: [calledAt(1), { ...monthly(tokens.id, 5), price: usagePrice(0.25) }] } },
        { what: 'a free trial added', change: { free_trial: { duration_length: 7, duration_type: 'day', card_required: false } } },
      ];
      const first = await createPlan(t, { group: t.ns.id('grp'), price: { amount: 20, interval: 'month' }, items: [calledAt(0.5), monthly(tokens.id, 5)] });
      await expectEachChangeVersions(t, first, changes);
    },
  ),
  scenario(
    {
      id: 'plans.archived-through-new-version',
      title: 'an archived plan whose configuration then changes (a new version) still reads archived and cannot be attached to a new customer',
      rules: ['PLAN-ARCHIVED-NOT-ATTACHABLE', ...FLAG_RULES],
    },
    async (t) => {
      await checkFlagsShowPlans(t);
      const flagged = await createFlaggedPlan(t, { group: t.ns.id('grp') });
      const { plan } = flagged;
      // The nearest valid request: attaching the plan before it is archived; that customer on it also makes the change below a new version.
      await attach(t, (await createCustomer(t)).id, plan.id);
      const archived = await updatePlan(t, { plan_id: plan.id, archived: true });
      t.precondition('the update archived the plan', () => expect(archived.archived).toBe(true));
      const other = await createFeature(t, 'boolean');
      // interface.md does not say an archived plan can still be changed: a target may refuse it.
      const next = await updateUnlessRefused(t, plan.id, { items: [{ feature_id: flagged.flagId }, { feature_id: other.id }] });
      if (next === undefined) {
        t.notVerified('PLAN-ARCHIVED-NOT-ATTACHABLE', 'a configuration change of an archived plan, which the target refused');
        return;
      }
      t.precondition('the change made the next version', () => expect(next.version).toBe(plan.version + 1));
      const read = await readPlan(t, plan.id, next.version);
      t.check('PLAN-ARCHIVED-NOT-ATTACHABLE', () => {
        expect(next.archived, 'the update answers the new version archived').toBe(true);
        expect(read.archived, 'plans.get reads the new version archived').toBe(true);
      });
      const newcomer = await createCustomer(t);
      // billing.attach is the reference's call: what counts is what the documented balances.check shows after it, refused or not.
      await t.client.call('billing.attach', { customer_id: newcomer.id, plan_id: plan.id });
      const held = await holdsPlans(t, newcomer.id, [flagged]);
      t.check('PLAN-ARCHIVED-NOT-ATTACHABLE', () => expect(held, 'a new customer did not get the archived plan at its new version').toEqual([]));
    },
  ),
];
