// `npm start`: runs the Worker locally (wrangler dev, local D1/Durable Objects/Queues, migrations
// applied), seeds a demo project if none exists, and prints how to use it: its ids, an `export` line
// for the README's examples and a curl line. Honours PORT, OPERATOR_TOKEN and SVC_STRICT_LIMITS ("1" or
// "free": Cloudflare's limits enforced, docs/limits.md) from the environment.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, ensureDevVars, startLocalWorker } from './local-worker.mjs';

const port = Number(process.env.PORT ?? 8787);
const vars = ensureDevVars(path.join(ROOT, '.dev.vars'), process.env.OPERATOR_TOKEN ? { OPERATOR_TOKEN: process.env.OPERATOR_TOKEN } : {});
const demoFile = path.join(ROOT, '.wrangler', 'demo-project.json');

// Ctrl+C stops the Worker, also while it is still starting.
const stopping = new AbortController();
process.on('SIGINT', () => stopping.abort());
process.on('SIGTERM', () => stopping.abort());
const strict = process.env.SVC_STRICT_LIMITS ? { SVC_STRICT_LIMITS: process.env.SVC_STRICT_LIMITS } : {};
const worker = await startLocalWorker({ port, quiet: false, timeoutMs: 120_000, signal: stopping.signal, vars: strict }).catch((err) => {
  if (!stopping.signal.aborted) throw err;
  process.exit(0);
});
const shutdown = async () => {
  await worker.stop();
  process.exit(0);
};
if (stopping.signal.aborted) await shutdown();
stopping.signal.addEventListener('abort', shutdown);

async function call(method, route, token, body) {
  const res = await fetch(`${worker.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** The demo project saved by an earlier start, if the local database still has it. */
async function existingDemo() {
  if (!existsSync(demoFile)) return null;
  const demo = JSON.parse(readFileSync(demoFile, 'utf8'));
  const check = await call('GET', `/v1/projects/${demo.service_id}/secrets`, demo.owner_key);
  return check.status === 200 ? demo : null;
}

/** A value as one shell word: bare when it is safe as is, else single-quoted. */
const shellWord = (value) => (/^[A-Za-z0-9_.:\/@%+=,-]+$/.test(value) ? value : `'${String(value).replaceAll("'", `'\\''`)}'`);

/** The line that sets the variables the README's examples use ($BASE, $SID, $OWNER_KEY, $OWNER_ID). */
const exportLine = (base, demo) =>
  `export ${Object.entries({ BASE: base, SID: demo.service_id, OWNER_KEY: demo.owner_key, OWNER_ID: demo.owner_id })
    .map(([name, value]) => `${name}=${shellWord(value)}`)
    .join(' ')}`;

async function seedDemo() {
  const created = await call('POST', '/v1/projects', vars.OPERATOR_TOKEN, { name: 'Demo project' });
  if (created.status !== 201) throw new Error(`could not create the demo project: ${JSON.stringify(created.body)}`);
  const demo = created.body;
  mkdirSync(path.dirname(demoFile), { recursive: true });
  writeFileSync(demoFile, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

try {
  const demo = (await existingDemo()) ?? (await seedDemo());
  const user = await call('POST', `/v1/projects/${demo.service_id}/dev/users`, demo.owner_key, {
    email: 'demo.user@example.com',
    attributes: { email_verified: true, name: 'Demo User' },
  });
  const base = worker.url;
  const ticket = JSON.stringify({ description: 'Hello from the demo', condition: { method: 'POST' }, actions: [] });
  console.log(`
Service running at ${base}

  service id      ${demo.service_id}
  owner id        ${demo.owner_id}
  owner key       ${demo.owner_key}
  operator token  ${vars.OPERATOR_TOKEN}
  demo user id    ${user.body?.user_id ?? '(could not mint)'}
  demo id token   ${user.body?.id_token ?? '(could not mint)'}

Paste this into your shell for the README's examples ($BASE, $SID, $OWNER_KEY, $OWNER_ID):

  ${exportLine(base, demo)}

Register a ticket, then consume it:

  curl -sX PUT ${base}/v1/projects/${demo.service_id}/tickets/hello -H 'authorization: Bearer ${demo.owner_key}' -H 'content-type: application/json' -d '${ticket}' && curl -sX POST ${base}/tp/${demo.service_id}/hello -H 'content-type: application/json' -d '{"hi":1}'

Owner dashboard: ${base}/   API reference: ${base}/openapi.json
Press Ctrl+C to stop.
`);
} catch (err) {
  console.error(err);
  await worker.stop();
  process.exit(1);
}
