// `npm run lint:openapi`: lints the OpenAPI document the Worker serves (GET /openapi.json under
// `wrangler dev`) with Redocly's recommended rules, offline. Fails on any error, and on any warning
// that is not one of the known ones below, so a new route cannot bring a problem in unnoticed.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, startLocalWorker } from './local-worker.mjs';

const REDOCLY = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

/** Warnings the document keeps on purpose: rule, JSON pointer and why. */
const KNOWN_WARNINGS = [
  { rule: 'info-license', pointer: '#/info', why: 'a private service: there is no license to name' },
  { rule: 'operation-4xx-response', pointer: '#/paths/~1v1~1health/get/responses', why: 'never refuses: no parameter, body or credential' },
  { rule: 'operation-4xx-response', pointer: '#/paths/~1openapi.json/get/responses', why: 'never refuses: no parameter, body or credential' },
];

const isKnown = (problem) =>
  problem.severity === 'warn' && KNOWN_WARNINGS.some(({ rule, pointer }) => problem.ruleId === rule && problem.location.some((at) => at.pointer === pointer));

const dir = await mkdtemp(path.join(tmpdir(), 'svc-openapi-lint-'));
const worker = await startLocalWorker({ persistTo: path.join(dir, 'state'), timeoutMs: 120_000 });
let document;
try {
  const res = await fetch(`${worker.url}/openapi.json`);
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  document = await res.text();
} finally {
  await worker.stop();
}
const file = path.join(dir, 'openapi.json');
await writeFile(file, document);

const lint = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--format=json'], {
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
await rm(dir, { recursive: true, force: true });
if (lint.error || !lint.stdout.trim().startsWith('{')) {
  console.error(lint.error?.message ?? lint.stderr);
  process.exit(1);
}
const { totals, problems } = JSON.parse(lint.stdout);
for (const problem of problems) {
  const known = isKnown(problem) ? ' (known)' : '';
  console.log(`${problem.severity} ${problem.ruleId} ${problem.location.map((at) => at.pointer).join(' ')}: ${problem.message}${known}`);
}
const unexpected = problems.filter((problem) => !isKnown(problem));
console.log(`openapi lint: ${totals.errors} errors, ${totals.warnings} warnings, ${unexpected.length} not known`);
process.exit(unexpected.length === 0 ? 0 : 1);
