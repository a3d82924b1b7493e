/**
 * Extension (issue 36 item 3, the ticket half): a run after the answer whose retry_schedule runs out on a
 * failure it retries becomes a dead letter of its ticket, listed with why; a replay goes on from the
 * failed action (or runs whole with full) and takes it off the list. Attempts are made due and the alarm
 * fired; the destination is the loopback server's /fail route (a status the first n times, then 200).
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { TicketDeadLetters } from '../../durable-objects/ticket-dead-letters';
import type { RunState } from '../../src/actions/runner';
import type { TicketDeadLetter } from '../../src/consume/dead-letter';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createProject, putSecret, type TestProject } from '../helpers/api';
import { loopback, origin } from '../forward/support';
import { consumePost, loggedConsumptions, registersForEachTest, remainingOf, runJobs, settle } from './run-support';
import { ticketStub } from '../../src/platform/object-stubs';

let project: TestProject;
let other: TestProject;
beforeAll(async () => {
  [project, other] = await Promise.all([createProject({ plan: 'standard' }), createProject()]);
});

const register = registersForEachTest(() => project);

const received = async (path: string) => ((await loopback(`/received?path=${encodeURIComponent(path)}`)) as { count: number }).count;
const failCalls = async (key: string) => ((await loopback(`/calls/${key}`)) as { calls: number }).calls;
const deadLetters = (ticketId: string, query = '', as: TestProject = project) =>
  call('GET', `/v1/projects/${as.service_id}/tickets/${ticketId}/dead-letters${query}`, { token: as.owner_key });
const replay = (ticketId: string, consumeId: string, body?: unknown, as: TestProject = project) =>
  call('POST', `/v1/projects/${as.service_id}/tickets/${ticketId}/dead-letters/${consumeId}/replay`, { token: as.owner_key, ...(body ? { body } : {}) });

/** A ticket that answers, then calls `before`, then a destination failing `failures` times with 500, then `after`. */
async function deadLetterTicket(ticketId: string, key: string, failures: number, extra: Record<string, unknown> = {}) {
  await register(ticketId, {
    actions: [
      { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
      { act: 'req', exe: { url: `${origin}/echo/${key}-before` } },
      { act: 'req', exe: { url: `${origin}/fail/${key}/${failures}/500` } },
      { act: 'req', exe: { url: `${origin}/echo/${key}-after` } },
    ],
    retry_schedule: { delays: ['1s'], attempts: 2 },
    ...extra,
  });
  await consumePost(project, ticketId, { order: 7 });
  await runJobs(project, ticketId);
}

describe("a ticket's dead letters", () => {
  it('a run whose schedule ran out on a 500 is listed with why, its attempts and its failed action', async () => {
    const key = crypto.randomUUID();
    await deadLetterTicket('dl-listed', key, 5);
    const [logged] = await loggedConsumptions(project, 'dl-listed');
    const res = await deadLetters('dl-listed');
    expect(res.status).toBe(200);
    expect(res.json.list).toEqual([
      {
        id: logged.consume_id,
        kind: 'ticket',
        what: `req ${origin}/fail/${key}/5/500`,
        created: expect.any(Number),
        failed_at: expect.any(Number),
        reason: 'error_status',
        status_code: 500,
        error: { code: 'REQUEST_FAILED', message: expect.any(String) },
        attempts: 2,
        waits: [],
        ticket: { ticket_id: 'dl-listed', consume_id: logged.consume_id, act: 'req', path: 'actions[2]' },
      },
    ]);
    expect(res.json.endOfList).toBe(true);
    expect((await deadLetters('dl-listed', '?reason=timeout')).json.list).toEqual([]);
  });

  it("a 503 that outlasts the schedule's window is retry_window_ended, listed with each wait", async () => {
    const key = crypto.randomUUID();
    await register('dl-503', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/50/503` } },
      ],
      retry_schedule: { delays: ['1s'], attempts: 2, within: '4s' },
    });
    await consumePost(project, 'dl-503');
    await runJobs(project, 'dl-503');
    const [letter] = (await deadLetters('dl-503')).json.list;
    expect(letter).toMatchObject({ reason: 'retry_window_ended', status_code: 503, attempts: 1 });
    expect(letter.waits.length).toBeGreaterThan(1);
    expect(letter.waits.every((w: { status_code: number; waited_ms: number }) => w.status_code === 503 && w.waited_ms > 0)).toBe(true);
  });

  it('a failure the schedule does not retry (a 400) is no dead letter, and a run that recovers leaves none', async () => {
    const key = crypto.randomUUID();
    await register('dl-400', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/5/400` } },
      ],
      retry_schedule: true,
    });
    await consumePost(project, 'dl-400');
    await runJobs(project, 'dl-400');
    expect((await deadLetters('dl-400')).json.list).toEqual([]);
    await deadLetterTicket('dl-recovers', crypto.randomUUID(), 1);
    expect((await deadLetters('dl-recovers')).json.list).toEqual([]);
  });

  it('a replay goes on from the failed action: the actions that succeeded do not run again, and it leaves the list', async () => {
    const key = crypto.randomUUID();
    await deadLetterTicket('dl-partial', key, 2, { count: 5 });
    const [original] = await loggedConsumptions(project, 'dl-partial');
    expect(await received(`/echo/${key}-before`)).toBe(1);
    expect(await remainingOf(project, 'dl-partial')).toBe(5);

    const res = await replay('dl-partial', original.consume_id);
    expect(res.json).toMatchObject({ ticket_id: 'dl-partial', replay_of: original.consume_id, partial: true, ok: true, status: 200 });
    expect(await failCalls(key)).toBe(3);
    expect(await received(`/echo/${key}-before`)).toBe(1);
    expect(await received(`/echo/${key}-after`)).toBe(1);
    expect(await remainingOf(project, 'dl-partial')).toBe(4);
    await settle(project, 'dl-partial');
    const replayed = (await loggedConsumptions(project, 'dl-partial')).find((entry) => entry.consume_id !== original.consume_id);
    expect(replayed?.description).toMatchObject({ resumed_from: 'actions[2]', outcome: { ok: true } });
    expect(replayed?.actions.map((a) => a.path)).toEqual(['actions[2]', 'actions[3]']);
    expect((await deadLetters('dl-partial')).json.list).toEqual([]);
    expect((await replay('dl-partial', original.consume_id)).status).toBe(404);
  });

  it('a full replay runs the whole chain again, the actions that succeeded included', async () => {
    const key = crypto.randomUUID();
    await deadLetterTicket('dl-full', key, 2);
    const [original] = await loggedConsumptions(project, 'dl-full');
    const res = await replay('dl-full', original.consume_id, { full: true });
    expect(res.json).toMatchObject({ partial: false, ok: true });
    // The whole chain answers first again: its run after the answer goes on in a continuation.
    await runJobs(project, 'dl-full');
    expect(await received(`/echo/${key}-before`)).toBe(2);
    expect(await received(`/echo/${key}-after`)).toBe(1);
  });

  it('a replay that fails again keeps the dead letter', async () => {
    const key = crypto.randomUUID();
    await deadLetterTicket('dl-again', key, 10);
    const [original] = await loggedConsumptions(project, 'dl-again');
    const res = await replay('dl-again', original.consume_id);
    expect(res.json).toMatchObject({ partial: true, ok: false, error: { code: 'REQUEST_FAILED' } });
    expect((await deadLetters('dl-again')).json.list.map((l: { id: string }) => l.id)).toEqual([original.consume_id]);
  });

  it('only a dead letter of this ticket in this project can be replayed or deleted', async () => {
    const key = crypto.randomUUID();
    await deadLetterTicket('dl-owned', key, 5);
    await register('dl-ok', { actions: [] });
    await consumePost(project, 'dl-ok');
    await settle(project, 'dl-ok');
    const [plain] = await loggedConsumptions(project, 'dl-ok');
    const [dead] = await loggedConsumptions(project, 'dl-owned');
    const notDead = await replay('dl-ok', plain.consume_id);
    expect(notDead.status).toBe(404);
    expect(notDead.json).toMatchObject({ code: 'NOT_FOUND', message: 'This ticket has no dead letter with this consume_id.' });
    expect((await replay('dl-ok', dead.consume_id)).status).toBe(404);
    expect(
      (await call('POST', `/v1/projects/${project.service_id}/tickets/dl-owned/dead-letters/${dead.consume_id}/replay`, { token: other.owner_key })).status,
    ).toBe(401);
    expect((await deadLetters('dl-owned', '', other)).json.list ?? []).toEqual([]);
    const gone = await call('DELETE', `/v1/projects/${project.service_id}/tickets/dl-owned/dead-letters/${dead.consume_id}`, { token: project.owner_key });
    expect(gone.json).toEqual({ removed: true, message: 'SUCCESS: The dead letter was deleted.' });
    expect(
      (await call('DELETE', `/v1/projects/${project.service_id}/tickets/dl-owned/dead-letters/${dead.consume_id}`, { token: project.owner_key })).status,
    ).toBe(404);
    expect((await deadLetters('dl-owned')).json.list).toEqual([]);
  });

  it('keeps a secret out of the listing, and reports the storage it takes once it is kept', async () => {
    await putSecret(project, 'DL_KEY', 'sk_dead_letter_secret_1234');
    const key = crypto.randomUUID();
    await register('dl-secret', {
      actions: [
        { act: 'resp', exe: { body: 'accepted', resume: '0m' } },
        { act: 'req', exe: { url: `${origin}/fail/${key}/5/500`, secretName: 'DL_KEY', headers: { authorization: 'Bearer ${CLIENT_SECRET}' } } },
      ],
      retry_schedule: { delays: ['1s'], attempts: 2, within: '1m' },
    });
    await consumePost(project, 'dl-secret');
    await runJobs(project, 'dl-secret');
    const res = await deadLetters('dl-secret');
    expect(res.json.list).toHaveLength(1);
    expect(JSON.stringify(res.json)).not.toContain('sk_dead_letter_secret_1234');
    // The object reports what it stores (its SQLite file, dead letters included) once the dead letter is kept.
    const row = await env.DB.prepare("SELECT bytes, updated FROM project_storage WHERE service_id = ? AND part LIKE '%dl-secret%'")
      .bind(project.service_id)
      .first<{ bytes: number; updated: number }>();
    expect(row?.bytes).toBeGreaterThan(0);
    expect(row?.updated).toBeGreaterThanOrEqual(res.json.list[0].failed_at);
  });

  it('refuses a bad listing query or consume_id, naming the field', async () => {
    const cases: [string, string][] = [
      ['?reason=bogus', 'reason'],
      ['?from=20&to=10', 'to'],
      ['?from=yesterday', 'from'],
      ['?caller=u1', 'caller'],
      ['?limit=0', 'limit'],
    ];
    for (const [query, field] of cases) {
      const res = await deadLetters('dl-any', query);
      expect(res.status, query).toBe(400);
      expect(res.json.code, query).toBe('INVALID_PARAMETER');
      expect(JSON.stringify(res.json), query).toContain(field);
    }
    const bad = await replay('dl-any', 'not-an-id!');
    expect(bad.json).toMatchObject({ code: 'INVALID_PARAMETER', detail: { field: 'consume_id' } });
    const badBody = await replay('dl-any', 'abcdef1234', { full: 'yes' });
    expect(badBody.json.code).toBe('INVALID_PARAMETER');
  });

  it('keeps a run state of megabytes (past the 2 MB a row may hold) whole, and deletes it with its dead letter', async () => {
    const stub = ticketStub(env, project.service_id, 'dl-big-state');
    await runInDurableObject(stub, (_instance, state) => {
      const letters = new TicketDeadLetters(state.storage.sql, () => undefined);
      const big = { answer: 'é'.repeat(1_200_000), rows: [] } as unknown as RunState;
      const letter: TicketDeadLetter = {
        consume_id: 'bigstate1',
        created: 1,
        failed_at: 2,
        reason: 'error_status',
        what: 'req at actions[1]',
        act: 'req',
        path: 'actions[1]',
        error: { code: 'REQUEST_FAILED', message: 'm' },
        attempts: 2,
        waits: [],
      };
      letters.add(letter, big);
      expect(letters.stateOf('bigstate1')).toEqual(big);
      expect(letters.has('bigstate1')).toBe(true);
      expect(letters.delete('bigstate1')).toBe(true);
      expect(letters.stateOf('bigstate1')).toBeUndefined();
      expect(state.storage.sql.exec('SELECT COUNT(*) AS n FROM dead_letter_state').one().n).toBe(0);
    });
  });

  it('deleting the ticket deletes its dead letters', async () => {
    const key = crypto.randomUUID();
    await deadLetterTicket('dl-deleted', key, 5);
    expect((await deadLetters('dl-deleted')).json.list).toHaveLength(1);
    await call('DELETE', `/v1/projects/${project.service_id}/tickets/dl-deleted`, { token: project.owner_key });
    expect((await deadLetters('dl-deleted')).json.list).toEqual([]);
    expect(await ticketStub(env, project.service_id, 'dl-deleted').isDeadLetter('x')).toBe(false);
  });
});
