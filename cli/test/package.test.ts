import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = path.join(import.meta.dirname, '..');
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-cli-pack-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed CLI', () => {
  it('npm pack makes a tarball of the bin and the bundle only, which installs on its own and runs svc', async () => {
    npm(['pack', '--pack-destination', dir], CLI);
    const [tarball] = (await readdir(dir)).filter((f) => f.endsWith('.tgz'));
    const listing = execFileSync('tar', ['tzf', path.join(dir, tarball)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .sort();
    expect(listing).toEqual(['package/bin/svc.mjs', 'package/dist/svc.mjs', 'package/package.json']);

    const prefix = path.join(dir, 'global');
    npm(['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', path.join(dir, tarball)], dir);
    const svc = path.join(prefix, 'bin', 'svc');
    const { version } = JSON.parse(await readFile(path.join(CLI, 'package.json'), 'utf8'));
    expect(execFileSync(svc, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);
    expect(execFileSync(svc, ['--help'], { encoding: 'utf8' })).toMatch(/^Usage: svc \[options\] \[command\]/);
  });
});
