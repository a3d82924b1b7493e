/**
 * The event inspector's search form as the query of GET …/tickets/{id}/events (issue 37 item 4): the
 * filters, and a value search written as `body.data.object.id = pi_123`. The server checks every part;
 * this only splits what the owner typed. Pure: no I/O.
 */
export interface EventFilters {
  outcome: '' | 'ok' | 'failed' | 'check';
  code: string;
  /** datetime-local values, '' for none. */
  from: string;
  to: string;
  /** `<path> = <value>`, '' for none. */
  search: string;
}

export const NO_FILTERS: EventFilters = { outcome: '', code: '', from: '', to: '', search: '' };

/** `where = equals` split at the first '=' (the value may hold more); undefined when there is no '='. */
export function splitSearch(text: string): { where: string; equals: string } | undefined {
  const at = text.indexOf('=');
  if (at < 0) return undefined;
  return { where: text.slice(0, at).trim(), equals: text.slice(at + 1).trim() };
}

const msOf = (local: string) => String(new Date(local).getTime());

/** The query string of one page (without the leading '?'). */
export function eventQuery(filters: EventFilters, limit: number, startKey: string | null): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (filters.outcome) q.set('outcome', filters.outcome);
  if (filters.code.trim()) q.set('code', filters.code.trim());
  return withRangeAndSearch(q, filters, startKey);
}

/** The members both inspectors send alike: the time range, the value search and the page's startKey. */
function withRangeAndSearch(q: URLSearchParams, filters: { from: string; to: string; search: string }, startKey: string | null): string {
  if (filters.from) q.set('from', msOf(filters.from));
  if (filters.to) q.set('to', msOf(filters.to));
  const search = filters.search.trim();
  if (search) {
    const split = splitSearch(search);
    // Sent as where alone: the server names what is missing.
    if (split) {
      q.set('where', split.where);
      q.set('equals', split.equals);
    } else q.set('where', search);
  }
  if (startKey) q.set('startKey', startKey);
  return q.toString();
}

/** The forwarding inspector's form (GET …/forward/events). */
export interface ForwardEventFilters {
  status_class: '' | '2xx' | '3xx' | '4xx' | '5xx' | 'none';
  error_code: string;
  destination: string;
  caller: string;
  from: string;
  to: string;
  search: string;
}

export const NO_FORWARD_FILTERS: ForwardEventFilters = { status_class: '', error_code: '', destination: '', caller: '', from: '', to: '', search: '' };

export function forwardEventQuery(filters: ForwardEventFilters, limit: number, startKey: string | null): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (filters.status_class) q.set('status_class', filters.status_class);
  for (const key of ['error_code', 'destination', 'caller'] as const) if (filters[key].trim()) q.set(key, filters[key].trim());
  return withRangeAndSearch(q, filters, startKey);
}
