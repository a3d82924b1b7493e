/**
 * The forwarding methods (spec 4.3): dispatch (direct answer or queued status object), poll handles,
 * cancel, stop, queue count and history, behind the Svc facade.
 */
import {
  FORWARD_STATUSES,
  QUERY_METHODS,
  REALTIME_ROUTE,
  REALTIME_TOKEN_PARAM,
  requestAddressOf,
  STATUS_CODE_HEADER,
  type RequestAddress,
} from '../../schemas/forward-rules.js';
import { FieldIssueError } from '../../schemas/field-issue.js';
import { apiAnswer } from './answers.js';
import { callProjectRoute, paging, projectRequest, searchOf, type Connection } from './connection.js';
import { isStatusEnvelope } from './cursor-answers.js';
import { invalidParameter, SvcError } from './errors.js';
import { flattenForm, isPlainObject, multipartOf, preventSubmit, type MultipartBody } from './forms.js';
import {
  checkCallback,
  checkForwardOptions,
  checkInterval,
  checkMethod,
  checkQueueName,
  checkUrl,
  type CheckedForward,
  type CheckedRequest,
  type ResponseType,
  type SvcHeaders,
} from './forward-options.js';
import type {
  CancelForwardRequestParams,
  OnForwardError,
  OnForwardResponse,
  OnStream,
  ForwardCheckAnswer,
  ForwardForm,
  ForwardHistoryParams,
  ForwardRequestOptions,
  ForwardRetry,
  ForwardStatusEnvelope,
  ForwardStatusObject,
  PollArgument,
  PollFunction,
  QueueCountAnswer,
  QueueCountParams,
  RemovalAnswer,
  RequestHistory,
  RequestHistoryItem,
  StopPollingParams,
} from './forward-types.js';
import { PollRegistry, type PollServer, type PollSpec } from './polls.js';
import { RealtimeLink } from './realtime-link.js';
import { bodyOf } from './responses.js';
import { StreamRead, type CursorServer } from './stream-read.js';
import type { RawAnswer } from './transport.js';
import type { DatabaseResponse, FetchOptions } from './types.js';

/** ms between two polls of poll() without a latency. */
export const DEFAULT_POLL_LATENCY_MS = 1000;

/** What the forwarding methods share: the connection, the client's registry of live reads and its one realtime socket. */
export interface ForwardContext {
  connection: Connection;
  polls: PollRegistry;
  server: PollServer & CursorServer;
  realtime: RealtimeLink;
}

/** The body of POST /forward (schemas/forward.ts forwardDispatchSchema). */
export interface DispatchBody {
  url: string;
  method: string;
  headers?: Record<string, string>;
  data?: unknown;
  params?: Record<string, unknown>;
  secretName?: string;
  clientSecretName?: string;
  queue?: string;
  poll?: number;
  expires?: number;
  svcHeaders?: SvcHeaders;
  multipart?: MultipartBody;
  check?: boolean;
  stream?: boolean;
  realtime?: boolean;
  retry?: ForwardRetry;
}

/** What the client does with the answer of a dispatch, beside the body it sent. */
export interface DispatchPlan {
  body: DispatchBody;
  request: CheckedRequest;
  check: boolean;
  responseType?: ResponseType;
  signal?: AbortSignal;
}

const requestSearch = (address: RequestAddress) => searchOf({ id: address.id, url: address.url, method: address.method });

/** The ws(s) address of the project's realtime socket, with the id token of the moment (a browser WebSocket sends no headers). */
function realtimeUrl(connection: Connection): string {
  const url = new URL(`${connection.baseUrl}/v1/projects/${encodeURIComponent(connection.serviceId)}${REALTIME_ROUTE}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const token = connection.idToken();
  if (token) url.searchParams.set(REALTIME_TOKEN_PARAM, token);
  return url.toString();
}

export function forwardContext(connection: Connection): ForwardContext {
  const server: PollServer & CursorServer = {
    status: async (address) => (await callProjectRoute(connection, 'GET', `/forward/request${requestSearch(address)}`)) as ForwardStatusEnvelope,
    cursor: (address, since) => callProjectRoute(connection, 'GET', `/forward/request${searchOf({ ...address, since })}`),
    // Fire and forget: a withdrawal that fails leaves the request to run, which is what a poll stop alone does.
    withdraw: (address) => void callProjectRoute(connection, 'POST', `/forward/request/withdraw${requestSearch(address)}`).catch(() => undefined),
  };
  return { connection, polls: new PollRegistry(server), server, realtime: new RealtimeLink(() => realtimeUrl(connection)) };
}

/** A request address from `{ id, url, method }` (id alone when it is a full id); INVALID_PARAMETER naming the field. */
export function addressOf(params: { id?: unknown; url?: unknown; method?: unknown }): RequestAddress {
  try {
    return requestAddressOf(params);
  } catch (err) {
    if (err instanceof FieldIssueError) throw invalidParameter(`${err.message}.`);
    throw err;
  }
}

const without = (headers: Record<string, string> | undefined, name: string) =>
  headers && Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));

/** The dispatch body of forwardRequest: the form flattened into params (GET, DELETE, HEAD) or data, or its multipart bytes. */
async function forwardBody(form: unknown, options: CheckedForward): Promise<DispatchBody> {
  const { url, method, queue, poll, expires, secretName, svcHeaders } = options;
  let { headers, data, params } = options;
  let multipart: MultipartBody | undefined;
  if (options.multipart) {
    multipart = await multipartOf(form);
    headers = without(headers, 'content-type'); // the body's own multipart type replaces it
  } else {
    const fields = flattenForm(form);
    if (fields && QUERY_METHODS.has(method)) params = { ...fields, ...params };
    else if (fields) data = data === undefined || isPlainObject(data) ? { ...fields, ...data } : data;
  }
  return {
    url,
    method,
    headers,
    data,
    params,
    secretName,
    queue,
    poll: poll || undefined,
    expires,
    svcHeaders,
    multipart,
    check: options.check || undefined,
    ...streamFields(options),
    retry: options.retry,
  };
}

/** stream, and realtime beside it (it means nothing without stream); absent when false. */
export function streamFields(request: CheckedRequest): Pick<DispatchBody, 'stream' | 'realtime'> {
  if (!request.stream) return {};
  return request.realtime ? { stream: true, realtime: true } : { stream: true };
}

/** forwardRequest: checks everything before sending; refusals of the options reject whatever onError says. */
export async function forwardRequest(context: ForwardContext, form: ForwardForm, options: ForwardRequestOptions): Promise<unknown> {
  preventSubmit(form);
  const checked = checkForwardOptions(options, form !== null && form !== undefined);
  if (checked.signal?.aborted) throw new SvcError('signal: already aborted; nothing was sent.', { code: 'INVALID_REQUEST' });
  const body = await forwardBody(form, checked);
  return dispatch(context, { body, request: checked, check: checked.check, responseType: checked.responseType, signal: checked.signal });
}

/**
 * Sends a dispatch and hands back, by what the server answered: the destination's body (direct), the
 * check answer, the status object with poll() (queued, poll 0), or the final result of the poll it
 * starts (queued, poll > 0). A failure goes to onError when given (the promise resolves with its return
 * value), else rejects.
 */
export async function dispatch(context: ForwardContext, plan: DispatchPlan): Promise<unknown> {
  const { request } = plan;
  let answer: RawAnswer;
  try {
    answer = await context.connection.transport.send(projectRequest(context.connection, 'POST', '/forward', plan.body));
    if (answer.status < 200 || answer.status > 299) apiAnswer(answer); // throws the refusal
  } catch (err) {
    if (request.onError) return request.onError(err);
    throw err;
  }
  if (plan.check) return apiAnswer(answer) as ForwardCheckAnswer;
  // The status header marks a direct answer; where it does not come through (a proxy that drops it), the
  // options decide: without a queue, a poll or stream nothing is queued.
  const queued = answer.headers.get(STATUS_CODE_HEADER) === null && (request.queue !== undefined || request.poll > 0 || request.stream);
  if (!queued) {
    const value = bodyOf(answer.text, plan.responseType);
    request.onResponse?.(value);
    return value;
  }
  const envelope = apiAnswer(answer);
  if (!isStatusEnvelope(envelope)) {
    const err = new SvcError('The service answered a queued dispatch without a status object.', { code: 'INVALID_RESPONSE', status: answer.status });
    if (request.onError) return request.onError(err);
    throw err;
  }
  const address: RequestAddress = { method: request.method, url: request.url, id: envelope.id };
  const startPoll = pollFunction(context, address, envelope, plan);
  if (request.poll > 0) return startPoll({ latency: request.poll, onStream: request.onStream });
  return { ...envelope, poll: startPoll } satisfies ForwardStatusObject;
}

/**
 * poll() of a status object or history item: its own latency and callbacks, else the request's. With
 * onStream it reads with a cursor, over the realtime room too when the dispatch reply named one.
 */
function pollFunction(
  context: ForwardContext,
  address: RequestAddress,
  known: Pick<ForwardStatusEnvelope, 'status' | 'queue_name' | 'executed' | 'realtime_group'>,
  plan?: Pick<DispatchPlan, 'request' | 'responseType' | 'signal'>,
): PollFunction {
  return (arg?: PollArgument) => {
    if (arg !== undefined && !isPlainObject(arg)) throw invalidParameter('poll: takes { latency?, onStream?, onResponse?, onError? }.');
    const latency = arg?.latency === undefined ? DEFAULT_POLL_LATENCY_MS : checkInterval(arg.latency, 'latency');
    const spec: PollSpec = {
      address,
      queue: known.queue_name || null,
      latency,
      status: known.status,
      executed: known.executed,
      responseType: plan?.responseType,
      signal: plan?.signal,
      onResponse: checkCallback<OnForwardResponse>(arg?.onResponse, 'onResponse') ?? plan?.request.onResponse,
      onError: checkCallback<OnForwardError>(arg?.onError, 'onError') ?? plan?.request.onError,
    };
    const onStream = checkCallback<OnStream>(arg?.onStream, 'onStream') ?? plan?.request.onStream;
    if (!onStream) return context.polls.start(spec);
    const read = new StreamRead({ ...spec, mode: 'poll', since: 0, onStream, realtimeGroup: known.realtime_group }, context.server, context.realtime);
    return context.polls.track(read);
  };
}

/** Stops this client's polls: one request (id with url and method, or a full id), a queue's, or every one; returns how many. */
export function stopForwardRequestPolling(context: ForwardContext, params?: StopPollingParams): number {
  if (params === undefined || params === null) return context.polls.stop({}, true);
  if (!isPlainObject(params as unknown)) throw invalidParameter('params: must be { url?, method?, id?, queue? }.');
  if (params.id !== undefined) return context.polls.stop({ address: addressOf(params), queue: params.queue }, true);
  return context.polls.stop(
    {
      url: params.url === undefined ? undefined : checkUrl(params.url),
      method: params.method === undefined ? undefined : checkMethod(params.method),
      queue: params.queue === undefined ? undefined : checkQueueName(params.queue),
    },
    true,
  );
}

/** Removes a pending request or aborts a running one; with queue, this client also stops polling it. */
export async function cancelForwardRequest(context: ForwardContext, params: CancelForwardRequestParams): Promise<RemovalAnswer> {
  if (!isPlainObject(params as unknown)) throw invalidParameter('params: must be { url, method, id, queue? }.');
  const address = addressOf(params);
  if (params.queue !== undefined) context.polls.stop({ address }, false);
  return (await callProjectRoute(context.connection, 'DELETE', `/forward/request${requestSearch(address)}`)) as RemovalAnswer;
}

/** How many requests wait in one of the caller's queues. */
export async function forwardRequestQueueCount(context: ForwardContext, params: QueueCountParams): Promise<QueueCountAnswer> {
  const queue = checkQueueName(isPlainObject(params) ? params.queue : undefined);
  return (await callProjectRoute(context.connection, 'GET', `/forward/queue${searchOf({ queue })}`)) as QueueCountAnswer;
}

function checkFlag(value: unknown, path: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw invalidParameter(`${path}: must be true or false.`);
  return value as boolean | undefined;
}

/** The caller's requests to one url and method, newest first; pending and running items carry poll(). */
export async function forwardRequestHistory(
  context: ForwardContext,
  params: ForwardHistoryParams,
  fetchOptions?: FetchOptions,
): Promise<DatabaseResponse<RequestHistoryItem>> {
  if (!isPlainObject(params as unknown)) throw invalidParameter('params: must be { url, method, queue?, status?, compact?, queue_exact?, queue_exclude? }.');
  const { status } = params;
  if (status !== undefined && !FORWARD_STATUSES.includes(status)) throw invalidParameter(`status: must be one of ${FORWARD_STATUSES.join(', ')}.`);
  const query = {
    url: checkUrl(params.url),
    method: checkMethod(params.method),
    queue: params.queue === undefined ? undefined : checkQueueName(params.queue),
    queue_exact: checkFlag(params.queue_exact, 'queue_exact'),
    queue_exclude: params.queue_exclude === undefined ? undefined : checkQueueName(params.queue_exclude, 'queue_exclude'),
    status,
    compact: checkFlag(params.compact, 'compact'),
    ...paging(fetchOptions),
  };
  const page = (await callProjectRoute(context.connection, 'GET', `/forward/history${searchOf(query)}`)) as DatabaseResponse<RequestHistory>;
  return { ...page, list: page.list.map((item) => withPoll(context, item)) };
}

function withPoll(context: ForwardContext, item: RequestHistory): RequestHistoryItem {
  if (item.status !== 'pending' && item.status !== 'running') return item;
  const address: RequestAddress = { method: item.method, url: item.url, id: item.id };
  return { ...item, poll: pollFunction(context, address, { status: item.status, queue_name: item.queue_name ?? '', executed: item.executed }) };
}
