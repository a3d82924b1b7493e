import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorker, type TestWorker } from '../../client/test/helpers/worker';
import { runSvc, startSvc, type SvcOptions } from './helpers/run-svc';
import { json, startScriptedServer } from '../../client/test/helpers/scripted-server';

let worker: TestWorker;
let dir: string;
/** The config file `svc login` writes; the commands after it read it through SVC_CONFIG. */
let config: string;
/** Every output of every run, to check that no owner key or secret value ever appears. */
const outputs: string[] = [];
const SECRET_VALUE = 'sv-never-printed-4f9a1c';

async function svc(args: string[], options: SvcOptions = {}) {
  const result = await runSvc(args, { ...options, env: { SVC_CONFIG: config, ...options.env } });
  outputs.push(result.stdout, result.stderr);
  return result;
}

const ticket = (description: string, extra: Record<string, unknown> = {}) => ({
  description,
  condition: { method: 'POST', body: [{ key: 'event', operator: '=', value: 'ping' }] },
  actions: [],
  ...extra,
});

/** A folder of ticket files (name → JSON value, or text written as is). */
async function folder(name: string, files: Record<string, unknown>): Promise<string> {
  const at = path.join(dir, name);
  await rm(at, { recursive: true, force: true });
  await mkdir(at, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    await writeFile(path.join(at, file), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return at;
}

async function ticketIds(): Promise<string[]> {
  const listed = await svc(['tickets', 'list', '--json']);
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout).list as { ticket_id: string }[]).map((t) => t.ticket_id).sort();
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-cli-test-'));
  config = path.join(dir, 'home', '.config', 'svc', 'config.json');
  worker = await startTestWorker();
});

afterAll(async () => {
  await worker?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('svc against wrangler dev', () => {
  it('login reads the owner key from stdin, checks it, and stores url, key and service id in a 0600 file in a 0700 folder', async () => {
    const result = await svc(['login', '--url', `${worker.url}/`], { stdin: `${worker.project.owner_key}\n` });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(worker.project.service_id);
    expect((await stat(config)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(config))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ url: worker.url, owner_key: worker.project.owner_key, service_id: worker.project.service_id });
  });

  it('login with a wrong key is refused with the service message (exit 1) and stores nothing', async () => {
    const other = path.join(dir, 'other', 'config.json');
    const result = await svc(['login', '--url', worker.url], { stdin: 'ok_wrong_key_value', env: { SVC_CONFIG: other } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^svc: UNAUTHORIZED: /);
    expect(result.stderr).not.toContain('ok_wrong_key_value');
    await expect(stat(other)).rejects.toThrow();
  });

  it('apply a folder twice: created first, then a plan of unchanged tickets that applies nothing', async () => {
    const tickets = await folder('tickets', { 'alpha.json': ticket('first'), 'b.json': { ticket_id: 'bee', ...ticket('bee') } });
    const first = await svc(['tickets', 'apply', tickets]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Plan: 2 to create, 0 to change, 0 unchanged \(2 tickets\)/);
    expect(first.stdout).toMatch(/created alpha\ncreated bee\n/);
    expect(await ticketIds()).toEqual(['alpha', 'bee']);

    const second = await svc(['tickets', 'apply', tickets]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Plan: 0 to create, 0 to change, 2 unchanged \(2 tickets\)/);
    expect(second.stdout).toContain('Nothing to apply.');
  });

  it('a changed file shows the line diff in the plan; --dry-run stores nothing, apply stores it', async () => {
    const tickets = await folder('tickets', { 'alpha.json': ticket('second'), 'b.json': { ticket_id: 'bee', ...ticket('bee') } });
    const dry = await svc(['tickets', 'apply', tickets, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/~ change +alpha/);
    expect(dry.stdout).toContain('-  "description": "first",');
    expect(dry.stdout).toContain('+  "description": "second",');
    expect(dry.stdout).toContain('Dry run: nothing was applied.');
    const unchanged = await svc(['tickets', 'get', 'alpha', '--json']);
    expect(JSON.parse(unchanged.stdout).description).toBe('first');

    const applied = await svc(['tickets', 'apply', tickets, '--json']);
    expect(applied.code).toBe(0);
    const report = JSON.parse(applied.stdout);
    expect(report.applied).toEqual([{ ticket_id: 'alpha', change: 'update' }]);
    expect(report.plan.map((s: { change: string }) => s.change)).toEqual(['update', 'none']);
    expect(JSON.parse((await svc(['tickets', 'get', 'alpha', '--json'])).stdout).description).toBe('second');
  });

  it('--prune deletes the tickets no file names (only shown with --dry-run)', async () => {
    await worker.registerTicket('stray', ticket('not in a file'));
    const tickets = await folder('tickets', { 'alpha.json': ticket('second'), 'b.json': { ticket_id: 'bee', ...ticket('bee') } });
    const dry = await svc(['tickets', 'apply', tickets, '--prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/- delete +stray/);
    expect(await ticketIds()).toEqual(['alpha', 'bee', 'stray']);

    const pruned = await svc(['tickets', 'apply', tickets, '--prune']);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('deleted stray');
    expect(await ticketIds()).toEqual(['alpha', 'bee']);
    const gone = await svc(['tickets', 'get', 'stray']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe('svc: TICKET_NOT_FOUND: The ticket does not exist.\n');
  });

  it('a file that is not JSON: exit 2 naming the file, and nothing of the folder is applied', async () => {
    const tickets = await folder('bad-json', { 'good.json': ticket('good'), 'broken.json': '{"condition": {"method": "POST",}, "actions": []}' });
    const result = await svc(['tickets', 'apply', tickets]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path.join(tickets, 'broken.json')}: INVALID_JSON: not JSON`);
    expect(result.stdout).toBe('');
    expect(await ticketIds()).toEqual(['alpha', 'bee']);
  });

  it('a registry refusal: exit 1 naming the file and the field path, and nothing of the folder is applied', async () => {
    const tickets = await folder('refused', {
      'good.json': ticket('good'),
      'refused.json': { condition: { method: 'POST' }, actions: [{ act: 'req', exe: { url: 'not a url', method: 'POST' } }] },
    });
    const result = await svc(['tickets', 'apply', tickets]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^svc: The service refused a ticket; nothing was applied\.\n/);
    expect(result.stderr).toMatch(new RegExp(`${path.join(tickets, 'refused.json')}: INVALID_PARAMETER: .*actions\\[0\\]\\.exe\\.url`));
    expect(await ticketIds()).toEqual(['alpha', 'bee']);

    const json = await svc(['tickets', 'apply', tickets, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).error.problems[0]).toMatchObject({ where: path.join(tickets, 'refused.json'), code: 'INVALID_PARAMETER' });
  });

  it('two files with one ticket_id: exit 2 naming both files', async () => {
    const tickets = await folder('duplicate', { 'one.json': { ticket_id: 'twin', ...ticket('1') }, 'two.json': { ticket_id: 'twin', ...ticket('2') } });
    const result = await svc(['tickets', 'apply', tickets]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path.join(tickets, 'two.json')}: DUPLICATE_TICKET_ID: ticket_id "twin" is also in ${path.join(tickets, 'one.json')}`);
    expect(await ticketIds()).toEqual(['alpha', 'bee']);
  });

  it('tickets check: exit 0 when the sample request passes, 1 with the code and message when it does not', async () => {
    const passed = await svc(['tickets', 'check', 'alpha', '--data', '{"event":"ping"}']);
    expect(passed.code).toBe(0);
    expect(passed.stdout).toMatch(/^passed/);
    const failed = await svc(['tickets', 'check', 'alpha', '--data', '{"event":"pong"}', '--json']);
    expect(failed.code).toBe(1);
    const answer = JSON.parse(failed.stdout);
    expect(answer).toMatchObject({ ticket_id: 'alpha', passed: false, error: { stage: 'condition' } });
    const human = await svc(['tickets', 'check', 'alpha', '--method', 'GET']);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^failed  \d{3} at condition  [A-Z_]+: /);
  });

  it('logs --follow prints a consumption made after it started, until SIGINT', async () => {
    const follow = startSvc(['logs', 'alpha', '--follow', '--interval', '200'], { env: { SVC_CONFIG: config } });
    try {
      await follow.waitFor((o) => o.stderr.includes('Following alpha'));
      const res = await fetch(`${worker.url}/tp/${worker.project.service_id}/alpha`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"event":"ping"}',
      });
      expect(res.status).toBe(200);
      const consumeId = ((await res.json()) as { tkid: string }).tkid.split('#')[2];
      await follow.waitFor((o) => o.stdout.includes(consumeId));
      expect(follow.output.stdout).toMatch(new RegExp(`Z  ${consumeId}  ok`));
    } finally {
      expect(await follow.stop('SIGINT')).toBe(0);
      outputs.push(follow.output.stdout, follow.output.stderr);
    }
    const lines = await svc(['logs', 'alpha', '--json']);
    expect(lines.code).toBe(0);
    const rows = lines.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.some((r: { check?: boolean }) => !r.check)).toBe(true);
    const actions = await svc(['logs', 'alpha', '--consumption', rows[0].consume_id]);
    expect(actions.code).toBe(0);
  });

  it('logs shows the minutes a ticket was limited (issue 26 item 6): refusals past its flood limit, above the log', async () => {
    expect((await worker.ownerCall('PATCH', '/settings', { flood_limits: { tickets: { flooded: 50 } } })).status).toBe(200);
    expect((await worker.ownerCall('PUT', '/tickets/flooded', ticket('flooded'))).status).toBe(201);
    let refused = 0;
    // Two 10-second windows at most: at least 20 of 120 are past the limit of 50.
    for (let i = 0; i < 120; i++) {
      const res = await fetch(`${worker.url}/tg/${worker.project.service_id}/flooded`, { headers: { 'cf-connecting-ip': '192.0.2.99' } });
      if (res.status === 429) refused++;
      await res.arrayBuffer();
    }
    expect(refused).toBeGreaterThanOrEqual(20);
    let out = '';
    for (let tries = 0; tries < 20 && !out.includes('refused (429)'); tries++) {
      out = (await svc(['logs', 'flooded'])).stdout;
      if (!out.includes('refused (429)')) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(out).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z  limited:  \d+\+ refused \(429\)$/m);
  });

  it('logs --signature says why a consumption failed its signature, never the secret (issue 27 item 5)', async () => {
    await worker.putSecretKey('gh_hook', { value: SECRET_VALUE });
    const signature = { secretName: 'gh_hook', header: 'X-Hub-Signature-256', parts: ['sha256=${signature}'] };
    expect((await worker.ownerCall('PUT', '/tickets/signed-gh', { condition: { signature }, actions: [] })).status).toBe(201);
    const res = await fetch(`${worker.url}/tp/${worker.project.service_id}/signed-gh`, {
      method: 'POST',
      headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      body: '{"zen":"hi"}',
    });
    expect(res.status).toBe(400);
    let rows: { consume_id: string }[] = [];
    for (let tries = 0; tries < 20 && rows.length === 0; tries++) {
      const out = (await svc(['logs', 'signed-gh', '--json'])).stdout.trim();
      rows = out ? out.split('\n').map((line) => JSON.parse(line)) : [];
      if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const result = await svc(['logs', 'signed-gh', '--signature', rows[0].consume_id]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^not verified: no signature matches the HMAC of the signed bytes with this key$/m);
    expect(result.stdout).toContain('  read:       header X-Hub-Signature-256');
    expect(result.stdout).toMatch(/^  signed:     12 bytes, sha256 [0-9a-f]{64}$/m);
    expect(result.stdout).toContain('no preset verifies this request with gh_hook');
    expect((await svc(['logs', 'signed-gh', '--secret-name', 'x'])).code).toBe(2);
    expect((await worker.ownerCall('DELETE', '/tickets/signed-gh')).status).toBe(200);
    expect((await worker.ownerCall('DELETE', '/secrets/gh_hook')).status).toBe(200);
  });

  it('secrets put reads the value from stdin; list shows the name and never the value', async () => {
    const put = await svc(['secrets', 'put', 'demo', '--destination', 'https://api.example.com/v1', '--locked'], { stdin: `${SECRET_VALUE}\n` });
    expect(put.stderr).toBe('');
    expect(put.code).toBe(0);
    const list = await svc(['secrets', 'list']);
    expect(list.stdout).toMatch(/^demo +access_group=0 +locked +destinations=https:\/\/api\.example\.com\/v1$/m);
    const json = JSON.parse((await svc(['secrets', 'list', '--json'])).stdout);
    expect(json.list.map((k: { name: string }) => k.name)).toEqual(['demo']);
    expect((await svc(['secrets', 'delete', 'demo'])).code).toBe(0);
  });

  it('destinations answers the paused destinations through the owner route: none on a project whose destinations never failed', async () => {
    const env = { SVC_CONFIG: path.join(dir, 'none.json'), SVC_URL: worker.url, SVC_OWNER_KEY: worker.project.owner_key };
    const text = await svc(['destinations'], { env });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('No paused destinations.\n');
    expect(JSON.parse((await svc(['destinations', '--json'], { env })).stdout)).toEqual({ list: [] });
  });

  it('dead-letters answers the dead letters through the owner route: none on a project that never forwarded, and a bad reason is refused naming it', async () => {
    const env = { SVC_CONFIG: path.join(dir, 'none.json'), SVC_URL: worker.url, SVC_OWNER_KEY: worker.project.owner_key };
    const text = await svc(['dead-letters'], { env });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('No dead letters.\n');
    expect(JSON.parse((await svc(['dead-letters', '--json', '--reason', 'timeout'], { env })).stdout)).toEqual({ list: [] });
    const refused = await svc(['dead-letters', '--reason', 'exploded'], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('reason');
  });

  it("stats shows a ticket's consumptions and failures by code from the metrics route, once its object pushed them (within 20 s)", async () => {
    const env = { SVC_CONFIG: path.join(dir, 'none.json'), SVC_URL: worker.url, SVC_OWNER_KEY: worker.project.owner_key };
    await worker.registerTicket('cli-stats', { condition: { body: [{ key: 'ok', operator: '=', value: true }] }, actions: [] });
    for (const ok of [true, true, false]) {
      await fetch(`${worker.url}/tp/${worker.project.service_id}/cli-stats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ok }),
      });
    }
    let stdout = '';
    for (const until = Date.now() + 40_000; Date.now() < until && !stdout.includes('3 consumptions'); await new Promise((r) => setTimeout(r, 1_000))) {
      stdout = (await svc(['stats', 'cli-stats', '--range', '1h'], { env })).stdout;
    }
    expect(stdout).toContain('cli-stats, last 1h: 3 consumptions, 2 ok, 1 failed (33.3%)');
    expect(stdout).toMatch(/failures by code: [A-Z_]+ 1/);
    const refused = await svc(['stats', 'cli-stats', '--range', '2w'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--range takes one of');
  });

  it("replay and dead-letters --replay: a ticket's dead letter replayed from its failed action; a bulk replay counted, started, followed and cancelled", async () => {
    const env = { SVC_CONFIG: path.join(dir, 'none.json'), SVC_URL: worker.url, SVC_OWNER_KEY: worker.project.owner_key };
    const flaky = await startScriptedServer();
    let failing = true;
    flaky.handle((_req, res) => json(res, failing ? 500 : 200, { failing }));
    try {
      await worker.registerTicket('cli-replayed', {
        retry_schedule: { delays: ['1s'], attempts: 2 },
        actions: [
          { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
          { act: 'req', exe: { url: `${flaky.url}/hook`, method: 'POST' } },
        ],
      });
      const consumed = await fetch(`${worker.url}/tp/${worker.project.service_id}/cli-replayed`, { method: 'POST', body: '{}' });
      expect(consumed.status).toBe(200);
      const started = Date.now();
      let id = '';
      while (!id) {
        if (Date.now() - started > 20_000) throw new Error('the dead letter was never listed');
        await new Promise((resolve) => setTimeout(resolve, 300));
        id = (await worker.ownerCall('GET', '/tickets/cli-replayed/dead-letters')).json.list?.[0]?.id ?? '';
      }
      expect((await svc(['dead-letters', '--ticket', 'cli-replayed'], { env })).stdout).toContain(
        `ticket=cli-replayed at=actions[1]  req ${flaky.url}/hook  id=${id}`,
      );
      const counted = await svc(['replay', 'cli-replayed', '--dead-letters', '--from', new Date(started - 60_000).toISOString(), '--dry-run'], { env });
      expect(counted.stderr).toBe('');
      expect(counted.stdout).toBe('1 entry matches; a replay takes at most 100000.\n');

      failing = false;
      const replayed = await svc(['dead-letters', '--ticket', 'cli-replayed', '--replay', id], { env });
      expect(replayed.code).toBe(0);
      expect(replayed.stdout).toBe(`Replayed ${id} from its failed action: answered 200; it is no longer a dead letter.\n`);
      expect((await svc(['dead-letters', '--ticket', 'cli-replayed', '--replay', id], { env })).stderr).toContain('NOT_FOUND');

      // The original and its replay, once the replay is logged: two entries at one a minute keep the replay running.
      const all = async () =>
        JSON.parse((await svc(['replay', 'cli-replayed', '--outcome', 'any', '--to', String(Date.now()), '--dry-run', '--json'], { env })).stdout).matched;
      for (const until = Date.now() + 10_000; (await all()) < 2; ) if (Date.now() > until) throw new Error('the replay was never logged');
      const running = await svc(['replay', 'cli-replayed', '--outcome', 'any', '--per-minute', '1'], { env });
      expect(running.stdout).toMatch(/^replay=(\d+) {2}running {2}done=[01]\/2 .* per_minute=1 {2}started \S+Z\n$/);
      const replayId = running.stdout.match(/^replay=(\d+)/)![1];
      expect((await svc(['replay', 'cli-replayed', '--status', replayId], { env })).stdout).toMatch(new RegExp(`^replay=${replayId} {2}running `));
      expect((await svc(['replay', 'cli-replayed', '--status'], { env })).stdout).toMatch(new RegExp(`^replay=${replayId} {2}running `));
      expect((await svc(['replay', 'cli-replayed', '--cancel', replayId], { env })).stdout).toMatch(new RegExp(`^replay=${replayId} {2}cancelled `));
      const again = await svc(['replay', 'cli-replayed', '--cancel', replayId], { env });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`Bulk replay ${replayId} is already cancelled`);

      const mixed = await svc(['replay', 'cli-replayed', '--status', '--full'], { env });
      expect(mixed.code).toBe(2);
      expect(mixed.stderr).toContain('Options that start a replay (--full) do not go with --status or --cancel.');
      const badTime = await svc(['replay', 'cli-replayed', '--from', 'yesterday'], { env });
      expect(badTime.code).toBe(2);
      const badFilter = await svc(['replay', 'cli-replayed', '--dead-letters', '--code', 'REQUEST_FAILED', '--dry-run'], { env });
      expect(badFilter.code).toBe(1);
      expect(badFilter.stderr).toContain('INVALID_PARAMETER');
    } finally {
      await worker.ownerCall('DELETE', '/tickets/cli-replayed');
      await flaky.close();
    }
  });

  it('SVC_URL and SVC_OWNER_KEY work without a config file', async () => {
    const result = await svc(['tickets', 'list'], {
      env: { SVC_CONFIG: path.join(dir, 'none.json'), SVC_URL: worker.url, SVC_OWNER_KEY: worker.project.owner_key },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^TICKET +REMAINING +UPDATED +DESCRIPTION\nalpha /);
  });

  it('no config: exit 2 telling to run svc login or set the env vars', async () => {
    const result = await svc(['tickets', 'list'], { env: { SVC_CONFIG: path.join(dir, 'none.json') } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('svc: Not logged in: run `svc login` (the owner key is read from stdin) or set SVC_URL and SVC_OWNER_KEY.\n');
  });

  it('an unreachable base url: one line naming the url, exit 1, no stack trace', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await svc(['tickets', 'list'], { env: { SVC_URL: url, SVC_OWNER_KEY: worker.project.owner_key } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`svc: Could not reach ${url}: ECONNREFUSED.\n`);
  });

  it('presets --json parses and lists the presets of schemas/signature-presets.ts', async () => {
    const result = await svc(['presets', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).map((p: { id: string }) => p.id)).toContain('stripe');
  });

  it('presets lists each provider with its docs link, key format and handshake (svix by its svix-* names)', async () => {
    const presets = JSON.parse((await svc(['presets', '--json'])).stdout) as {
      id: string;
      docs: string;
      secret: string;
      handshake?: string;
      signature?: { header: string };
    }[];
    const byId = Object.fromEntries(presets.map((p) => [p.id, p]));
    for (const id of ['svix', 'zoom', 'twitch', 'calendly', 'gitlab', 'postmark']) expect(byId[id]?.docs).toMatch(/^https:\/\//);
    expect(byId.svix.signature?.header).toBe('svix-signature');
    expect(byId.zoom.handshake).toBe('zoom');
    const text = (await svc(['presets', 'twitch'])).stdout;
    expect(text).toContain('handshake: Twitch EventSub webhook_callback_verification');
    expect(text).toContain('https://dev.twitch.tv/docs/eventsub/');
    expect(text).toContain('idempotency key (default): ${headers[Twitch-Eventsub-Message-Id]}');
    expect((await svc(['presets', 'slack'])).stdout).not.toContain('idempotency key');
  });

  it('presets <id> --secret-name prints the signature and the handshake ready for a condition', async () => {
    const result = await svc(['presets', 'zoom', '--secret-name', 'zoom_token', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ signature: { secretName: 'zoom_token', header: 'x-zm-signature' }, handshake: 'zoom' });
  });

  it('a token preset (gitlab) prints a signature that names the Secret Key holding the token, never a token', async () => {
    const result = await svc(['presets', 'gitlab', '--secret-name', 'gitlab_token', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      signature: {
        secretName: 'gitlab_token',
        header: 'X-Gitlab-Token',
        algorithm: 'token',
        encoding: 'raw',
        parts: ['${signature}'],
        signed: '${body}',
        secret_encoding: 'raw',
      },
    });
  });

  it('presets with an id that does not exist: one line naming it, exit 2', async () => {
    const result = await svc(['presets', 'stripe-v9']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No signature preset "stripe-v9"');
    const unsigned = await svc(['presets', 'msgraph', '--secret-name', 'x']);
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toContain('takes no Secret Key');
  });

  it('no output ever held the owner key or a secret value', () => {
    expect(outputs.length).toBeGreaterThan(20);
    for (const text of outputs) {
      expect(text).not.toContain(worker.project.owner_key);
      expect(text).not.toContain(SECRET_VALUE);
    }
  });
});
