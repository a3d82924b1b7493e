/**
 * secureRequest (spec 4.3): the service POSTs the signed-in user's information and `data` to the
 * customer's own API, signed with the project's key, and hands back each answer.
 */
import {
  itemCountRefusal,
  SECURE_ITEM_KEYS,
  SECURE_REQUEST_ROUTE,
  secureUrlRefusal,
  type SecureAnswer,
  type SecureRequestItem,
} from '../../schemas/secure-rules.js';
import { callProjectRoute, type Connection } from './connection.js';
import { invalidParameter, SvcError } from './errors.js';
import { flattenForm, isFormData, isHtmlForm, isPlainObject, preventSubmit } from './forms.js';

export type SecureRequestParams = SecureRequestItem;
export type SecureResponse<T = unknown> = SecureAnswer<T>;

const HTML_FORM =
  'params: HTML forms are not accepted by secureRequest; pass new FormData(form) or a plain object, with the url as the second argument. Nothing was sent.';
const JSON_RULE = 'must be JSON (null, a boolean, a finite number, a string, an array or a plain object)';

/** A field path: `url` for a single request, `[2].url` in an array. */
const at = (path: string, key: string) => (path ? `${path}.${key}` : key);

const kindOf = (value: unknown): string => {
  if (typeof value !== 'object' || value === null) return typeof value === 'function' ? 'a function' : `a ${typeof value}`;
  return `a ${(value as object).constructor?.name ?? 'object without a prototype'}`;
};

/** Why `value` cannot travel as JSON as it is (undefined members are left out, as JSON.stringify does); undefined when it can. */
export function jsonRefusal(value: unknown, path: string, ancestors: object[] = []): string | undefined {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path}: ${JSON_RULE}; ${value} is not a finite number.`;
  if (typeof value !== 'object') return `${path}: ${JSON_RULE}; found ${kindOf(value)}.`;
  if (ancestors.includes(value)) return `${path}: refers back to itself (a cycle), which JSON cannot hold.`;
  // A value with toJSON (a Date) says its JSON form itself.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  if (!Array.isArray(value) && !isPlainObject(value)) return `${path}: ${JSON_RULE}; found ${kindOf(value)}.`;
  const inside = [...ancestors, value];
  for (const [key, item] of Object.entries(value)) {
    const refusal = jsonRefusal(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, inside);
    if (refusal) return refusal;
  }
  return undefined;
}

/** One request, checked as the server checks it (and data as JSON); INVALID_PARAMETER naming the field. */
function checkItem(value: unknown, path: string): SecureRequestItem {
  if (!isPlainObject(value)) throw invalidParameter(`${path || 'params'}: must be a request { url, data?, sync? }.`);
  const unknown = Object.keys(value).find((key) => !(SECURE_ITEM_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) throw invalidParameter(`${at(path, unknown)}: unknown key; accepted keys: ${SECURE_ITEM_KEYS.join(', ')}.`);
  const { url, data, sync } = value;
  if (typeof url !== 'string' || url === '') throw invalidParameter(`${at(path, 'url')}: is required (a string).`);
  const urlProblem = secureUrlRefusal(url);
  if (urlProblem) throw invalidParameter(`${at(path, 'url')}: ${urlProblem}.`);
  if (sync !== undefined && typeof sync !== 'boolean') throw invalidParameter(`${at(path, 'sync')}: must be true or false.`);
  const dataProblem = jsonRefusal(data, at(path, 'data'));
  if (dataProblem) throw invalidParameter(dataProblem);
  return { url, ...(data === undefined ? {} : { data }), ...(sync === undefined ? {} : { sync }) };
}

/** The body of the call: one request or an array of them, from the forms secureRequest takes. */
export function secureBody(params: unknown, url?: unknown): SecureRequestItem | SecureRequestItem[] {
  if (isHtmlForm(params)) throw invalidParameter(HTML_FORM);
  if (url !== undefined) {
    if (Array.isArray(params)) throw invalidParameter('url: not with an array: each request names its own url.');
    if (!isFormData(params) && !isPlainObject(params))
      throw invalidParameter('params: with the url as the second argument, params is the data: FormData or a plain object.');
    return checkItem({ url, data: flattenForm(params) }, '');
  }
  if (Array.isArray(params)) {
    const refusal = itemCountRefusal(params.length);
    if (refusal) throw invalidParameter(`params: ${refusal}.`);
    return params.map((item, index) => checkItem(item, `[${index}]`));
  }
  if (isFormData(params)) throw invalidParameter('url: required as the second argument when params is FormData.');
  return checkItem(params, '');
}

/** secureRequest: everything is checked before sending, a signed-in user included. */
export async function secureRequest(connection: Connection, params: unknown, url?: unknown): Promise<unknown> {
  preventSubmit(params); // a refused submit event must not navigate the page away from its error
  const body = secureBody(params, url);
  if (!connection.idToken()) {
    throw new SvcError('secureRequest needs a signed-in user: call setIdToken with their id token first. Nothing was sent.', { code: 'AUTH_REQUIRED' });
  }
  return callProjectRoute(connection, 'POST', SECURE_REQUEST_ROUTE, body);
}
