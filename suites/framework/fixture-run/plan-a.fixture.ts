// For discovery.test.ts: the first of two scenario files run in one worker.
import { registerScenarios } from '../scenario.ts';
import { logged, planTarget } from './plan-target.ts';

registerScenarios([logged('a1'), logged('a2'), logged('a3')], await planTarget());
