import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { entitiesScenarios } from './entities/index.ts';

registerScenarios(entitiesScenarios, await conformanceTarget());
