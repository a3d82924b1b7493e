// Scenario (h): how soon a queued forwardRequest starts. The bench dispatches with a queue, then polls
// every 50 ms until the request settled, as a client would, and reads `executed` and `responded` from
// the poll answers (the Worker runs on this machine, so its clock is the bench's). The loopback
// destination also logs when each request arrived and when its answer left, a view that includes what
// the queue does after stamping `executed` (the request is on disk before it is sent).
//  - idle: one request at a time on a queue with nothing waiting: dispatch -> start;
//  - burst: several dispatched at once to one queue: previous settled -> next start. Locally the gateway,
//    the proxy and the queue's object share one process and two cores, so while the burst's dispatches are
//    still being taken in, an answer waits behind them; the goal is judged on the pairs that settle after
//    every dispatch of the burst was answered, and every pair is reported too.
import { apiData, forwardDispatch } from './scenarios.mjs';

const POLL_MS = 50;
/** After a settled request the next idle one waits this long, so the queue's history export ran and nothing is pending. */
const IDLE_PAUSE_MS = 250;
const SETTLE_TIMEOUT_MS = 30_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Wall-clock ms with sub-ms precision (as the destination logs them). */
const wallMs = () => performance.timeOrigin + performance.now();
const isSettled = (status) => status !== 'pending' && status !== 'running';

async function dispatch(base, serviceId, destination, tag, queue) {
  const res = await fetch(`${base}/v1/projects/${serviceId}/forward`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'svc-bench/1' },
    body: JSON.stringify(forwardDispatch(destination, { ...apiData(0), tag }, queue)),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`(h) dispatch answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

async function poll(base, serviceId, destination, id) {
  const query = new URLSearchParams({ id, url: destination.apiUrl, method: 'POST' });
  const res = await fetch(`${base}/v1/projects/${serviceId}/forward/request?${query}`, { headers: { 'user-agent': 'svc-bench/1' } });
  const text = await res.text();
  if (!res.ok) throw new Error(`(h) poll answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Polls every POLL_MS until each request settled; resolves each one's last envelope and when the bench saw it settled. */
async function pollUntilSettled(base, serviceId, destination, ids) {
  const done = new Map();
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (done.size < ids.length) {
    if (Date.now() > deadline) throw new Error(`(h) ${ids.length - done.size} request(s) still unsettled after ${SETTLE_TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
    const open = ids.filter((id) => !done.has(id));
    const envelopes = await Promise.all(open.map((id) => poll(base, serviceId, destination, id)));
    const seen = Date.now();
    for (const envelope of envelopes) if (isSettled(envelope.status)) done.set(envelope.id, { envelope, seen });
  }
  for (const { envelope } of done.values()) {
    if (envelope.status !== 'resolved' || envelope.status_code !== 200 || envelope.response_body?.authorized !== true) {
      throw new Error(`(h) request ${envelope.id} settled as ${JSON.stringify(envelope)}`);
    }
  }
  return ids.map((id) => done.get(id));
}

/**
 * Measures one round of (h): `idle` requests one after the other on one queue, then `bursts` times
 * `burstSize` requests dispatched at once to a fresh queue. Returns the samples in ms:
 * idle: { dispatchToStart, dispatchToArrival, createdToStart, dispatchToSeen };
 * gaps: { settleToStart (server clock), answerToArrival (destination clock), overlap, queueOnly } of every
 * pair of a burst; queueOnly: the pairs whose gap is the queue's alone (see the top of this file).
 */
export async function measureQueueRound({ base, serviceId, destination, round, idle, bursts, burstSize }) {
  const idleSamples = [];
  for (let i = 0; i < idle; i++) {
    const tag = `h-idle-${round}-${i}`;
    const sentWall = wallMs();
    const sent = Date.now();
    const { id } = await dispatch(base, serviceId, destination, tag, 'bench-idle');
    const [{ envelope, seen }] = await pollUntilSettled(base, serviceId, destination, [id]);
    const arrival = (await destination.log()).find((entry) => entry.tag === tag);
    if (!arrival) throw new Error(`(h) the destination did not log ${tag}`);
    idleSamples.push({
      dispatchToStart: envelope.executed - sent,
      dispatchToArrival: arrival.arrived - sentWall,
      createdToStart: envelope.executed - envelope.created,
      dispatchToSeen: seen - sent,
    });
    await sleep(IDLE_PAUSE_MS);
  }

  const gapSamples = [];
  for (let b = 0; b < bursts; b++) {
    const queue = `bench-burst-${round}-${b}`;
    const tags = Array.from({ length: burstSize }, (_, k) => `h-burst-${round}-${b}-${k}`);
    const envelopes = await Promise.all(tags.map((tag) => dispatch(base, serviceId, destination, tag, queue)));
    const intakeDone = wallMs();
    const settled = await pollUntilSettled(
      base,
      serviceId,
      destination,
      envelopes.map((e) => e.id),
    );
    const logged = new Map((await destination.log()).map((entry) => [entry.tag, entry]));
    const runs = settled
      .map(({ envelope }, k) => ({ envelope, arrival: logged.get(tags[k]), storedBehind: envelopes[k].in_queue > 1 }))
      .sort((x, y) => x.envelope.executed - y.envelope.executed || x.arrival.arrived - y.arrival.arrived);
    if (runs.some((r) => !r.arrival)) throw new Error(`(h) the destination did not log every request of ${queue}`);
    for (let k = 1; k < runs.length; k++) {
      const previous = runs[k - 1];
      const next = runs[k];
      gapSamples.push({
        settleToStart: next.envelope.executed - previous.envelope.responded,
        answerToArrival: next.arrival.arrived - previous.arrival.answered,
        overlap: next.arrival.arrived < previous.arrival.answered,
        // Stored while another request of its queue waited or ran (else it started as an idle one), and the
        // previous one answered once the burst was taken in.
        queueOnly: next.storedBehind && previous.arrival.answered >= intakeDone,
      });
    }
  }
  return { idle: idleSamples, gaps: gapSamples, queueOnly: gapSamples.filter((g) => g.queueOnly) };
}
