// Closed-loop load over loopback: `concurrency` requests in flight, each connection sending its
// next request as soon as the previous answer is read. Bounded by a duration and a request count.
import http from 'node:http';

const REQUEST_TIMEOUT_MS = 10_000;

/** Sends one request and resolves { status, body } after the whole answer is read. */
function send(agent, base, { method, path, headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method, agent, headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs `nextRequest(i)` (=> { method, path, headers, body }) with `concurrency` in flight until
 * `durationMs` has passed or `maxRequests` were sent. An answer whose status is not `expectStatus`
 * counts as an error (the first one is kept to report). Latencies are in ms.
 */
export async function runLoad({ base, nextRequest, concurrency, durationMs, maxRequests, expectStatus = 200 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let sent = 0;
  let errors = 0;
  let firstError;
  const started = performance.now();
  const deadline = started + durationMs;
  const loop = async () => {
    while (sent < maxRequests && performance.now() < deadline) {
      const request = nextRequest(sent++);
      const t0 = performance.now();
      try {
        const res = await send(agent, base, request);
        if (res.status !== expectStatus) {
          errors++;
          firstError ??= `${res.status} ${res.body.slice(0, 300)}`;
          continue;
        }
      } catch (err) {
        errors++;
        firstError ??= err.message;
        continue;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsedMs = performance.now() - started;
  agent.destroy();
  return { latencies, elapsedMs, errors, firstError };
}

export { send };
