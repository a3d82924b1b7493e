import type { ServiceErrorBody, TicketErrorBody } from '../../schemas/error-body.js';

export type { ServiceErrorBody };

/** The flat error body of a failed consumption (spec 2.7). Always carries `stage`. */
export type TicketError = TicketErrorBody;

/** Narrow with `'stage' in err.cause` to get the TicketError of a failed consumption. */
export type SvcErrorCause = Error | TicketError | ServiceErrorBody;

/** Codes the client itself raises, besides the codes of the server (spec 7). */
export type ClientErrorCode =
  | 'INVALID_PARAMETER' // bad input, refused before sending
  | 'INVALID_REQUEST' // legacy plain-text failure '<CODE>: <message>'; a signal already aborted (forwardRequest)
  | 'ERROR' // legacy plain-text 'Internal server error'
  | 'INVALID_RESPONSE' // an answer that is not the service's JSON (a proxy's HTML error page)
  | 'NETWORK_ERROR' // the service could not be reached (offline, DNS, refused, CORS)
  | 'TIMEOUT' // no complete answer within timeoutMs
  | 'TOO_MANY_REQUESTS' // 429 without Retry-After, or still 429 after 6 retries
  | 'AUTH_REQUIRED' // secureRequest without a signed-in user (refused before sending; the server answers it too)
  | 'NOT_SUPPORTED'; // the environment lacks what an option needs (multipart without FormData or Response)

export interface SvcErrorOptions {
  code: ClientErrorCode | (string & {});
  cause?: SvcErrorCause;
  /** HTTP status of the answer, when there was one. */
  status?: number;
}

/** Every failure of the client rejects with this. */
export class SvcError extends Error {
  readonly code: SvcErrorOptions['code'];
  readonly status?: number;
  declare readonly cause?: SvcErrorCause;

  constructor(message: string, options: SvcErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcError';
    this.code = options.code;
    if (options.status !== undefined) this.status = options.status;
  }
}

export const invalidParameter = (message: string) => new SvcError(message, { code: 'INVALID_PARAMETER' });
