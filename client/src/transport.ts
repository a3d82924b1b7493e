import { SvcError, type ServiceErrorBody } from './errors.js';
import { RequestLimiter } from './limiter.js';
import { MAX_RETRIES, retryAfterMs, withJitter } from './retry.js';

export interface TransportOptions {
  /** Requests in flight at once; the rest wait. */
  batchSize: number;
  /** ms one attempt may take, answer body included. */
  timeoutMs: number;
  /** A Retry-After longer than this fails at once with TOO_MANY_REQUESTS instead of waiting. */
  maxRetryWaitMs: number;
  fetch: typeof fetch;
}

export interface OutgoingRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** An answer read to the end. */
export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
  headers: Headers;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends requests through the batch limiter, with a timeout per attempt and the 429 retry rule. */
export class Transport {
  private readonly limiter: RequestLimiter;

  constructor(private readonly options: TransportOptions) {
    this.limiter = new RequestLimiter(options.batchSize);
  }

  async send(request: OutgoingRequest): Promise<RawAnswer> {
    for (let retries = 0; ; retries++) {
      // The batch slot is held for one attempt only, never while waiting to retry.
      const { answer, retryAfter } = await this.limiter.run(() => this.attempt(request));
      if (answer.status !== 429) return answer;
      const wait = retryAfterMs(retryAfter);
      if (wait === null) throw tooManyRequests(answer, 'The service is busy (429) and gave no Retry-After.');
      if (retries === MAX_RETRIES) throw tooManyRequests(answer, `The service is still busy (429) after ${MAX_RETRIES} retries.`);
      if (wait > this.options.maxRetryWaitMs) throw tooManyRequests(answer, `The service is busy (429) and asks to wait ${Math.ceil(wait / 1000)} s.`);
      await sleep(withJitter(wait));
    }
  }

  private async attempt(request: OutgoingRequest): Promise<{ answer: RawAnswer; retryAfter: string | null }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const res = await this.options.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
        credentials: 'omit',
      });
      const text = await res.text();
      const answer = { status: res.status, contentType: res.headers.get('content-type') ?? '', text, headers: res.headers };
      return { answer, retryAfter: res.headers.get('retry-after') };
    } catch (err) {
      if (controller.signal.aborted) {
        throw new SvcError(`No answer from ${describe(request)} within ${this.options.timeoutMs} ms.`, { code: 'TIMEOUT' });
      }
      const reason = err instanceof Error ? err.message : String(err);
      throw new SvcError(`Could not reach ${describe(request)}: ${reason}`, { code: 'NETWORK_ERROR', cause: err instanceof Error ? err : undefined });
    } finally {
      clearTimeout(timer);
    }
  }
}

function describe(request: OutgoingRequest): string {
  const url = new URL(request.url);
  return `${request.method} ${url.origin}${url.pathname}`;
}

function tooManyRequests(answer: RawAnswer, message: string): SvcError {
  const body = parseJson(answer.text);
  const cause = isErrorBody(body) ? body : undefined;
  return new SvcError(message, { code: 'TOO_MANY_REQUESTS', status: 429, cause });
}

/** The JSON value of a text; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isErrorBody(value: unknown): value is ServiceErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const { code, message } = value as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string';
}
