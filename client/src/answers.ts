import { SvcError, type TicketError } from './errors.js';
import { receiptOf } from './receipt.js';
import { isErrorBody, parseJson, type RawAnswer } from './transport.js';

// Legacy tickets answer failures as plain text '<CODE>: <message>' (spec 7).
const LEGACY_FAILURE = /^[A-Z][A-Z0-9_]*: /;

/** The statuses a resp action may set whose HTTP answer has no body (100..199 never reach the client). */
const BODILESS_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * A consumption's answer, whatever its status: a body with 'stage' is a failure (even on a 200 of a
 * return200 ticket); the receipt `{ tkid, hash }` becomes a TicketReceipt; any other JSON body (what
 * a resp action composed, `null` included) resolves as sent; no body on 204, 205 or 304 (a resp
 * action that set that status) is a success and resolves undefined.
 */
export function consumeAnswer(answer: RawAnswer): unknown {
  // Only those statuses may be empty: an empty 200 or 502 is a proxy that lost the body, not a success.
  if (answer.text === '' && BODILESS_STATUSES.has(answer.status)) return undefined;
  const body = parseJson(answer.text);
  if (body === undefined) throw notJson(answer);
  if (typeof body === 'object' && body !== null && 'stage' in body) {
    const error = body as TicketError;
    throw new SvcError(String(error.message), { code: String(error.code), cause: error, status: answer.status });
  }
  return receiptOf(body) ?? body;
}

/** An answer of the listing and owner routes: the JSON body on 2xx, else SvcError with the body's code. */
export function apiAnswer(answer: RawAnswer): unknown {
  const body = parseJson(answer.text);
  if (body === undefined) throw notJson(answer);
  if (answer.status >= 200 && answer.status < 300) return body;
  if (isErrorBody(body)) throw new SvcError(body.message, { code: body.code, cause: body, status: answer.status });
  throw new SvcError(`The service answered ${answer.status} without an error code.`, { code: 'INVALID_RESPONSE', status: answer.status });
}

function notJson(answer: RawAnswer): SvcError {
  const text = answer.text.trim();
  if (LEGACY_FAILURE.test(text)) return new SvcError(text, { code: 'INVALID_REQUEST', status: answer.status });
  if (answer.status === 500 && /^internal server error\.?$/i.test(text)) return new SvcError(text, { code: 'ERROR', status: 500 });
  const type = answer.contentType.split(';')[0].trim() || 'no content type';
  const what = text === '' ? 'an empty body' : `a body that is not JSON (${type})`;
  return new SvcError(`The service answered ${answer.status} with ${what}; a proxy or gateway in between may have failed.`, {
    code: 'INVALID_RESPONSE',
    status: answer.status,
  });
}
