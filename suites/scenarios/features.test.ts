import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { featuresScenarios } from './features/index.ts';

registerScenarios(featuresScenarios, await conformanceTarget());
