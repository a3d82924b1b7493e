import type { Env as WorkerEnv } from '../src/env';

// The Worker's bindings (src/env.ts) plus the test-only ones of vitest.config.ts; `mainModule` is
// declared by worker-configuration.d.ts.
declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
    }
  }
}
