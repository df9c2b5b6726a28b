import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { previewScenarios } from './preview.ts';

registerScenarios(previewScenarios, await conformanceTarget());
