/**
 * vitest global setup of the conformance project: decides the run's seed and target once, in the
 * main process. With no BASE_URL it boots the fake in-process on a loopback port; the scenarios
 * still speak real HTTP to it. A target given by BASE_URL goes through preflight first: a dead
 * target, a refused key or a refused version stops the run with one message. Then the target is
 * probed once for the whole run (capabilities, the deletes it serves; prepare.ts) and what the
 * probes made is cleaned up at once; every test file reads the outcome instead of probing again.
 */
import type { TestProject } from 'vitest/node';
import { createFakeServer } from '../fake-server/index.ts';
import { loadConfig } from './framework/config.ts';
import { preflight } from './framework/preflight.ts';
import { prepareRun } from './framework/prepare.ts';
import { setupRun } from './framework/run.ts';
import { tolerateStackTraceHook } from './framework/stack-traces.ts';
import { PREPARE } from './target-setup.ts';

export default async (project: TestProject) => {
  tolerateStackTraceHook();
  const checked = await preflight(loadConfig());
  if (!checked.ok) throw new Error(checked.message);
  return setupRun(project, { startFake: () => createFakeServer(), prepare: (run, config, workDir) => prepareRun(config, run, workDir, PREPARE) });
};
