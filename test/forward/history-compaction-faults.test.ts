/**
 * A failure of R2 or of the history's write while a caller's history bodies move to a segment (issue 24, bad input): nothing is
 * lost and nothing is left that no cleanup removes. R2 failing: the rows and their waiting bodies stay as
 * they were and the next run moves them. The history's write failing after the segment was written: the segment is deleted
 * again, the rows still answer from their waiting bodies.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { SqlDatabase } from '../../durable-objects/sql-database';
import type { HistoryDb } from '../../src/forward/history-db';
import { compactHistory } from '../../src/forward/history-segments';
import { historyOf } from './history-store';
import { createProject, type TestProject } from '../helpers/api';
import { failingBucket } from '../mail/helpers';
import { forward, history, origin, uniquePath, visitorOwner } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

let project: TestProject;
let url: string;
const big = (i: number) => ({ i, text: `${'ü'.repeat(120)} ${'y'.repeat(300)} ${i}` });

const owner = () => visitorOwner(project);
const waiting = async () =>
  (await historyOf(project.service_id)
    .prepare('SELECT COUNT(*) AS n FROM forward_bodies WHERE service_id = ? AND url = ?')
    .bind(project.service_id, url)
    .first<{ n: number }>())!.n;
const segmentKeys = async () => (await env.BODIES.list({ prefix: `fwd/segments/${project.service_id}/` })).objects.map((o) => o.key);
const listing = async () => (await history(project, { url, method: 'POST', limit: '100' })).text;

/** The caller's history whose batches fail as if its storage refused them; single statements reach the real tables. */
const batchesFail = (db: HistoryDb): HistoryDb => ({
  prepare: (sql) => db.prepare(sql),
  batch: () => Promise.reject(new Error('the history write failed (test)')),
});

/** One compaction step in the caller's object, over its history (as `wrap` makes it) and this bucket. */
const compact = async (bucket: R2Bucket, wrap: (db: HistoryDb) => HistoryDb = (db) => db) => {
  const caller = await owner();
  return runInDurableObject(forwardQueueStub(env, caller), (_instance, state: DurableObjectState) =>
    compactHistory(wrap(new SqlDatabase(state.storage)), bucket, caller),
  );
};

beforeAll(async () => {
  project = await createProject();
  url = `${origin}${uniquePath('/echo/compaction-faults')}`;
  for (let i = 0; i < 5; i++) expect((await forward(project, { url, method: 'POST', data: big(i) })).status).toBe(200);
});

describe('a failure while history bodies move to R2', () => {
  it('R2 refusing the segment changes nothing: the bodies keep waiting, the listing answers the same, the next run moves them', async () => {
    const before = await listing();
    expect(await waiting()).toBe(5);
    await expect(compact(failingBucket(env.BODIES, ['put']))).rejects.toThrow('R2 is unavailable');
    expect(await waiting()).toBe(5);
    expect(await segmentKeys()).toEqual([]);
    expect(await listing()).toBe(before);
  });

  it('the history write failing after the segment was written deletes the segment again: no orphan, the bodies still answer', async () => {
    const before = await listing();
    await expect(compact(env.BODIES, batchesFail)).rejects.toThrow('the history write failed');
    expect(await segmentKeys()).toEqual([]);
    expect(await waiting()).toBe(5);
    expect(await listing()).toBe(before);
    // Once both stores answer again, one run moves them all and the answers stay the same.
    expect(await compact(env.BODIES)).toMatchObject({ moved: 5 });
    expect(await waiting()).toBe(0);
    expect(await segmentKeys()).toHaveLength(1);
    expect(await listing()).toBe(before);
  });
});
