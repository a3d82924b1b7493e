import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ticketStub } from '../../durable-objects/ticket-do';
import { LOG_EXPORT_DELAY_MS, TicketStore } from '../../durable-objects/ticket-store';
import { logRow } from '../logs/log-helpers';
import { call, createProject, registerTicket } from '../helpers/api';

const row = (logKey: string) => logRow('svc-store', 't', logKey, 1);

describe('TicketDO storage', () => {
  it('an action row holding a multi-megabyte answer is cut to fit before it enters the outbox', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const store = new TicketStore(state.storage.sql, () => 1_000);
      const huge = { seq: 0, path: 'actions[0]', act: 'req', detail: { received: { status: 200, body: 'y'.repeat(3 * 1024 * 1024) } } };
      store.enqueueLog(row('big'), [huge]);
      const [{ value: entry }] = store.outbox.pending(1);
      expect(JSON.stringify(entry.actionRows[0].detail).length).toBeLessThan(70 * 1024);
      expect(entry.actionRows[0].detail).toMatchObject({ truncated: true, received: { status: 200 } });
    });
  });

  it('an object stored under the first schema keeps its pending log rows and gets an export job', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec('DROP TABLE jobs; DROP TABLE outbox; DROP TABLE generations');
      sql.exec('CREATE TABLE outbox (log_key TEXT PRIMARY KEY, row TEXT NOT NULL, action_rows TEXT NOT NULL)');
      sql.exec("INSERT INTO outbox VALUES ('old1', ?, '[]'), ('old2', ?, '[]')", JSON.stringify(row('old1')), JSON.stringify(row('old2')));
      sql.exec('UPDATE _schema SET version = 1');
      const store = new TicketStore(sql, () => 1_000);
      expect(store.outbox.pending(10).map(({ value }) => [value.row.log_key, value.final])).toEqual([
        ['old1', false],
        ['old2', false],
      ]);
      expect(store.jobs.all().map((job) => job.kind)).toEqual(['export-logs']);
    });
  });

  it('an object stored under the second schema keeps its pending log rows, in order, and new rows go after them', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec('DROP TABLE outbox; DROP TABLE generations');
      sql.exec(`CREATE TABLE log_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, log_key TEXT NOT NULL, row TEXT NOT NULL,
        action_rows TEXT NOT NULL, final INTEGER NOT NULL DEFAULT 0)`);
      sql.exec("INSERT INTO log_outbox (id, log_key, row, action_rows) VALUES (7, 'old1', ?, '[]'), (9, 'old2', ?, '[]')", JSON.stringify(row('old1')), JSON.stringify(row('old2')));
      sql.exec('UPDATE _schema SET version = 2');
      const store = new TicketStore(sql, () => 1_000);
      store.enqueueLog(row('new'), []);
      expect(store.outbox.pending(10).map(({ id, value }) => [id, value.row.log_key])).toEqual([
        [7, 'old1'],
        [9, 'old2'],
        [10, 'new'],
      ]);
      store.outbox.dropThrough(9);
      expect(store.outbox.pending(10).map(({ value }) => value.row.log_key)).toEqual(['new']);
    });
  });

  it('an object stored under the fourth schema keeps its pending log rows, ids and closing flags in the shared outbox', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec('DROP TABLE outbox');
      sql.exec('CREATE TABLE log_outbox (id INTEGER PRIMARY KEY, log_key TEXT NOT NULL, row TEXT NOT NULL, action_rows TEXT NOT NULL, final INTEGER NOT NULL DEFAULT 0)');
      const action = JSON.stringify([{ seq: 0, path: 'actions[0]', act: 'acsg', detail: { sent: 'x' } }]);
      sql.exec("INSERT INTO log_outbox VALUES (3, 'a', ?, ?, 0), (5, 'a', ?, '[]', 1)", JSON.stringify(row('a')), action, JSON.stringify({ ...row('a'), failed: true }));
      sql.exec('UPDATE _schema SET version = 4');
      const store = new TicketStore(sql, () => 1_000);
      expect(store.outbox.pending(10).map(({ id, value }) => [id, value.row.failed, value.actionRows.length, value.final])).toEqual([
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
      const store = new TicketStore(sql, () => 1_000);
      const stored = () => sql.exec<{ remaining: number | null }>('SELECT remaining FROM ticket').one().remaining;
      store.store({ condition: {}, actions: [] } as never, 3, 1_000);
      const first = store.reserve(undefined);
      store.reserve(undefined);
      store.release(first);
      expect([store.remaining(), stored()]).toEqual([2, 2]);
      // A fresh store (an evicted object coming back) reads the same count.
      expect(new TicketStore(sql, () => 1_000).remaining()).toBe(2);
      store.store({ condition: {}, actions: [] } as never, null, 1_000);
      store.reserve(undefined);
      expect([store.remaining(), stored()]).toEqual([null, null]);
    });
  });

  it('log rows leave in the order they were written and one export job serves them all', async () => {
    const stub = env.TICKETS.get(env.TICKETS.newUniqueId());
    await runInDurableObject(stub, (_instance, state) => {
      const store = new TicketStore(state.storage.sql, () => 5_000);
      store.enqueueLog(row('a'), []);
      store.enqueueLog(row('b'), [{ seq: 0, path: 'actions[0]', act: 'acsg', detail: {} }]);
      store.enqueueLog({ ...row('a'), failed: true }, [], true);
      expect(store.outbox.pending(10).map(({ value }) => [value.row.log_key, value.final, value.actionRows.length])).toEqual([
        ['a', false, 0],
        ['b', false, 1],
        ['a', true, 0],
      ]);
      expect(store.jobs.all().map(({ kind, run_at }) => [kind, run_at])).toEqual([['export-logs', 5_000 + LOG_EXPORT_DELAY_MS]]);
    });
  });

  it('one alarm serves the log export and the continuations: it is always set to the earliest job', async () => {
    const project = await createProject();
    await registerTicket(project, 'alarm', { actions: [{ act: 'resp', exe: { resume: '1h' } }, { act: 'resp', exe: {} }] });
    await call('POST', `/tp/${project.service_id}/alarm`, { body: {} });
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
    expect((await stub.scheduledJobs()).map((job) => job.kind)).toEqual(['continuation']);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(continueAt);
  });
});
