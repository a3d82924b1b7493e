// Where a flooded request's time goes, per thread: starts the bench's gateway (wrangler dev), registers
// the (fl) ticket (a signature that never matches), sends N bad signatures 64 in flight (after 500 to warm
// up) and prints the CPU each thread of the gateway's processes spent per request (from /proc), and with
// --strace how many fsync calls the workerd processes made per request (each a SQLite commit of a
// Durable Object: miniflare's rate limiter, the ticket's object). Linux only; bounded by N.
//   npm exec -- node bench/flood-threads.mjs --requests=4000 [--strace]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { applyMigrations } from '../scripts/local-worker.mjs';
import { send } from './load.mjs';
import { benchGatewayConfig, startWranglerDev } from './wrangler-dev.mjs';

const { values: opts } = parseArgs({ options: { requests: { type: 'string', default: '4000' }, strace: { type: 'boolean', default: false } } });
const N = Number(opts.requests);
const IN_FLIGHT = 64;
const WARM_UP = 500;
const TICKS_PER_MS = 100 / 1000;

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-flood-threads-'));
const token = `op_${randomBytes(24).toString('base64url')}`;
await applyMigrations(dir, { quiet: true });
const gateway = await startWranglerDev({
  config: benchGatewayConfig({ assets: false }),
  persistTo: dir,
  vars: { OPERATOR_TOKEN: token, SECRETS_KEY: randomBytes(32).toString('base64') },
  healthPath: '/v1/health',
});
let tracer;
try {
  const api = async (method, route, bearer, body) => {
    const res = await fetch(`${gateway.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
    return JSON.parse(text);
  };
  const a = await api('POST', '/v1/projects', token, { name: 'Flooded' });
  await api('PUT', `/v1/projects/${a.service_id}/secrets/hook`, a.owner_key, { value: 'flood-bench-secret' });
  await api('PUT', `/v1/projects/${a.service_id}/tickets/flooded`, a.owner_key, {
    condition: { method: 'POST', signature: { secretName: 'hook', header: 'x-sig' } },
    actions: [],
  });

  /** CPU ticks so far of every thread of the gateway's process group, by "pid/process/tid/thread". */
  const threads = () => {
    const out = new Map();
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== gateway.pgid) continue;
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        for (const tid of readdirSync(`/proc/${pid}/task`)) {
          const t = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
          const f = t.slice(t.lastIndexOf(')') + 2).split(' ');
          out.set(`${pid}/${comm}/${tid}/${t.slice(t.indexOf('(') + 1, t.lastIndexOf(')'))}`, Number(f[11]) + Number(f[12]));
        }
      } catch {
        // the process ended meanwhile
      }
    }
    return out;
  };
  const flood = async (n) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const statuses = {};
    let next = 0;
    const headers = (i) => ({ 'content-type': 'application/json', 'x-sig': 'forged', 'cf-connecting-ip': `198.51.100.${(i % 100) + 1}` });
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < n) {
          const i = next++;
          const status = await send(agent, gateway.url, {
            method: 'POST',
            path: `/tp/${a.service_id}/flooded`,
            headers: headers(i),
            body: JSON.stringify({ n: i }),
          }).then(
            (r) => r.status,
            () => 0,
          );
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    agent.destroy();
    return statuses;
  };
  await flood(WARM_UP);
  if (opts.strace) {
    const pids = [...new Set([...threads().keys()].filter((k) => k.split('/')[1] === 'workerd').map((k) => k.split('/')[0]))];
    tracer = spawn('strace', ['-f', '-c', '-e', 'trace=fsync,fdatasync', ...pids.flatMap((p) => ['-p', p])], { stdio: ['ignore', 'inherit', 'inherit'] });
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const before = threads();
  const t0 = performance.now();
  const statuses = await flood(N);
  const seconds = (performance.now() - t0) / 1000;
  const after = threads();
  console.log(
    `${N} bad signatures in ${seconds.toFixed(1)} s (${(N / seconds).toFixed(0)} req/s), answers ${JSON.stringify(statuses)}; load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  let total = 0;
  const rows = [...after].map(([k, ticks]) => [k, (ticks - (before.get(k) ?? 0)) / TICKS_PER_MS / N]).filter(([, ms]) => ms >= 0.01);
  for (const [k, ms] of rows.sort((x, y) => y[1] - x[1])) {
    total += ms;
    console.log(`  ${ms.toFixed(3)} ms/req  ${k}`);
  }
  console.log(`  ${total.toFixed(2)} ms/req in all${opts.strace ? ' (with strace attached; its counts below include the 1 s before)' : ''}`);
} finally {
  if (tracer) {
    tracer.kill('SIGINT');
    await new Promise((resolve) => tracer.on('exit', resolve));
  }
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
}
