/** Public request ids (`stamp:entropy`) and generated queue names. */
import { fromBase62, randomBase62, toBase62 } from '../../schemas/encoding';

/** `stamp:entropy`: base62 of the ms time, then 16 random base62 characters (95 bits). */
export const newPublicId = (now: number): string => `${toBase62(now)}:${randomBase62(16)}`;

/** A realtime room: random, so it cannot be rebuilt from the request's id (REALTIME_GROUP_PATTERN). */
export const newRealtimeGroup = (): string => randomBase62(22);

/** The queue of a request that asked to be polled without naming one. */
export const generatedQueueName = (): string => `auto-${randomBase62(12)}`;

/** The ms time a public id was made at, or null for text that is not one. */
export function stampOf(id: string): number | null {
  const stamp = id.split(':')[0];
  if (!/^[0-9A-Za-z]{1,11}$/.test(stamp)) return null;
  const ms = fromBase62(stamp);
  return Number.isSafeInteger(ms) ? ms : null;
}
