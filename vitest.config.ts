import { defineConfig } from 'vitest/config';
import { conformanceProject } from './suites/conformance-project.ts';

// Reports (report.json, report.html, summary.md, junit.xml) come from conformance runs only
// (`npm run conformance`, suites/cli.ts); `npm test` writes none of them.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['spec/**/*.test.ts', 'fake-server/**/*.test.ts', 'fixtures/**/*.test.ts', 'suites/framework/**/*.test.ts', 'suites/meta/**/*.test.ts', 'suites/report/**/*.test.ts', 'suites/hostile/**/*.test.ts', 'scripts/**/*.test.ts'],
        },
      },
      { extends: true, test: conformanceProject },
    ],
  },
});
