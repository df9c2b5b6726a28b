import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One fake for the whole run (recipe 2); every test file makes a tenant of its own on it.
    globalSetup: ['./global-setup.ts'],
    // Files run side by side, sharing that fake.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
