import { randomBase62, toBase62 } from '../../schemas/encoding';

/** base62 of the ms timestamp + 8 random base62 characters: unique, and sorted by creation time. */
export function newRecordId(nowMs: number): string {
  return toBase62(nowMs) + randomBase62(8);
}
