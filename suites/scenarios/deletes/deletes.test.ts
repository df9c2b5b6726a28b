import { registerScenarios } from '../../framework/index.ts';
import { conformanceTarget } from '../../support.ts';
import { deletesScenarios } from './deletes.ts';

registerScenarios(deletesScenarios, await conformanceTarget());
