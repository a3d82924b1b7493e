/**
 * A direct forward always answers (issue 34, item 1): within its 10 s call limit plus a bounded overhead,
 * whatever else is in flight. Here: the compaction of the caller's long history, whose statement read every
 * row of the caller once per row it moved, holding D1 (and locally the whole runtime) for seconds a step, so
 * the bench's direct forwards went unanswered. The history is now in the caller's object, which the direct
 * forwards go through: the compaction must not hold them either.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInDurableObject } from 'cloudflare:test';
import { type ForwardQueueDO } from '../../durable-objects/forward-queue-do';
import { historyOf } from './history-store';
import type { HistoryOwner } from '../../src/forward/history';
import { createProject, type TestProject } from '../helpers/api';
import { forward, origin, runCallerJobsNow, uniquePath, visitorOwner } from './support';
import { forwardQueueStub } from '../../src/platform/object-stubs';

/** Settled rows already in the caller's history, each with bodies past the inline size (to be compacted). */
const HISTORY_ROWS = 8_000;
const FORWARDS = 48;
const AT_ONCE = 16;
/** Generous: the 10 s call limit (the loopback answers at once) plus the overhead. */
const ANSWERED_WITHIN_MS = 15_000;

let project: TestProject;
beforeAll(async () => {
  project = await createProject();
});

/** The rows as the direct path leaves them, written in one statement (data, not the thing under test). */
async function seedHistory(owner: HistoryOwner, url: string): Promise<void> {
  const now = Date.now();
  await historyOf(owner.serviceId, [owner])
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?3)
     INSERT INTO forward_requests (service_id, caller_key, method, url, id, queue_name, status, created, updated, executed, responded, status_code,
       request_body, response_body, stream, request_headers)
     SELECT ?1, ?2, 'POST', ?4, printf('0seed%06d:AAAAAAAAAAAAAAAA', i), NULL, 'resolved', ?5, ?5, ?5, ?5, 200,
       json_quote(replace(hex(zeroblob(150)), '0', 'q')), '{"ok":true}', 0, '{}' FROM n`,
    )
    .bind(owner.serviceId, owner.callerKey, HISTORY_ROWS, url, now)
    .run();
}

describe('a direct forward always answers', () => {
  it(`answers each of ${FORWARDS} direct forwards, ${AT_ONCE} at a time, while the caller's history of ${HISTORY_ROWS} rows is compacted`, async () => {
    const owner = await visitorOwner(project);
    await seedHistory(owner, `${origin}${uniquePath('/echo/seeded')}`);
    await runInDurableObject(forwardQueueStub(env, owner), async (instance: ForwardQueueDO) => {
      const inside = instance as unknown as { keeper: { scheduleCompaction(owner: HistoryOwner): void }; alarms: { arm(): Promise<void> } };
      inside.keeper.scheduleCompaction(owner);
      await inside.alarms.arm();
    });
    const url = `${origin}${uniquePath('/echo/always-answers')}`;
    const compaction = runCallerJobsNow(project, ['compact-history']);
    const late: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        for (let i = next++; i < FORWARDS; i = next++) {
          const sent = Date.now();
          const res = await forward(project, { url, method: 'POST', data: { i } });
          expect(res.status, res.text).toBe(200);
          expect(JSON.parse(res.json.body)).toEqual({ i });
          if (Date.now() - sent > ANSWERED_WITHIN_MS) late.push(`request ${i}: ${Date.now() - sent} ms`);
        }
      }),
    );
    await compaction;
    expect(late, `answered later than ${ANSWERED_WITHIN_MS} ms`).toEqual([]);
    // The compaction did run beside them.
    const moved = await historyOf(project.service_id)
      .prepare('SELECT COUNT(*) AS n FROM forward_requests WHERE service_id = ? AND body_segment IS NOT NULL')
      .bind(project.service_id)
      .first<{ n: number }>();
    expect(moved!.n).toBeGreaterThan(0);
  }, 180_000);
});
