/** Every conformance scenario of the suite, for the meta-tests (rule coverage, can-fail). */
import type { ErrorBody } from '../../spec/common.ts';
import type { Scenario } from '../framework/index.ts';
import type { Ops } from '../support.ts';
import { licenseScenarios } from './licenses.ts';

export const SCENARIOS: readonly Scenario<Ops, typeof ErrorBody>[] = [...licenseScenarios];
