import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { entitiesMutantScenarios } from './entities-mutants.ts';

registerScenarios(entitiesMutantScenarios, await conformanceTarget());
