// The streaming scenarios of issue 12, one round each. Every stream is a loopback destination's
// server-sent events (pieces.mjs) held until the reader is ready, then written by the destination;
// a piece's latency is its arrival at the reader minus its write time (one machine clock).
//  (s1) the gateway with stream + realtime, read on the realtime socket;
//  (s2) the baseline's pass-through route (`return fetch(dest)`), read with fetch streaming;
//  (sp) the gateway with stream, read by polling with `since` every 50 ms;
//  (s3) one stream fanned out to many sockets: the gateway's realtime room against the baseline's
//       bare broadcasting Durable Object fed the same stream; pieces delivered per second.
import { randomBytes } from 'node:crypto';
import { pieceReader, sequencedReader } from './pieces.mjs';
import { API_SECRET_NAME } from './scenarios.mjs';
import { openPieceSocket, until, wsUrl } from './sockets.mjs';

const USER_AGENT = 'svc-bench/1';
const POLL_MS = 50;
/** A single call to the gateway (dispatch, poll) gives up after this long. */
const CALL_TIMEOUT_MS = 10_000;
/** What a stream may take beyond its own writing time before the round fails. */
const SLACK_MS = 30_000;

const wallMs = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const newTag = (name) => `${name}-${randomBytes(6).toString('hex')}`;
const streamTimeMs = ({ pieces, gapMs }) => pieces * Math.max(gapMs, 1);

async function gatewayCall(base, method, route, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Dispatches a streamed GET of `url` with the key in a header; the envelope (with realtime_group when asked). */
async function dispatchStream(gateway, serviceId, url, realtime) {
  const envelope = await gatewayCall(gateway.url, 'POST', `/v1/projects/${serviceId}/forward`, {
    url,
    method: 'GET',
    secretName: API_SECRET_NAME,
    headers: { authorization: 'Bearer $CLIENT_SECRET' },
    stream: true,
    ...(realtime ? { realtime: true } : {}),
  });
  if (realtime && typeof envelope.realtime_group !== 'string') throw new Error(`a realtime dispatch answered no realtime_group: ${JSON.stringify(envelope)}`);
  return envelope;
}

const realtimeRoute = (serviceId) => `/v1/projects/${serviceId}/realtime`;

async function join(reader, group) {
  const joined = reader.next('joined');
  reader.socket.send(JSON.stringify({ type: 'join', group }));
  const frame = await joined;
  if (frame.type !== 'joined') throw new Error(`join answered ${JSON.stringify(frame)}`);
}

const closeAll = (readers) => {
  for (const r of readers) r.socket.close();
};

/** (s1): { latencies, frames }. */
export async function realtimeRound({ gateway, serviceId, destination, pieces, gapMs }) {
  const tag = newTag('s1');
  const reader = await openPieceSocket(wsUrl(gateway.url, realtimeRoute(serviceId)), USER_AGENT);
  try {
    const envelope = await dispatchStream(gateway, serviceId, destination.streamUrl({ tag, pieces, gapMs }), true);
    await join(reader, envelope.realtime_group);
    await destination.go(tag);
    await until(() => reader.pieces.count >= pieces, streamTimeMs({ pieces, gapMs }) + SLACK_MS, `(s1) not every piece reached the socket`);
    reader.checkFrames();
    reader.pieces.check(pieces);
    return { latencies: reader.pieces.latencies, frames: reader.pieces.parts };
  } finally {
    closeAll([reader]);
  }
}

/** (s2): { latencies, frames } (frames: the reads the bench's fetch made). */
export async function passThroughRound({ baseline, destination, pieces, gapMs }) {
  const tag = newTag('s2');
  const query = new URL(destination.streamUrl({ tag, pieces, gapMs })).search;
  const abort = AbortSignal.timeout(streamTimeMs({ pieces, gapMs }) + SLACK_MS);
  const res = await fetch(`${baseline.url}/stream/pass-through${query}`, { headers: { 'user-agent': USER_AGENT }, signal: abort });
  if (!res.ok) throw new Error(`(s2) the pass-through answered ${res.status}: ${await res.text()}`);
  const reader = pieceReader();
  const latencies = [];
  let frames = 0;
  const read = (async () => {
    const decoder = new TextDecoder();
    for await (const bytes of res.body) {
      const receivedAt = wallMs();
      frames++;
      for (const piece of reader.push(decoder.decode(bytes, { stream: true }), receivedAt)) latencies.push(piece.latency);
    }
  })();
  // Awaited below, after the go: a failure meanwhile is not an unhandled rejection.
  read.catch(() => undefined);
  await destination.go(tag);
  await read;
  reader.check(pieces);
  return { latencies, frames };
}

/** (sp): { latencies, frames (stored pieces), polls }. */
export async function pollRound({ gateway, serviceId, destination, pieces, gapMs }) {
  const tag = newTag('sp');
  const url = destination.streamUrl({ tag, pieces, gapMs });
  const envelope = await dispatchStream(gateway, serviceId, url, false);
  await destination.go(tag);
  const reader = sequencedReader();
  const deadline = Date.now() + streamTimeMs({ pieces, gapMs }) + SLACK_MS;
  let polls = 0;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`(sp) the stream did not settle in time (${reader.count} of ${pieces} pieces read)`);
    const query = new URLSearchParams({ id: envelope.id, url, method: 'GET', since: String(reader.parts) });
    const answer = await gatewayCall(gateway.url, 'GET', `/v1/projects/${serviceId}/forward/request?${query}`);
    const receivedAt = wallMs();
    polls++;
    for (const chunk of answer.chunks ?? []) reader.push(chunk.seq, chunk.txt, receivedAt);
    const settled = answer.status !== 'pending' && answer.status !== 'running';
    if (settled && answer.status !== 'resolved') throw new Error(`(sp) the stream settled as ${JSON.stringify(answer)}`);
    if (settled && !answer.more) break;
    if (!answer.more) await sleep(POLL_MS);
  }
  reader.check(pieces);
  return { latencies: reader.latencies, frames: reader.parts, polls };
}

/** Waits until every socket read every piece; { perSecond, elapsedMs, delivered, frames (per socket, median) }. */
async function fanOutResult(readers, pieces, started, timeoutMs, what) {
  await until(() => readers.every((r) => r.pieces.count >= pieces), timeoutMs, `(s3) ${what}: not every socket read every piece`);
  for (const r of readers) {
    r.checkFrames();
    r.pieces.check(pieces);
  }
  const elapsedMs = Math.max(...readers.map((r) => r.pieces.lastAt)) - started;
  const frames = readers.map((r) => r.pieces.parts).sort((a, b) => a - b);
  const delivered = pieces * readers.length;
  return { perSecond: (delivered * 1000) / elapsedMs, elapsedMs, delivered, frames: frames[Math.floor(frames.length / 2)] };
}

/** (s3) on the gateway: `sockets` sockets joined to one realtime_group, one stream. */
export async function gatewayFanOutRound({ gateway, serviceId, destination, sockets, pieces, gapMs }) {
  const tag = newTag('s3g');
  const readers = [];
  try {
    for (let i = 0; i < sockets; i++) readers.push(await openPieceSocket(wsUrl(gateway.url, realtimeRoute(serviceId)), USER_AGENT));
    const envelope = await dispatchStream(gateway, serviceId, destination.streamUrl({ tag, pieces, gapMs }), true);
    await Promise.all(readers.map((r) => join(r, envelope.realtime_group)));
    const started = await destination.go(tag);
    return await fanOutResult(readers, pieces, started, streamTimeMs({ pieces, gapMs }) + SLACK_MS, 'gateway');
  } finally {
    closeAll(readers);
  }
}

/** (s3) on the baseline: `sockets` sockets on one Broadcaster, fed the same stream by the baseline Worker. */
export async function baselineFanOutRound({ baseline, destination, sockets, pieces, gapMs }) {
  const tag = newTag('s3b');
  const room = newTag('room');
  const readers = [];
  try {
    for (let i = 0; i < sockets; i++) readers.push(await openPieceSocket(wsUrl(baseline.url, `/fanout/socket?room=${room}`), USER_AGENT));
    const query = new URL(destination.streamUrl({ tag, pieces, gapMs })).searchParams;
    query.set('room', room);
    const timeoutMs = streamTimeMs({ pieces, gapMs }) + SLACK_MS;
    const feed = fetch(`${baseline.url}/fanout/feed?${query}`, {
      method: 'POST',
      headers: { 'user-agent': USER_AGENT },
      signal: AbortSignal.timeout(timeoutMs),
    });
    feed.catch(() => undefined);
    const started = await destination.go(tag);
    const result = await fanOutResult(readers, pieces, started, timeoutMs, 'baseline');
    const fed = await feed;
    if (!fed.ok) throw new Error(`(s3) the baseline feed answered ${fed.status}: ${await fed.text()}`);
    return result;
  } finally {
    closeAll(readers);
  }
}
