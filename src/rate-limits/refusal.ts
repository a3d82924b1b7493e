/**
 * The one refusal of every rate limit (docs/limits.md): 429 TOO_MANY_REQUESTS, and Retry-After saying
 * how long to wait. Flood control (flood.ts) and a Secret Key's limits (key-limits.ts) both refuse with it.
 */
import { SvcHttpError, type Stage } from '../wire/errors';

export const tooManyRequests = (message: string, retryAfterSeconds: number, stage?: Stage): SvcHttpError =>
  new SvcHttpError('TOO_MANY_REQUESTS', message, { status: 429, stage, retryAfterSeconds });
