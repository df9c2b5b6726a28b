import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { previewScenarios } from './preview/index.ts';

registerScenarios(previewScenarios, await conformanceTarget());
