/**
 * Issue 25 item 3, rows fit, in a ticket's object: a consumption's log body and a continuation's job fit a
 * row of the object's SQLite (2,000,000 bytes as encoded) whatever the answers its actions received; strict
 * mode checks every statement as well.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createProject, registerTicket, type TestProject } from '../helpers/api';
import { consumePost, loggedConsumptions, settle } from '../actions/run-support';
import { ticketStub } from '../../src/platform/object-stubs';

const origin = inject('loopbackOrigin');
const ROW_LIMIT = 2_000_000;
let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

/** The largest row of the table in the ticket's object, each column as SQLite stores it. */
const largestRow = (ticketId: string, table: string) =>
  runInDurableObject(ticketStub(env, project.service_id, ticketId), (_instance, state) => {
    const columns = state.storage.sql
      .exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      .toArray()
      .map((c) => c.name);
    const sum = columns.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 8)`).join(' + ');
    return state.storage.sql.exec<{ n: number | null }>(`SELECT max(${sum}) AS n FROM ${table}`).one().n ?? 0;
  });

describe('rows fit in a ticket object', () => {
  it('a log body of 50 actions, each answer at the log cap, is cut to fit a row and lists all 50 actions', async () => {
    // Each answer's row (about 60,000 characters) is under the log's 64 KiB per value; 50 of them are 3 MB.
    const actions = Array.from({ length: 50 }, () => ({ act: 'req', exe: { url: `${origin}/sized/60000`, method: 'GET' } }));
    await registerTicket(project, 'fifty', { actions });
    const res = await consumePost(project, 'fifty');
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    await settle(project, 'fifty');
    expect(await largestRow('fifty', 'log_bodies')).toBeLessThan(ROW_LIMIT);
    const [logged] = await loggedConsumptions(project, 'fifty');
    expect(logged.actions).toHaveLength(50);
    expect(logged.actions.every((action) => action.detail.attempts === 1)).toBe(true);
  }, 60_000);

  it('a continuation holding two 1 MB answers is stored in pieces beside its job row and goes on with them whole', async () => {
    const big = `${origin}/sized/1000000`;
    await registerTicket(project, 'deep', {
      actions: [
        {
          act: 'req',
          exe: {
            url: big,
            actions: [
              {
                act: 'req',
                exe: {
                  url: big,
                  actions: [
                    { act: 'resp', exe: { body: 'accepted', resume: '1m' } },
                    { act: 'req', exe: { url: `${origin}/digest`, method: 'POST', data: { body: '${response[body]}' } } },
                  ],
                },
              },
            ],
          },
        },
      ],
    });
    const res = await consumePost(project, 'deep');
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.json).toBe('accepted');
    // While it waits: the job's row fits, its state in pieces beside it; then it is made due now.
    expect(await largestRow('deep', 'jobs')).toBeLessThan(ROW_LIMIT);
    const pieces = await runInDurableObject(ticketStub(env, project.service_id, 'deep'), (_instance, state) => {
      state.storage.sql.exec("UPDATE jobs SET run_at = 0 WHERE kind = 'continuation'");
      return state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM job_pieces').one().n;
    });
    expect(pieces).toBeGreaterThanOrEqual(3);
    await settle(project, 'deep');
    const [logged] = await loggedConsumptions(project, 'deep');
    expect(logged.failed, JSON.stringify(logged.description).slice(0, 500)).toBe(0);
    const digest = logged.actions.find((action) => action.path.endsWith('.exe.actions[1]'));
    // The request sent after the resume carried the second answer whole (a req sends data as a form: body=x…x).
    expect(digest?.detail.received.body.bytes).toBe('body='.length + 1_000_000);
    expect(await largestRow('deep', 'job_pieces')).toBe(0);
  }, 60_000);
});
