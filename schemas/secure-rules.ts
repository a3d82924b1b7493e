/**
 * secureRequest on the wire (spec 1.6, 4.3): the route, its limits and its answers. The client imports
 * this module as it is; the Worker's zod schema (secure.ts) is built on it.
 */
import type { SecureAnswerItem } from './answer-types.generated';
import { urlRefusal } from './forward-rules';

/** The route, under /v1/projects/{service_id}. */
export const SECURE_REQUEST_ROUTE = '/secure-request';
/** Most requests one call may carry (an array of more is refused before anything is sent). */
export const MAX_SECURE_ITEMS = 50;
/** Largest body of one call, in bytes (every request and its data together). */
export const MAX_SECURE_BODY_BYTES = 1_048_576;
/** Largest answer one mirrored request may read, in bytes. */
export const MAX_SECURE_ANSWER_BYTES = 1_048_576;
/** Largest answers of one call together: with n requests each reads at most this / n (and at most MAX_SECURE_ANSWER_BYTES). */
export const MAX_SECURE_CALL_ANSWER_BYTES = 8 * 1_048_576;
/** What every copy of the project's secureRequest key in an answer reads. */
export const SECURE_KEY_TOKEN = '$SECURE_REQUEST_KEY';
/** The keys a request item may have. */
export const SECURE_ITEM_KEYS = ['url', 'data', 'sync'] as const;

/** The cap on one answer of a call of `items` requests. */
export const secureAnswerCap = (items: number): number => Math.min(MAX_SECURE_ANSWER_BYTES, Math.floor(MAX_SECURE_CALL_ANSWER_BYTES / Math.max(1, items)));

/** Why a url cannot be mirrored to (absolute http(s) with a host, at most 8 KiB, no control character); undefined when it can. */
export const secureUrlRefusal = (url: string): string | undefined => urlRefusal(url);

/** Why a call of `count` requests is refused; undefined when it is not. */
export function itemCountRefusal(count: number): string | undefined {
  if (count === 0) return `an empty array sends nothing: give 1 to ${MAX_SECURE_ITEMS} requests`;
  if (count > MAX_SECURE_ITEMS) return `at most ${MAX_SECURE_ITEMS} requests in one call; this one has ${count}`;
  return undefined;
}

/** One request to mirror: POST the signed-in user's information and `data` to `url`. */
export interface SecureRequestItem {
  url: string;
  /** Any JSON; sent as `data` (null when absent). */
  data?: unknown;
  /** Send this request only after the one before it in the array has answered (or failed). */
  sync?: boolean;
}

/** Why one request of an array got no answer (a single request is refused with this as the error instead). */
export type SecureFailure = NonNullable<SecureAnswerItem['error']>;

/** The answer to one request; `response` typed as the caller expects it. */
export type SecureAnswer<T = unknown> = Omit<SecureAnswerItem, 'response'> & { response: T };
