/**
 * License pools and assignments: `licenses.list`, `licenses.attach`, `licenses.release`
 * (documented) and `licenses.list_assignments` (reference setup call).
 */
import { z } from 'zod';
import { ID_MAX_LENGTH, listOf, Timestamp } from './common.ts';
import { fromReference } from './meta.ts';

/** "License pool (item of `list` in `licenses.list`); all fields required". */
export const LicensePool = z
  .object({
    license_plan_id: z.string(),
    parent_plan_id: z.string(),
    license_plan_name: z.string(),
    granted: z.number(),
    usage: z.number(),
    remaining: z.number(),
    paid_quantity: z.number(),
  })
  .meta({ id: 'LicensePool' });
export type LicensePool = z.infer<typeof LicensePool>;

export const LicensesListRequest = z
  .object({ customer_id: z.string(), entity_id: z.string().optional() })
  .meta({ id: 'LicensesListRequest' });
export const LicensesListResponse = listOf(LicensePool).meta({ id: 'LicensesListResponse' });

export const LicenseAttachEntity = z.object({
  // At most ID_MAX_LENGTH (this project's bound): a missing entity is created under this ID.
  entity_id: z.string().max(ID_MAX_LENGTH),
  name: z.string(),
  // Not in interface.md: the reference creates an entity that does not exist yet when its feature is given.
  feature_id: fromReference(z.string().optional(), 'exchanges/064-licenses.attach-two-entities.json'),
});

export const LicensesAttachRequest = z
  .object({
    customer_id: z.string(),
    plan_id: z.string().meta({ description: 'The license plan' }),
    // interface.md sets no bound; the reference requires at least one entity.
    entities: z.array(LicenseAttachEntity).min(1),
  })
  .meta({ id: 'LicensesAttachRequest' });

export const LicensesReleaseRequest = z
  .object({
    customer_id: z.string(),
    license_plan_id: z.string(),
    // interface.md sets no bound; the reference requires at least one entity.
    entity_ids: z.array(z.string()).min(1),
  })
  .meta({ id: 'LicensesReleaseRequest' });

export const LicenseAssignment = fromReference(
  z.object({
    id: z.string(),
    entity_id: z.string(),
    license_plan_id: z.string(),
    started_at: Timestamp,
    ended_at: Timestamp.nullable(),
  }),
  'exchanges/077-licenses.list_assignments-active.json',
);

export const LicensesListAssignmentsRequest = fromReference(
  z.object({
    customer_id: z.string(),
    entity_id: z.string().optional(),
    plan_id: z.string().optional(),
    active: z.boolean().default(true),
  }),
  'observed-behaviour §4',
  'openapi-2.3.0 /v1/licenses.list_assignments',
);
export const LicensesListAssignmentsResponse = listOf(LicenseAssignment);
