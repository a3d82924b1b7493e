/**
 * The event inspector of the owner's forwarding history (issue 37 item 4, an extension): every caller's
 * forwarded requests filtered by the answer's status class, the error code, the destination, a time range
 * and a value in the request body or headers as the caller sent them, newest first, a bounded page at a time
 * (src/forward/owner-fan-out.ts asks at most 32 callers' objects a page). Items are compact (no body is read
 * from R2); GET …/forward/requests/{id} gives one in full. Never a secret value: the history keeps the placeholder.
 */
import { z } from 'zod';
import { forwardSearchQuerySchema, STATUS_CLASSES } from '../../schemas/forward-search';
import { checked } from '../../schemas/field-issue';
import { parseOrRefuse } from '../../schemas/issues';
import { ERROR_CODE_PATTERN, MAX_EQUALS_CHARS } from '../../schemas/log-search';
import { createRouter } from '../app';
import { fieldRefusal } from '../wire/errors';
import { PROJECT_PATH, guard } from '../http/guards';
import { pageRequest } from '../wire/paging';
import { listOwnerHistory } from '../forward/owner-fan-out';
import { forwardQueueStub } from '../platform/object-stubs';
import * as answer from '../../schemas/answers';
import { PAGING, ok, textParameter } from '../openapi/route-parts';
import { route } from '../openapi/route';

export const forwardEventRoutes = createRouter();

const searchForwardEventsRoute = route({
  operationId: 'searchForwardEvents',
  tag: 'forward',
  guard: guard('owner', "Only the project owner can search every caller's forwarded requests."),
  query: {
    caller: textParameter("Only this caller's: a user id, 'visitor:<name>' or 'owner:<owner id>'."),
    from: { description: 'Created at or after, ms since the epoch.', schema: z.int().min(0) },
    to: { description: 'Created at or before, ms since the epoch.', schema: z.int().min(0) },
    status_class: { description: "The destination's answer: 2xx, 3xx, 4xx, 5xx, or none (no answer).", schema: z.enum(STATUS_CLASSES) },
    error_code: { description: 'Only requests that failed with this error code (upper case).', schema: z.string().regex(ERROR_CODE_PATTERN) },
    destination: textParameter("Only requests to this origin: 'https://host' or 'https://host:port'."),
    where: textParameter(
      'A path into the request as the caller sent it: body.<key>[.<key>…] (a number indexes an array) or headers.<name>; segments of letters, digits, _ and -, at most 10. With equals. Bodies packed into stored segments are not searched.',
    ),
    equals: { description: `The value at where, as text; at most ${MAX_EQUALS_CHARS} characters.`, schema: z.string() },
    ...PAGING,
  },
  summary:
    "Extension: search every caller's forwarded requests, newest first, by status class, error code, destination, time range and a value in the request body or headers (compact items; secret values are never kept, so never found).",
  success: ok('A page of requests, each with its caller.', answer.listingOf(answer.ownerForwardItemAnswer)),
});

forwardEventRoutes.get(`${PROJECT_PATH}/forward/events`, ...searchForwardEventsRoute.middleware, async (c) => {
  const parsed = await checked(() => parseOrRefuse(forwardSearchQuerySchema, c.req.query()));
  if (!parsed.ok) throw fieldRefusal(parsed.issue);
  const { caller, from, to, status_class, error_code, destination, where, equals } = parsed.value;
  const query = {
    compact: true,
    ...(caller !== undefined ? { caller } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    search: {
      ...(status_class ? { status_class } : {}),
      ...(error_code ? { error_code } : {}),
      ...(destination ? { destination } : {}),
      ...(where && equals !== undefined ? { value: { where, equals } } : {}),
    },
  };
  return c.json(await listOwnerHistory(c.env.DB, c.get('project').service_id, query, pageRequest(c.req), (owner) => forwardQueueStub(c.env, owner)));
});
