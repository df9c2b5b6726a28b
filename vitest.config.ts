import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/**/*.test.ts', 'fake-server/**/*.test.ts', 'suites/**/*.test.ts'],
  },
});
