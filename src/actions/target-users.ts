/** Whose access an acsg or acsr action changes: the user_id it names, or the signed-in consumer. */
import type { ActionContext } from '../engine/context';
import { ActionError } from '../wire/errors';

/** Most users one acsr grants at once (each is a bound parameter of one D1 statement). */
const MAX_GRANTEES = 50;
const MAX_USER_ID_LENGTH = 256;

function userId(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_USER_ID_LENGTH || /[\u0000-\u001f]/.test(value)) {
    throw new ActionError('ACTION_FAILED', 'user_id must be a user id (text of 1 to 256 characters).', { user_id: value ?? null });
  }
  return value;
}

/** The consumer's user id; AUTH_REQUIRED when the request is not signed in (as ${user} would be). */
function consumerId(ctx: ActionContext): string {
  const id = ctx.user?.user_id;
  if (typeof id !== 'string') {
    throw new ActionError('AUTH_REQUIRED', 'Without user_id the action acts on the consumer, and this request is not signed in.');
  }
  return id;
}

/** A rendered user_id: absent = the consumer; one id. */
export function oneUserId(rendered: unknown, ctx: ActionContext): string {
  return rendered === undefined ? consumerId(ctx) : userId(rendered);
}

/** A rendered user_id of acsr: absent = the consumer; one id or a list of 1..50 ids, duplicates dropped. */
export function userIdList(rendered: unknown, ctx: ActionContext): string[] {
  if (rendered === undefined) return [consumerId(ctx)];
  if (!Array.isArray(rendered)) return [userId(rendered)];
  if (rendered.length === 0 || rendered.length > MAX_GRANTEES) {
    throw new ActionError('ACTION_FAILED', `user_id must list 1 to ${MAX_GRANTEES} user ids.`, { count: rendered.length });
  }
  return [...new Set(rendered.map(userId))];
}
