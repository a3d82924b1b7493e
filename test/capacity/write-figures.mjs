#!/usr/bin/env node
/**
 * Regenerates test/capacity/figures.json: runs the capacity test (inside workerd, where it cannot write
 * files) and keeps the JSON it prints between CAPACITY-FIGURES-BEGIN and CAPACITY-FIGURES-END, with the
 * commit it measured. Then `node test/capacity/model.mjs` prints docs/capacity.md's tables from it.
 *
 *   WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false npm exec -- node test/capacity/write-figures.mjs
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const run = spawnSync('npm', ['exec', '--', 'vitest', 'run', 'test/capacity/capacity.test.ts'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
});
const output = `${run.stdout}\n${run.stderr}`;
// The whole run, kept (a failed assertion still prints the figures it measured).
writeFileSync(path.join(tmpdir(), 'capacity-last-run.log'), output);
const block = /CAPACITY-FIGURES-BEGIN\n([\s\S]*?)\nCAPACITY-FIGURES-END/.exec(output);
if (run.status !== 0 || !block) {
  process.stderr.write(`${output.slice(-4000)}\n(the whole run: ${path.join(tmpdir(), 'capacity-last-run.log')})\n`);
  throw new Error(`the capacity test failed (exit ${run.status}) or printed no figures`);
}
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  if (execFileSync('git', ['status', '--porcelain', '--', 'src', 'durable-objects', 'migrations', 'schemas'], { cwd: root, encoding: 'utf8' }).trim())
    commit += '+changes';
} catch {
  // Not a git checkout: the figures stand without a commit.
}
const figures = { commit, measured_at: new Date().toISOString(), ...JSON.parse(block[1]) };
const file = path.join(root, 'test/capacity/figures.json');
writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
console.log(`wrote ${path.relative(root, file)} (${figures.scenarios.length} scenarios, commit ${commit})`);
