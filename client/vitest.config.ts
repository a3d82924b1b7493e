import { defineConfig } from 'vitest/config';

// The client's own suite runs in Node (not in workerd like the root suite): it builds client/dist,
// starts the Worker once with `wrangler dev`, and drives Chromium for the browser tests.
export default defineConfig({
  root: import.meta.dirname,
  // The caches stay in the root node_modules, not in a client/node_modules of their own.
  cacheDir: '../node_modules/.vite/client',
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    fsModuleCachePath: '../node_modules/.vitest-cache/client',
    // One `wrangler dev` for the suite (each Worker-backed file makes its own project on it).
    globalSetup: ['./test/build-client.ts', './test/helpers/shared-worker.ts'],
    // One file at a time keeps the machine responsive.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // A page reloads through the Worker and its objects: on a busy 2-core machine that can take more than
    // expect.poll's default second (each poll still answers as soon as the page shows it).
    expect: { poll: { timeout: 15_000 } },
  },
});
