import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { previewMutantScenarios } from './preview-mutants.ts';

registerScenarios(previewMutantScenarios, await conformanceTarget());
