import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'));

export default defineConfig({
  plugins: [
    cloudflareTest({
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
          OPERATOR_TOKEN: 'test-operator-token',
          SECRETS_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
          // Strict limits: every invocation counted against Cloudflare's Paid-plan limits (docs/limits.md).
          SVC_STRICT_LIMITS: '1',
        },
      },
    }),
  ],
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'schemas/**/*.test.ts', 'durable-objects/**/*.test.ts'],
    setupFiles: ['./test/apply-migrations.ts'],
    // A loopback HTTP server (Node side) that the outbound tests call; its origin is `inject('loopbackOrigin')`.
    // Deliveries signed by the providers' own (some Node-only) libraries: `inject('providerDeliveries')` for the
    // HMAC presets, `inject('extensionDeliveries')` for the URL, body-field and public-key ones.
    globalSetup: ['./test/loopback-server.ts', './test/signatures/provider-signers.ts', './test/signatures/extension-signers.ts'],
    testTimeout: 30_000,
  },
});
