import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { RULES } from './spec/rules/catalogue.ts';
import { ConformanceReporter } from './suites/framework/reporter.ts';

// The rule-keyed report covers the conformance project only; JUnit goes next to it (REPORT_DIR).
const conformanceReporter = new ConformanceReporter({ catalogue: RULES, projects: ['conformance'] });

export default defineConfig({
  test: {
    reporters: ['default', conformanceReporter, 'junit'],
    outputFile: { junit: join(conformanceReporter.reportDir, 'junit.xml') },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['spec/**/*.test.ts', 'fake-server/**/*.test.ts', 'fixtures/**/*.test.ts', 'suites/framework/**/*.test.ts', 'suites/meta/**/*.test.ts', 'suites/hostile/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'conformance',
          include: ['suites/scenarios/**/*.test.ts'],
          globalSetup: ['suites/global-setup.ts'],
          // One target, one clock: scenarios that move the fake's clock or change tenant-wide settings
          // must not interleave with others, so scenario files run one after another.
          fileParallelism: false,
        },
      },
    ],
  },
});
