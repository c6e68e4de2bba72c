import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'generator/**/*.test.ts',
      'runtime/**/*.test.ts',
      'reference/**/*.test.ts',
      'scripts/**/*.test.ts',
      'conformance/**/*.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
