// The vitest configuration of the mutation run only (stryker.config.mjs): the scenarios of
// scenarios.mutation.ts, without the conformance reporter or global setup (each test boots its own fake).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'mutation',
    root: new URL('../../..', import.meta.url).pathname,
    include: ['suites/meta/mutation/scenarios.mutation.ts'],
  },
});
