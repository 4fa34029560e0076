import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src-main/**/*.test.ts', 'src-shared/**/*.test.ts', 'src-renderer/**/*.test.ts', 'sdk/typescript/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
