import { parseRecordInput } from '../records/input';
import { recordData } from '../records/store';
import { writeRecord } from '../records/write-record';
import { ActionError } from '../wire/errors';
import type { ActionModule, ActionResult } from './types';

/**
 * pstr: posts a record (spec 2.4). Every string of exe except the Then chain is templated first;
 * the answer is the record (RecordData), read in the Then chain as ${response[record_id]}.
 */
export const pstrAction: ActionModule = {
  async run(run): Promise<ActionResult> {
    try {
      const { actions: _thenChain, ...fields } = run.exe;
      const input = parseRecordInput(run.render(fields));
      const { record, created } = await writeRecord(run.services.env, input, {
        serviceId: run.services.serviceId,
        ownerId: run.services.ownerId,
        now: run.services.now(),
        writer: { ticket_id: run.ctx.ticket.id, consume_id: run.ctx.ticket.consume_id },
      });
      return { ok: true, answer: recordData(record), row: { record_id: record.record_id, operation: created ? 'create' : 'update' } };
    } catch (err) {
      if (err instanceof ActionError) return { ok: false, failure: err.toFailure() };
      throw err;
    }
  },
};
