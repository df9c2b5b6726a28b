import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { referralsMutantScenarios } from './referrals-mutants.ts';

registerScenarios(referralsMutantScenarios, await conformanceTarget());
