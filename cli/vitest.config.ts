import { defineConfig } from 'vitest/config';

// The CLI's suite runs in Node: it builds cli/dist/svc.mjs once, then runs the bundle as a real
// process, against `wrangler dev` for the end-to-end file.
export default defineConfig({
  root: import.meta.dirname,
  cacheDir: '../node_modules/.vite/cli',
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    fsModuleCachePath: '../node_modules/.vitest-cache/cli',
    globalSetup: ['./test/build-cli.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
