// Recipe 2, part 1: start one fake for the whole test run (vitest's main process) and hand its URL and key to the test files.
import { createFakeServer } from 'besi-conformance';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  interface ProvidedContext {
    fakeUrl: string;
    fakeKey: string;
  }
}

export default async function setup(project: TestProject) {
  // Frozen clocks: time moves only when a test moves its tenant's clock.
  const fake = await createFakeServer({ port: 0, frozen: true });
  project.provide('fakeUrl', fake.url);
  project.provide('fakeKey', fake.apiKey);
  return () => fake.close();
}
