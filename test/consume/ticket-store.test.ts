import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LOG_EXPORT_DELAY_MS, TicketStore } from '../../durable-objects/ticket-store';
import type { LogEntry, LogExport } from '../../src/ticket-log/log-export';
import { logRow } from '../logs/log-helpers';
import { call, createProject, mintUser, registerTicket } from '../helpers/api';
import { ticketStub } from '../../src/platform/object-stubs';
import { withoutMetricJobs } from '../actions/run-support';

const row = (logKey: string) => logRow('svc-store', 't', logKey, 1);
/** An outbox entry of the shape stored before the log moved into the object. */
const old = (value: LogExport) => value as LogEntry;

describe('TicketDO storage', () => {
  it('an action row holding a multi-megabyte answer is cut to fit before it enters the log', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const store = new TicketStore(state.storage.sql, env.BODIES, () => 1_000);
      const huge = { seq: 0, path: 'actions[0]', act: 'req', detail: { received: { status: 200, body: 'y'.repeat(3 * 1024 * 1024) } } };
      store.enqueueLog(row('big'), [huge]);
      const [entry] = await store.log.all();
      expect(JSON.stringify(entry.body.actions[0].detail).length).toBeLessThan(70 * 1024);
      expect(entry.body.actions[0].detail).toMatchObject({ truncated: true, received: { status: 200 } });
    });
  });

  it('an object stored under the first schema keeps its pending log rows and gets an export job', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      // Tables of later steps that change a table of their own (the log's code column) go too: they run again.
      sql.exec('DROP TABLE jobs; DROP TABLE outbox; DROP TABLE generations; DROP TABLE log');
      sql.exec('CREATE TABLE outbox (log_key TEXT PRIMARY KEY, row TEXT NOT NULL, action_rows TEXT NOT NULL)');
      sql.exec("INSERT INTO outbox VALUES ('old1', ?, '[]'), ('old2', ?, '[]')", JSON.stringify(row('old1')), JSON.stringify(row('old2')));
      sql.exec('UPDATE _schema SET version = 1');
      const store = new TicketStore(sql, env.BODIES, () => 1_000);
      expect(store.outbox.pending(10).map(({ value }) => [old(value).row.log_key, old(value).final])).toEqual([
        ['old1', false],
        ['old2', false],
      ]);
      expect(withoutMetricJobs(store.jobs.all()).map((job) => job.kind)).toEqual(['export-logs']);
    });
  });

  it('an object stored under the second schema keeps its pending log rows, in order, and new rows go after them', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec('DROP TABLE outbox; DROP TABLE generations; DROP TABLE log');
      sql.exec(`CREATE TABLE log_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, log_key TEXT NOT NULL, row TEXT NOT NULL,
        action_rows TEXT NOT NULL, final INTEGER NOT NULL DEFAULT 0)`);
      sql.exec(
        "INSERT INTO log_outbox (id, log_key, row, action_rows) VALUES (7, 'old1', ?, '[]'), (9, 'old2', ?, '[]')",
        JSON.stringify(row('old1')),
        JSON.stringify(row('old2')),
      );
      sql.exec('UPDATE _schema SET version = 2');
      const store = new TicketStore(sql, env.BODIES, () => 1_000);
      store.enqueueLog({ ...row('new'), signed: true }, []);
      expect(store.outbox.pending(10).map(({ id, value }) => [id, 'consumed' in value ? value.consumed.log_key : value.row.log_key])).toEqual([
        [7, 'old1'],
        [9, 'old2'],
        [10, 'new'],
      ]);
      store.outbox.dropThrough(9);
      expect(store.outbox.pending(10).map(({ value }) => value)).toEqual([
        { consumed: { service_id: 'svc-store', user_id: '198.51.100.1(writer)', timestamp: 1, ticket_id: 't', log_key: 'new' } },
      ]);
    });
  });

  it('an object stored under the fourth schema keeps its pending log rows, ids and closing flags in the shared outbox', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec('DROP TABLE outbox; DROP TABLE log');
      sql.exec(
        'CREATE TABLE log_outbox (id INTEGER PRIMARY KEY, log_key TEXT NOT NULL, row TEXT NOT NULL, action_rows TEXT NOT NULL, final INTEGER NOT NULL DEFAULT 0)',
      );
      const action = JSON.stringify([{ seq: 0, path: 'actions[0]', act: 'acsg', detail: { sent: 'x' } }]);
      sql.exec(
        "INSERT INTO log_outbox VALUES (3, 'a', ?, ?, 0), (5, 'a', ?, '[]', 1)",
        JSON.stringify(row('a')),
        action,
        JSON.stringify({ ...row('a'), failed: true }),
      );
      sql.exec('UPDATE _schema SET version = 4');
      const store = new TicketStore(sql, env.BODIES, () => 1_000);
      expect(store.outbox.pending(10).map(({ id, value }) => [id, old(value).row.failed, old(value).actionRows.length, old(value).final])).toEqual([
        [3, false, 1, false],
        [5, true, 0, true],
      ]);
      expect(sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'log_outbox'").one().n).toBe(0);
    });
  });

  it('the remaining count kept in memory follows every reservation and give-back, and storage agrees', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      const store = new TicketStore(sql, env.BODIES, () => 1_000);
      const stored = () => sql.exec<{ remaining: number | null }>('SELECT remaining FROM ticket').one().remaining;
      store.store({ condition: {}, actions: [] } as never, 3, 1_000);
      const first = store.reserve(undefined);
      store.reserve(undefined);
      store.release(first);
      expect([store.remaining(), stored()]).toEqual([2, 2]);
      // A fresh store (an evicted object coming back) reads the same count.
      expect(new TicketStore(sql, env.BODIES, () => 1_000).remaining()).toBe(2);
      store.store({ condition: {}, actions: [] } as never, null, 1_000);
      store.reserve(undefined);
      expect([store.remaining(), stored()]).toEqual([null, null]);
    });
  });

  it('an entry is in the log as soon as it is written; only a signed-in consumption waits for D1, in one export job', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const store = new TicketStore(state.storage.sql, env.BODIES, () => 5_000);
      store.enqueueLog(row('a'), []);
      store.enqueueLog({ ...row('b'), signed: true }, [{ seq: 0, path: 'actions[0]', act: 'acsg', detail: {} }]);
      store.enqueueLog({ ...row('c'), signed: true, is_check: true }, []);
      expect((await store.log.all()).map(({ index, body }) => [index.log_key, body.actions.length])).toEqual([
        ['a', 0],
        ['b', 1],
        ['c', 0],
      ]);
      expect(store.outbox.pending(10).map(({ value }) => ('consumed' in value ? value.consumed.log_key : null))).toEqual(['b']);
      expect(withoutMetricJobs(store.jobs.all()).map(({ kind, run_at }) => [kind, run_at])).toEqual([['export-logs', 5_000 + LOG_EXPORT_DELAY_MS]]);
    });
  });

  it('a closing row replaces the outcome and adds the later action rows, keeping those logged when the caller was answered', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const store = new TicketStore(state.storage.sql, env.BODIES, () => 5_000);
      const first = { seq: 0, path: 'actions[0]', act: 'resp', detail: { first: true } };
      store.enqueueLog({ ...row('a'), description: { outcome: { ok: true }, continuation: { resume_at: 9 } } }, [first]);
      store.enqueueLog(
        { ...row('a'), failed: true, code: 'X', description: { outcome: { ok: false } } },
        [
          { ...first, detail: { again: true } },
          { seq: 1, path: 'actions[1]', act: 'req', detail: {} },
        ],
        true,
      );
      const [entry] = await store.log.all();
      expect([entry.index.class, entry.body.failed, entry.body.code, entry.body.description]).toEqual([1, true, 'X', { outcome: { ok: false } }]);
      expect(entry.body.actions.map((a) => [a.seq, a.detail])).toEqual([
        [0, { first: true }],
        [1, {}],
      ]);
    });
  });

  it('one alarm serves the log export and the continuations: it is always set to the earliest job', async () => {
    const project = await createProject();
    await registerTicket(project, 'alarm', {
      actions: [
        { act: 'resp', exe: { resume: '1h' } },
        { act: 'resp', exe: {} },
      ],
    });
    const user = await mintUser(project);
    await call('POST', `/tpa/${project.service_id}/alarm`, { token: user.id_token, body: {} });
    const stub = ticketStub(env, project.service_id, 'alarm');
    const jobs = await stub.scheduledJobs();
    const exportAt = jobs.find((job) => job.kind === 'export-logs')!.run_at;
    const continueAt = jobs.find((job) => job.kind === 'continuation')!.run_at;
    expect(exportAt).toBeLessThan(continueAt);
    // Read together inside the object; the alarm may already have exported (it is due in 200 ms).
    const earliest = await runInDurableObject(stub, async (_instance, state) => ({
      alarm: await state.storage.getAlarm(),
      first: state.storage.sql.exec<{ at: number }>('SELECT MIN(run_at) AS at FROM jobs').one().at,
    }));
    expect(earliest.alarm).toBe(earliest.first);

    await runDurableObjectAlarm(stub);
    expect(await stub.pendingLogCount()).toBe(0);
    expect(withoutMetricJobs(await stub.scheduledJobs()).map((job) => job.kind)).toEqual(['continuation']);
    // The earliest job left: the continuation, or the metrics report due before it.
    const left = await stub.scheduledJobs();
    expect(left.find((job) => job.kind === 'continuation')?.run_at).toBe(continueAt);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(Math.min(...left.map((job) => job.run_at)));
  });
});
