/**
 * The checks forwardRequest and clientSecretRequest make before anything is sent (spec 4.3), with the
 * rules of schemas/forward-rules.ts the server applies too. Each refusal is INVALID_PARAMETER naming
 * the option.
 */
import {
  BODILESS_FORWARD_METHODS,
  faithfulJson,
  FORWARD_METHODS,
  headerRefusal,
  isForwardMethod,
  MAX_EXPIRES_SECONDS,
  MAX_FORWARD_DATA_BYTES,
  MAX_FORWARD_HEADERS,
  MAX_RETRY_WITHIN_SECONDS,
  METHOD_RULE,
  queueNameRefusal,
  urlRefusal,
  type ForwardMethod,
} from '../../schemas/forward-rules.js';
import { childPath } from '../../schemas/paths.js';
import { invalidParameter } from './errors.js';
import { isPlainObject } from './forms.js';
import type { ClientSecretRequestParams, ForwardRequestOptions, ForwardRetry, OnForwardError, OnForwardResponse, OnStream } from './forward-types.js';

export type ResponseType = 'json' | 'text';
export type SvcHeaders = boolean | { user?: boolean; service?: boolean };

/** A request's options once checked: what goes on the wire (but the form) and what stays in the client. */
export interface CheckedRequest {
  url: string;
  method: ForwardMethod;
  headers?: Record<string, string>;
  data?: unknown;
  params?: Record<string, unknown>;
  queue?: string;
  /** 0 when not polling. */
  poll: number;
  expires?: number;
  /** Read the answer piece by piece into the chunk store (the server generates a queue when none is named). */
  stream: boolean;
  /** Also push each piece to a realtime room (sent only with stream). */
  realtime: boolean;
  /** Its presence makes the polls of the request read pieces with a cursor. */
  onStream?: OnStream;
  onResponse?: OnForwardResponse;
  onError?: OnForwardError;
}

export interface CheckedForward extends CheckedRequest {
  secretName?: string;
  multipart: boolean;
  svcHeaders?: SvcHeaders;
  check: boolean;
  responseType?: ResponseType;
  signal?: AbortSignal;
  /** Extension: wait out a 429 or 503 (as the server reads it; absent when false). */
  retry?: ForwardRetry;
}

export interface CheckedClientSecretRequest extends CheckedRequest {
  clientSecretName: string;
}

const MAX_SECRET_NAME = 64;

const refuse = (path: string, rule: string) => invalidParameter(`${path}: ${rule}.`);

const COMMON_OPTIONS = ['url', 'method', 'headers', 'data', 'params', 'queue', 'poll', 'expires', 'stream', 'realtime', 'onStream', 'onResponse', 'onError'];
const FORWARD_OPTIONS: ReadonlySet<string> = new Set([...COMMON_OPTIONS, 'secretName', 'multipart', 'svcHeaders', 'check', 'responseType', 'signal', 'retry']);
const CLIENT_SECRET_OPTIONS: ReadonlySet<string> = new Set([...COMMON_OPTIONS, 'clientSecretName']);
/** Options of the seed's forwardRequest that are gone: the key lives in a Secret Key, written with $CLIENT_SECRET. */
const REMOVED_OPTIONS = ['apiKeyHeader', 'apiKeyScheme'];

/** Refuses option names this method does not take (a misspelt one would otherwise be dropped quietly). */
export function refuseUnknown(options: Record<string, unknown>, known: ReadonlySet<string>, where: string): void {
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || known.has(name)) continue;
    if (REMOVED_OPTIONS.includes(name)) {
      throw refuse(name, 'was removed; store the key as a Secret Key, write $CLIENT_SECRET where it goes in headers, and name it with secretName');
    }
    throw refuse(name, `is not an option of ${where}`);
  }
}

function checkData(data: unknown, method: ForwardMethod): void {
  if (data === undefined) return;
  const text = faithfulJson(data);
  if (text === undefined) throw refuse('data', 'must be JSON-serializable (no cycles, BigInt, functions, NaN or Infinity)');
  if (new TextEncoder().encode(text).length > MAX_FORWARD_DATA_BYTES) throw refuse('data', `must be at most ${MAX_FORWARD_DATA_BYTES} bytes as JSON`);
  if (BODILESS_FORWARD_METHODS.has(method)) throw refuse('data', `a ${method} request carries no body: send params`);
}

function checkHeaders(headers: unknown): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (!isPlainObject(headers)) throw refuse('headers', 'must be an object of header names to string values');
  const names = Object.keys(headers);
  if (names.length > MAX_FORWARD_HEADERS) throw refuse('headers', `at most ${MAX_FORWARD_HEADERS} headers`);
  for (const name of names) {
    const refusal = headerRefusal(name, headers[name]);
    if (refusal) throw refuse(childPath('headers', name), refusal);
  }
  return headers as Record<string, string>;
}

export function checkQueueName(queue: unknown, path = 'queue'): string {
  if (typeof queue !== 'string' || queue === '') throw refuse(path, 'must be a non-empty string');
  const refusal = queueNameRefusal(queue);
  if (refusal) throw refuse(path, refusal);
  return queue;
}

export function checkUrl(url: unknown, path = 'url'): string {
  if (typeof url !== 'string' || url === '') throw refuse(path, 'is required');
  const refusal = urlRefusal(url);
  if (refusal) throw refuse(path, refusal);
  return url;
}

export function checkMethod(method: unknown, path = 'method'): ForwardMethod {
  if (!isForwardMethod(method)) throw refuse(path, METHOD_RULE);
  return method;
}

/** ms between polls: a finite number, 0 or more. */
export function checkInterval(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse(path, 'must be a finite number of ms');
  if (value < 0) throw refuse(path, 'must not be negative');
  return value;
}

export function checkCallback<T>(value: unknown, path: string): T | undefined {
  if (value !== undefined && typeof value !== 'function') throw refuse(path, 'must be a function');
  return value as T | undefined;
}

function checkSecretName(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > MAX_SECRET_NAME)
    throw refuse(path, `must be a key name of 1 to ${MAX_SECRET_NAME} characters`);
  return value;
}

function checkBoolean(value: unknown, path: string): boolean {
  if (value !== undefined && typeof value !== 'boolean') throw refuse(path, 'must be true or false');
  return value === true;
}

/** The options both names share: destination, method, headers, body, query, queue, poll, expiry, callbacks. */
function checkRequest(options: Record<string, unknown>, defaultMethod: ForwardMethod | undefined): CheckedRequest {
  const url = checkUrl(options.url);
  const method = options.method === undefined && defaultMethod ? defaultMethod : checkMethod(options.method);
  const headers = checkHeaders(options.headers);
  checkData(options.data, method);
  if (options.params !== undefined && !(isPlainObject(options.params) && faithfulJson(options.params) !== undefined))
    throw refuse('params', 'must be an object of JSON values');
  const queue = options.queue === undefined ? undefined : checkQueueName(options.queue);
  const poll = options.poll === undefined ? 0 : checkInterval(options.poll, 'poll');
  const { expires } = options;
  if (expires !== undefined && !(Number.isInteger(expires) && (expires as number) >= 1 && (expires as number) <= MAX_EXPIRES_SECONDS)) {
    throw refuse('expires', `must be a whole number of seconds from 1 to ${MAX_EXPIRES_SECONDS}`);
  }
  return {
    url,
    method,
    headers,
    data: options.data,
    params: options.params as Record<string, unknown> | undefined,
    queue,
    poll,
    expires: expires as number | undefined,
    stream: checkBoolean(options.stream, 'stream'),
    realtime: checkBoolean(options.realtime, 'realtime'),
    onStream: checkCallback<OnStream>(options.onStream, 'onStream'),
    onResponse: checkCallback<OnForwardResponse>(options.onResponse, 'onResponse'),
    onError: checkCallback<OnForwardError>(options.onError, 'onError'),
  };
}

function checkSvcHeaders(value: unknown): SvcHeaders | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const rule = 'must be true, false or { user?: boolean, service?: boolean }';
  if (!isPlainObject(value)) throw refuse('svcHeaders', rule);
  for (const [key, flag] of Object.entries(value)) {
    if ((key !== 'user' && key !== 'service') || (flag !== undefined && typeof flag !== 'boolean')) throw refuse(childPath('svcHeaders', key), rule);
  }
  return value as { user?: boolean; service?: boolean };
}

function checkResponseType(value: unknown): ResponseType | undefined {
  if (value === undefined || value === 'json' || value === 'text') return value;
  if (value === 'response') {
    throw refuse(
      'responseType',
      "'response' is not available: the destination is called server side, so there is no Response to hand back; use 'json' or 'text'",
    );
  }
  throw refuse('responseType', "must be 'json' or 'text'");
}

function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const signal = value as AbortSignal;
  if (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
    throw refuse('signal', 'must be an AbortSignal');
  }
  return signal;
}

/** retry: true, false or { within } in whole seconds, on a queued request only (as the server refuses it). */
function checkRetry(value: unknown, request: CheckedRequest): ForwardRetry | undefined {
  if (value === undefined || value === false) return undefined;
  const within = isPlainObject(value) ? value.within : undefined;
  const rule = `must be true, false or { within: whole seconds from 1 to ${MAX_RETRY_WITHIN_SECONDS} }`;
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) if (key !== 'within') throw refuse(childPath('retry', key), rule);
    if (!(Number.isInteger(within) && (within as number) >= 1 && (within as number) <= MAX_RETRY_WITHIN_SECONDS)) throw refuse('retry.within', rule);
  } else if (value !== true) throw refuse('retry', rule);
  if (request.queue === undefined && request.poll === 0 && !request.stream) {
    throw refuse('retry', 'needs a queued request (queue, poll or stream): a direct request has 10 seconds and cannot wait');
  }
  return value === true ? true : { within: within as number };
}

/** forwardRequest's options; `hasForm` says whether a form was given (multipart needs one). */
export function checkForwardOptions(options: ForwardRequestOptions | unknown, hasForm: boolean): CheckedForward {
  if (!isPlainObject(options)) throw refuse('options', 'must be an object with at least url');
  refuseUnknown(options, FORWARD_OPTIONS, 'forwardRequest');
  const request = checkRequest(options, 'POST');
  const multipart = checkBoolean(options.multipart, 'multipart');
  if (multipart && options.data !== undefined) throw refuse('multipart', 'cannot be combined with data: the form is the body');
  if (multipart && !hasForm) throw refuse('multipart', 'needs a form (a submit event, form element, FormData or object) to relay');
  if (multipart && BODILESS_FORWARD_METHODS.has(request.method)) throw refuse('multipart', `a ${request.method} request carries no body`);
  return {
    ...request,
    secretName: checkSecretName(options.secretName, 'secretName'),
    multipart,
    svcHeaders: checkSvcHeaders(options.svcHeaders),
    check: checkBoolean(options.check, 'check'),
    responseType: checkResponseType(options.responseType),
    signal: checkSignal(options.signal),
    retry: checkRetry(options.retry, request),
  };
}

const CLIENT_SECRET_METHODS: readonly ForwardMethod[] = ['GET', 'POST', 'DELETE', 'PUT'];

/** clientSecretRequest's one params object: a required clientSecretName and method, and no forwardRequest-only option. */
export function checkClientSecretParams(params: ClientSecretRequestParams | unknown): CheckedClientSecretRequest {
  if (!isPlainObject(params)) throw refuse('params', 'must be an object with clientSecretName, url and method');
  for (const name of ['multipart', 'svcHeaders', 'responseType', 'signal', 'secretName', 'check', 'retry']) {
    if (params[name] !== undefined) throw refuse(name, 'is an option of forwardRequest, not of the deprecated clientSecretRequest');
  }
  refuseUnknown(params, CLIENT_SECRET_OPTIONS, 'clientSecretRequest');
  const clientSecretName = checkSecretName(params.clientSecretName, 'clientSecretName');
  if (clientSecretName === undefined) throw refuse('clientSecretName', 'is required');
  const request = checkRequest(params, undefined);
  if (!CLIENT_SECRET_METHODS.includes(request.method))
    throw refuse(
      'method',
      `must be one of ${CLIENT_SECRET_METHODS.join(', ')} (use forwardRequest for ${FORWARD_METHODS.filter((m) => !CLIENT_SECRET_METHODS.includes(m)).join(' and ')})`,
    );
  return { ...request, clientSecretName };
}
