import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { unstable_readConfig } from 'wrangler';

// The Worker's module aliases (wrangler.toml [alias]), so the code under test is the code deployed.
const { alias } = unstable_readConfig({ config: './wrangler.toml' });
const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'));

/**
 * Files that read whole stores or process-wide gauges, or leave background work that would land in the
 * next file's measurements: each gets a fresh runtime (vitest's default isolation).
 */
const ISOLATED = [
  'test/capacity/capacity.test.ts',
  'test/platform/**/*.test.ts',
  'test/actions/kept-answers.test.ts',
  'test/flood/flood.test.ts',
  // Counts the D1 queries and Durable Object calls of the whole process.
  'test/flood/made-up-ids.test.ts',
  // Watches the loopback server see a socket close: other files' open connections in the same runtime delay it.
  'src/outbound/fetch-streamed.test.ts',
];

const workers = cloudflareTest({
  wrangler: { configPath: './wrangler.toml' },
  miniflare: {
    // Test-only settings: the local identity issuer, loopback destinations, fixed secrets.
    bindings: {
      TEST_MIGRATIONS: migrations,
      DEV_IDENTITY: 'true',
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      // Shortens the 10-second outbound call limit so the timeout tests stay quick (src/outbound/fetch.ts).
      OUTBOUND_CALL_MS: '2000',
      // Shortens the 5-minute limit of a streamed answer so the endless-stream test stays quick.
      FORWARD_STREAM_MS: '10000',
      // Shortens the first step of the back-pressure backoff (1 s) so the retry tests stay quick (src/forward/resend.ts).
      FORWARD_BACKOFF_MS: '200',
      // Shortens the 1-minute step of a destination circuit's probe so the circuit tests stay quick (src/forward/destination-pause.ts).
      CIRCUIT_PROBE_MS: '300',
      OPERATOR_TOKEN: 'test-operator-token',
      SECRETS_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      // Strict limits: every invocation counted against Cloudflare's Paid-plan limits (docs/limits.md).
      SVC_STRICT_LIMITS: '1',
    },
  },
});

const ALL = ['test/**/*.test.ts', 'src/**/*.test.ts', 'schemas/**/*.test.ts', 'durable-objects/**/*.test.ts'];

export default defineConfig({
  resolve: { alias: Object.fromEntries(Object.entries(alias ?? {}).map(([name, file]) => [name, path.resolve(String(file))])) },
  test: {
    setupFiles: ['./test/apply-migrations.ts'],
    // A loopback HTTP server (Node side) that the outbound tests call; its origin is `inject('loopbackOrigin')`.
    // Deliveries signed by the providers' own (some Node-only) libraries: `inject('providerDeliveries')` for the
    // HMAC presets, `inject('extensionDeliveries')` for the URL, body-field and public-key ones.
    globalSetup: ['./test/loopback-server.ts', './test/signatures/provider-signers.ts', './test/signatures/extension-signers.ts'],
    testTimeout: 30_000,
    projects: [
      // Most files share a runtime per worker: a fresh workerd per file cost about 3 s of each file's 5
      // (docs/decisions.md, "Test isolation"). Every test makes its own project, so files do not see each other's data.
      { extends: true, plugins: [workers], test: { name: 'workers', include: ALL, exclude: ISOLATED, isolate: false } },
      { extends: true, plugins: [workers], test: { name: 'workers-isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
