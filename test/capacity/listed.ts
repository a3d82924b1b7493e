/**
 * How many entries the owner's listings show, read through the real routes and paged as a client pages
 * (`startKey` until `endOfList`, bounded): the owner's log of a ticket, and the project's forwarded
 * requests. The capacity test checks these against the operations it ran, whatever the storage layout.
 */
import { call, type TestProject } from '../helpers/api';

const MAX_PAGES = 100;

/**
 * What a listed row stands for: itself, or, for a minute's summary of failures and dry runs past the
 * sampling budget (issue 26 item 2), the ones it counts.
 */
const accounted = (row: { sampled?: { more: number } }): number => row.sampled?.more ?? 1;

async function countPages(project: TestProject, path: (startKey: string | undefined) => string): Promise<number> {
  let count = 0;
  let startKey: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await call('GET', path(startKey), { token: project.owner_key });
    if (res.status !== 200) throw new Error(`listing failed: ${res.status} ${res.text.slice(0, 300)}`);
    count += (res.json.list as { sampled?: { more: number } }[]).reduce((sum, row) => sum + accounted(row), 0);
    if (res.json.endOfList) return count;
    startKey = typeof res.json.startKey === 'string' ? res.json.startKey : JSON.stringify(res.json.startKey);
  }
  throw new Error(`listing did not end within ${MAX_PAGES} pages`);
}

const pageQuery = (startKey: string | undefined) => `limit=100${startKey === undefined ? '' : `&startKey=${encodeURIComponent(startKey)}`}`;

/** Consumptions the ticket's log accounts for (dry runs and refusals included, kept whole or counted in a summary). */
export const loggedConsumptions = (project: TestProject, ticketId: string) =>
  countPages(project, (startKey) => `/v1/projects/${project.service_id}/tickets?ticket_id=${encodeURIComponent(`#${ticketId}#`)}&${pageQuery(startKey)}`);

/** Every caller's forwarded requests of the project. */
export const forwardedRequests = (project: TestProject) =>
  countPages(project, (startKey) => `/v1/projects/${project.service_id}/forward/requests?${pageQuery(startKey)}`);

/** Polls `count` until it reaches `expected` (at most 15 s); answers the last count. */
export async function countReaching(count: () => Promise<number>, expected: number): Promise<number> {
  const until = Date.now() + 15_000;
  for (;;) {
    const now = await count();
    if (now >= expected || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
