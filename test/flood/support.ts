/** Flood-control tests: requests from chosen addresses, counted by the locally simulated Rate Limiting bindings. */
import { FLOOD_PERIOD_SECONDS } from '../../src/limits';
import { call, type TestProject } from '../helpers/api';

const PERIOD_MS = FLOOD_PERIOD_SECONDS * 1000;

/**
 * The local simulation counts in windows of the period aligned to the clock (a new window starts every 10 s),
 * so a test that fills a limit starts early in a window: it waits for the next one unless `needMs` remain.
 */
export async function freshWindow(needMs = 7_000): Promise<void> {
  // A burst of a thousand requests takes about 5 s here: the tests that send one ask for 9.5 s.
  const left = PERIOD_MS - (Date.now() % PERIOD_MS);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** The headers of a caller at `ip` (CF-Connecting-IP, the only header that names the caller). */
export const from = (ip: string, extra: Record<string, string> = {}) => ({ 'cf-connecting-ip': ip, 'user-agent': 'flood-tests', ...extra });

/** GET /tg of a ticket from `ip`. */
export const consumeFrom = (project: TestProject, ticketId: string, ip: string, extra: Record<string, string> = {}) =>
  call('GET', `/tg/${project.service_id}/${ticketId}`, { headers: from(ip, extra) });

/** Sends `n` requests at once (in batches of 250) and answers their statuses. */
export async function burst(n: number, send: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < n; start += 250) {
    const batch = await Promise.all(Array.from({ length: Math.min(250, n - start) }, (_, k) => send(start + k)));
    statuses.push(...batch.map((res) => res.status));
  }
  return statuses;
}

/**
 * A burst that must land in one window of the simulation, with `spareMs` of the window left for the checks
 * that follow. It starts at the start of a window; on a loaded machine where it outlasts the window it is
 * sent again from the next one (its spilled counts are in windows already over), at most `tries` times.
 * Only bursts whose requests change nothing (refused before any work) may be sent again.
 */
export async function burstInOneWindow(n: number, send: (i: number) => Promise<{ status: number }>, spareMs = 500, tries = 3): Promise<number[]> {
  for (let attempt = 1; ; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, PERIOD_MS - (Date.now() % PERIOD_MS) + 50));
    const windowEnd = Date.now() - (Date.now() % PERIOD_MS) + PERIOD_MS;
    const statuses = await burst(n, send);
    if (Date.now() + spareMs < windowEnd) return statuses;
    if (attempt === tries) throw new Error(`a burst of ${n} outlasted a ${PERIOD_MS} ms window ${tries} times: the machine is too loaded for this test`);
  }
}

/** Changes the project's flood limits with the owner key. */
export async function setFloodLimits(project: TestProject, limits: Record<string, unknown> | null) {
  const res = await call('PATCH', `/v1/projects/${project.service_id}/settings`, { token: project.owner_key, body: { flood_limits: limits } });
  if (res.status !== 200) throw new Error(`settings refused: ${res.status} ${res.text}`);
  return res.json;
}
