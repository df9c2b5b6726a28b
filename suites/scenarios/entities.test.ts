import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { entitiesScenarios } from './entities.ts';

registerScenarios(entitiesScenarios, await conformanceTarget());
