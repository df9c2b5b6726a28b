/**
 * The conformance suite for use inside another project's vitest: every scenario, and what registers
 * them against a target. A test file runs them all:
 *
 *   import { conformanceTarget, registerScenarios, SCENARIOS } from 'besi-conformance/suite';
 *   registerScenarios(SCENARIOS, await conformanceTarget());
 *
 * with `besi-conformance/suite/global-setup` as the project's globalSetup (it reads BASE_URL,
 * API_KEY, … as docs/vendors.md "Configuration" says, or boots the fake when no target is given).
 */
export { SCENARIOS } from './scenarios/index.ts';
export { conformanceTarget, scenario } from './support.ts';
export { loadConfig, registerScenarios, type ConformanceConfig, type Scenario } from './framework/index.ts';
