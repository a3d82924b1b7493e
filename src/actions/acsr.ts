/** acsr: grant private access to a record to one or more users (spec 2.4). */
import { userIdList } from './target-users';
import { ActionError } from '../wire/errors';
import type { ActionModule } from './types';
import { grantRecordAccess } from '../records/grants';

const RECORD_ACCESS_GRANTED = 'SUCCESS: Access to the record has been granted.';

export const acsr: ActionModule = {
  async run({ exe, render, ctx, services }) {
    const renderedRecord = render(exe.record_id);
    const renderedUsers = exe.user_id === undefined ? undefined : render(exe.user_id);
    if (typeof renderedRecord !== 'string' || renderedRecord === '') {
      throw new ActionError('ACTION_FAILED', 'record_id must be a record id (text).', { record_id: renderedRecord ?? null });
    }
    const recordId = renderedRecord;
    const userIds = userIdList(renderedUsers, ctx);
    const sent = { record_id: recordId, user_id: userIds };
    const { DB } = services.env;
    const marks = userIds.map(() => '?').join(', ');
    const [record, users] = await DB.batch([
      DB.prepare('SELECT 1 AS found FROM records WHERE service_id = ? AND record_id = ?').bind(services.serviceId, recordId),
      DB.prepare(`SELECT user_id FROM users WHERE service_id = ? AND user_id IN (${marks})`).bind(services.serviceId, ...userIds),
    ]);
    if (record.results.length === 0) {
      return { ok: false, failure: { code: 'ACTION_FAILED', message: 'The record does not exist.', detail: { record_id: recordId } }, row: { sent } };
    }
    const known = new Set((users.results as { user_id: string }[]).map((row) => row.user_id));
    const unknown = userIds.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      return {
        ok: false,
        failure: { code: 'ACTION_FAILED', message: 'A user to grant does not exist in this project.', detail: { user_ids: unknown } },
        row: { sent },
      };
    }
    const now = services.now();
    await grantRecordAccess(DB, services.serviceId, recordId, userIds, now);
    return { ok: true, answer: RECORD_ACCESS_GRANTED, row: { sent, received: RECORD_ACCESS_GRANTED } };
  },
};
