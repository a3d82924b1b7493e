/** Time limits and sizes of the spec (section 8), in one place. */
export const CONSUMPTION_BUDGET_MS = 25_000;
export const OUTBOUND_CALL_MS = 10_000;
export const RETRY_DELAYS_MS = [1_000, 2_000, 4_000] as const;
export const MAX_ACTIONS_PER_TICKET = 50;
export const MAX_MAIL_PLACEHOLDERS = 30;
export const MAX_DESCRIPTION = 500;
/** Largest request body a consumption or registration reads; larger bodies are refused. */
export const MAX_BODY_BYTES = 1_048_576;
/** Deepest JSON nesting accepted in a body. */
export const MAX_JSON_DEPTH = 64;
/** Most query-string keys read from one request. */
export const MAX_QUERY_KEYS = 256;
