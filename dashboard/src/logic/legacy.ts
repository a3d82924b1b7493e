/**
 * Spec 9.2 / docs/migrating.md: a ticket saved before rules_version 2 read a req action's answer as its
 * body alone. Registered again under the current rules, the answer is { status, headers, body }, so
 * the dashboard moves every reference to a req answer under [body] when it opens such a ticket:
 * `${response[key]}` → `${response[body][key]}` and a cond row key `key` → `body[key]`, in the Then
 * chain of each req (the actions whose ${response} is that req's answer). `$${…}` is escaped text, left as is.
 */
import type { TicketAction } from '../../../schemas/ticket-types';

const RESPONSE_REFERENCE = /(?<!\$)\$\{response(?=[[}])/g;

const underBody = (text: string) => text.replace(RESPONSE_REFERENCE, '$${response[body]');

function rewriteStrings(value: unknown): unknown {
  if (typeof value === 'string') return underBody(value);
  if (Array.isArray(value)) return value.map(rewriteStrings);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteStrings(v)]));
  return value;
}

/** 'method' → 'body[method]', 'order[id]' → 'body[order][id]'. */
function bodyKey(key: string): string {
  const [, first, rest] = /^([^[]*)(.*)$/s.exec(key) ?? ['', key, ''];
  return `body[${first}]${rest}`;
}

/** An action of a req's Then chain with its references to the req's answer moved (its own chains left to the walk). */
function readingReqAnswer(action: TicketAction): TicketAction {
  const { actions: then, ...fields } = action.exe;
  const exe = rewriteStrings(fields) as TicketAction['exe'];
  if (action.act === 'cond' && Array.isArray(exe.response)) {
    exe.response = (exe.response as { key: string }[]).map((row) => ({ ...row, key: bodyKey(row.key) }));
  }
  if (then) exe.actions = then;
  return { ...action, exe };
}

/** The chain with every req answer reference moved under [body]. */
export function moveReqAnswersUnderBody(actions: readonly TicketAction[], parentIsReq = false): TicketAction[] {
  return actions.map((original) => {
    const action = parentIsReq ? readingReqAnswer(original) : original;
    const exe = { ...action.exe };
    if (exe.actions) exe.actions = moveReqAnswersUnderBody(exe.actions, action.act === 'req');
    const moved: TicketAction = { ...action, exe };
    if (action.err) moved.err = moveReqAnswersUnderBody(action.err, false);
    return moved;
  });
}

/** Whether a listed ticket needs the move: imported as legacy and saved before rules_version 2. */
export const needsBodyMove = (ticket: { legacy?: boolean; rules_version?: number }): boolean => ticket.legacy === true && ticket.rules_version === undefined;
