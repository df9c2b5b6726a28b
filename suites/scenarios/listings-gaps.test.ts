import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { listingsGapScenarios } from './listings-gaps.ts';

registerScenarios(listingsGapScenarios, await conformanceTarget());
