import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { storeQueueMutantScenarios } from './store-queue-mutants.ts';

registerScenarios(storeQueueMutantScenarios, await conformanceTarget());
