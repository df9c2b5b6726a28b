import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { licensesScenarios } from './licenses/index.ts';

registerScenarios(licensesScenarios, await conformanceTarget());
