/**
 * Log rows travel through the TicketDO's SQLite and R2 segments, whose rows are capped (2 MB), and an
 * action may receive a 5 MiB response. A value over the limit is cut so that one huge answer can never
 * block its ticket's log; the action runner cuts each row as it records it, so a run holds no more.
 */
export const MAX_LOG_VALUE_CHARS = 64 * 1024;
const MAX_STRING_CHARS = 4 * 1024;

function cutStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_STRING_CHARS ? `${value.slice(0, MAX_STRING_CHARS)}…[${value.length - MAX_STRING_CHARS} more characters cut]` : value;
  }
  if (Array.isArray(value)) return value.map(cutStrings);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cutStrings(inner)]));
  }
  return value;
}

/** The value as it is when its JSON fits; else with long strings cut; else a marked preview. */
export function fitForLog(value: Record<string, unknown>, max = MAX_LOG_VALUE_CHARS): Record<string, unknown> {
  const json = JSON.stringify(value);
  if (json.length <= max) return value;
  const cut = cutStrings(value) as Record<string, unknown>;
  if (JSON.stringify(cut).length <= max) return { ...cut, truncated: true };
  return { truncated: true, chars: json.length, preview: json.slice(0, MAX_STRING_CHARS) };
}
