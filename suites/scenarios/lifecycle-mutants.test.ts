import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { lifecycleMutantScenarios } from './lifecycle-mutants.ts';

registerScenarios(lifecycleMutantScenarios, await conformanceTarget());
