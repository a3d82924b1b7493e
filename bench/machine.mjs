// The machine a benchmark ran on, for docs/performance.md.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../scripts/local-worker.mjs';

const packageVersion = (name) => {
  try {
    return JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
};

function cpuModel() {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown';
  }
}

export function machine() {
  return {
    nproc: os.availableParallelism(),
    cpu: cpuModel(),
    memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    wrangler: packageVersion('wrangler'),
    workerd: packageVersion('workerd'),
    loadavg_at_start: os.loadavg().map((x) => +x.toFixed(2)),
  };
}
