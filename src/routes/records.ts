import { createRouter } from '../app';
import { SvcHttpError, invalidParameter } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageOf, pageRequest } from '../wire/paging';
import { type RecordPosition, listRecords, loadRecord, recordData } from '../records/store';
import type { RecordData, StoredRecord } from '../records/types';
import * as answer from '../../schemas/answers';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { route } from '../openapi/route';

/** Owner routes to read the records tickets wrote (pstr): GET /records and GET /records/{record_id}. */
export const recordsRouter = createRouter();

const BASE = `${PROJECT_PATH}/records`;
const owner = guard('owner', 'Only the project owner can read records here.');

/** RecordData plus the ticket and consumption that wrote the record last. */
type OwnerRecord = RecordData & { written_by: { ticket_id: string | null; consume_id: string | null } };

const forOwner = (record: StoredRecord): OwnerRecord => ({ ...recordData(record), written_by: record.written_by });

const isPosition = (value: unknown): value is RecordPosition =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as RecordPosition).created === 'number' &&
  typeof (value as RecordPosition).record_id === 'string';

const listRecordsRoute = route({
  operationId: 'listRecords',
  tag: 'records',
  guard: owner,
  query: { ...PAGING, table: textParameter('Only this table.') },
  summary: 'List the records tickets wrote (pstr).',
  success: ok('A page of records.', answer.listingOf(answer.recordAnswer)),
});

recordsRouter.get(BASE, ...listRecordsRoute.middleware, async (c) => {
  const table = c.req.query('table');
  if (table === '') throw invalidParameter('Invalid "table": must not be empty.', { field: 'table' });
  const serviceId = c.get('project').service_id;
  const page = await pageOf(pageRequest(c.req), {
    isPosition,
    rows: (after, count) => listRecords(c.env.DB, serviceId, { table, after, limit: count }),
    position: (record): RecordPosition => ({ created: record.created, record_id: record.record_id }),
    shape: forOwner,
  });
  return c.json(page);
});

const getRecordRoute = route({
  operationId: 'getRecord',
  tag: 'records',
  guard: owner,
  notFound: true,
  summary: 'One record.',
  success: ok('The record.', answer.recordAnswer),
});

recordsRouter.get(`${BASE}/:record_id`, ...getRecordRoute.middleware, async (c) => {
  const record = await loadRecord(c.env.DB, c.get('project').service_id, c.req.param('record_id'));
  if (!record) throw new SvcHttpError('NOT_FOUND', 'No such record.', { status: 404 });
  return c.json(forOwner(record));
});
