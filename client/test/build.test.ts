import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runtimeSchemaModules } from '../build.mjs';

const DIST = path.resolve(import.meta.dirname, '..', 'dist');
const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** A staging folder as tsc leaves it: client/src/*.js and schemas/*.js. */
function stage(files: Record<string, string>) {
  const root = mkdtempSync(path.join(tmpdir(), 'svc-build-test-'));
  temporary.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return { clientStage: path.join(root, 'client', 'src'), schemasStage: path.join(root, 'schemas') };
}

describe('the client build', () => {
  it('ships the JavaScript of exactly the schemas/ modules the client runs, and no zod', () => {
    const schemas = readdirSync(path.join(DIST, 'schemas')).filter((f) => f.endsWith('.js'));
    expect(schemas.sort()).toEqual(['encoding.js', 'field-issue.js', 'forward-rules.js', 'paths.js', 'secure-rules.js']);
  });

  it('follows run-time imports from module to module, with or without .js', () => {
    const { clientStage, schemasStage } = stage({
      'client/src/index.js': "import { rule } from '../../schemas/rules.js';\n",
      'schemas/rules.js': "import { path } from './paths';\nexport const rule = 1;\n",
      'schemas/paths.js': 'export const path = 1;\n',
      'schemas/unused.js': "import { z } from 'zod';\n",
    });
    expect(
      runtimeSchemaModules(clientStage, schemasStage)
        .map((f) => path.relative(schemasStage, f))
        .sort(),
    ).toEqual(['paths.js', 'rules.js']);
  });

  it('fails when a schemas/ module the client runs imports zod, however deep', () => {
    const { clientStage, schemasStage } = stage({
      'client/src/index.js': "import { rule } from '../../schemas/rules.js';\n",
      'schemas/rules.js': "import { check } from './checks';\nexport const rule = 1;\n",
      'schemas/checks.js': "import { z } from 'zod';\nexport const check = z.string();\n",
    });
    expect(() => runtimeSchemaModules(clientStage, schemasStage)).toThrow('schemas/checks.ts runs in the client but imports zod');
  });

  it('the built client runs on its own: dist copied away from the repository loads in plain Node and checks a forward option', () => {
    const away = mkdtempSync(path.join(tmpdir(), 'svc-dist-'));
    temporary.push(away);
    cpSync(DIST, away, { recursive: true });
    const script = `
      const { Svc } = await import(${JSON.stringify(pathToFileURL(path.join(away, 'index.js')).href)});
      const svc = new Svc({ serviceId: 's', baseUrl: 'http://127.0.0.1:9' });
      const err = await svc.forwardRequest(null, { url: 'https://example.com', headers: { 'x-svc-user': 'me' } }).catch((e) => e);
      console.log(err.code);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: away, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('INVALID_PARAMETER');
  });
});
