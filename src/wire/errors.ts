import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorBody, ErrorCode, Stage } from '../../schemas/error-body';
import type { FieldIssue } from '../../schemas/field-issue';

// The wire shapes are schemas/'s (shared with the client); the server's error type renders them.
export type { ErrorBody, ErrorCode, Stage } from '../../schemas/error-body';

interface ErrorOptions {
  status?: ContentfulStatusCode;
  stage?: Stage;
  action?: { act: string; path: string };
  detail?: Record<string, unknown>;
  ticket_id?: string;
  /** The error this one wraps, kept for logs; never rendered. */
  cause?: unknown;
  /** Rendered as the Retry-After header (a 429). */
  retryAfterSeconds?: number;
}

/** The one error type of the server. Thrown anywhere, rendered by the app's error handler. */
export class SvcHttpError extends Error {
  readonly code: ErrorCode;
  readonly status: ContentfulStatusCode;
  readonly stage?: Stage;
  readonly action?: { act: string; path: string };
  readonly detail?: Record<string, unknown>;
  readonly ticket_id?: string;
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcHttpError';
    this.code = code;
    this.status = options.status ?? 400;
    this.stage = options.stage;
    this.action = options.action;
    this.detail = options.detail;
    this.ticket_id = options.ticket_id;
    this.retryAfterSeconds = options.retryAfterSeconds;
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

/** What every unexpected failure answers: the one INTERNAL_ERROR body (never the failure's own message, which may hold a secret). */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error.';
export function internalErrorBody(): ErrorBody & { code: 'INTERNAL_ERROR' };
export function internalErrorBody<S extends Stage>(stage: S): ErrorBody & { code: 'INTERNAL_ERROR'; stage: S };
export function internalErrorBody(stage?: Stage): ErrorBody {
  return stage ? { code: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE, stage } : { code: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE };
}

/** The refusal of a field issue of schemas/: its code and message, and the field as detail.field (the dashboard lands on it). */
export const fieldRefusal = (issue: FieldIssue) => new SvcHttpError(issue.code, issue.message, { detail: { field: issue.field } });

export const invalidParameter = (message: string, detail?: Record<string, unknown>) => new SvcHttpError('INVALID_PARAMETER', message, { detail });
