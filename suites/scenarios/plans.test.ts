import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { plansScenarios } from './plans/index.ts';

registerScenarios(plansScenarios, await conformanceTarget());
