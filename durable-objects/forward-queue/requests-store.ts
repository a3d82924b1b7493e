/**
 * ForwardQueueDO's `requests` table: one row per queued request the object holds, its record and plan as
 * JSON text, its large texts beside it (request-texts.ts). Every statement touching the table is here, and
 * a row is parsed once, into a QueuedRequest, as it is read.
 */
import type { RequestAddress } from '../../schemas/forward-rules';
import type { ForwardRecord } from '../../src/forward/record';
import type { QueuedDispatch, QueuedPlan } from '../../src/forward/queue-store';
import { RECORD_TEXTS, RequestTexts, type TextName, type Texts } from '../request-texts';
import { planOf, recordOf } from './request-row';

/** The table's steps of ForwardQueueDO's schema (its first two). */
export const REQUESTS_SCHEMA = [
  `CREATE TABLE request (
     id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL,
     status TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   CREATE INDEX request_seq ON request (seq);`,
  // The first table held no request yet (forwarding was not built): replaced.
  `DROP TABLE request;
   CREATE TABLE requests (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     method TEXT NOT NULL,
     url TEXT NOT NULL,
     id TEXT NOT NULL,
     queue TEXT NOT NULL,
     status TEXT NOT NULL,
     secret_name TEXT,
     record TEXT NOT NULL,
     plan TEXT NOT NULL,
     UNIQUE (method, url, id)
   );
   CREATE INDEX requests_by_queue ON requests (queue, status, seq);`,
];

/** A request waiting or running: the one place the predicate is written, in SQL. */
const UNRESOLVED = "status IN ('pending', 'running')";

/** The same predicate, for a status read into a value. */
export const isUnresolved = (status: string): boolean => status === 'pending' || status === 'running';

/** A row of the table, read once into its values. */
export interface QueuedRequest {
  seq: number;
  queue: string;
  status: ForwardRecord['status'];
  /** Waiting or running (not settled). */
  unresolved: boolean;
  /** The record as its row holds it: its texts are beside the row (`withTexts` reads them back). */
  record: ForwardRecord;
  plan: QueuedPlan;
}

/** A queue's head as read when its runner gave up: its record or plan may be unreadable. */
export interface GivenUpHead {
  seq: number;
  record: ForwardRecord | null;
  /** Null when the row's plan (or record) cannot be read. */
  request: QueuedRequest | null;
}

type Row = { seq: number; queue: string; status: ForwardRecord['status']; record: string; plan: string };

const COLUMNS = 'seq, queue, status, record, plan';

function parsed(row: Row): QueuedRequest {
  const record = recordOf(row);
  return { seq: row.seq, queue: row.queue, status: row.status, unresolved: isUnresolved(row.status), record, plan: planOf(row) };
}

const attempt = <T>(read: () => T): T | null => {
  try {
    return read();
  } catch {
    return null;
  }
};

export class RequestsStore {
  private readonly texts: RequestTexts;

  constructor(private readonly sql: SqlStorage) {
    this.texts = new RequestTexts(sql);
  }

  /** Unresolved requests using this client secret. */
  unresolvedWithSecret(secretName: string): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM requests WHERE secret_name = ? AND ${UNRESOLVED}`, secretName).one().n;
  }

  /**
   * Stores a request at the end of its queue. The bodies go beside the row, once: data is the record's
   * request_body, a multipart body its own text. Answers its seq.
   */
  add(dispatch: QueuedDispatch): number {
    const { record, prepared } = dispatch;
    const texts = crypto.randomUUID();
    const { data, multipart, ...rest } = prepared;
    const plan: QueuedPlan = {
      owner: dispatch.owner,
      caller: dispatch.caller,
      prepared: { ...rest, ...(multipart ? { multipart: { content_type: multipart.content_type, base64: '' } } : {}) },
      texts,
      ...(dispatch.retryWithin !== undefined ? { retryWithin: dispatch.retryWithin } : {}),
      ...(data !== undefined && record.request_body !== undefined && !multipart ? { dataFromRecord: true as const } : {}),
    };
    if (data !== undefined && plan.dataFromRecord === undefined) plan.prepared.data = data;
    const { seq } = this.sql
      .exec<{ seq: number }>(
        'INSERT INTO requests (method, url, id, queue, status, secret_name, record, plan) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq',
        record.method,
        record.url,
        record.id,
        record.queue_name,
        record.status,
        prepared.secretName ?? null,
        JSON.stringify(withoutTexts(record)),
        JSON.stringify(plan),
      )
      .one();
    for (const name of RECORD_TEXTS) this.texts.write(texts, name, record[name]);
    if (multipart) this.texts.write(texts, 'multipart', multipart.base64);
    return seq;
  }

  find(address: RequestAddress): QueuedRequest | null {
    return this.one(`SELECT ${COLUMNS} FROM requests WHERE method = ? AND url = ? AND id = ?`, address.method, address.url, address.id);
  }

  bySeq(seq: number): QueuedRequest | null {
    return this.one(`SELECT ${COLUMNS} FROM requests WHERE seq = ?`, seq);
  }

  /** The oldest request of the queue waiting or running. */
  headOf(queue: string): QueuedRequest | null {
    return this.one(`SELECT ${COLUMNS} FROM requests WHERE queue = ? AND ${UNRESOLVED} ORDER BY seq LIMIT 1`, queue);
  }

  /** The queue's head, read so that a record or plan that cannot be parsed is told apart (a runner that gave up). */
  givenUpHead(queue: string): GivenUpHead | null {
    const row = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM requests WHERE queue = ? AND ${UNRESOLVED} ORDER BY seq LIMIT 1`, queue).toArray()[0];
    if (!row) return null;
    return { seq: row.seq, record: attempt(() => recordOf(row)), request: attempt(() => parsed(row)) };
  }

  /** The requests marked running. */
  running(): QueuedRequest[] {
    return this.sql.exec<Row>(`SELECT ${COLUMNS} FROM requests WHERE status = 'running'`).toArray().map(parsed);
  }

  /** The place in its queue of an unresolved request (1: next to run). */
  place(queue: string, seq: number): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM requests WHERE queue = ? AND ${UNRESOLVED} AND seq <= ?`, queue, seq).one().n;
  }

  /** Requests waiting or running in the queue. */
  queueCount(queue: string): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM requests WHERE queue = ? AND ${UNRESOLVED}`, queue).one().n;
  }

  /** Every request held, settled or not. */
  count(): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM requests').one().n;
  }

  /** Settled streams whose pieces are still in SQLite with no move scheduled (kept before pieces moved to R2). */
  unmovedStreams(): number[] {
    return this.sql
      .exec<{ seq: number }>(
        `SELECT r.seq FROM requests r WHERE r.status IN ('resolved', 'failed') AND EXISTS (SELECT 1 FROM chunks c WHERE c.request = r.seq)
         AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.kind = 'move-stream' AND j.payload = json_object('seq', r.seq))`,
      )
      .toArray()
      .map((row) => row.seq);
  }

  /**
   * Writes a new state of the request. The record's texts are stored beside the row (those it carries,
   * when they changed) or read back (those it lacks): answers the record with its texts.
   */
  write(request: QueuedRequest, given: ForwardRecord): ForwardRecord {
    const key = request.plan.texts;
    const record = key === undefined ? given : this.keepTexts(key, given);
    const stored = key === undefined ? record : withoutTexts(record);
    this.sql.exec('UPDATE requests SET status = ?, record = ? WHERE seq = ?', record.status, JSON.stringify(stored), request.seq);
    return record;
  }

  /** Settles the row alone as failed, with an empty plan so reads work (a request whose plan cannot be read). */
  failBare(seq: number, failed: ForwardRecord): void {
    this.sql.exec("UPDATE requests SET status = 'failed', record = ?, plan = '{}' WHERE seq = ?", JSON.stringify(failed), seq);
  }

  delete(seq: number): void {
    this.sql.exec('DELETE FROM requests WHERE seq = ?', seq);
  }

  /** The request's record with the named texts read back from beside its row. */
  withTexts(request: QueuedRequest, names: readonly TextName[]): ForwardRecord {
    const key = request.plan.texts;
    return key === undefined ? request.record : { ...(this.texts.read(key, names) as Omit<Texts, 'multipart'>), ...request.record };
  }

  /** The plan as it is sent: its body read back from beside its row. */
  sendable(plan: QueuedPlan): QueuedPlan {
    if (plan.texts === undefined) return plan;
    const texts = this.texts.read(plan.texts, ['request_body', 'multipart']);
    const prepared = { ...plan.prepared };
    if (prepared.multipart) prepared.multipart = { ...prepared.multipart, base64: texts.multipart ?? '' };
    if (plan.dataFromRecord && texts.request_body !== undefined) prepared.data = JSON.parse(texts.request_body);
    return { ...plan, prepared };
  }

  private one(query: string, ...bindings: SqlStorageValue[]): QueuedRequest | null {
    const row = this.sql.exec<Row>(query, ...bindings).toArray()[0];
    return row ? parsed(row) : null;
  }

  /**
   * The record with its texts: those it carries are stored (when they changed), those it lacks (a record
   * read from its row) are read back.
   */
  private keepTexts(key: string, record: ForwardRecord): ForwardRecord {
    const stored = this.texts.read(key, RECORD_TEXTS);
    for (const name of RECORD_TEXTS) if (record[name] !== undefined && record[name] !== stored[name]) this.texts.write(key, name, record[name]);
    return { ...stored, ...record };
  }
}

/** A record as its row holds it when its texts are beside the row. */
function withoutTexts(record: ForwardRecord): ForwardRecord {
  const { request_body: _request, request_headers: _headers, response_body: _response, ...rest } = record;
  return rest;
}
