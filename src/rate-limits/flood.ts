/**
 * The rate limiter's first store (see refusal.ts for the one refusal, key-limits.ts for the second store).
 * Flood control (issue 26, docs/limits.md): a public route counts its caller in a Workers Rate Limiting
 * binding before the request costs anything else (no Durable Object call, no D1 write, no body read).
 * Over the limit is 429 TOO_MANY_REQUESTS with Retry-After; a refused request is counted nowhere else.
 */
import type { Env } from '../env';
import { FLOOD_FIXED, FLOOD_PERIOD_SECONDS, TICKET_CALLER_DEFAULT, TICKET_CALLER_STEPS, TICKET_PROJECT_DEFAULT, TICKET_PROJECT_STEPS } from '../limits';
import type { Stage } from '../wire/errors';
import { tooManyRequests } from './refusal';
import type { FloodLimits } from '../platform/types';
import { addressBucket } from './address-bucket';

/** The caller's address bucket: CF-Connecting-IP only (see addressBucket); none locally without it. */
export const callerBucketOf = (headers: Headers): string => addressBucket(headers.get('cf-connecting-ip'));

/** The parts of a key, joined so no part can run into the next (a service id from a URL is capped). */
export const floodKey = (...parts: string[]): string => parts.map((part) => part.slice(0, 128).replaceAll('|', '%7C')).join('|');

/**
 * Counts one request under `key`; over the limit throws 429 TOO_MANY_REQUESTS. The binding tells neither
 * the count nor when its window ends, so Retry-After is the whole period, the most a caller waits.
 */
export async function takeFlood(limiter: RateLimit, key: string, message: string, stage?: Stage): Promise<void> {
  const { success } = await limiter.limit({ key });
  if (!success) throw tooManyRequests(message, FLOOD_PERIOD_SECONDS, stage);
}

const per = (limit: number) => `at most ${limit} every ${FLOOD_PERIOD_SECONDS} seconds; try again after Retry-After`;

/** The routes of one project (or /v1/owner) other than the consume routes, by the limit they count in. */
export type FloodSurface = keyof typeof FLOOD_FIXED;

const SURFACE_REFUSALS: Record<FloodSurface, string> = {
  FLOOD_CALLER: `Too many requests to this project from your address: ${per(FLOOD_FIXED.FLOOD_CALLER)}.`,
  FLOOD_SECURE: `Too many secureRequest calls to this project from your address: ${per(FLOOD_FIXED.FLOOD_SECURE)}.`,
  FLOOD_OWNER: `Too many requests to this project's owner routes from your address: ${per(FLOOD_FIXED.FLOOD_OWNER)}.`,
};

/** Counts a request of `surface` to project `serviceId` ('' for /v1/owner and /mcp) from the caller's address. */
export const takeRouteFlood = (env: Env, surface: FloodSurface, serviceId: string, headers: Headers): Promise<void> =>
  takeFlood(env[surface], floodKey(serviceId, callerBucketOf(headers)), SURFACE_REFUSALS[surface]);

/** A stored figure that is no longer a step (the operator changed the ladder) counts as the default. */
const stepOf = (steps: readonly number[], figure: number, fallback: number) => (steps.includes(figure) ? figure : fallback);

/**
 * Counts a consumption (or dry run) of `ticketId`: first from the caller's address at this ticket, then for
 * the whole project, so a caller refused at its own limit takes nothing of the project's.
 */
export async function takeTicketFlood(env: Env, limits: FloodLimits, serviceId: string, ticketId: string, headers: Headers): Promise<void> {
  const perCaller = stepOf(TICKET_CALLER_STEPS, limits.tickets[ticketId] ?? limits.per_caller_per_ticket, TICKET_CALLER_DEFAULT);
  const perProject = stepOf(TICKET_PROJECT_STEPS, limits.per_project, TICKET_PROJECT_DEFAULT);
  // The ladders' namespaces are numbered from 1 in the order of their steps.
  const callers = [env.FLOOD_TICKET_CALLER_1, env.FLOOD_TICKET_CALLER_2, env.FLOOD_TICKET_CALLER_3];
  const projects = [env.FLOOD_TICKET_PROJECT_1, env.FLOOD_TICKET_PROJECT_2, env.FLOOD_TICKET_PROJECT_3];
  await takeFlood(
    callers[TICKET_CALLER_STEPS.indexOf(perCaller)],
    floodKey(serviceId, ticketId, callerBucketOf(headers)),
    `Too many requests to this ticket from your address: ${per(perCaller)}.`,
    'ticket',
  );
  await takeFlood(
    projects[TICKET_PROJECT_STEPS.indexOf(perProject)],
    floodKey(serviceId),
    `Too many requests to this project's tickets from all callers together: ${per(perProject)}.`,
    'ticket',
  );
}
