/** Calls of the forwarding routes through the real Worker, and waiting for a queued request to settle. */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { inject } from 'vitest';
import { forwardCaller } from '../../src/forward/caller';
import { call, type TestProject } from '../helpers/api';
import { forwardQueueStub } from '../../src/platform/object-stubs';

export const origin = inject('loopbackOrigin');

/** A visitor by default; pass a token (an id token or the owner key) to call as someone. */
export interface As {
  token?: string;
  headers?: Record<string, string>;
}

export const forward = (project: TestProject, body: Record<string, unknown>, as: As = {}) =>
  call('POST', `/v1/projects/${project.service_id}/forward`, { body, ...as });

const addressQuery = (address: { id: string; url?: string; method?: string }) =>
  new URLSearchParams(Object.entries(address).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();

export const poll = (project: TestProject, address: { id: string; url?: string; method?: string }, as: As = {}) =>
  call('GET', `/v1/projects/${project.service_id}/forward/request?${addressQuery(address)}`, as);

export const cancel = (project: TestProject, address: { id: string; url?: string; method?: string }, as: As = {}) =>
  call('DELETE', `/v1/projects/${project.service_id}/forward/request?${addressQuery(address)}`, as);

export const withdraw = (project: TestProject, address: { id: string; url?: string; method?: string }, as: As = {}) =>
  call('POST', `/v1/projects/${project.service_id}/forward/request/withdraw?${addressQuery(address)}`, as);

export const queueCount = (project: TestProject, queue: string, as: As = {}) =>
  call('GET', `/v1/projects/${project.service_id}/forward/queue?queue=${encodeURIComponent(queue)}`, as);

export const history = (project: TestProject, query: Record<string, string>, as: As = {}) =>
  call('GET', `/v1/projects/${project.service_id}/forward/history?${new URLSearchParams(query)}`, as);

/** Polls every 20 ms (at most 15 s) until the request settles; answers the last envelope. */
export async function settledEnvelope(project: TestProject, address: { id: string; url: string; method: string }, as: As = {}) {
  const until = Date.now() + 15_000;
  for (;;) {
    const res = await poll(project, address, as);
    if (res.status !== 200) throw new Error(`poll failed: ${res.status} ${res.text}`);
    if (res.json.status === 'resolved' || res.json.status === 'failed') return res.json;
    if (Date.now() > until) throw new Error(`request did not settle: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many requests the loopback server received for this path. */
export async function received(path: string): Promise<number> {
  const res = await fetch(`${origin}/received?path=${encodeURIComponent(path)}`);
  return ((await res.json()) as { count: number }).count;
}

/** GET a loopback control route (gate, seq-state, endless-state) and read its JSON. */
export async function loopback(path: string): Promise<any> {
  const res = await fetch(`${origin}${path}`);
  return res.json();
}

/** Waits until `n` requests are held at /gate/hold/<key> (at most 15 s). */
export async function heldAtGate(key: string, n = 1): Promise<void> {
  const until = Date.now() + 15_000;
  while (((await loopback(`/gate/waiting/${key}`)) as { waiting: number }).waiting < n) {
    if (Date.now() > until) throw new Error(`gate ${key} never held ${n} request(s)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Polls `check` every 20 ms (at most 15 s) until it answers true. */
export async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A path of the test's own under `route`, so loopback counts are not shared between tests. */
export const uniquePath = (route: string) => `${route}/${crypto.randomUUID()}`;

/** A poll with a cursor: the pieces after `since` (GET /forward/request?...&since=N). */
export const pollSince = (project: TestProject, address: { id: string; url: string; method: string }, since: number | string, as: As = {}) =>
  call('GET', `/v1/projects/${project.service_id}/forward/request?${addressQuery(address)}&since=${since}`, as);

export const finalize = (project: TestProject, body: Record<string, unknown>, as: As = {}) =>
  call('POST', `/v1/projects/${project.service_id}/forward/request/finalize`, { body, ...as });

/**
 * Reads a streamed request's pieces from `since` until it settled and no page is left (at most 30 s):
 * the text, every seq in order of arrival, and the last envelope.
 */
export async function readStream(project: TestProject, address: { id: string; url: string; method: string }, since = 0, as: As = {}, waitMs = 30_000) {
  const until = Date.now() + waitMs;
  let cursor = since;
  let text = '';
  const seqs: number[] = [];
  for (;;) {
    const res = await pollSince(project, address, cursor, as);
    if (res.status !== 200) throw new Error(`read failed: ${res.status} ${res.text}`);
    for (const chunk of res.json.chunks as { seq: number; txt: string }[]) {
      seqs.push(chunk.seq);
      text += chunk.txt;
    }
    cursor = res.json.last_seq;
    const settled = res.json.status === 'resolved' || res.json.status === 'failed';
    if (settled && !res.json.more) return { text, seqs, envelope: res.json };
    if (Date.now() > until) throw new Error(`stream did not settle: ${res.text.slice(0, 300)}`);
    if (!res.json.more) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The history owner of the tests' default caller (a visitor with no address or user agent). */
export async function visitorOwner(project: TestProject) {
  const caller = await forwardCaller({ kind: 'anonymous' }, '0.0.0.0', '');
  return { serviceId: project.service_id, callerKey: caller.key };
}

/** Runs the visitor's object's jobs of these kinds now (compaction and stream moves wait a minute). */
export async function runCallerJobsNow(project: TestProject, kinds: string[]): Promise<void> {
  const stub = forwardQueueStub(env, await visitorOwner(project));
  await runInDurableObject(stub, (_instance, state) => {
    state.storage.sql.exec('UPDATE jobs SET run_at = 0 WHERE kind IN (SELECT value FROM json_each(?))', JSON.stringify(kinds));
  });
  await runDurableObjectAlarm(stub);
}
