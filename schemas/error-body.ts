/** The error bodies on the wire (spec 2.7 and 7), as the server sends them and the client reads them. */

/** Every code the service answers with (spec 7, plus the platform's own). */
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
  | 'TOO_MANY_REQUESTS'
  /** Extension (idempotent consumption): the first consumption with this key is still running. */
  | 'IDEMPOTENCY_KEY_IN_USE';

/** Where a consumption failed. */
export type Stage = 'ticket' | 'condition' | 'action';

/** The flat error body of spec 2.7; `stage` only on ticket consumption errors. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  stage?: Stage;
  action?: { act: string; path: string };
  detail?: Record<string, unknown>;
  ticket_id?: string;
}

/** The body of a failed consumption: always carries `stage` (a success body never does). */
export type TicketErrorBody = ErrorBody & { stage: Stage };

/** The error body of the other routes (listings, registry, clearTicketLog): no `stage`. */
export type ServiceErrorBody = Omit<ErrorBody, 'stage' | 'action' | 'ticket_id'>;
