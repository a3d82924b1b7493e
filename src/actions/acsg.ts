/** acsg: set a user's access group (spec 2.4). */
import { setUserAccessGroup } from '../platform/users';
import { oneUserId } from './target-users';
import { ActionError } from '../wire/errors';
import type { ActionModule } from './types';

const ACCESS_GROUP_GRANTED = 'SUCCESS: The user has been granted the access group.';
const INTEGER_TEXT = /^[1-9][0-9]?$/;

/** A rendered group: an integer 1..99 (or its text, e.g. from a header), or 'admin' (= 99). */
function accessGroup(value: unknown): number {
  const group = value === 'admin' ? 99 : typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value;
  if (typeof group !== 'number' || !Number.isInteger(group) || group < 1 || group > 99) {
    throw new ActionError('ACTION_FAILED', "group must be an integer 1..99 or 'admin'.", { group: value ?? null });
  }
  return group;
}

export const acsg: ActionModule = {
  async run({ exe, render, ctx, services }) {
    // Everything is templated first: a reference that does not resolve fails before anything changes.
    const renderedGroup = render(exe.group);
    const renderedUser = exe.user_id === undefined ? undefined : render(exe.user_id);
    const group = accessGroup(renderedGroup);
    const userId = oneUserId(renderedUser, ctx);
    const sent = { user_id: userId, group };
    if (userId === services.ownerId) {
      throw new ActionError('ACTION_FORBIDDEN', "A ticket cannot change the project owner's access group.", { user_id: userId });
    }
    if (!(await setUserAccessGroup(services.env, services.serviceId, userId, group))) {
      return { ok: false, failure: { code: 'ACTION_FAILED', message: 'The user does not exist in this project.', detail: { user_id: userId } }, row: { sent } };
    }
    return { ok: true, answer: ACCESS_GROUP_GRANTED, row: { sent, received: ACCESS_GROUP_GRANTED } };
  },
};
