// The loopback destination of the forwarding scenarios (f, g, h), run as its own process (own event
// loop, own process group for CPU accounting): a JSON API that wants `Authorization: Bearer <key>`.
//   POST /api        answers { authorized, received } (401 without the key); a body with a `tag`
//                    is logged with when it arrived and when its answer was sent (wall clock, µs)
//   GET  /log        the tagged requests logged so far, then forgets them
//   GET  /stats      { requests, unauthorized } since start
// Started by destination.mjs, which passes the key in DESTINATION_KEY and reads the port over IPC.
import http from 'node:http';

const expected = `Bearer ${process.env.DESTINATION_KEY}`;
/** Wall-clock ms with sub-ms precision, comparable with the bench's (same machine clock). */
const wallMs = () => performance.timeOrigin + performance.now();
let log = [];
let requests = 0;
let unauthorized = 0;

const server = http.createServer((req, res) => {
  const arrived = wallMs();
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
