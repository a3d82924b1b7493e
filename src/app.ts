import { Hono } from 'hono';
import type { Env } from './env';
import { internalErrorBody, SvcHttpError } from './wire/errors';

export type AppEnv = { Bindings: Env };

/** A Hono app with the service's error handling: every refusal renders the flat error body. */
export const createRouter = () => new Hono<AppEnv>();

export function renderError(err: unknown): Response {
  if (err instanceof SvcHttpError) {
    const headers = err.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(err.retryAfterSeconds) };
    return Response.json(err.toBody(), { status: err.status, headers });
  }
  console.error('unexpected error', err instanceof Error ? (err.stack ?? err.message) : String(err));
  return Response.json(internalErrorBody(), { status: 500 });
}
