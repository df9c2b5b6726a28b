/**
 * State files: a JSON snapshot of one tenant or of several, the tables of each tenant's store with
 * its clock and where its ID sequence stands. A snapshot is validated by `StateSnapshot` on load,
 * so a bad file is refused with the path of the first bad value and nothing is half-loaded.
 * Export → import → export gives the same bytes: rows keep their order, and the indexes are
 * rebuilt by the store's own insert methods.
 */
import { z } from 'zod';
import { Env, JsonObject } from '../spec/common.ts';
import { DUE_KINDS } from '../spec/control-plane.ts';
import { Feature } from '../spec/features.ts';
import { RecordStatus } from '../spec/listings.ts';
import { ItemPrice, Plan } from '../spec/plans.ts';
import { ReferralProgram, Reward } from '../spec/referrals.ts';
import {
  type AssignmentRow,
  type CustomerRow,
  type EntityRow,
  type GrantRow,
  type LockRow,
  type PoolRow,
  type ProcessorSubscriptionRow,
  type RecordRow,
  TenantStore,
  type UsageEventRow,
} from './store/tenant-store.ts';
import type { Tenant } from './tenants.ts';

export const STATE_FORMAT = 'besi-fake-state';

const Time = z.int();
const NullableTime = Time.nullable();
/** Units drawn from grants (an entity's allocation, a lock's deductions). */
const Deductions = z.array(z.strictObject({ grantId: z.string(), value: z.number() })).readonly();

// Each row schema is checked against the store's row type, so a field added to a row fails to compile until the state file knows it.
const CustomerRowSchema = z.strictObject({
  id: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  fingerprint: z.string().nullable(),
  metadata: JsonObject,
  createdAt: Time,
  processorCustomerId: z.string().nullable(),
  sendEmailReceipts: z.boolean(),
  billingControls: JsonObject,
}) satisfies z.ZodType<CustomerRow>;

const EntityRowSchema = z.strictObject({
  id: z.string(),
  customerId: z.string(),
  name: z.string().nullable(),
  featureId: z.string(),
  createdAt: Time,
  billingControls: JsonObject,
  allocation: Deductions,
}) satisfies z.ZodType<EntityRow>;

const RecordRowSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['subscription', 'purchase']),
  customerId: z.string(),
  entityId: z.string().nullable(),
  planId: z.string(),
  planVersion: z.int(),
  status: RecordStatus,
  pastDue: z.boolean(),
  canceledAt: NullableTime,
  expiresAt: NullableTime,
  trialEndsAt: NullableTime,
  startedAt: Time,
  currentPeriodStart: NullableTime,
  currentPeriodEnd: NullableTime,
  quantity: z.number(),
  createdAt: Time,
  processorSubscriptionId: z.string().nullable(),
  licensePoolId: z.string().nullable(),
}) satisfies z.ZodType<RecordRow>;

const GrantRowSchema = z.strictObject({
  id: z.string(),
  recordId: z.string(),
  customerId: z.string(),
  entityId: z.string().nullable(),
  featureId: z.string(),
  planId: z.string(),
  isFlag: z.boolean(),
  included: z.number(),
  prepaid: z.number(),
  usage: z.number(),
  unlimited: z.boolean(),
  reset: z.strictObject({ interval: z.string(), intervalCount: z.int() }).nullable(),
  nextResetAt: NullableTime,
  price: ItemPrice.nullable(),
  expiresAt: NullableTime,
  createdAt: Time,
}) satisfies z.ZodType<GrantRow>;

const PoolRowSchema = z.strictObject({
  id: z.string(),
  customerId: z.string(),
  parentRecordId: z.string(),
  parentPlanId: z.string(),
  licensePlanId: z.string(),
  included: z.number(),
  paidQuantity: z.number(),
}) satisfies z.ZodType<PoolRow>;

const AssignmentRowSchema = z.strictObject({
  id: z.string(),
  poolId: z.string(),
  customerId: z.string(),
  entityId: z.string(),
  licensePlanId: z.string(),
  startedAt: Time,
  endedAt: NullableTime,
}) satisfies z.ZodType<AssignmentRow>;

const ProcessorSubscriptionRowSchema = z.strictObject({
  id: z.string(),
  customerId: z.string(),
  entityId: z.string().nullable(),
  interval: z.string(),
  intervalCount: z.int(),
  currency: z.string(),
  anchor: Time,
  currentPeriodStart: Time,
  currentPeriodEnd: Time,
  recordIds: z.array(z.string()),
}) satisfies z.ZodType<ProcessorSubscriptionRow>;

const UsageEventRowSchema = z.strictObject({
  id: z.string(),
  customerId: z.string(),
  entityId: z.string().nullable(),
  featureId: z.string(),
  eventName: z.string().nullable(),
  value: z.number(),
  properties: JsonObject,
  timestamp: Time,
}) satisfies z.ZodType<UsageEventRow>;

const LockRowSchema = z.strictObject({
  lockId: z.string(),
  customerId: z.string(),
  entityId: z.string().nullable(),
  featureId: z.string(),
  value: z.number(),
  balanceFeatureId: z.string(),
  rate: z.number(),
  deductions: Deductions,
  properties: JsonObject,
  expiresAt: NullableTime,
}) satisfies z.ZodType<LockRow>;

const DueKindSchema = z.enum(DUE_KINDS);

/**
 * Every row a tenant's data points at exists, so a loaded snapshot cannot make a later request fail
 * inside the fake. Only references that the fake never breaks itself are checked (customers.delete
 * removes every row the customer owns; the other deletes refuse what a row still names).
 */
function checkReferences(tables: z.output<typeof TenantTablesShape>, ctx: z.RefinementCtx): void {
  const ids = <T>(rows: readonly T[], id: (row: T) => string) => new Set(rows.map(id));
  const customers = ids(tables.customers, (row) => row.id);
  const features = ids(tables.features, (row) => row.id);
  const plans = ids(tables.plans.flatMap((versions) => versions.map((plan) => `${plan.id}@${plan.version}`)), (key) => key);
  const records = ids(tables.records, (row) => row.id);
  const grants = ids(tables.grants, (row) => row.id);
  const pools = ids(tables.pools, (row) => row.id);
  const processorSubscriptions = ids(tables.processorSubscriptions, (row) => row.id);
  const rewards = ids(tables.rewards, (row) => row.id);
  const expect = (exists: boolean, path: (string | number)[], what: string) => {
    if (!exists) ctx.addIssue({ code: 'custom', path, message: `names ${what}, which the snapshot does not hold` });
  };
  tables.plans.forEach((versions, i) => versions.forEach((plan, j) => expect(plan.id === versions[0]!.id, ['plans', i, j, 'id'], `plan ${plan.id} among the versions of ${versions[0]!.id}`)));
  tables.entities.forEach((row, i) => {
    expect(customers.has(row.customerId), ['entities', i, 'customerId'], `customer ${row.customerId}`);
    expect(features.has(row.featureId), ['entities', i, 'featureId'], `feature ${row.featureId}`);
    row.allocation.forEach((part, j) => expect(grants.has(part.grantId), ['entities', i, 'allocation', j, 'grantId'], `grant ${part.grantId}`));
  });
  tables.records.forEach((row, i) => {
    expect(customers.has(row.customerId), ['records', i, 'customerId'], `customer ${row.customerId}`);
    expect(plans.has(`${row.planId}@${row.planVersion}`), ['records', i, 'planVersion'], `version ${row.planVersion} of plan ${row.planId}`);
    if (row.processorSubscriptionId !== null) expect(processorSubscriptions.has(row.processorSubscriptionId), ['records', i, 'processorSubscriptionId'], `processor subscription ${row.processorSubscriptionId}`);
    if (row.licensePoolId !== null) expect(pools.has(row.licensePoolId), ['records', i, 'licensePoolId'], `license pool ${row.licensePoolId}`);
  });
  tables.grants.forEach((row, i) => {
    expect(records.has(row.recordId), ['grants', i, 'recordId'], `record ${row.recordId}`);
    expect(customers.has(row.customerId), ['grants', i, 'customerId'], `customer ${row.customerId}`);
    expect(features.has(row.featureId), ['grants', i, 'featureId'], `feature ${row.featureId}`);
  });
  tables.pools.forEach((row, i) => {
    expect(customers.has(row.customerId), ['pools', i, 'customerId'], `customer ${row.customerId}`);
    expect(records.has(row.parentRecordId), ['pools', i, 'parentRecordId'], `record ${row.parentRecordId}`);
  });
  tables.assignments.forEach((row, i) => expect(pools.has(row.poolId), ['assignments', i, 'poolId'], `license pool ${row.poolId}`));
  tables.processorSubscriptions.forEach((row, i) => {
    expect(customers.has(row.customerId), ['processorSubscriptions', i, 'customerId'], `customer ${row.customerId}`);
    row.recordIds.forEach((id, j) => expect(records.has(id), ['processorSubscriptions', i, 'recordIds', j], `record ${id}`));
  });
  tables.referralPrograms.forEach((row, i) => expect(rewards.has(row.reward_id), ['referralPrograms', i, 'reward_id'], `reward ${row.reward_id}`));
  tables.events.forEach((row, i) => expect(customers.has(row.customerId), ['events', i, 'customerId'], `customer ${row.customerId}`));
  tables.locks.forEach((row, i) => {
    expect(customers.has(row.customerId), ['locks', i, 'customerId'], `customer ${row.customerId}`);
    row.deductions.forEach((part, j) => expect(grants.has(part.grantId), ['locks', i, 'deductions', j, 'grantId'], `grant ${part.grantId}`));
  });
}

const TenantTablesShape = z.strictObject({
  features: z.array(Feature),
  /** Every version of each plan, ascending by version. */
  plans: z.array(z.array(Plan).min(1)),
  customers: z.array(CustomerRowSchema),
  entities: z.array(EntityRowSchema),
  records: z.array(RecordRowSchema),
  grants: z.array(GrantRowSchema),
  pools: z.array(PoolRowSchema),
  assignments: z.array(AssignmentRowSchema),
  processorSubscriptions: z.array(ProcessorSubscriptionRowSchema),
  referralPrograms: z.array(ReferralProgram),
  rewards: z.array(Reward.shape.feature_grant),
  events: z.array(UsageEventRowSchema),
  locks: z.array(LockRowSchema),
  /** What falls due when, in the order it will run. */
  due: z.array(z.strictObject({ at: Time, kind: DueKindSchema, id: z.string() })),
});
const TenantTables = TenantTablesShape.superRefine(checkReferences);

export const TenantSnapshot = z.strictObject({
  org: z.string().min(1),
  env: Env,
  clock: z.strictObject({ now: Time, frozen: z.boolean() }),
  /** Where the tenant's ID sequence stands. */
  ids: z.int().min(0).max(2 ** 32 - 1),
  tables: TenantTables,
});
export type TenantSnapshot = z.infer<typeof TenantSnapshot>;

export const StateSnapshot = z.strictObject({
  format: z.literal(STATE_FORMAT),
  version: z.literal(1),
  tenants: z.array(TenantSnapshot),
});
export type StateSnapshot = z.infer<typeof StateSnapshot>;

/**
 * A copy with every object's keys in sorted order: a snapshot reads the same whatever order the
 * domain (or a loaded file) wrote a row's fields in, so export → import → export is byte-identical.
 * Export does not validate: what the fake holds is always exportable; import validates.
 */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  // Built with Object.fromEntries (own properties), so a user key such as `__proto__` stays a key.
  const fields = Object.keys(value)
    .sort()
    .map((key) => [key, (value as Record<string, unknown>)[key]] as const)
    .filter(([, field]) => field !== undefined);
  return Object.fromEntries(fields.map(([key, field]) => [key, canonical(field)]));
}

export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

/** Validates a parsed state file; the error names the path of each bad value (`tenants.0.tables.customers.3.createdAt`). */
export function parseSnapshot(value: unknown): StateSnapshot {
  const parsed = StateSnapshot.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`);
  throw new StateFileError(`not a valid state snapshot: ${problems.join('; ')}`);
}

export function snapshotTenant(tenant: Tenant): TenantSnapshot {
  const { store } = tenant;
  return {
    org: tenant.org,
    env: tenant.env,
    clock: tenant.clock.state(),
    ids: tenant.ids.state,
    tables: {
      features: [...store.features.values()],
      plans: [...store.plans.values()],
      customers: [...store.customers.values()],
      entities: [...store.entities.values()],
      records: [...store.records.values()],
      grants: [...store.grants.values()],
      pools: [...store.pools.values()],
      assignments: [...store.assignments.values()],
      processorSubscriptions: [...store.processorSubscriptions.values()],
      referralPrograms: [...store.referralPrograms.values()],
      rewards: [...store.rewards.values()],
      events: [...store.events],
      locks: [...store.locks.values()],
      due: store.due.entries().map(({ at, kind, id }) => ({ at, kind, id })),
    },
  };
}

/** A fresh store holding a snapshot's tables (copies: the snapshot stays untouched), its indexes rebuilt. */
function storeOf(snapshot: TenantSnapshot): TenantStore {
  const store = new TenantStore(snapshot.org, snapshot.env);
  const copy = structuredClone(snapshot.tables);
  for (const feature of copy.features) store.features.set(feature.id, feature);
  for (const versions of copy.plans) store.plans.set(versions[0]!.id, versions);
  for (const row of copy.customers) store.customers.set(row.id, row);
  for (const row of copy.entities) store.insertEntity(row);
  for (const row of copy.records) store.insertRecord(row);
  for (const row of copy.grants) store.insertGrant(row);
  for (const row of copy.pools) store.insertPool(row);
  for (const row of copy.assignments) store.insertAssignment(row);
  for (const row of copy.processorSubscriptions) store.insertProcessorSubscription(row);
  for (const program of copy.referralPrograms) store.referralPrograms.set(program.id, program);
  for (const reward of copy.rewards) store.rewards.set(reward.id, reward);
  store.events.push(...copy.events);
  for (const row of copy.locks) store.locks.set(row.lockId, row);
  for (const entry of copy.due) store.due.schedule(entry.at, entry.kind, entry.id);
  return store;
}

/** Puts a tenant into a snapshot's state: its data, its clock (backwards too), its ID sequence. */
export function restoreTenant(tenant: Tenant, snapshot: TenantSnapshot): void {
  tenant.replaceStore(storeOf(snapshot));
  tenant.clock.restore(snapshot.clock);
  tenant.ids.restore(snapshot.ids);
}
