// For discovery.test.ts: the second of two scenario files, one of whose scenarios runs alone.
import { registerScenarios } from '../scenario.ts';
import { logged, planTarget } from './plan-target.ts';

registerScenarios([logged('b1'), logged('b-alone', true), logged('b2'), logged('b3')], await planTarget());
