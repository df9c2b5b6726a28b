import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { licenseScenarios } from './licenses.ts';

registerScenarios(licenseScenarios, await conformanceTarget());
