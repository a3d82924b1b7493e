import type { DatabaseResponse } from '../../schemas/listings';
import { SvcHttpError } from './errors';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** The page size of a listing request: an integer 1..100, default 50. */
function pageSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PAGE_SIZE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) {
    throw new SvcHttpError('INVALID_PARAMETER', `limit: must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
  }
  return n;
}

/** startKey is opaque to clients: base64url of the JSON position, checked on the way back in. */
function encodeStartKey(position: unknown): string {
  return btoa(JSON.stringify(position)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const foreignStartKey = (cause?: unknown) => new SvcHttpError('INVALID_PARAMETER', 'startKey: not a key this listing handed out.', { cause });

function decodeStartKey<T>(raw: string | undefined, isPosition: (value: unknown) => value is T): T | null {
  if (raw === undefined || raw === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(atob(raw.replace(/-/g, '+').replace(/_/g, '/')));
  } catch (err) {
    throw foreignStartKey(err);
  }
  if (isPosition(value)) return value;
  throw foreignStartKey();
}

/** What a client asks of a listing: the page size (see pageSize) and the startKey it was handed, as sent. */
export interface PageRequest {
  limit: number;
  startKey: string | undefined;
}

/** The `limit` (checked now) and `startKey` (checked by pageOf) query parameters of a listing request. */
export function pageRequest(req: { query(name: string): string | undefined }): PageRequest {
  return { limit: pageSize(req.query('limit')), startKey: req.query('startKey') };
}

/** How one listing reads its rows and where a page of them ends. */
export interface Listing<P, R, T> {
  /** Whether a decoded startKey is a position of this listing (else INVALID_PARAMETER). */
  isPosition: (value: unknown) => value is P;
  /** Up to `count` rows after `after` (exclusive), in listing order. */
  rows: (after: P | null, count: number) => Promise<R[]>;
  /** The position a page ending on `row` hands out as its startKey. */
  position: (row: R) => P;
  /**
   * For a listing whose page reads are bounded (it may stop short of `count` with more to come): where the
   * next page starts then, or null when the list ended. Asked after `rows`.
   */
  resumeAt?: () => P | null;
  /** What the list shows of a row. */
  shape: (row: R) => T | Promise<T>;
}

/**
 * One page of a listing: decodes the startKey, reads one row more than the page so the extra row
 * says whether another page follows, and hands out the key of the next page.
 */
export async function pageOf<P, R, T>(request: PageRequest, listing: Listing<P, R, T>): Promise<DatabaseResponse<T>> {
  const after = decodeStartKey(request.startKey, listing.isPosition);
  const rows = await listing.rows(after, request.limit + 1);
  const kept = rows.slice(0, request.limit);
  const resume = rows.length <= request.limit ? (listing.resumeAt?.() ?? null) : null;
  const endOfList = rows.length <= request.limit && resume === null;
  return {
    list: await Promise.all(kept.map((row) => listing.shape(row))),
    startKey: endOfList ? null : encodeStartKey(resume ?? listing.position(kept[kept.length - 1])),
    endOfList,
  };
}
