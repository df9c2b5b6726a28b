import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { featuresMutantScenarios } from './features-mutants.ts';

registerScenarios(featuresMutantScenarios, await conformanceTarget());
