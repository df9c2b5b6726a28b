import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { billingScenarios } from './billing.ts';

registerScenarios(billingScenarios, await conformanceTarget());
