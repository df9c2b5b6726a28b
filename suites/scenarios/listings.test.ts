import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { listingsScenarios } from './listings/index.ts';

registerScenarios(listingsScenarios, await conformanceTarget());
