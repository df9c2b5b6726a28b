import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { subjectsMutantScenarios } from './subjects-mutants.ts';

registerScenarios(subjectsMutantScenarios, await conformanceTarget());
