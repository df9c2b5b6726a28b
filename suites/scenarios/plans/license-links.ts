/**
 * Scenarios of a plan's license links: the seats they offer once attached, plans.update replacing
 * the whole set, and links that are refused.
 */
import { expect } from 'vitest';
import { attach, createCustomer, createEntity, createFeature, createPlan, scenario } from '../../support.ts';
import { readPlan, requireLicenseLinksRead, updatePlan } from './support.ts';

export const licenseLinksScenarios = [
  scenario(
    {
      id: 'plans.license-links-offer',
      title: 'a plan created with license links to two plans reads them back and, once attached, offers each link\'s seats',
      rules: ['PLAN-LICENSE-LINKS-OFFER', 'PLAN-LICENSES-WIRE'],
    },
    async (t) => {
      // Built here rather than with createLicensePool, which requires the links this scenario proves.
      const flag = await createFeature(t, 'boolean');
      const licensePlan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      const secondLicensePlan = await createPlan(t, { items: [{ feature_id: flag.id }] });
      // The links are sent under a wire name the document does not show: the target must read it.
      await requireLicenseLinksRead(t, licensePlan.id);
      // Two links, several seats each: one pool per link.
      const parentPlan = await createPlan(t, {
        group: t.ns.id('grp'),
        licenses: [
          { license_plan_id: licensePlan.id, included: 3 },
          { license_plan_id: secondLicensePlan.id, included: 2 },
        ],
      });
      const customer = await createCustomer(t);
      await attach(t, customer.id, parentPlan.id);
      const setup = { customerId: customer.id, licensePlan, parentPlan };
      const { list } = t.setup(await t.client.call('licenses.list', { customer_id: setup.customerId }), ['list']);
      t.check('PLAN-LICENSE-LINKS-OFFER', () => {
        for (const [plan, seats] of [[licensePlan, 3], [secondLicensePlan, 2]] as const) {
          const pool = list.find((p) => p.license_plan_id === plan.id && p.parent_plan_id === parentPlan.id);
          expect(pool, `the attached parent offers ${plan.id}`).toBeDefined();
          expect(pool!.granted === seats || pool!.remaining === seats, `the pool of ${plan.id} offers ${seats} seats (granted ${pool!.granted}, remaining ${pool!.remaining})`).toBe(true);
        }
      });
      const parent = await readPlan(t, setup.parentPlan.id);
      t.check('PLAN-LICENSES-WIRE', () =>
        expect(parent.licenses, 'the parent plan lists its license links').toEqual([
          { license_plan_id: setup.licensePlan.id, version: setup.licensePlan.version, included: 3, prepaid_only: true },
          { license_plan_id: secondLicensePlan.id, version: secondLicensePlan.version, included: 2, prepaid_only: true },
        ]),
      );
      const noSeats = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: setup.licensePlan.id }] });
      t.check('PLAN-LICENSES-WIRE', () => expect(noSeats.licenses?.map((link) => link.included), 'included defaults to 0').toEqual([0]));
    },
  ),
  scenario(
    {
      id: 'plans.license-links-across-versions',
      title:
        "license links belong to a plan's version: after plans.update replaces them, a customer still on version 1 keeps version 1's pool, and a customer attached afterwards gets only the new version's",
      rules: ['PLAN-LICENSE-LINKS-OFFER', 'PLAN-UPDATE-NEW-VERSION', 'PLAN-LICENSE-LINKS-REPLACE'],
    },
    async (t) => {
      const flag = await createFeature(t, 'boolean');
      const seatFeature = await createFeature(t, 'allocated');
      const [first, second] = [await createPlan(t, { items: [{ feature_id: flag.id }] }), await createPlan(t, { items: [{ feature_id: flag.id }] })];
      await requireLicenseLinksRead(t, first.id);
      const parent = await createPlan(t, { group: t.ns.id('grp'), licenses: [{ license_plan_id: first.id, included: 2 }] });
      const pools = async (customerId: string) =>
        t.setup(await t.client.call('licenses.list', { customer_id: customerId }), ['list']).list.filter((pool) => pool.parent_plan_id === parent.id).map((pool) => [pool.license_plan_id, pool.granted]);
      const early = await createCustomer(t);
      await attach(t, early.id, parent.id);
      const before = await pools(early.id);
      t.check('PLAN-LICENSE-LINKS-OFFER', () => expect(before, 'version 1 offers 2 seats of its one license plan').toEqual([[first.id, 2]]));

      const updated = t.setup(await t.client.call('plans.update', { plan_id: parent.id, licenses: [{ license_plan_id: second.id, included: 3 }] }));
      t.precondition('new license links of a plan a customer is on make a new version', () => expect(updated.version).toBe(parent.version + 1));
      const earlyAfter = await pools(early.id);
      t.check('PLAN-UPDATE-NEW-VERSION', () => expect(earlyAfter, "the customer on version 1 keeps version 1's pool").toEqual([[first.id, 2]]));

      const late = await createCustomer(t);
      await attach(t, late.id, parent.id);
      const lateAfter = await pools(late.id);
      t.check('PLAN-LICENSE-LINKS-REPLACE', () => expect(lateAfter, 'a customer on the new version is offered the new link').toContainEqual([second.id, 3]));
      // And not the old one: assigning a seat of it is refused, the same seat of the new link is not.
      const seat = await createEntity(t, late.id, seatFeature.id);
      const assign = (planId: string) => t.client.call('licenses.attach', { customer_id: late.id, plan_id: planId, entities: [{ entity_id: seat.id, name: seat.name ?? seat.id }] });
      t.expectError(await assign(first.id), { rule: 'PLAN-LICENSE-LINKS-REPLACE' });
      t.setup(await assign(second.id));
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
      await requireLicenseLinksRead(t, l1.id);
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
      // Links are read at all (under the profile's wire name): else a refusal could not show.
      await requireLicenseLinksRead(t, licensePlan.id);
      // The nearest valid request: one link to a live plan.
      const parent = await createPlan(t, { licenses: [{ license_plan_id: licensePlan.id, included: 2 }] });
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
