/**
 * Scenarios of licenses.release: the license leaves the entity and its seat returns to the pool; an
 * entity holding no license, or named twice, is refused and nothing is released.
 */
import { expect } from 'vitest';
import { createEntity, createLicensePool, licenseEntities, type LicenseSetup, scenario, type T } from '../../support.ts';
import { assignSeats, type AttachItem, expectPool, holders, licenseRecordsOf, pool, releaseLicenses, sorted, without } from './support.ts';

/** Setup: releases `entityIds` and requires, as a precondition, that their seats are back in the pool and they no longer hold the license. */
async function releaseSeats(t: T, setup: LicenseSetup, entityIds: readonly string[]): Promise<void> {
  const before = await pool(t, setup);
  t.setup(await releaseLicenses(t, setup, entityIds));
  const after = await pool(t, setup);
  const held = await holders(t, setup);
  t.precondition(`${entityIds.length} released entities gave their seats back and no longer hold the license`, () => {
    expect(after?.remaining).toBe((before?.remaining ?? Number.NaN) + entityIds.length);
    expect(held.filter((id) => entityIds.includes(id))).toEqual([]);
  });
}

export const releaseScenarios = [
  scenario(
    {
      id: 'licenses.release-ends-license',
      title: 'licenses.release takes the license from the entity and returns its seat to the pool; the entity itself stays',
      rules: ['STATE-LICENSE-ATTACH-RELEASE', 'LIC-RELEASE-FREES-SEAT', 'LIC-RELEASE-SHAPE', 'LIC-ASSIGNMENTS-LIST', 'LIC-POOL-USAGE', 'LIC-POOL-REMAINING'],
    },
    async (t) => {
      const setup = await createLicensePool(t, 3);
      const [a, b, c] = licenseEntities(t, setup, 3) as [AttachItem, AttachItem, AttachItem];
      await assignSeats(t, setup, [a, b, c]);
      const listed = async () =>
        t
          .expectOk(await t.client.call('licenses.list_assignments', { customer_id: setup.customerId, plan_id: setup.licensePlan.id }), 'LIC-ASSIGNMENTS-LIST')
          .list.map((assignment) => assignment.entity_id)
          .sort();

      const before = await licenseRecordsOf(t, setup, a.entity_id);
      t.precondition('an assigned entity holds the license plan', () => expect(before).toHaveLength(1));

      t.expectOk(await releaseLicenses(t, setup, [a.entity_id]), 'LIC-RELEASE-FREES-SEAT');
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage: 2, remaining: 1 }, 'the released seat is back in the pool');
      const after = await licenseRecordsOf(t, setup, a.entity_id);
      t.check('STATE-LICENSE-ATTACH-RELEASE', () => expect(after, 'a released entity no longer holds the license plan').toEqual([]));
      const remaining = await listed();
      t.check('LIC-ASSIGNMENTS-LIST', () => expect(remaining, 'list_assignments no longer shows the released entity').toEqual(sorted([b.entity_id, c.entity_id])));
      const other = await licenseRecordsOf(t, setup, b.entity_id);
      t.check('STATE-LICENSE-ATTACH-RELEASE', () => expect(other, 'the other entities keep their license').toHaveLength(1));

      // A batch release frees every seat of the batch.
      t.expectOk(await releaseLicenses(t, setup, [b.entity_id, c.entity_id]), 'LIC-RELEASE-FREES-SEAT');
      await expectPool(t, setup, 'LIC-RELEASE-FREES-SEAT', { usage: 0, remaining: 3 }, 'a batch release frees every seat');
      const none = await listed();
      t.check('LIC-ASSIGNMENTS-LIST', () => expect(none).toEqual([]));
    },
  ),
  scenario(
    {
      id: 'licenses.release-unassigned',
      title: 'licenses.release refuses an entity holding no license of the plan (never assigned, or released already) with 400 invalid_request, and releases nothing',
      rules: ['LIC-RELEASE-UNASSIGNED'],
    },
    async (t) => {
      const rule = 'LIC-RELEASE-UNASSIGNED';
      const setup = await createLicensePool(t, 3);
      const never = await createEntity(t, setup.customerId, setup.seatFeature.id);
      const [a, b] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];
      await assignSeats(t, setup, [a, b]);

      t.expectError(await releaseLicenses(t, setup, [never.id]), { status: 400, code: 'invalid_request', rule });
      t.expectError(await releaseLicenses(t, setup, [b.entity_id, never.id]), { status: 400, code: 'invalid_request', rule });
      await expectPool(t, setup, rule, { usage: 2, remaining: 1 }, 'a refused release frees nothing, not even its assigned entities');

      // The nearest valid release is accepted; releasing the same entity again is refused.
      await releaseSeats(t, setup, [a.entity_id]);
      t.expectError(await releaseLicenses(t, setup, [a.entity_id]), { status: 400, code: 'invalid_request', rule });
      await expectPool(t, setup, rule, { usage: 1, remaining: 2 }, 'a second release of the same entity changes nothing');
      const assigned = await holders(t, setup);
      t.check(rule, () => expect(assigned).toEqual([b.entity_id]));
    },
  ),
  scenario(
    {
      id: 'licenses.release-duplicate-ids',
      title: 'licenses.release refuses the same entity twice with 400 invalid_request and releases nothing',
      rules: ['LIC-RELEASE-DUPLICATE-IDS'],
    },
    async (t) => {
      const rule = 'LIC-RELEASE-DUPLICATE-IDS';
      const setup = await createLicensePool(t, 3);
      const [a, b] = licenseEntities(t, setup, 2) as [AttachItem, AttachItem];
      await assignSeats(t, setup, [a, b]);

      t.expectError(await releaseLicenses(t, setup, [a.entity_id, a.entity_id]), { status: 400, code: 'invalid_request', rule });
      t.expectError(await releaseLicenses(t, setup, [a.entity_id, b.entity_id, a.entity_id]), { status: 400, code: 'invalid_request', rule });
      await expectPool(t, setup, rule, { usage: 2, remaining: 1 }, 'nothing was released');
      const assigned = await holders(t, setup);
      t.check(rule, () => expect(assigned).toEqual(sorted([a.entity_id, b.entity_id])));
      // The nearest valid release, each entity once, is accepted.
      t.setup(await releaseLicenses(t, setup, [a.entity_id, b.entity_id]));
    },
  ),
  scenario(
    {
      id: 'licenses.release-required-fields',
      title: 'licenses.release without customer_id, license_plan_id or entity_ids is refused with an error and releases nothing',
      rules: ['LIC-RELEASE-REQUIRED-FIELDS'],
    },
    async (t) => {
      const rule = 'LIC-RELEASE-REQUIRED-FIELDS';
      const setup = await createLicensePool(t, 2);
      const [item] = licenseEntities(t, setup, 1) as [AttachItem];
      await assignSeats(t, setup, [item]);
      const body = { customer_id: setup.customerId, license_plan_id: setup.licensePlan.id, entity_ids: [item.entity_id] };
      for (const field of ['customer_id', 'license_plan_id', 'entity_ids'] as const) {
        t.expectError(await t.client.call('licenses.release', without(body, field)), { rule });
        await expectPool(t, setup, rule, { usage: 1, remaining: 1 }, `a body without ${field} releases nothing`);
      }
      const assigned = await holders(t, setup);
      t.check(rule, () => expect(assigned).toEqual([item.entity_id]));
      // The positive control: the whole body is accepted.
      t.setup(await t.client.call('licenses.release', body));
    },
  ),
];
