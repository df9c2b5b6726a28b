/**
 * Scenarios of plan versions: a configuration change makes a new active version while customers
 * keep theirs, a description changes in place, metadata is shared across versions, and plans.list
 * shows the active version of each plan.
 */
import { expect } from 'vitest';
import type { Plan } from '../../../spec/plans.ts';
import { attach, createCustomer, createFeature, createPlan, readBalance, scenario } from '../../support.ts';
import { getPlan, heldPlanIds, monthly, readPlan, requirePlanField, updatePlan } from './support.ts';

export const versionsScenarios = [
  scenario(
    {
      id: 'plans.update-new-version',
      title: 'a configuration change of a plan customers are on makes version n+1 (slug v{n+1}), which plans.get returns by default; old versions stay retrievable and customers stay on theirs',
      rules: ['PLAN-UPDATE-NEW-VERSION', 'VER-PLAN-VERSION-INCREASES', 'PLAN-GET-VERSION', 'PLAN-GET-DEFAULT-ACTIVE', 'PLAN-SHAPE', 'VER-PLAN-SLUG-DEFAULT'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const v1 = await createPlan(t, { items: [monthly(feature.id, 100)] });
      const first = await createCustomer(t);
      await attach(t, first.id, v1.id);

      /** plans.update of the items (its subject here), checked as a new version after `previous`. */
      const changeItems = async (previous: Plan, included: number): Promise<Plan> => {
        const next = t.expectOk(await t.client.call('plans.update', { plan_id: v1.id, items: [monthly(feature.id, included)] }), 'PLAN-UPDATE-NEW-VERSION');
        t.check('VER-PLAN-VERSION-INCREASES', () => expect(next, 'the update answers the next version').toMatchObject({ id: v1.id, version: previous.version + 1 }));
        t.check('PLAN-UPDATE-NEW-VERSION', () => expect((next.items ?? []).map((item) => item.included), 'the new version has the items sent').toEqual([included]));
        return next;
      };
      const v2 = await changeItems(v1, 200);
      const second = await createCustomer(t);
      await attach(t, second.id, v1.id);
      const v3 = await changeItems(v2, 300);

      const latest = await getPlan(t, 'PLAN-GET-DEFAULT-ACTIVE', v1.id);
      t.check('PLAN-GET-DEFAULT-ACTIVE', () => {
        expect(latest, 'plans.get without version returns the active (latest) version').toMatchObject({ version: v3.version });
        expect((latest.items ?? []).map((item) => item.included)).toEqual([300]);
      });

      const versions: Plan[] = [];
      for (const [plan, included] of [[v1, 100], [v2, 200], [v3, 300]] as const) {
        const got = await getPlan(t, 'PLAN-GET-VERSION', v1.id, plan.version);
        t.check('PLAN-GET-VERSION', () => {
          expect(got.version, `plans.get version ${plan.version} returns that version`).toBe(plan.version);
          expect((got.items ?? []).map((item) => item.included), `version ${plan.version} keeps its own items`).toEqual([included]);
        });
        versions.push(got);
      }

      const granted = [(await readBalance(t, first.id, feature.id))?.granted, (await readBalance(t, second.id, feature.id))?.granted];
      const held = await heldPlanIds(t, first.id);
      t.check('PLAN-UPDATE-NEW-VERSION', () => {
        expect(granted, 'the first customer stays on version 1, the second on version 2').toEqual([100, 200]);
        expect(held, 'the first customer still holds the plan').toEqual([v1.id]);
      });
      const third = await createCustomer(t);
      await attach(t, third.id, v1.id);
      const newest = await readBalance(t, third.id, feature.id);
      t.check('PLAN-UPDATE-NEW-VERSION', () => expect(newest?.granted, 'a new attach gets the active version').toBe(300));
      // Last, and read only here: answers without version_slug FAIL this rule after the others were decided.
      t.check('VER-PLAN-SLUG-DEFAULT', () => {
        for (const plan of [v1, v2, v3]) expect(plan.version_slug, `version_slug in the ${plan === v1 ? 'create' : 'update'} answer of version ${plan.version}`).toBe(`v${plan.version}`);
        for (const plan of versions) expect(plan.version_slug, `version_slug in plans.get of version ${plan.version}`).toBe(`v${plan.version}`);
      });
    },
  ),
  scenario(
    {
      id: 'plans.one-active-version',
      title: 'of three versions of a plan (made by item changes while customers are on it), exactly one, the latest, is active: in the update answers and in plans.get of each version',
      rules: ['VER-PLAN-ONE-ACTIVE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const plan = await createPlan(t, { items: [monthly(feature.id, 100)] });
      const answers: Plan[] = [];
      for (const included of [200, 300]) {
        // A customer on the current version, so that the item change makes a new one (the documented route).
        await attach(t, (await createCustomer(t)).id, plan.id);
        answers.push(await updatePlan(t, { plan_id: plan.id, items: [monthly(feature.id, included)] }));
      }
      const versions = [...new Set([plan.version, ...answers.map((answer) => answer.version)])];
      const reads: Plan[] = [];
      for (const version of versions) reads.push(await readPlan(t, plan.id, version));
      // `active` is read only inside this rule's checks: a plan answered without it FAILs the rule.
      t.check('VER-PLAN-ONE-ACTIVE', () => {
        expect(answers.map((answer) => answer.active), 'each update answers the new version, the active one').toEqual([true, true]);
        expect(reads.filter((read) => read.active).map((read) => read.version), `of versions ${versions.join(', ')}, only the latest is active`).toEqual([versions.at(-1)]);
      });
    },
  ),
  scenario(
    {
      id: 'plans.update-description-in-place',
      title: "plans.update of a plan's description changes it in place: same version, the new description reads back, and the plan's free trial is kept",
      rules: ['PLAN-UPDATE-IN-PLACE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const created = await createPlan(t, {
        description: 'First description',
        price: { amount: 10, interval: 'month' },
        items: [{ feature_id: feature.id, included: 5, reset: { interval: 'month' } }],
        free_trial: { duration_length: 7, duration_type: 'day', card_required: false },
      });
      // That both read back from plans.create is PLAN-FREE-TRIAL-WIRE's and the plan shape's.
      t.precondition('the plan was created with its description and free trial', () => {
        expect(created.description).toBe('First description');
        expect(created.free_trial).toMatchObject({ duration_length: 7, duration_type: 'day' });
      });
      const updated = t.expectOk(await t.client.call('plans.update', { plan_id: created.id, description: 'Second description' }), 'PLAN-UPDATE-IN-PLACE');
      const got = t.expectOk(await t.client.call('plans.get', { plan_id: created.id }), 'PLAN-UPDATE-IN-PLACE');
      t.check('PLAN-UPDATE-IN-PLACE', () => {
        for (const [label, plan] of [['the update', updated], ['plans.get after it', got]] as const) {
          expect(plan.version, `${label}: the same version`).toBe(created.version);
          expect(plan.description, `${label}: the new description`).toBe('Second description');
          expect(plan.free_trial, `${label}: the free trial kept`).toMatchObject({ duration_length: 7, duration_type: 'day' });
        }
      });
    },
  ),
  scenario(
    {
      id: 'plans.metadata-shared',
      title: 'plan metadata is shared across all versions: set on the latest, it reads the same on every version',
      rules: ['VER-PLAN-VERSION-INCREASES', 'PLAN-METADATA-SHARED'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const v1 = await createPlan(t, { items: [monthly(feature.id, 10)], metadata: { stage: 'one' } });
      const customer = await createCustomer(t);
      await attach(t, customer.id, v1.id);
      const v2 = await updatePlan(t, { plan_id: v1.id, items: [monthly(feature.id, 20)] });
      // Two versions to share the metadata: a check of the rule that makes them, which this one then rests on.
      t.check('VER-PLAN-VERSION-INCREASES', () => expect(v2.version, 'an item change of a plan a customer is on makes the next version').toBe(v1.version + 1));
      // Metadata is sent under a wire name the document does not show: the target must read it.
      await requirePlanField(t, 'plans.create.metadata', {}, { metadata: { stage: 'probe' } }, (plan) => plan.metadata ?? null);
      await updatePlan(t, { plan_id: v1.id, metadata: { stage: 'two', shared: true } });
      for (const version of [v1.version, v2.version]) {
        const got = await readPlan(t, v1.id, version);
        t.check('PLAN-METADATA-SHARED', () => expect(got.metadata, `version ${version} reads the metadata set last`).toEqual({ stage: 'two', shared: true }));
      }
    },
  ),
  scenario(
    {
      id: 'plans.list',
      title: 'plans.list answers {list: [Plan]} with the active version of each plan, once',
      rules: ['PLAN-LIST', 'PLAN-LIST-SHAPE'],
    },
    async (t) => {
      const feature = await createFeature(t, 'consumable');
      const versioned = await createPlan(t, { items: [monthly(feature.id, 10)] });
      const plain = await createPlan(t, { items: [monthly(feature.id, 5)] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, versioned.id);
      const v2 = await updatePlan(t, { plan_id: versioned.id, items: [monthly(feature.id, 20)] });
      const first = await readPlan(t, versioned.id, versioned.version);
      t.precondition('the item change made a new version, and plans.get answers the version asked for', () => expect([v2.version, first.version]).toEqual([versioned.version + 1, versioned.version]));

      const answer = t.expectOk(await t.client.call('plans.list', {}), 'PLAN-LIST');
      t.precondition('plans.list answered a list', () => expect(Array.isArray(answer.list)).toBe(true));
      const ours = answer.list.filter((plan) => plan.id === versioned.id || plan.id === plain.id);
      t.check('PLAN-LIST', () => {
        expect(ours.map((plan) => plan.id).sort(), 'each of our plans is listed exactly once').toEqual([versioned.id, plain.id].sort());
        // By its version and items, not `active`: that field is VER-PLAN-ONE-ACTIVE's (a target without it does not block this rule).
        expect(ours.find((plan) => plan.id === versioned.id)?.version, 'the updated plan is listed at its active version').toBe(v2.version);
        expect(ours.find((plan) => plan.id === versioned.id)?.items?.map((item) => item.included)).toEqual([20]);
        expect(ours.find((plan) => plan.id === plain.id)?.version, 'the other plan is listed at version 1').toBe(plain.version);
      });
    },
  ),
];
