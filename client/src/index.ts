export { Svc, DEFAULT_BATCH_SIZE, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_RETRY_WAIT_MS, type SvcOptions } from './svc.js';
export { SvcError, type ClientErrorCode, type ServiceErrorBody, type SvcErrorCause, type SvcErrorOptions, type TicketError } from './errors.js';
export type { TicketReceipt } from './receipt.js';
export type {
  ClearTicketLogParams,
  ClearTicketLogResult,
  ConsumeTicketParams,
  ConsumedRow,
  DatabaseResponse,
  FetchOptions,
  GetConsumedTicketsParams,
  GetTicketsParams,
  Ticket,
  TicketLogRow,
} from './types.js';
export { DEFAULT_POLL_LATENCY_MS } from './forward.js';
export type { SecureRequestParams, SecureResponse } from './secure.js';
export type { SecureFailure } from '../../schemas/secure-rules.js';
export type {
  CancelForwardRequestParams,
  ClientSecretRequestParams,
  FinalizeAnswer,
  ForwardCheckAnswer,
  ForwardFailure,
  ForwardForm,
  ForwardHistoryParams,
  ForwardMethod,
  ForwardRequestOptions,
  ForwardRequestStreamOptions,
  ForwardResponseMeta,
  ForwardRetry,
  ForwardStatus,
  ForwardStatusEnvelope,
  ForwardStatusObject,
  OnForwardError,
  OnForwardResponse,
  OnStream,
  PollArgument,
  PollFunction,
  PollPromise,
  QueueCountAnswer,
  QueueCountParams,
  RemovalAnswer,
  RequestHistory,
  RequestHistoryItem,
  RequestLocation,
  StopPollingParams,
  StoppedPoll,
  StreamEnd,
  StreamVia,
} from './forward-types.js';
