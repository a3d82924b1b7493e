import { Hono } from 'hono';
import { type ProjectEnv, activeProject, ownerOnly } from '../http/auth';
import { SvcHttpError, invalidParameter } from '../http/errors';
import { type DatabaseResponse, decodeStartKey, encodeStartKey, pageSize } from '../http/paging';
import { type RecordPosition, listRecords, loadRecord, recordData } from '../records/store';
import type { RecordData, StoredRecord } from '../records/types';

/** Owner routes to read the records tickets wrote (pstr): GET /records and GET /records/{record_id}. */
export const recordsRouter = new Hono<ProjectEnv>();

const BASE = '/v1/projects/:service_id/records';
const owner = [activeProject, ownerOnly('Only the project owner can read records here.')] as const;

/** RecordData plus the ticket and consumption that wrote the record last. */
type OwnerRecord = RecordData & { written_by: { ticket_id: string | null; consume_id: string | null } };

const forOwner = (record: StoredRecord): OwnerRecord => ({ ...recordData(record), written_by: record.written_by });

const isPosition = (value: unknown): value is RecordPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as RecordPosition).created === 'number' &&
  typeof (value as RecordPosition).record_id === 'string';

recordsRouter.get(BASE, ...owner, async (c) => {
  const table = c.req.query('table');
  if (table === '') throw invalidParameter('Invalid "table": must not be empty.', { field: 'table' });
  const limit = pageSize(c.req.query('limit'));
  const after = decodeStartKey(c.req.query('startKey'), isPosition);
  // One row more than the page says whether another page follows.
  const rows = await listRecords(c.env.DB, c.get('project').service_id, { table, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const more = rows.length > limit && last !== undefined;
  const body: DatabaseResponse<OwnerRecord> = {
    list: page.map(forOwner),
    startKey: more ? encodeStartKey({ created: last.created, record_id: last.record_id }) : null,
    endOfList: !more,
  };
  return c.json(body);
});

recordsRouter.get(`${BASE}/:record_id`, ...owner, async (c) => {
  const record = await loadRecord(c.env.DB, c.get('project').service_id, c.req.param('record_id'));
  if (!record) throw new SvcHttpError('NOT_FOUND', 'No such record.', { status: 404 });
  return c.json(forOwner(record));
});
