import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { customersScenarios } from './customers/index.ts';

registerScenarios(customersScenarios, await conformanceTarget());
