import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { plansMutantScenarios } from './plans-mutants.ts';

registerScenarios(plansMutantScenarios, await conformanceTarget());
