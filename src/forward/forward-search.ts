/**
 * The event inspector's filters over the forwarding history (issue 37 item 4, an extension) as SQL for the
 * callers' objects (owner-history.ts ownerFilter adds them to the owner listing's filters): the status class
 * of the answer, the error code, the destination's origin, and a value in the request as the caller sent it,
 * read from the bodies and headers the object's SQLite holds (in the row, or waiting in forward_bodies).
 * Bodies already packed into R2 segments are not searched (docs/decisions.md). Headers are kept with the
 * $CLIENT_SECRET placeholder, never a Secret Key's value. Pure: builds SQL, runs none.
 */
import type { ForwardSearchFilters, StatusClass } from '../../schemas/forward-search';
import type { WherePath } from '../../schemas/log-search';

const SIDE = (column: string) => `(SELECT b.${column} FROM forward_bodies AS b
  WHERE b.service_id = f.service_id AND b.caller_key = f.caller_key AND b.method = f.method AND b.url = f.url AND b.id = f.id)`;
const BODY = `COALESCE(f.request_body, ${SIDE('request_body')})`;
const HEADERS = `COALESCE(f.request_headers, ${SIDE('request_headers')})`;

const STATUS_SQL: Record<StatusClass, string> = {
  '2xx': 'status_code BETWEEN 200 AND 299',
  '3xx': 'status_code BETWEEN 300 AND 399',
  '4xx': 'status_code BETWEEN 400 AND 499',
  '5xx': 'status_code BETWEEN 500 AND 599',
  none: 'status_code IS NULL',
};

/** A JSON path of SQLite's JSON functions from checked segments (letters, digits, _ and -: nothing to escape); a number indexes an array. */
export const jsonPathOf = (where: WherePath): string => `$${where.segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `."${s}"`)).join('')}`;

/** The SQL parts (each a condition and its binds) of the search's filters. */
export function searchFilterParts(search: ForwardSearchFilters): Array<[string, unknown[]]> {
  const parts: Array<[string, unknown[]]> = [];
  if (search.status_class !== undefined) parts.push([STATUS_SQL[search.status_class], []]);
  if (search.error_code !== undefined) parts.push(["(json_valid(error) AND json_extract(error, '$.code') = ?)", [search.error_code]]);
  if (search.destination !== undefined) {
    const origin = search.destination;
    parts.push(["(url = ? OR substr(url, 1, length(?) + 1) IN (? || '/', ? || '?'))", [origin, origin, origin, origin]]);
  }
  if (search.value !== undefined) {
    const { where, equals } = search.value;
    if (where.root === 'headers') {
      parts.push([
        `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(${HEADERS}) THEN ${HEADERS} ELSE '{}' END) AS h WHERE lower(h.key) = ? AND h.value = ?)`,
        [where.segments[0].toLowerCase(), equals],
      ]);
    } else {
      // The value as text: a string itself, anything else its JSON text (numbers and booleans as written).
      const path = jsonPathOf(where);
      parts.push([
        `(CASE WHEN json_valid(${BODY}) THEN (CASE json_type(${BODY}, ?) WHEN 'text' THEN ${BODY} ->> ? ELSE ${BODY} -> ? END) END) = ?`,
        [path, path, path, equals],
      ]);
    }
  }
  return parts;
}
