/**
 * Every conformance scenario of the suite, by part of interface.md: one folder per part
 * (`<part>/index.ts` collects its modules) and one test file per part (`<part>.test.ts` registers
 * them). The meta-tests (rule coverage, can-fail, precision), the conformance CLI and the mutation
 * run read them from here.
 */
import type { scenario } from '../support.ts';
import { balancesScenarios } from './balances/index.ts';
import { billingScenarios } from './billing/index.ts';
import { customersScenarios } from './customers/index.ts';
import { entitiesScenarios } from './entities/index.ts';
import { envelopeScenarios } from './envelope/index.ts';
import { featuresScenarios } from './features/index.ts';
import { licensesScenarios } from './licenses/index.ts';
import { listingsScenarios } from './listings/index.ts';
import { plansScenarios } from './plans/index.ts';
import { previewScenarios } from './preview/index.ts';
import { referralsScenarios } from './referrals/index.ts';

type AnyScenario = ReturnType<typeof scenario>;

/** The scenarios of each part, by folder of suites/scenarios/ (the area `conformance list` and the progress lines name). */
export const SCENARIOS_BY_PART = {
  envelope: envelopeScenarios,
  licenses: licensesScenarios,
  customers: customersScenarios,
  billing: billingScenarios,
  listings: listingsScenarios,
  entities: entitiesScenarios,
  balances: balancesScenarios,
  plans: plansScenarios,
  features: featuresScenarios,
  preview: previewScenarios,
  referrals: referralsScenarios,
} as const satisfies Record<string, readonly AnyScenario[]>;

export type ScenarioPart = keyof typeof SCENARIOS_BY_PART;

/** Every scenario, with its area (its folder), which `--only` selects by. */
export const SCENARIOS: readonly (AnyScenario & { readonly area: ScenarioPart })[] = Object.entries(SCENARIOS_BY_PART).flatMap(([area, list]) =>
  list.map((s) => ({ ...s, area: area as ScenarioPart })),
);
