import { registerScenarios } from '../framework/index.ts';
import { conformanceTarget } from '../support.ts';
import { referralsScenarios } from './referrals/index.ts';

registerScenarios(referralsScenarios, await conformanceTarget());
