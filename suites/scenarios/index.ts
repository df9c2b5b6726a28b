/** Every conformance scenario of the suite, for the meta-tests (rule coverage, can-fail). */
import type { scenario } from '../support.ts';
import { balancesScenarios } from './balances.ts';
import { billingScenarios } from './billing.ts';
import { customersScenarios } from './customers.ts';
import { entitiesScenarios } from './entities.ts';
import { envelopeScenarios } from './envelope.ts';
import { featuresScenarios } from './features.ts';
import { licenseScenarios } from './licenses.ts';
import { listingsScenarios } from './listings.ts';
import { plansScenarios } from './plans.ts';
import { previewScenarios } from './preview.ts';
import { referralsScenarios } from './referrals.ts';

export const SCENARIOS: readonly ReturnType<typeof scenario>[] = [
  ...envelopeScenarios,
  ...licenseScenarios,
  ...customersScenarios,
  ...billingScenarios,
  ...listingsScenarios,
  ...entitiesScenarios,
  ...balancesScenarios,
  ...plansScenarios,
  ...featuresScenarios,
  ...previewScenarios,
  ...referralsScenarios,
];
