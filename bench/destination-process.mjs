// The loopback destination of the forwarding scenarios (f, g, h), run as its own process (own event
// loop, own process group for CPU accounting): a JSON API that wants `Authorization: Bearer <key>`.
//   POST /api        answers { authorized, received } (401 without the key); a body with a `tag`
//                    is logged with when it arrived and when its answer was sent (wall clock, µs)
//   GET  /log        the tagged requests logged so far, then forgets them
//   GET  /stats      { requests, unauthorized } since start
//   GET  /stream?tag&pieces&gap  (streaming scenarios) answers server-sent events: the headers at once,
//                    then, after POST /go?tag, `pieces` events `gap` ms apart (0: back to back), each
//                    carrying its index and its write time (see pieces.mjs); wants the key too
//   POST /go?tag     starts that stream once it is connected (waits for it); answers { started }
// Started by destination.mjs, which passes the key in DESTINATION_KEY and reads the port over IPC.
import http from 'node:http';
import { pieceText } from './pieces.mjs';

const expected = `Bearer ${process.env.DESTINATION_KEY}`;
/** Wall-clock ms with sub-ms precision, comparable with the bench's (same machine clock). */
const wallMs = () => performance.timeOrigin + performance.now();
let log = [];
let requests = 0;
let unauthorized = 0;
/** Streams connected and waiting for their go, by tag; and the go calls waiting for a stream, by tag. */
const waitingStreams = new Map();
const waitingGos = new Map();
/** A stream never started, or a go whose stream never connects, gives up after this long. */
const GATE_TIMEOUT_MS = 30_000;
const MAX_PIECES = 100_000;

const sleep = (ms) => new Promise((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));

/** Writes the pieces of one stream, then ends it; stops early when the reader went away. */
async function writePieces(res, pieces, gapMs) {
  for (let i = 0; i < pieces && !res.destroyed; i++) {
    if (i > 0) await sleep(gapMs);
    res.write(pieceText(i, wallMs()));
  }
  res.end();
}

function openStream(res, query) {
  const tag = query.get('tag') ?? '';
  const pieces = Math.min(MAX_PIECES, Number(query.get('pieces') ?? 0));
  const gapMs = Number(query.get('gap') ?? 0);
  if (tag === '' || !Number.isInteger(pieces) || pieces < 1 || !(gapMs >= 0)) {
    res.writeHead(400, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ error: 'tag, pieces ≥ 1 and gap ≥ 0 are required' }));
  }
  res.socket.setNoDelay(true);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  res.flushHeaders();
  const start = () => {
    clearTimeout(timer);
    waitingStreams.delete(tag);
    writePieces(res, pieces, gapMs);
  };
  const timer = setTimeout(() => {
    waitingStreams.delete(tag);
    res.end();
  }, GATE_TIMEOUT_MS);
  res.on('close', () => {
    clearTimeout(timer);
    if (waitingStreams.get(tag) === start) waitingStreams.delete(tag);
  });
  const go = waitingGos.get(tag);
  if (go) {
    waitingGos.delete(tag);
    go(start);
  } else waitingStreams.set(tag, start);
}

/** Starts the stream `tag` now, or as soon as it connects; answers when it started (wall clock ms). */
async function goStream(res, tag) {
  const answer = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  let start = waitingStreams.get(tag);
  if (!start) {
    start = await new Promise((resolve) => {
      const timer = setTimeout(() => {
        waitingGos.delete(tag);
        resolve(undefined);
      }, GATE_TIMEOUT_MS);
      waitingGos.set(tag, (s) => {
        clearTimeout(timer);
        resolve(s);
      });
    });
  }
  if (!start) return answer(404, { error: `no stream ${tag} connected within ${GATE_TIMEOUT_MS} ms` });
  const started = wallMs();
  start();
  answer(200, { started });
}

const server = http.createServer((req, res) => {
  const arrived = wallMs();
  const url = new URL(req.url, 'http://destination');
  if (req.method === 'GET' && url.pathname === '/stream') {
    requests++;
    req.resume();
    if (req.headers.authorization !== expected) {
      unauthorized++;
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ authorized: false }));
    }
    return openStream(res, url.searchParams);
  }
  if (req.method === 'POST' && url.pathname === '/go') {
    req.resume();
    return goStream(res, url.searchParams.get('tag') ?? '');
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const answer = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/log') {
      const taken = log;
      log = [];
      return answer(200, taken);
    }
    if (req.method === 'GET' && req.url === '/stats') return answer(200, { requests, unauthorized });
    if (req.method !== 'POST' || req.url !== '/api') return answer(404, { error: 'not found' });
    requests++;
    const text = Buffer.concat(chunks).toString('utf8');
    if (req.headers.authorization !== expected) {
      unauthorized++;
      return answer(401, { authorized: false });
    }
    let tag;
    try {
      tag = JSON.parse(text)?.tag;
    } catch {
      return answer(400, { error: 'body is not JSON' });
    }
    answer(200, { authorized: true, received: Buffer.byteLength(text) });
    if (tag !== undefined) log.push({ tag, arrived, answered: wallMs() });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
