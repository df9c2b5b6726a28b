import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { billingScenarios } from './billing/index.ts';

registerScenarios(billingScenarios, await conformanceTarget());
