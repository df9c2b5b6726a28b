import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { balancesScenarios } from './balances.ts';

registerScenarios(balancesScenarios, await conformanceTarget());
