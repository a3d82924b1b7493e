import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StoredConfig } from './config';

/** The config file's text, or null when there is none. */
export async function readConfigText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Written whole or not at all: a 0600 file beside it, renamed over it; a folder it creates is 0700. */
export async function writeConfig(file: string, config: StoredConfig): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/** Whether a file was there to remove. */
export async function removeConfig(file: string): Promise<boolean> {
  const existed = (await readConfigText(file)) !== null;
  await rm(file, { force: true });
  return existed;
}
