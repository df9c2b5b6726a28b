/** Conformance scenarios of license pools and assignments. */
import { expect } from 'vitest';
import { createLicensePool, licenseEntities, scenario, type LicenseSetup, type T } from '../support.ts';

async function pool(t: T, setup: LicenseSetup) {
  const { list } = t.expectOk(await t.client.call('licenses.list', { customer_id: setup.customerId }));
  const found = list.find((p) => p.license_plan_id === setup.licensePlan.id && p.parent_plan_id === setup.parentPlan.id);
  expect(found, `licenses.list shows the pool of ${setup.licensePlan.id} offered by ${setup.parentPlan.id}`).toBeDefined();
  return found!;
}

export const licenseScenarios = [
  scenario(
    {
      id: 'licenses.skip-on-reassign',
      title: 'licenses.attach skips entities that already hold the license, in mixed and all-assigned batches, and a released seat is consumed again on re-attach',
      rules: [
        'LIC-ATTACH-SKIP-ASSIGNED',
        'LIC-ATTACH-MIXED-BATCH',
        'LIC-ATTACH-ALL-ASSIGNED-OK',
        'STATE-SKIP-NO-EXTRA-LICENSE',
        'LIC-POOL-USAGE',
        'LIC-POOL-REMAINING',
        'LIC-RELEASE-FREES-SEAT',
        'STATE-LICENSE-ATTACH-RELEASE',
      ],
    },
    async (t) => {
      const setup = await createLicensePool(t, 5);
      const before = await pool(t, setup);
      expect(before).toMatchObject({ granted: 5, usage: 0, remaining: 5 });

      const [a, b, c, d] = licenseEntities(t, setup, 4);
      const attach = (entities: { entity_id: string; name: string; feature_id?: string }[]) =>
        t.client.call('licenses.attach', { customer_id: setup.customerId, plan_id: setup.licensePlan.id, entities });

      // Two new entities consume two seats.
      expect(t.expectOk(await attach([a!, b!]))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ granted: 5, usage: 2, remaining: 3 });

      // A mixed batch: a and b are skipped, only c and d are assigned.
      expect(t.expectOk(await attach([{ entity_id: a!.entity_id, name: a!.name }, c!, { entity_id: b!.entity_id, name: b!.name }, d!]))).toEqual({ success: true });
      expect(await pool(t, setup), 'a mixed batch moves usage by exactly its new entities').toMatchObject({ granted: 5, usage: 4, remaining: 1 });

      // A batch of only assigned entities succeeds and changes nothing, even with one seat left.
      const allAssigned = [a!, b!, c!, d!].map(({ entity_id, name }) => ({ entity_id, name }));
      expect(t.expectOk(await attach(allAssigned))).toEqual({ success: true });
      expect(await pool(t, setup), 'an all-assigned batch consumes nothing').toMatchObject({ usage: 4, remaining: 1 });
      // More assigned entities than seats left: still nothing to consume, so no capacity error.
      expect(t.expectOk(await attach(allAssigned.slice(0, 3)))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ usage: 4, remaining: 1 });

      // Releasing frees the seat; attaching the released entity again consumes one again.
      expect(t.expectOk(await t.client.call('licenses.release', { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [b!.entity_id] }))).toEqual({ success: true });
      expect(await pool(t, setup), 'a release frees exactly one seat').toMatchObject({ usage: 3, remaining: 2 });
      expect(t.expectOk(await attach([{ entity_id: b!.entity_id, name: b!.name }]))).toEqual({ success: true });
      expect(await pool(t, setup), 're-attaching a released entity consumes a seat again').toMatchObject({ usage: 4, remaining: 1 });
      // …and it is then skipped again.
      expect(t.expectOk(await attach([{ entity_id: b!.entity_id, name: b!.name }]))).toEqual({ success: true });
      expect(await pool(t, setup)).toMatchObject({ granted: 5, usage: 4, remaining: 1 });
    },
  ),
];
