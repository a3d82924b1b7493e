/** Public request ids (`stamp:entropy`) and generated queue names. */
import { randomBase62, toBase62 } from '../bytes/base62';

/** `stamp:entropy`: base62 of the ms time, then 16 random base62 characters (95 bits). */
export const newPublicId = (now: number): string => `${toBase62(now)}:${randomBase62(16)}`;

/** A realtime room: random, so it cannot be rebuilt from the request's id (REALTIME_GROUP_PATTERN). */
export const newRealtimeGroup = (): string => randomBase62(22);

/** The queue of a request that asked to be polled without naming one. */
export const generatedQueueName = (): string => `auto-${randomBase62(12)}`;
