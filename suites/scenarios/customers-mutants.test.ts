import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { customersMutantScenarios } from './customers-mutants.ts';

registerScenarios(customersMutantScenarios, await conformanceTarget());
