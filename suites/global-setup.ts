/**
 * vitest global setup of the conformance project: decides the run's seed and target once, in the
 * main process. With no BASE_URL it boots the fake in-process on a loopback port; the scenarios
 * still speak real HTTP to it.
 */
import type { TestProject } from 'vitest/node';
import { createFakeServer } from '../fake-server/index.ts';
import { setupRun } from './framework/run.ts';

export default (project: TestProject) => setupRun(project, { startFake: () => createFakeServer() });
