import { MAX_HOPS } from '../limits';
import { HOP_HEADER, hopsOf } from '../outbound/hops';
import { SvcHttpError, type Stage } from '../wire/errors';

/**
 * Refuses a request that came through this gateway more than MAX_HOPS calls deep (its hop marker,
 * src/outbound/hops.ts): INVALID_REQUEST, 400 on the consume routes (stage `ticket`, as spec 4.1 answers
 * every refusal there), 508 Loop Detected elsewhere. Answers how deep it arrived.
 */
export function refuseLoop(headers: Headers, stage?: Stage): number {
  const hops = hopsOf(headers.get(HOP_HEADER));
  if (hops > MAX_HOPS) {
    throw new SvcHttpError(
      'INVALID_REQUEST',
      `The request came through this gateway ${hops} calls deep (${HOP_HEADER}); more than ${MAX_HOPS} is refused as a loop.`,
      {
        status: stage ? 400 : 508,
        stage,
      },
    );
  }
  return hops;
}
