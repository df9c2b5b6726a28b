import { configDefaults, defineConfig } from 'vitest/config';
import { conformanceProject, EXPLORATION_TEST } from './suites/conformance-project.ts';

// Reports (report.json, report.html, summary.md, junit.xml) come from conformance runs only
// (`npm run conformance`, suites/cli.ts); `npm test` writes none of them.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['spec/**/*.test.ts', 'fake-server/**/*.test.ts', 'fixtures/**/*.test.ts', 'suites/framework/**/*.test.ts', 'suites/meta/**/*.test.ts', 'suites/report/**/*.test.ts', 'suites/mutation/**/*.test.ts', 'suites/hostile/**/*.test.ts', 'suites/explore/**/*.test.ts'],
          // The exploration inside the conformance run is a conformance test, not a unit test.
          exclude: [...configDefaults.exclude, EXPLORATION_TEST],
        },
      },
      { extends: true, test: conformanceProject },
    ],
  },
});
