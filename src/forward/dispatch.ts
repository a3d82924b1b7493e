/**
 * A forwarded request from dispatch to answer (spec 4.3): the key's rules judged before anything is sent,
 * then a dry run's report, a queued request's status, or a direct request's answer.
 */
import { retryWithinOf, type ForwardDispatch } from '../../schemas/forward';
import type { ForwardCheckAnswer, ForwardStatusEnvelope } from '../../schemas/forward-rules';
import type { Env } from '../env';
import { SvcHttpError } from '../wire/errors';
import { OutboundError } from '../outbound/errors';
import { checkDestination } from '../outbound/fetch';
import { loadSecretKeyCached, type SecretKey } from '../platform/secrets';
import type { ForwardCaller } from './caller';
import type { HistoryOwner } from './history';
import { generatedQueueName, newPublicId, newRealtimeGroup } from './ids';
import { keptHeaders } from './kept-headers';
import { outboundOf, prepareRequest, type PreparedRequest } from './prepare';
import type { ForwardQueueStore } from './queue-store';
import { peekRateLimits, returnRateLimits, takeRateLimits } from '../rate-limits/key-limits';
import { tooManyRequests } from '../rate-limits/refusal';
import type { ForwardRecord } from './record';
import { failureOf } from './send';
import { accessRefusal, destinationRefusal, keyRefusal, missingKey } from './verdicts';

export interface ForwardContext {
  env: Env;
  serviceId: string;
  caller: ForwardCaller;
  /** The caller's object: its queues and its history (every request, direct ones too, goes through it). */
  queues: () => ForwardQueueStore;
  /** Keeps work going after the answer. */
  waitUntil(promise: Promise<unknown>): void;
  /** How many calls deep the dispatch arrived (src/outbound/hops.ts). */
  hops: number;
}

export type DispatchAnswer =
  | { kind: 'direct'; id: string; statusCode: number; body: string; contentType?: string }
  | { kind: 'queued'; envelope: ForwardStatusEnvelope }
  | { kind: 'check'; answer: ForwardCheckAnswer };

/** How long a caller over its queued-requests limit is asked to wait before trying again. */
const QUEUE_FULL_RETRY_SECONDS = 5;

const refused = (message: string) => new SvcHttpError('INVALID_REQUEST', message);

/** The url, headers and body as they would go, or why they cannot (the key's value used only in memory). */
function outboundRefusal(prepared: PreparedRequest, key: SecretKey | null, env: Env): string | undefined {
  try {
    checkDestination(outboundOf(prepared, key?.value).url, env);
    return undefined;
  } catch (error) {
    if (error instanceof OutboundError) return error.message;
    throw error;
  }
}

/** Runs `build`, answering an OutboundError (a url or header that cannot go out) with its refusal. */
function refusingUnbuildable<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    const { error: failure, httpStatus } = failureOf(error);
    const field = UNBUILDABLE_FIELDS[error.reason];
    if (field) throw new SvcHttpError(failure.code, `${field}: ${failure.message}`, { status: httpStatus, detail: { field } });
    throw new SvcHttpError(failure.code, failure.message, { status: httpStatus });
  }
}

/** The dispatch field an outbound refusal of bad input is about. */
const UNBUILDABLE_FIELDS: Partial<Record<OutboundError['reason'], string>> = { invalid_url: 'url', invalid_header: 'headers' };

function checkAnswer(prepared: PreparedRequest, verdicts: ForwardCheckAnswer['verdicts']): ForwardCheckAnswer {
  // Built without the value: the token stays where the key would go.
  const shown = outboundOf(prepared, undefined);
  const body = shown.body === undefined ? null : typeof shown.body === 'string' ? shown.body : `<${shown.body.length} bytes>`;
  const allowed = Object.values(verdicts).every((verdict) => verdict === 'allowed' || verdict === 'unused');
  return {
    check: true,
    outcome: allowed ? 'send' : 'refuse',
    request: { method: shown.method, url: shown.url, headers: Object.fromEntries(shown.headers), body },
    verdicts,
  };
}

/** A dry run: the request as it would go and a verdict for the key, the destination and the limits. */
async function dryRun(context: ForwardContext, prepared: PreparedRequest, key: SecretKey | null, now: number): Promise<DispatchAnswer> {
  const { env, serviceId, caller } = context;
  const name = prepared.secretName;
  const rate = key ? await peekRateLimits(env.DB, serviceId, key.name, caller.key, key.limits, now) : { ok: true as const };
  // Access is the key's verdict; its Destinations and the address guard are the destination's.
  const verdicts: ForwardCheckAnswer['verdicts'] = {
    secret: name === undefined ? 'unused' : key ? (accessRefusal(key, caller) ?? 'allowed') : missingKey(name),
    destination: (key ? destinationRefusal(prepared.url, key) : undefined) ?? outboundRefusal(prepared, key, env) ?? 'allowed',
    limits: rate.ok ? 'allowed' : rate.message,
  };
  // A request that cannot be built (a url with user info) is refused as a real dispatch would be.
  return { kind: 'check', answer: refusingUnbuildable(() => checkAnswer(prepared, verdicts)) };
}

/** The request as it is recorded when it is made: pending, with what the caller sent as data. */
function newRecord(dispatch: ForwardDispatch, prepared: PreparedRequest, queue: string | undefined, now: number): ForwardRecord {
  return {
    id: newPublicId(now),
    method: prepared.method,
    url: prepared.url,
    queue_name: queue ?? null,
    status: 'pending',
    created: now,
    updated: now,
    ...(dispatch.data !== undefined ? { request_body: JSON.stringify(dispatch.data) } : {}),
    request_headers: JSON.stringify(keptHeaders(prepared.headers)),
    ...(dispatch.multipart ? { request_body: JSON.stringify(`<multipart body, ${dispatch.multipart.base64.length} base64 characters>`) } : {}),
    ...(dispatch.expires !== undefined ? { expires_at: now + dispatch.expires * 1000 } : {}),
    ...(dispatch.stream ? { stream: true as const } : {}),
    ...(dispatch.stream && dispatch.realtime ? { realtime_group: newRealtimeGroup() } : {}),
  };
}

/**
 * Sends at once through the caller's object, which records the request before it goes and settles it before
 * answering (issue 34 item 2). An object that cannot be reached sent nothing: the caller is asked to retry.
 */
async function sendDirect(context: ForwardContext, prepared: PreparedRequest, key: SecretKey | null, record: ForwardRecord): Promise<DispatchAnswer> {
  const owner: HistoryOwner = { serviceId: context.serviceId, callerKey: context.caller.key };
  const outcome = await reachingStore(() => context.queues().sendDirect({ owner, prepared, key, record }));
  if (!outcome.ok) throw new SvcHttpError(outcome.error.code, outcome.error.message, { status: outcome.httpStatus });
  return {
    kind: 'direct',
    id: record.id,
    statusCode: outcome.statusCode,
    body: outcome.body,
    ...(outcome.contentType ? { contentType: outcome.contentType } : {}),
  };
}

/** How long a caller whose object is unavailable is asked to wait. */
const STORE_UNAVAILABLE_RETRY_SECONDS = 1;

/** The object's answer; its failure (overloaded, restarting, unreachable) a 503 with Retry-After, never a hang. */
async function reachingStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    console.error('forward caller object unavailable', error instanceof Error ? error.message : String(error));
    throw new SvcHttpError(
      'INTERNAL_ERROR',
      'The request store of this caller is unavailable (overloaded or restarting): nothing was sent unless the history shows the request. Try again shortly.',
      {
        status: 503,
        retryAfterSeconds: STORE_UNAVAILABLE_RETRY_SECONDS,
      },
    );
  }
}

export async function dispatchForward(context: ForwardContext, dispatch: ForwardDispatch): Promise<DispatchAnswer> {
  const { env, serviceId, caller } = context;
  const prepared = prepareRequest(dispatch, caller, serviceId, context.hops);
  const name = prepared.secretName;
  const key = name === undefined ? null : await loadSecretKeyCached(env, serviceId, name);
  const now = Date.now();
  if (dispatch.check) return dryRun(context, prepared, key, now);

  if (name !== undefined) {
    const refusal = key ? keyRefusal(key, caller, prepared.url) : missingKey(name);
    if (refusal !== undefined) throw refused(refusal);
  }
  const request = refusingUnbuildable(() => outboundOf(prepared, key?.value));
  refusingUnbuildable(() => checkDestination(request.url, env));
  if (key) {
    const rate = await takeRateLimits(env.DB, serviceId, key.name, caller.key, key.limits, now);
    if (!rate.ok) throw tooManyRequests(rate.message, rate.retryAfterSeconds);
  }

  // A polled or streamed request needs a queue: one is generated when none is named.
  const queue = dispatch.queue ?? ((dispatch.poll ?? 0) > 0 || dispatch.stream ? generatedQueueName() : undefined);
  const record = newRecord(dispatch, prepared, queue, now);
  if (queue === undefined) return sendDirect(context, prepared, key, record);

  const owner: HistoryOwner = { serviceId, callerKey: caller.key };
  const queuedRecord = { ...record, queue_name: queue };
  const retryWithin = retryWithinOf(dispatch.retry);
  // The object writes the request's history row as it stores it.
  const enqueued = await reachingStore(() =>
    context.queues().enqueue({
      owner,
      caller: { signedIn: caller.signedIn, accessGroup: caller.accessGroup },
      prepared,
      record: queuedRecord,
      ...(retryWithin !== undefined ? { retryWithin } : {}),
      ...(key?.limits.queued_per_caller !== undefined ? { queuedLimit: key.limits.queued_per_caller } : {}),
    }),
  );
  if (!enqueued.ok) {
    if (key) await returnRateLimits(env.DB, serviceId, key.name, caller.key, key.limits, now);
    throw tooManyRequests(enqueued.message, QUEUE_FULL_RETRY_SECONDS);
  }
  return { kind: 'queued', envelope: enqueued.envelope };
}
