import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { balancesMutantScenarios } from './balances-mutants.ts';

registerScenarios(balancesMutantScenarios, await conformanceTarget());
