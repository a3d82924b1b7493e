import { usageError } from './errors';

/** The body of POST …/tickets/{id}/check (contract item 4). */
export interface CheckBody {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  ip?: string;
  query?: Record<string, string | string[]>;
  user_id?: string;
}

export interface CheckOptions {
  /** --data, or the text of --data-file. */
  data?: string;
  method?: string;
  header?: string[];
  query?: string[];
  user?: string;
  ip?: string;
}

/**
 * The sample request from the flags. The data goes as the raw body text, byte for byte as given: a
 * signature in --header is checked over exactly these bytes (a JSON value would be re-serialized).
 */
export function checkBody(options: CheckOptions): CheckBody {
  const body: CheckBody = {};
  if (options.method !== undefined) {
    const method = options.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw usageError(`--method must be GET or POST, not "${options.method}".`);
    body.method = method;
  }
  if (options.header?.length) {
    body.headers = {};
    for (const header of options.header) {
      const colon = header.indexOf(':');
      if (colon <= 0) throw usageError(`--header "${header}": expected name:value.`);
      body.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
  }
  if (options.query?.length) {
    const query: Record<string, string | string[]> = {};
    for (const pair of options.query) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw usageError(`--query "${pair}": expected name=value.`);
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      const before = query[name];
      query[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
    }
    body.query = query;
  }
  if (options.data !== undefined) body.body = options.data;
  if (options.user !== undefined) body.user_id = options.user;
  if (options.ip !== undefined) body.ip = options.ip;
  return body;
}

/** The answer of the check route. */
export type CheckAnswer =
  | { ticket_id: string; passed: true; message: string }
  | { ticket_id: string; passed: false; status: number; error: { code: string; message: string; stage: string; detail?: unknown } };
