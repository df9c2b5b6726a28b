/**
 * Scenarios of a plan's license links: the seats they offer once attached, plans.update replacing
 * the whole set, and links that are refused.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createFeature, createPlan, scenario } from '../../support.ts';
import { readPlan, updatePlan } from './support.ts';

export const licenseLinksScenarios = [
  scenario(
    {
      id: 'plans.license-links-offer',
      title: 'a plan created with licenses [{license_plan_id, included}] reads them back and, once attached, offers that many seats',
      rules: ['PLAN-LICENSE-LINKS-OFFER', 'PLAN-LICENSES-WIRE'],
    },
    async (t) => {
      // Built here rather than with createLicensePool, which requires the links this scenario proves.
      const flag = await createFeature(t, 'boolean');
      const licensePlan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const parentPlan = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: licensePlan.id, included: 3 }] });
      const customer = await createCustomer(t);
      await attach(t, customer.id, parentPlan.id);
      const setup = { customerId: customer.id, licensePlan, parentPlan };
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      const pool = list.find((p) => p.license_plan_id === setup.licensePlan.id && p.parent_plan_id === setup.parentPlan.id);
      t.check('PLAN-LICENSE-LINKS-OFFER', () => {
        expect(pool, 'the attached parent offers the license plan').toBeDefined();
        expect(pool!.granted === 3 || pool!.remaining === 3, `the pool offers 3 seats (granted ${pool!.granted}, remaining ${pool!.remaining})`).toBe(true);
      });
      const parent = await readPlan(t, setup.parentPlan.id);
      t.check('PLAN-LICENSES-WIRE', () =>
        expect(parent.licenses, 'the parent plan lists its license link').toEqual([
          { license_plan_id: setup.licensePlan.id, version: setup.licensePlan.version, included: 3, prepaid_only: true },
        ]),
      );
      const noSeats = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: setup.licensePlan.id }] });
      t.check('PLAN-LICENSES-WIRE', () => expect(noSeats.licenses?.map((link) => link.included), 'included defaults to 0').toEqual([0]));
    },
  ),
  scenario(
    {
      id: 'plans.license-links-replace',
      title: 'plans.update with licenses replaces the whole set of license links',
      rules: ['PLAN-LICENSE-LINKS-REPLACE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const l1 = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const l2 = await createPlan(t);
      const l3 = await createPlan(t);
      const parent = await createPlan(t, {
        group: t.ns.id('grp'),
        licenses: [
          { license_plan_id: l1.id, included: 2 },
          { license_plan_id: l2.id, included: 1 },
        ],
      });
      const updated = await updatePlan(t, {
        plan_id: parent.id,
        licenses: [
          { license_plan_id: l2.id, included: 5 },
          { license_plan_id: l3.id, included: 1 },
        ],
      });
      // The version the update answered, whether it made a new one or not (which plans.get returns without version is PLAN-GET-DEFAULT-ACTIVE's).
      const links = (await readPlan(t, parent.id, updated.version)).licenses ?? [];
      t.check('PLAN-LICENSE-LINKS-REPLACE', () =>
        expect(Object.fromEntries(links.map((link) => [link.license_plan_id, link.included])), 'only the links sent last remain, with their included seats').toEqual({ [l2.id]: 5, [l3.id]: 1 }),
      );

      const customer = await createCustomer(t);
      await attach(t, customer.id, parent.id);
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: customer.id }), ['list']);
      const offered = list.filter((pool) => pool.parent_plan_id === parent.id).map((pool) => pool.license_plan_id);
      t.check('PLAN-LICENSE-LINKS-REPLACE', () => expect(offered.sort(), 'the attached plan offers the replaced set').toEqual([l2.id, l3.id].sort()));
    },
  ),
  scenario(
    {
      id: 'plans.license-links-refused',
      title: 'license links naming the plan itself, one license plan twice, or an archived plan are refused; a link to a live plan is accepted',
      rules: ['PLAN-LICENSE-LINKS-VALID'],
    },
    async (t) => {
      const seat = await createFeature(t, 'allocated');
      const licensePlan = await createPlan(t, { items: [{ feature_id: seat.id, included: 1 }] });
      const archived = await createPlan(t, { items: [{ feature_id: seat.id, included: 1 }] });
      t.setup(await t.client.call('plans.update', { plan_id: archived.id, archived: true }));
      // The nearest valid request: one link to a live plan.
      const parent = await createPlan(t, { licenses: [{ license_plan_id: licensePlan.id, included: 2 }] });
      // Links are read at all (PLAN-LICENSE-LINKS-OFFER's, under the PLAN-LICENSES-WIRE name): else a refusal could not show.
      t.precondition('the parent plan offers the license plan', () => expect((parent.licenses ?? []).map((link) => link.license_plan_id)).toEqual([licensePlan.id]));
      const create = async (licenses: { license_plan_id: string; included: number }[]) => {
        const planId = t.ns.id('plan');
        return t.client.call('plans.create', { plan_id: planId, name: `Plan ${planId}`, licenses });
      };
      t.expectError(await create([{ license_plan_id: licensePlan.id, included: 2 }, { license_plan_id: licensePlan.id, included: 1 }]), { rule: 'PLAN-LICENSE-LINKS-VALID', status: 400 });
      t.expectError(await create([{ license_plan_id: archived.id, included: 2 }]), { rule: 'PLAN-LICENSE-LINKS-VALID', status: 400 });
      // The plan itself: through plans.update, where the plan already exists.
      t.expectError(await t.client.call('plans.update', { plan_id: parent.id, licenses: [{ license_plan_id: parent.id, included: 2 }] }), { rule: 'PLAN-LICENSE-LINKS-VALID', status: 400 });
    },
  ),
];
