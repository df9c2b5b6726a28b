import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { balancesScenarios } from './balances/index.ts';

registerScenarios(balancesScenarios, await conformanceTarget());
