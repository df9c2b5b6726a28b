/**
 * License pools and assignments: licenses.attach, licenses.release and licenses.list, the pools a parent
 * plan offers, and the States rules about assignments.
 */
import { attachScenarios } from './attach.ts';
import { releaseScenarios } from './release.ts';
import { modelScenarios } from './model.ts';
import { poolsScenarios } from './pools.ts';
import { parentPlansScenarios } from './parent-plans.ts';
import { past100Scenarios } from './past-100.ts';

export const licensesScenarios = [...attachScenarios, ...releaseScenarios, ...modelScenarios, ...poolsScenarios, ...parentPlansScenarios, ...past100Scenarios];
