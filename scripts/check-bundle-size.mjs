// Checks the size of the bundle `wrangler deploy --dry-run --outdir <dir>` wrote against Cloudflare's
// Worker size limit (docs/limits.md): 64 MiB uncompressed on every plan since September 2026, and the
// gzip size under the former Free-plan limit of 3 MiB, kept as the stricter budget.
// Usage: node scripts/check-bundle-size.mjs <outdir>
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const MAX_UNCOMPRESSED = 64 * 1024 * 1024;
const MAX_GZIP = 3 * 1024 * 1024;

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/check-bundle-size.mjs <wrangler --outdir>');
  process.exit(2);
}
// Source maps and wrangler's README are written beside the modules but not uploaded.
const files = readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && !/\.map$|^README\.md$/.test(entry.name))
  .map((entry) => readFileSync(path.join(entry.parentPath, entry.name)));
if (files.length === 0) {
  console.error(`no modules in ${dir}`);
  process.exit(2);
}
const raw = files.reduce((sum, file) => sum + file.length, 0);
// The upload is compressed as one stream, as wrangler measures it.
const gzip = gzipSync(Buffer.concat(files), { level: 6 }).length;
const kib = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`;
console.log(`bundle: ${kib(raw)} uncompressed (limit ${kib(MAX_UNCOMPRESSED)}), ${kib(gzip)} gzip (budget ${kib(MAX_GZIP)})`);
if (raw > MAX_UNCOMPRESSED || gzip > MAX_GZIP) {
  console.error('the Worker bundle is over its size limit');
  process.exit(1);
}
