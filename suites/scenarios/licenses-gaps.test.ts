import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { licensesGapScenarios } from './licenses-gaps.ts';

registerScenarios(licensesGapScenarios, await conformanceTarget());
