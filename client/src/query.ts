/**
 * The query string of a GET consumption. The server JSON-parses each value that parses (spec 4.1), so
 * every value is encoded to read back as what was given: numbers, booleans, null, arrays and objects
 * as JSON; a string as-is, unless its text would parse as JSON ('2', 'true'), then JSON-quoted so it
 * stays a string. Undefined values are left out (a missing field).
 */
export function toQueryString(data: Record<string, unknown> | undefined): string {
  if (!data) return '';
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    query.append(key, typeof value === 'string' ? stringValue(value) : JSON.stringify(value));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

function stringValue(value: string): string {
  if (value === '') return value;
  try {
    JSON.parse(value);
    return JSON.stringify(value);
  } catch {
    return value;
  }
}
