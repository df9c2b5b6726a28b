import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { billingMutantScenarios } from './billing-mutants.ts';

registerScenarios(billingMutantScenarios, await conformanceTarget());
