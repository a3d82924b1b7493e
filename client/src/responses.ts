/** The shape of a forwarded request's result (spec 4.3 responseType). */
import type { ResponseType } from './forward-options.js';
import { parseJson } from './transport.js';

/** A destination's body as text: its JSON value when it parses, else the text itself. */
export function bodyOf(text: string, responseType: ResponseType | undefined): unknown {
  if (responseType === 'text') return text;
  const value = parseJson(text);
  return value === undefined ? text : value;
}

/** A stored result reshaped: 'text' stringifies a value that is not a string; 'json' parses a string that parses; absent, as it is. */
export function reshape(value: unknown, responseType: ResponseType | undefined): unknown {
  if (responseType === 'text') return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  if (responseType === 'json' && typeof value === 'string') {
    const parsed = parseJson(value);
    return parsed === undefined ? value : parsed;
  }
  return value;
}
