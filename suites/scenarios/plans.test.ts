import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { plansScenarios } from './plans.ts';

registerScenarios(plansScenarios, await conformanceTarget());
