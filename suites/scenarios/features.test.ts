import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { featuresScenarios } from './features.ts';

registerScenarios(featuresScenarios, await conformanceTarget());
