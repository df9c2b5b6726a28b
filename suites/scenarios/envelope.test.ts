import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { envelopeScenarios } from './envelope/index.ts';

registerScenarios(envelopeScenarios, await conformanceTarget());
