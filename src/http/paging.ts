import { SvcHttpError } from './errors';

/** Every listing answers this shape and pages by startKey (spec: DatabaseResponse). */
export interface DatabaseResponse<T> {
  list: T[];
  startKey: string | null;
  endOfList: boolean;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** The page size of a listing request: an integer 1..100, default 50. */
export function pageSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PAGE_SIZE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) {
    throw new SvcHttpError('INVALID_PARAMETER', `limit: must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
  }
  return n;
}

/** startKey is opaque to clients: base64url of the JSON position, checked on the way back in. */
export function encodeStartKey(position: unknown): string {
  return btoa(JSON.stringify(position)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeStartKey<T>(raw: string | undefined, isPosition: (value: unknown) => value is T): T | null {
  if (raw === undefined || raw === '') return null;
  try {
    const value: unknown = JSON.parse(atob(raw.replace(/-/g, '+').replace(/_/g, '/')));
    if (isPosition(value)) return value;
  } catch {
    // fall through to the refusal
  }
  throw new SvcHttpError('INVALID_PARAMETER', 'startKey: not a key this listing handed out.');
}
