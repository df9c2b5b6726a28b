/** Every conformance scenario of the suite, for the meta-tests (rule coverage, can-fail, precision). */
import type { scenario } from '../support.ts';
import { balancesScenarios } from './balances.ts';
import { balancesMutantScenarios } from './balances-mutants.ts';
import { billingScenarios } from './billing.ts';
import { billingMutantScenarios } from './billing-mutants.ts';
import { customersScenarios } from './customers.ts';
import { customersMutantScenarios } from './customers-mutants.ts';
import { deletesScenarios } from './deletes/deletes.ts';
import { entitiesScenarios } from './entities.ts';
import { entitiesMutantScenarios } from './entities-mutants.ts';
import { envelopeScenarios } from './envelope.ts';
import { featuresScenarios } from './features.ts';
import { featuresMutantScenarios } from './features-mutants.ts';
import { licenseScenarios } from './licenses.ts';
import { lifecycleMutantScenarios } from './lifecycle-mutants.ts';
import { licensesGapScenarios } from './licenses-gaps.ts';
import { listingsScenarios } from './listings.ts';
import { listingsGapScenarios } from './listings-gaps.ts';
import { plansScenarios } from './plans.ts';
import { plansMutantScenarios } from './plans-mutants.ts';
import { previewScenarios } from './preview.ts';
import { previewMutantScenarios } from './preview-mutants.ts';
import { referralsScenarios } from './referrals.ts';
import { referralsMutantScenarios } from './referrals-mutants.ts';
import { storeQueueMutantScenarios } from './store-queue-mutants.ts';
import { subjectsMutantScenarios } from './subjects-mutants.ts';

type AnyScenario = ReturnType<typeof scenario>;

/** The scenarios of each file of suites/scenarios/, by file name. */
export const SCENARIOS_BY_FILE = {
  envelope: envelopeScenarios,
  licenses: licenseScenarios,
  'licenses-gaps': licensesGapScenarios,
  customers: customersScenarios,
  billing: billingScenarios,
  listings: listingsScenarios,
  'listings-gaps': listingsGapScenarios,
  entities: entitiesScenarios,
  balances: balancesScenarios,
  plans: plansScenarios,
  features: featuresScenarios,
  preview: previewScenarios,
  referrals: referralsScenarios,
  deletes: deletesScenarios,
  'balances-mutants': balancesMutantScenarios,
  'entities-mutants': entitiesMutantScenarios,
  'billing-mutants': billingMutantScenarios,
  'lifecycle-mutants': lifecycleMutantScenarios,
  'customers-mutants': customersMutantScenarios,
  'referrals-mutants': referralsMutantScenarios,
  'plans-mutants': plansMutantScenarios,
  'preview-mutants': previewMutantScenarios,
  'features-mutants': featuresMutantScenarios,
  'subjects-mutants': subjectsMutantScenarios,
  'store-queue-mutants': storeQueueMutantScenarios,
} as const satisfies Record<string, readonly AnyScenario[]>;

export type ScenarioFile = keyof typeof SCENARIOS_BY_FILE;

export const SCENARIOS: readonly AnyScenario[] = Object.values(SCENARIOS_BY_FILE).flat();
