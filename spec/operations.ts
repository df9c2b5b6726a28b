/**
 * The operation table: one entry per `POST /v1/<resource>.<action>`. The fake's router and the
 * suite's client are both built from it; no path or shape is written anywhere else.
 */
import * as balances from './balances.ts';
import * as billing from './billing.ts';
import { PLAN_DOCUMENTED_SPELLINGS, PREVIEW_DOCUMENTED_SPELLINGS, Success } from './common.ts';
import * as customers from './customers.ts';
import * as entities from './entities.ts';
import * as features from './features.ts';
import * as licenses from './licenses.ts';
import * as listings from './listings.ts';
import { defineOperation, type OperationDef } from './operation.ts';
import * as plans from './plans.ts';
import * as preview from './preview.ts';
import * as referrals from './referrals.ts';

export const operations = {
  // ── The twelve documented operations ────────────────────────────────────────
  'licenses.list': defineOperation({
    name: 'licenses.list', part: 'licenses', provenance: 'documented', mutates: false,
    summary: "Lists a customer's license pools and available seats.",
    request: licenses.LicensesListRequest, response: licenses.LicensesListResponse, shapeRule: 'LIC-LIST-SHAPE',
  }),
  'licenses.attach': defineOperation({
    name: 'licenses.attach', part: 'licenses', provenance: 'documented', mutates: true,
    summary: 'Assigns licenses to one or more entities.',
    request: licenses.LicensesAttachRequest, response: Success, shapeRule: 'LIC-ATTACH-SHAPE',
  }),
  'licenses.release': defineOperation({
    name: 'licenses.release', part: 'licenses', provenance: 'documented', mutates: true,
    summary: 'Releases licenses assigned to one or more entities.',
    request: licenses.LicensesReleaseRequest, response: Success, shapeRule: 'LIC-RELEASE-SHAPE',
  }),
  'subscriptions.list': defineOperation({
    name: 'subscriptions.list', part: 'listings', provenance: 'documented', mutates: false,
    summary: 'Lists recurring plans (including add-ons) across customers, live or expired.',
    request: listings.RecordListRequest, response: listings.SubscriptionsListResponse, shapeRule: 'LIST-SUBSCRIPTION-SHAPE',
  }),
  'purchases.list': defineOperation({
    name: 'purchases.list', part: 'listings', provenance: 'documented', mutates: false,
    summary: 'Lists one-off plan purchases across customers, live or expired.',
    request: listings.RecordListRequest, response: listings.PurchasesListResponse, shapeRule: 'LIST-PURCHASE-SHAPE',
  }),
  'entities.list': defineOperation({
    name: 'entities.list', part: 'entities', provenance: 'documented', mutates: false,
    summary: 'Lists entities across the organization with pagination and optional filters.',
    request: entities.EntitiesListRequest, response: entities.EntitiesListResponse, shapeRule: 'ENT-LIST-SHAPE',
  }),
  'billing.preview_multi_update': defineOperation({
    name: 'billing.preview_multi_update', part: 'preview', provenance: 'documented', mutates: false,
    summary: 'Previews the billing changes of a multi-plan update without making changes.',
    request: preview.PreviewMultiUpdateRequest, response: preview.PreviewMultiUpdateResult, shapeRule: 'PREV-RESULT-SHAPE',
    documentedSpellings: PREVIEW_DOCUMENTED_SPELLINGS,
  }),
  'plans.create': defineOperation({
    name: 'plans.create', part: 'plans', provenance: 'documented', mutates: true,
    summary: 'Creates a plan.',
    request: plans.PlansCreateRequest, response: plans.Plan, shapeRule: 'PLAN-SHAPE',
    documentedSpellings: PLAN_DOCUMENTED_SPELLINGS,
  }),
  'plans.get': defineOperation({
    name: 'plans.get', part: 'plans', provenance: 'documented', mutates: false,
    summary: 'Retrieves a single plan.',
    request: plans.PlansGetRequest, response: plans.Plan, shapeRule: 'PLAN-SHAPE',
    documentedSpellings: PLAN_DOCUMENTED_SPELLINGS,
  }),
  'balances.check': defineOperation({
    name: 'balances.check', part: 'balances', provenance: 'documented',
    // A plain check only reads; with send_event it records usage, with a lock it reserves units.
    mutates: (body) => body.send_event === true || body.lock !== undefined,
    summary: 'Checks whether a customer currently has enough balance to use a feature.',
    request: balances.BalancesCheckRequest, response: balances.BalancesCheckResult, shapeRule: 'CHECK-RESULT-SHAPE',
  }),
  'features.create': defineOperation({
    name: 'features.create', part: 'features', provenance: 'documented', mutates: true,
    summary: 'Creates a feature.',
    request: features.FeaturesCreateRequest, response: features.Feature, shapeRule: 'FEAT-SHAPE',
  }),
  'referral_programs.update': defineOperation({
    name: 'referral_programs.update', part: 'referrals', provenance: 'documented', mutates: true,
    summary: 'Updates a referral program; omitted fields keep their current value.',
    request: referrals.ReferralProgramsUpdateRequest, response: referrals.ReferralProgram, shapeRule: 'REF-SHAPE',
  }),

  // ── Setup endpoints, shaped as in the reference ─────────────────────────────
  'customers.get_or_create': defineOperation({
    name: 'customers.get_or_create', part: 'customers', provenance: 'reference', mutates: true,
    summary: 'Returns the customer with this id, creating it (and attaching auto-enable plans) if it does not exist.',
    request: customers.CustomersGetOrCreateRequest, response: customers.Customer, shapeRule: 'CUS-SHAPE',
  }),
  'customers.get': defineOperation({
    name: 'customers.get', part: 'customers', provenance: 'reference', mutates: false,
    summary: 'Retrieves a customer with its subscriptions, purchases, licenses, balances and flags.',
    request: customers.CustomersGetRequest, response: customers.Customer, shapeRule: 'CUS-SHAPE',
  }),
  'entities.create': defineOperation({
    name: 'entities.create', part: 'entities', provenance: 'reference', mutates: true,
    summary: 'Creates an entity under a customer, tied to a non-consumable feature.',
    request: entities.EntitiesCreateRequest, response: entities.EntityDetail, shapeRule: 'ENT-DETAIL-SHAPE',
  }),
  'entities.get': defineOperation({
    name: 'entities.get', part: 'entities', provenance: 'reference', mutates: false,
    summary: 'Retrieves one entity with its own and inherited plans and balances.',
    request: entities.EntitiesGetRequest, response: entities.EntityDetail, shapeRule: 'ENT-DETAIL-SHAPE',
  }),
  'entities.delete': defineOperation({
    name: 'entities.delete', part: 'entities', provenance: 'reference', mutates: true,
    summary: 'Deletes an entity.',
    request: entities.EntitiesDeleteRequest, response: Success, shapeRule: 'ENT-DELETE-SHAPE',
  }),
  'billing.attach': defineOperation({
    name: 'billing.attach', part: 'billing', provenance: 'reference', mutates: true,
    summary: 'Attaches a plan to a customer or an entity.',
    request: billing.BillingAttachRequest, response: billing.BillingAttachResult, shapeRule: 'BILL-ATTACH-SHAPE',
  }),
  'balances.track': defineOperation({
    name: 'balances.track', part: 'balances', provenance: 'reference', mutates: true,
    summary: 'Records usage of a feature (or of the features an event name drives).',
    request: balances.BalancesTrackRequest, response: balances.BalancesTrackResult, shapeRule: 'BAL-TRACK-SHAPE',
  }),
  'balances.finalize': defineOperation({
    name: 'balances.finalize', part: 'balances', provenance: 'reference', mutates: true,
    summary: 'Confirms or releases units reserved by a lock.',
    request: balances.BalancesFinalizeRequest, response: balances.BalancesFinalizeResult, shapeRule: 'BAL-FINALIZE-SHAPE',
  }),
  'plans.list': defineOperation({
    name: 'plans.list', part: 'plans', provenance: 'reference', mutates: false,
    summary: 'Lists the active version of every plan.',
    request: plans.PlansListRequest, response: plans.PlansListResponse, shapeRule: 'PLAN-LIST-SHAPE',
    documentedSpellings: PLAN_DOCUMENTED_SPELLINGS,
  }),
  'plans.update': defineOperation({
    name: 'plans.update', part: 'plans', provenance: 'reference', mutates: true,
    summary: 'Updates a plan; a configuration change creates a new version.',
    request: plans.PlansUpdateRequest, response: plans.Plan, shapeRule: 'PLAN-SHAPE',
    documentedSpellings: PLAN_DOCUMENTED_SPELLINGS,
  }),
  'features.get': defineOperation({
    name: 'features.get', part: 'features', provenance: 'reference', mutates: false,
    summary: 'Retrieves a feature.',
    request: features.FeaturesGetRequest, response: features.Feature, shapeRule: 'FEAT-SHAPE',
  }),
  'features.list': defineOperation({
    name: 'features.list', part: 'features', provenance: 'reference', mutates: false,
    summary: 'Lists every feature.',
    request: features.FeaturesListRequest, response: features.FeaturesListResponse, shapeRule: 'FEAT-LIST-SHAPE',
  }),
  'referral_programs.create': defineOperation({
    name: 'referral_programs.create', part: 'referrals', provenance: 'reference', mutates: true,
    summary: 'Creates a referral program pointing at a reward.',
    request: referrals.ReferralProgramsCreateRequest, response: referrals.ReferralProgram, shapeRule: 'REF-SHAPE',
  }),
  'referral_programs.get': defineOperation({
    name: 'referral_programs.get', part: 'referrals', provenance: 'reference', mutates: false,
    summary: 'Retrieves a referral program.',
    request: referrals.ReferralProgramsGetRequest, response: referrals.ReferralProgram, shapeRule: 'REF-SHAPE',
  }),
  'rewards.create': defineOperation({
    name: 'rewards.create', part: 'referrals', provenance: 'reference', mutates: true,
    summary: 'Creates a feature-grant reward that referral programs can point at.',
    request: referrals.RewardsCreateRequest, response: referrals.Reward, shapeRule: 'REF-REWARD-SHAPE',
  }),
  // The reference's deletes: what a run's cleanup uses where the target serves them (dependents first: a
  // plan a customer holds, a feature a plan uses, a reward a program links are refused).
  'customers.delete': defineOperation({
    name: 'customers.delete', part: 'customers', provenance: 'reference', mutates: true,
    summary: 'Deletes a customer with its plans, entities and balances.',
    request: customers.CustomersDeleteRequest, response: Success, shapeRule: 'CUS-DELETE-SHAPE',
  }),
  'plans.delete': defineOperation({
    name: 'plans.delete', part: 'plans', provenance: 'reference', mutates: true,
    summary: 'Deletes the latest version of a plan (every version with all_versions) that no customer holds or held.',
    request: plans.PlansDeleteRequest, response: Success, shapeRule: 'PLAN-DELETE-SHAPE',
  }),
  'features.delete': defineOperation({
    name: 'features.delete', part: 'features', provenance: 'reference', mutates: true,
    summary: 'Deletes a feature that no plan and no credit system uses.',
    request: features.FeaturesDeleteRequest, response: Success, shapeRule: 'FEAT-DELETE-SHAPE',
  }),
  'referral_programs.delete': defineOperation({
    name: 'referral_programs.delete', part: 'referrals', provenance: 'reference', mutates: true,
    summary: 'Deletes a referral program.',
    request: referrals.ReferralProgramsDeleteRequest, response: Success, shapeRule: 'REF-DELETE-SHAPE',
  }),
  'rewards.delete': defineOperation({
    name: 'rewards.delete', part: 'referrals', provenance: 'reference', mutates: true,
    summary: 'Deletes a reward that no referral program links.',
    request: referrals.RewardsDeleteRequest, response: Success, shapeRule: 'REF-DELETE-SHAPE',
  }),
  'licenses.list_assignments': defineOperation({
    name: 'licenses.list_assignments', part: 'licenses', provenance: 'reference', mutates: false,
    summary: "Lists a customer's license assignments.",
    request: licenses.LicensesListAssignmentsRequest, response: licenses.LicensesListAssignmentsResponse, shapeRule: 'LIC-ASSIGNMENTS-SHAPE',
  }),
} as const satisfies Record<string, OperationDef>;

export type Operations = typeof operations;
export type OperationName = keyof Operations;

export const OPERATION_NAMES = Object.keys(operations) as OperationName[];

/** Finds the operation a path names, or undefined. */
export function operationForPath(path: string): Operations[OperationName] | undefined {
  if (!path.startsWith('/v1/')) return undefined;
  const name = path.slice('/v1/'.length);
  return Object.hasOwn(operations, name) ? operations[name as OperationName] : undefined;
}
