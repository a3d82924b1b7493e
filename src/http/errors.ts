import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every code the service answers with (spec section 7, plus the platform's own). */
export type ErrorCode =
  | 'INVALID_SERVICE'
  | 'SERVICE_DISABLED'
  | 'TICKET_NOT_FOUND'
  | 'TICKET_EXPIRED'
  | 'TICKET_EXHAUSTED'
  | 'USER_LIMIT_REACHED'
  | 'ISSUER_CANNOT_CONSUME'
  | 'AUTH_REQUIRED'
  | 'METHOD_NOT_ALLOWED'
  | 'CONDITION_FAILED'
  | 'PATH_NOT_FOUND'
  | 'PLACEHOLDER_MISSING'
  | 'REQUEST_FAILED'
  | 'TIMEOUT'
  | 'ACTION_FAILED'
  | 'ACTION_FORBIDDEN'
  | 'QUOTA_EXCEEDED'
  | 'ALREADY_RESPONDED'
  | 'INTERNAL_ERROR'
  | 'INVALID_REQUEST'
  | 'INVALID_PARAMETER'
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'UNAUTHORIZED'
  | 'TOO_MANY_REQUESTS';

export type Stage = 'ticket' | 'condition' | 'action';

interface ErrorOptions {
  status?: ContentfulStatusCode;
  stage?: Stage;
  action?: { act: string; path: string };
  detail?: Record<string, unknown>;
  ticket_id?: string;
  /** The error this one wraps, kept for logs; never rendered. */
  cause?: unknown;
}

/** The flat error body of spec 2.7; `stage` only on ticket consumption errors. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  stage?: Stage;
  action?: { act: string; path: string };
  detail?: Record<string, unknown>;
  ticket_id?: string;
}

/** The one error type of the server. Thrown anywhere, rendered by the app's error handler. */
export class SvcHttpError extends Error {
  readonly code: ErrorCode;
  readonly status: ContentfulStatusCode;
  readonly stage?: Stage;
  readonly action?: { act: string; path: string };
  readonly detail?: Record<string, unknown>;
  readonly ticket_id?: string;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcHttpError';
    this.code = code;
    this.status = options.status ?? 400;
    this.stage = options.stage;
    this.action = options.action;
    this.detail = options.detail;
    this.ticket_id = options.ticket_id;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.stage) body.stage = this.stage;
    if (this.action) body.action = this.action;
    if (this.detail) body.detail = this.detail;
    if (this.ticket_id !== undefined) body.ticket_id = this.ticket_id;
    return body;
  }
}

/** Why an action failed; the runner adds stage 'action' and action.path. */
export interface ActionFailure {
  code: ErrorCode;
  message: string;
  detail?: Record<string, unknown>;
}

/** Thrown by templating, record writes and action modules for a failure the err chain should see. */
export class ActionError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ActionError';
  }

  /** The failure an action result carries: code, message and detail, if any. */
  toFailure(): ActionFailure {
    return { code: this.code, message: this.message, ...(this.detail ? { detail: this.detail } : {}) };
  }
}

export const invalidParameter = (message: string, detail?: Record<string, unknown>) =>
  new SvcHttpError('INVALID_PARAMETER', message, { detail });

