/**
 * Read your own writes after a finalize (issue 33, item 6): once a finalize answered, the caller's history,
 * the owner's listing and the owner's one request show that version, even when D1 holds an earlier
 * finalized one because the object's export of the new one has not run yet.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { historyOf } from './history-store';
import { call, createProject, type TestProject } from '../helpers/api';
import { finalize, forward, history, origin, readStream, runCallerJobsNow, visitorOwner } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

const SEQUENCES = 50;

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

/** Holds back the caller's object's export to its history table: its export job waits an hour (a new change joins it). */
async function holdExport(): Promise<void> {
  await runInDurableObject(forwardQueueStub(env, await visitorOwner(project)), (_instance, state) => {
    const later = Date.now() + 3_600_000;
    state.storage.sql.exec("UPDATE jobs SET run_at = ? WHERE kind = 'export-history'", later);
    state.storage.sql.exec(
      "INSERT INTO jobs (kind, run_at) SELECT 'export-history', ? WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE kind = 'export-history')",
      later,
    );
  });
}

/** The finalized version the history's row holds (JSON text), read straight from the caller's history table. */
const inD1 = async (id: string) =>
  (
    await historyOf(project.service_id)
      .prepare('SELECT response_body FROM forward_requests WHERE service_id = ? AND id = ?')
      .bind(project.service_id, id)
      .first<{ response_body: string | null }>()
  )?.response_body;

describe('the history shows the last finalized version as soon as the finalize answered', () => {
  it(`${SEQUENCES} finalize-then-replace sequences, each read at once by the caller's history, the owner's listing and the owner's one request`, async () => {
    const url = `${origin}/pieces/${crypto.randomUUID()}`;
    const res = await forward(project, { url, method: 'POST', stream: true, data: { pieces: ['data: one\n\n'] } });
    expect(res.status, res.text).toBe(200);
    const request = { id: res.json.id as string, url, method: 'POST' };
    await readStream(project, request);
    expect((await finalize(project, { ...request, data: { version: 0 } })).json.finalized).toBe(true);
    await runCallerJobsNow(project, ['export-history']);

    for (let version = 1; version <= SEQUENCES; version++) {
      // The history table holds the version before; the new one waits in the object's outbox while the listings read.
      expect(JSON.parse((await inD1(request.id)) ?? 'null'), `sequence ${version}: D1 before`).toEqual({ version: version - 1 });
      await holdExport();
      expect((await finalize(project, { ...request, data: { version } })).json.finalized).toBe(true);
      const [mine, owners, one] = await Promise.all([
        history(project, { url, method: 'POST' }),
        call('GET', `/v1/projects/${project.service_id}/forward/requests?${new URLSearchParams({ url, method: 'POST' })}`, { token: project.owner_key }),
        call('GET', `/v1/projects/${project.service_id}/forward/requests/${encodeURIComponent(request.id)}`, { token: project.owner_key }),
      ]);
      for (const [what, body] of [
        ['caller', mine.json.list?.[0]],
        ['owner', owners.json.list?.[0]],
        ['owner one', one.json],
      ] as const) {
        expect(body?.response_body, `sequence ${version}: ${what}'s read`).toEqual({ version });
      }
      expect(one.json.finalized, `sequence ${version}: owner one`).toBe(true);
      await runCallerJobsNow(project, ['export-history']);
    }
    expect(JSON.parse((await inD1(request.id)) ?? 'null')).toEqual({ version: SEQUENCES });
  });
});
