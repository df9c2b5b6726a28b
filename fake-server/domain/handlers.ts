/** The domain function behind each operation of the table. The router dispatches through this map. */
import { check, finalize, track } from './balances.ts';
import { attach } from './billing.ts';
import type { OperationHandlers } from './context.ts';
import { getCustomer, getOrCreateCustomer } from './customers.ts';
import { deleteCustomer, deleteFeature, deletePlan, deleteReferralProgram, deleteReward } from './deletes.ts';
import { createEntity, deleteEntity, getEntity, listEntities } from './entities.ts';
import { createFeature, getFeature, listFeatures } from './features.ts';
import { attachLicenses, listAssignments, listLicenses, releaseLicenses } from './licenses.ts';
import { listPurchases, listSubscriptions } from './listings.ts';
import { createPlan, getPlan, listPlans, updatePlan } from './plans.ts';
import { previewMultiUpdate } from './preview.ts';
import { createReferralProgram, createReward, getReferralProgram, updateReferralProgram } from './referrals.ts';

export const handlers: OperationHandlers = {
  'licenses.list': listLicenses,
  'licenses.attach': attachLicenses,
  'licenses.release': releaseLicenses,
  'licenses.list_assignments': listAssignments,
  'subscriptions.list': listSubscriptions,
  'purchases.list': listPurchases,
  'entities.list': listEntities,
  'entities.create': createEntity,
  'entities.get': getEntity,
  'entities.delete': deleteEntity,
  'billing.preview_multi_update': previewMultiUpdate,
  'billing.attach': attach,
  'plans.create': createPlan,
  'plans.get': getPlan,
  'plans.list': listPlans,
  'plans.update': updatePlan,
  'balances.check': check,
  'balances.track': track,
  'balances.finalize': finalize,
  'features.create': createFeature,
  'features.get': getFeature,
  'features.list': listFeatures,
  'referral_programs.update': updateReferralProgram,
  'referral_programs.create': createReferralProgram,
  'referral_programs.get': getReferralProgram,
  'rewards.create': createReward,
  'customers.get_or_create': getOrCreateCustomer,
  'customers.get': getCustomer,
  'customers.delete': deleteCustomer,
  'plans.delete': deletePlan,
  'features.delete': deleteFeature,
  'referral_programs.delete': deleteReferralProgram,
  'rewards.delete': deleteReward,
};
