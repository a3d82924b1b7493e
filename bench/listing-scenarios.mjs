// The listing scenarios (issue 24 items 3 and 8): a 100-row page of the owner's ticket log (la) and of a
// caller's forward history (lh), each seeded through the real routes, with the bare route (lb, as (a))
// measured in turns beside them as the run's own baseline. Later work on where log and history bodies
// live is held to "p50 within 1.5× of today's" (docs/performance.md, "Listing latency baseline").
import { signedStripeEvents, forwardDispatch, apiData } from './scenarios.mjs';

export const LISTING_IDS = ['la', 'lh', 'lb'];
/** Rows seeded in each listing: more than one page, so the page read is a full one with a next key. */
const SEEDED_ROWS = 150;
const PAGE_ROWS = 100;
const USER_AGENT = 'svc-bench-listing/1';
const SEED_TIMEOUT_MS = 30_000;

const json = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

async function request(base, method, path, { token, body, headers = {} } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(typeof body === 'object' ? { 'content-type': 'application/json' } : {}),
      'user-agent': USER_AGENT,
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return json(text);
}

/** Polls `path` until its page holds a full PAGE_ROWS rows (the log export and history batch are asynchronous). */
async function untilFullPage(base, path, token) {
  const until = Date.now() + SEED_TIMEOUT_MS;
  for (;;) {
    const page = await request(base, 'GET', path, { token });
    if (page.list.length === PAGE_ROWS) return;
    if (Date.now() > until) throw new Error(`${path} lists ${page.list.length} rows, not ${PAGE_ROWS}, after seeding`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A project of its own on the gateway: SEEDED_ROWS Stripe-signed consumptions of a ticket (the bench's
 * Stripe ticket, with the same signed events as (d)) and SEEDED_ROWS direct forwarded requests of one
 * caller to the loopback destination (as (f)), all through the real routes.
 */
async function seedListings({ gateway, operatorToken, stripeSecret, destination }) {
  const base = gateway.url;
  const project = await request(base, 'POST', '/v1/projects', { token: operatorToken, body: { name: 'Benchmark listings' } });
  const sid = project.service_id;
  await request(base, 'PUT', `/v1/projects/${sid}/secrets/stripe_webhook_secret`, { token: project.owner_key, body: { value: stripeSecret } });
  const { origin } = new URL(destination.apiUrl);
  await request(base, 'PUT', `/v1/projects/${sid}/secrets/bench_api_key`, {
    token: project.owner_key,
    body: { value: destination.key, destinations: [`${origin}/`] },
  });
  const { TICKETS } = await import('./scenarios.mjs');
  await request(base, 'PUT', `/v1/projects/${sid}/tickets/stripe`, { token: project.owner_key, body: TICKETS.stripe });
  const events = await signedStripeEvents(stripeSecret);
  for (let i = 0; i < SEEDED_ROWS; i++) {
    const { body, header } = events[i % events.length];
    await request(base, 'POST', `/tp/${sid}/stripe`, { body, headers: { 'content-type': 'application/json', 'stripe-signature': header } });
  }
  for (let i = 0; i < SEEDED_ROWS; i++) {
    const answer = await request(base, 'POST', `/v1/projects/${sid}/forward`, { body: forwardDispatch(destination, apiData(i)) });
    if (answer?.authorized !== true) throw new Error('a seeded forwarded request did not reach the destination');
  }
  const logPath = `/v1/projects/${sid}/tickets?ticket_id=${encodeURIComponent('#stripe#')}&limit=${PAGE_ROWS}`;
  const historyPath = `/v1/projects/${sid}/forward/history?${new URLSearchParams({ url: destination.apiUrl, method: 'POST', limit: String(PAGE_ROWS) })}`;
  await untilFullPage(base, logPath, project.owner_key);
  await untilFullPage(base, historyPath);
  return { ownerKey: project.owner_key, logPath, historyPath };
}

const fullPage = (body) => json(body)?.list?.length === PAGE_ROWS;

/** The listing scenarios on a gateway seeded by seedListings; `prepare` and `accepts` as in scenarios.mjs. */
export async function listingScenarios(context) {
  const { gateway } = context;
  const seeded = await seedListings(context);
  const worker = { worker: gateway, base: gateway.url };
  const get = (path, token) => async () => () => ({
    method: 'GET',
    path,
    headers: { 'user-agent': USER_AGENT, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return [
    {
      id: 'la',
      name: "owner's ticket log, 100-row page (GET /tickets?ticket_id=#t#)",
      ...worker,
      prepare: get(seeded.logPath, seeded.ownerKey),
      accepts: fullPage,
    },
    { id: 'lh', name: "caller's forward history, 100-row page (GET /forward/history)", ...worker, prepare: get(seeded.historyPath), accepts: fullPage },
    { id: 'lb', name: 'bare route GET /v1/health (listing phase baseline)', ...worker, prepare: get('/v1/health'), accepts: (b) => json(b)?.ok === true },
  ];
}

/** The listings' p50 against the bare route's, per round (1.00 = as fast as the bare route). */
export function printListingBaseline(results, fmt) {
  if (!results.lb) return;
  for (const id of ['la', 'lh'].filter((x) => results[x])) {
    const ratios = results[id].map((r, i) => r.p50 / results.lb[i].p50);
    console.log(
      `  ${id}: p50 ${results[id].map((r) => fmt(r.p50, 2)).join(', ')} ms per round; ${ratios.map((x) => fmt(x, 2)).join(', ')} × the bare route's p50`,
    );
  }
}
