/**
 * Vitest globalSetup (runs in Node, not in workerd): a loopback HTTP server that outbound tests call.
 * The Worker reaches it only because the test settings allow private destinations
 * (ALLOW_PRIVATE_DESTINATIONS 'true' in vitest.config.ts). Tests read its origin with
 * `inject('loopbackOrigin')` from 'vitest'.
 *
 * Routes:
 *   /echo, /echo/... answers JSON { method, path, query, headers, body } of what it received
 *   /sized/<n>       answers <n> bytes of 'x' with a Content-Length (the other routes answer chunked)
 *   /echo-status/<code>  answers <code> with the same JSON as /echo (an error answer that echoes the request)
 *   /reflect         answers text/plain with the value of the x-api-key request header escaped 1 to 4
 *                    times (one line each), and the same value percent-encoded in the status text and
 *                    in an x-reflect response header
 *   /status/<code>   answers <code> with a JSON body holding the x-api-key value as received
 *   /deep/<levels>   answers JSON arrays nested <levels> deep
 *   /gate/hold/<k>   holds the request until /gate/open/<k> answers every held one 200 { released: true };
 *                    /gate/waiting/<k> answers { waiting: n }, the requests held now
 *   /redirect        answers 302 to http://127.0.0.1:<port>/echo
 *   /delay/<ms>/<k>  answers 200 { delayed: ms } <ms> milliseconds after the request arrived (at most 10 s);
 *                    /delay-state/<k> answers { arrived, answered, most }: the requests of <k> so far and
 *                    the most that were open at once
 *   /stall           never answers (the socket stays open until the caller gives up)
 *   /stall-body      sends 200 and its headers, then never sends the body
 *   /huge            streams 64 KiB chunks of 'x' without end, until the caller disconnects
 *   /digest          answers JSON { method, contentType, bytes, sha256 } of the body it received (hex digest)
 *   /echo-bytes      answers JSON { method, contentType, base64 } of what it received (the body byte for
 *                    byte, as base64) and the method in an x-method header (a HEAD answer has no body)
 *   /drip/<k>        sends 200 and 'piece 1\n', then one more piece 'piece <n>\n' each time
 *                    /drip-next/<k> is called (it answers { written: n }); /drip-end/<k> ends the body
 *   /endless/<k>     like /huge; /endless-state/<k> answers { written, closed }: the bytes written so far
 *                    and whether the caller's connection has closed
 *   /mail/emails     a mail provider (Resend's send call): POST JSON { from, to, subject, html, text } with
 *                    `Authorization: Bearer test-mail-token` (else 401) is kept and answered 200 { id };
 *                    a repeated Idempotency-Key answers the first id and keeps nothing new
 *   /mail/inbox      GET ?to=<address>: JSON list of the mails kept for that address, with their
 *                    idempotency key
 *   /seq/<k>/<n>     records the arrival of request <n> under key <k> and answers 200 { n } 25 ms later;
 *                    /seq-state/<k> answers { order, maxInFlight, inFlight }: the <n>s in arrival order and the
 *                    most requests of <k> that were ever open at once
 *   /pieces/<k>      a streamed answer scripted by the JSON body { pieces, gap_ms, status, cut } (see
 *                    handlePieces); /pieces-state/<k> answers { written, closed, finished, closed_at }
 *   /generated/<k>   ?repeat&piece&gap: generatedText(repeat) streamed in slices (see handleGenerated); its
 *                    state under /pieces-state/<k>
 *   /webhook-key/<k> POST: keeps the body as the secureRequest key of /webhook/<k>
 *   /webhook/<k>     verifies the request as a customer's API would (test/secure/verify-example.mjs, the
 *                    README's example, with the standardwebhooks package): 200 { verified: true, payload }
 *                    with what it verified, else 401 { verified: false, error }
 *   /busy/<k>/<n>    answers 429 with `Retry-After: <retry_after>` (the query's value, default 1; `none`: no
 *                    header) the first <n> times it is called under key <k>, then 200 { calls }: a rate-limited
 *                    API
 *   /fail/<k>/<n>/<s> answers status <s> (with `Retry-After: <retry_after>` when the query has one) the first <n>
 *                    times it is called under key <k>, then 200 { calls }: a flaky API
 *   /calls/<k>       { calls }: how many times /busy/<k>/… and /fail/<k>/… were called under key <k>
 *   /alert-secret/<k> POST: keeps the body as the Standard Webhooks secret (whsec_…) /alert-hook/<k> verifies with
 *   /alert-hook/<k>  an alert receiver: verifies the request with the standardwebhooks package's Webhook (the
 *                    signature, the id and a timestamp within 5 minutes) and keeps { verified, id, payload | error };
 *                    answers 200 when verified, else 401
 *   /alert-hook-state/<k> GET: JSON list of what /alert-hook/<k> kept, in arrival order
 *   /received        GET ?path=<path>: JSON { count } of the requests received for that path so far, by
 *                    any route (requests to /received itself are not counted); tests use a path of their
 *                    own, since every test file shares this server
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TestProject } from 'vitest/node';
import { GENERATED_LINE } from './forward/generated-text';
import { verifySecureRequest } from './secure/verify-example.mjs';

const pct = (text: string) => [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const html = (text: string) => [...text].map((ch) => `&#${ch.codePointAt(0)};`).join('');
const unicode = (text: string) =>
  [...text]
    .flatMap((ch) => (ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [ch.charCodeAt(0)]))
    .map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`)
    .join('');

/** The value of x-api-key escaped 1 to 4 times, one scheme per layer, as an echoing service might. */
function reflectLines(value: string): string {
  return [
    `plain: ${value}`,
    `once: ${pct(value)}`,
    `twice: ${html(pct(value))}`,
    `thrice: ${unicode(html(pct(value)))}`,
    `four: ${pct(unicode(html(pct(value))))}`,
  ].join('\n');
}

/** Requests received, by path (every route but /received). */
const receivedByPath = new Map<string, number>();

const MAIL_TOKEN = 'test-mail-token';
const mailKept: { id: string; key: string | undefined; mail: Record<string, unknown> }[] = [];

function handleMail(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: string): void {
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (url.pathname === '/mail/inbox')
    return json(
      200,
      mailKept.filter((kept) => kept.mail.to === url.searchParams.get('to')),
    );
  if (req.method !== 'POST' || url.pathname !== '/mail/emails') return json(404, { message: 'no such route' });
  if (req.headers.authorization !== `Bearer ${MAIL_TOKEN}`) return json(401, { message: 'invalid token' });
  const key = req.headers['idempotency-key'] as string | undefined;
  const earlier = key === undefined ? undefined : mailKept.find((kept) => kept.key === key);
  if (earlier) return json(200, { id: earlier.id });
  let mail: Record<string, unknown>;
  try {
    mail = JSON.parse(body);
  } catch {
    return json(400, { message: 'invalid JSON' });
  }
  if (typeof mail.to !== 'string' || typeof mail.from !== 'string' || typeof mail.subject !== 'string') return json(422, { message: 'missing field' });
  const id = `mail-${mailKept.length + 1}`;
  mailKept.push({ id, key, mail });
  json(200, { id });
}

/** Bodies of /drip/<key> still open, with the number of pieces written. */
const drips = new Map<string, { res: http.ServerResponse; written: number }>();

function handleDrip(res: http.ServerResponse, url: URL): void {
  const [, verb, key] = url.pathname.split('/');
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (verb === 'drip') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('piece 1\n');
    drips.set(key, { res, written: 1 });
    return;
  }
  const drip = drips.get(key);
  if (!drip) return json(404, { error: 'no such drip' });
  if (verb === 'drip-next') {
    drip.written += 1;
    drip.res.write(`piece ${drip.written}\n`);
  } else {
    drip.res.end();
    drips.delete(key);
  }
  json(200, { written: drip.written });
}

/** What each /endless/<key> body has written, and whether its caller has gone. */
const endless = new Map<string, { written: number; closed: boolean }>();

function handleEndless(res: http.ServerResponse, key: string): void {
  const state = { written: 0, closed: false };
  endless.set(key, state);
  res.on('close', () => {
    state.closed = true;
  });
  res.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const pump = () => {
    while (!res.destroyed) {
      state.written += chunk.byteLength;
      if (!res.write(chunk)) break;
    }
  };
  res.on('drain', pump);
  pump();
}

/** What each /pieces/<key> answer has written, and whether its caller has gone. */
const scripted = new Map<string, { written: number; closed: boolean; finished: boolean; closed_at?: number }>();

/**
 * A streamed answer scripted by the request's JSON body: `pieces` (text, or { b64 } for raw bytes) written
 * one by one `gap_ms` apart (default 5), with `status` (default 200), then ended (or cut mid-answer with
 * `cut: true`). Each write is flushed on its own, so the relay sees the pieces as written.
 */
function handlePieces(req: http.IncomingMessage, res: http.ServerResponse, key: string, body: string): void {
  const script = JSON.parse(body || '{}') as { pieces?: (string | { b64: string })[]; gap_ms?: number; status?: number; cut?: boolean };
  const state = { written: 0, closed: false, finished: false };
  scripted.set(key, state);
  res.on('close', () => {
    state.closed = true;
  });
  res.writeHead(script.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  res.flushHeaders();
  const pieces = script.pieces ?? [];
  const gap = script.gap_ms ?? 5;
  const next = () => {
    if (res.destroyed) return;
    if (state.written === pieces.length) {
      state.finished = true;
      if (script.cut) res.destroy();
      else res.end();
      return;
    }
    const piece = pieces[state.written++];
    res.write(typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece.b64, 'base64'));
    setTimeout(next, gap);
  };
  next();
}

/**
 * /generated/<key>?repeat=N&piece=M&gap=G: generatedText(N) (test/forward/generated-text.ts) written in
 * slices of M bytes (a character may be cut between two), G ms apart (0: as fast as the reader takes them).
 */
function handleGenerated(res: http.ServerResponse, key: string, url: URL): void {
  const line = Buffer.from(GENERATED_LINE, 'utf8');
  const total = line.length * Number(url.searchParams.get('repeat') ?? 1);
  const piece = Number(url.searchParams.get('piece') ?? 4096);
  // Built slice by slice: an endless answer is never held whole.
  const sliceAt = (offset: number) => {
    const slice = Buffer.alloc(Math.min(piece, total - offset));
    for (let i = 0; i < slice.length; i++) slice[i] = line[(offset + i) % line.length];
    return slice;
  };
  const gap = Number(url.searchParams.get('gap') ?? 0);
  const state = { written: 0, closed: false, finished: false, closed_at: 0 };
  scripted.set(key, state);
  res.on('close', () => {
    state.closed = true;
    state.closed_at = Date.now();
  });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const next = (): void => {
    while (!res.destroyed && state.written < total) {
      const slice = sliceAt(state.written);
      state.written += slice.length;
      const more = res.write(slice);
      if (gap > 0) return void setTimeout(next, gap);
      if (!more) return void res.once('drain', next);
    }
    if (!res.destroyed) {
      state.finished = true;
      res.end();
    }
  };
  next();
}

/** Arrivals, answers and the most open at once of /delay/<ms>/<key>. */
const delays = new Map<string, { arrived: number; answered: number; open: number; most: number }>();

function handleDelay(res: http.ServerResponse, [, , ms, key]: string[]): void {
  const state = delays.get(key) ?? { arrived: 0, answered: 0, open: 0, most: 0 };
  delays.set(key, state);
  state.arrived++;
  state.open++;
  state.most = Math.max(state.most, state.open);
  const delayed = Math.min(Number(ms), 10_000);
  setTimeout(() => {
    state.open--;
    state.answered++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ delayed }));
  }, delayed);
}

/** Arrival order and concurrency of /seq/<key>/<n>. */
const sequences = new Map<string, { order: number[]; inFlight: number; maxInFlight: number }>();

function handleSeq(res: http.ServerResponse, key: string, n: number): void {
  const state = sequences.get(key) ?? { order: [], inFlight: 0, maxInFlight: 0 };
  sequences.set(key, state);
  state.order.push(n);
  state.inFlight += 1;
  state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
  // Held a little, so a second request sent before this one is answered would be seen in flight beside it.
  setTimeout(() => {
    state.inFlight -= 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ n }));
  }, 25);
}

/** The secureRequest keys /webhook/<key> verifies with. */
const webhookKeys = new Map<string, string>();

function handleWebhook(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: string): void {
  const [, verb, key] = url.pathname.split('/');
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (verb === 'webhook-key') {
    webhookKeys.set(key, body);
    return json(200, { kept: true });
  }
  try {
    const payload = verifySecureRequest(webhookKeys.get(key) ?? '', req.headers as Record<string, string>, body);
    json(200, { verified: true, payload });
  } catch (error) {
    json(401, { verified: false, error: (error as Error).message });
  }
}

/** The secrets /alert-hook/<k> verifies with, and what it received. */
const alertSecrets = new Map<string, string>();
const alertReceived = new Map<string, unknown[]>();

function handleAlertHook(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: string): void {
  const [, verb, key] = url.pathname.split('/');
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (verb === 'alert-secret') {
    alertSecrets.set(key, body);
    return json(200, { kept: true });
  }
  if (verb === 'alert-hook-state') return json(200, alertReceived.get(key) ?? []);
  const received = alertReceived.get(key) ?? [];
  alertReceived.set(key, received);
  const id = req.headers['webhook-id'];
  try {
    const payload = new Webhook(alertSecrets.get(key) ?? '').verify(body, req.headers as Record<string, string>);
    received.push({ verified: true, id, payload });
    json(200, { verified: true });
  } catch (error) {
    received.push({ verified: false, id, error: (error as Error).message });
    json(401, { verified: false, error: (error as Error).message });
  }
}

/** Requests held at /gate/hold/<key> until /gate/open/<key>; a caller that gives up leaves the gate. */
const gates = new Map<string, Set<http.ServerResponse>>();

function handleGate(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
  const [, , verb, key] = url.pathname.split('/');
  const held = gates.get(key) ?? new Set<http.ServerResponse>();
  gates.set(key, held);
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (verb === 'hold') {
    held.add(res);
    res.on('close', () => held.delete(res));
  } else if (verb === 'waiting') json(200, { waiting: held.size });
  else if (verb === 'open') {
    const count = held.size;
    for (const waiting of held) {
      waiting.writeHead(200, { 'content-type': 'application/json' });
      waiting.end(JSON.stringify({ released: true }));
    }
    held.clear();
    json(200, { released: count });
  } else json(404, { error: 'no such gate verb' });
}

/** The calls of each /busy/<k> and /fail/<k> so far (keys are the tests' own). */
const scriptedCalls = new Map<string, number>();

/** Answers `status` (429: 'rate limited') the first `failing` calls under `key`, then 200 { calls }. */
function answerScripted(res: http.ServerResponse, key: string, failing: number, status: number, retryAfter: string | undefined): void {
  const calls = (scriptedCalls.get(key) ?? 0) + 1;
  scriptedCalls.set(key, calls);
  if (calls <= failing) {
    res.writeHead(status, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) });
    res.end(JSON.stringify({ error: status === 429 ? 'rate limited' : 'failed on purpose', calls }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ calls }));
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, origin: string): void {
  const url = new URL(req.url ?? '/', origin);
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const apiKey = String(req.headers['x-api-key'] ?? '');
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    const echoStatus = /^\/echo-status\/(\d{3})$/.exec(url.pathname);
    if (url.pathname !== '/received') receivedByPath.set(url.pathname, (receivedByPath.get(url.pathname) ?? 0) + 1);
    if (url.pathname === '/echo' || url.pathname.startsWith('/echo/') || echoStatus) {
      res.writeHead(echoStatus ? Number(echoStatus[1]) : 200, { 'content-type': 'application/json', 'x-echo': 'yes' });
      res.end(JSON.stringify({ method: req.method, path: url.pathname, query: url.search, headers: req.headers, body }));
    } else if (/^\/sized\/\d+$/.test(url.pathname)) {
      const text = 'x'.repeat(Number(url.pathname.split('/')[2]));
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(text.length) });
      res.end(text);
    } else if (url.pathname === '/received') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ count: receivedByPath.get(url.searchParams.get('path') ?? '') ?? 0 }));
    } else if (url.pathname === '/reflect') {
      res.writeHead(200, `OK ${pct(apiKey)}`, { 'content-type': 'text/plain; charset=utf-8', 'x-reflect': pct(apiKey) });
      res.end(reflectLines(apiKey));
    } else if (status) {
      res.writeHead(Number(status[1]), { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'failed on purpose', key: apiKey }));
    } else if (url.pathname.startsWith('/mail/')) {
      handleMail(req, res, url, body);
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { location: `${origin}/echo`, 'content-type': 'text/plain' });
      res.end('moved');
    } else if (/^\/webhook(-key)?\/[^/]+$/.test(url.pathname)) {
      handleWebhook(req, res, url, body);
    } else if (/^\/alert-(secret|hook|hook-state)\/[^/]+$/.test(url.pathname)) {
      handleAlertHook(req, res, url, body);
    } else if (url.pathname.startsWith('/gate/')) {
      handleGate(req, res, url);
    } else if (/^\/deep\/\d+$/.test(url.pathname)) {
      const levels = Number(url.pathname.slice('/deep/'.length));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${'['.repeat(levels)}${']'.repeat(levels)}`);
    } else if (/^\/seq\/[^/]+\/\d+$/.test(url.pathname)) {
      const [, , key, n] = url.pathname.split('/');
      handleSeq(res, key, Number(n));
    } else if (/^\/seq-state\/[^/]+$/.test(url.pathname)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(sequences.get(url.pathname.slice('/seq-state/'.length)) ?? { order: [], inFlight: 0, maxInFlight: 0 }));
    } else if (/^\/delay\/\d+\/[^/]+$/.test(url.pathname)) {
      handleDelay(res, url.pathname.split('/'));
    } else if (/^\/delay-state\/[^/]+$/.test(url.pathname)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(delays.get(url.pathname.slice('/delay-state/'.length)) ?? null));
    } else if (url.pathname === '/stall') {
      // Never answers.
    } else if (url.pathname === '/stall-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
    } else if (url.pathname === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
    } else if (url.pathname === '/digest') {
      const bytes = Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/json' });
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      res.end(JSON.stringify({ method: req.method, contentType: req.headers['content-type'] ?? null, bytes: bytes.length, sha256 }));
    } else if (url.pathname === '/echo-bytes') {
      const bytes = Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/json', 'x-method': req.method });
      res.end(JSON.stringify({ method: req.method, contentType: req.headers['content-type'] ?? null, base64: bytes.toString('base64') }));
    } else if (/^\/drip(-next|-end)?\/[^/]+$/.test(url.pathname)) {
      handleDrip(res, url);
    } else if (/^\/endless\/[^/]+$/.test(url.pathname)) {
      handleEndless(res, url.pathname.slice('/endless/'.length));
    } else if (/^\/pieces\/[^/]+$/.test(url.pathname)) {
      handlePieces(req, res, url.pathname.slice('/pieces/'.length), body);
    } else if (/^\/generated\/[^/]+$/.test(url.pathname)) {
      handleGenerated(res, url.pathname.slice('/generated/'.length), url);
    } else if (/^\/busy\/[^/]+\/\d+$/.test(url.pathname)) {
      const [, , key, limited] = url.pathname.split('/');
      const retryAfter = url.searchParams.get('retry_after') ?? '1';
      answerScripted(res, key, Number(limited), 429, retryAfter === 'none' ? undefined : retryAfter);
    } else if (/^\/fail\/[^/]+\/\d+\/\d{3}$/.test(url.pathname)) {
      const [, , key, failing, status] = url.pathname.split('/');
      answerScripted(res, key, Number(failing), Number(status), url.searchParams.get('retry_after') ?? undefined);
    } else if (/^\/calls\/[^/]+$/.test(url.pathname)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ calls: scriptedCalls.get(url.pathname.slice('/calls/'.length)) ?? 0 }));
    } else if (/^\/pieces-state\/[^/]+$/.test(url.pathname)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(scripted.get(url.pathname.slice('/pieces-state/'.length)) ?? null));
    } else if (/^\/endless-state\/[^/]+$/.test(url.pathname)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(endless.get(url.pathname.slice('/endless-state/'.length)) ?? null));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such route');
    }
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('request', (req, res) => handle(req, res, origin));
  project.provide('loopbackOrigin', origin);
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
