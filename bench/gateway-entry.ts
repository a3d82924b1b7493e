/**
 * The Worker `npm run bench` runs: the gateway as shipped, plus what only the bench uses: the routes
 * /v1/bench/*, and the stand-in for the Rate Limiting bindings (bench/rate-limit-stand-in.ts) that a
 * request asks for with `x-bench-rate-limit: isolate`. The production entry (src/index.ts) never
 * imports this file, so neither is in the deployed bundle, and the routes are not in /openapi.json.
 */
import type { Env, WorkMessage } from '../src/env';
import gateway from '../src/index';
import { parseRateLimitTable, standInBindings, type RateLimitWindow } from './rate-limit-stand-in';
import { ticketStub } from '../src/platform/object-stubs';

export { ForwardQueueDO, RealtimeDO, TicketDO } from '../src/index';

/** A bare TicketDO round trip: Worker → RPC → one SQLite read → answer. The object holds no ticket, so it reveals nothing. */
const TICKET_DO_ROUND_TRIP = '/v1/bench/ticket-do';

/**
 * Which Rate Limiting bindings a request is counted in: `binding` (the bench sends it for the figures
 * "as shipped") or absent, the Worker's own (locally, miniflare's simulator); `isolate`, the stand-in.
 * Both values are as long, so the two figures' requests are the same size. (Not exported: every export
 * of the entry module must be a handler or a class.)
 */
const RATE_LIMIT_HEADER = 'x-bench-rate-limit';

/** The bench config's [[ratelimits]] tables (bench/wrangler-dev.mjs); absent elsewhere. */
type BenchEnv = Env & { BENCH_RATE_LIMITS?: string };

/** The stand-ins' counts: the isolate's, however many env objects it is handed. */
const windows = new Map<string, RateLimitWindow>();
/** The env with the stand-ins in place of the bindings, made once per env. */
const standInEnvs = new WeakMap<Env, Env>();
function withStandIns(env: BenchEnv): Env {
  let out = standInEnvs.get(env);
  if (!out) {
    if (!env.BENCH_RATE_LIMITS) throw new Error('bench: x-bench-rate-limit: isolate needs BENCH_RATE_LIMITS (bench/wrangler-dev.mjs)');
    out = { ...env, ...standInBindings(parseRateLimitTable(env.BENCH_RATE_LIMITS), { windows }) };
    standInEnvs.set(env, out);
  }
  return out;
}

export default {
  ...gateway,
  async fetch(request: Request, env: BenchEnv, ctx: ExecutionContext): Promise<Response> {
    if (request.method === 'GET' && new URL(request.url).pathname === TICKET_DO_ROUND_TRIP) {
      return Response.json(await ticketStub(env, 'bench', 'round-trip').status());
    }
    return gateway.fetch(request, request.headers.get(RATE_LIMIT_HEADER) === 'isolate' ? withStandIns(env) : env, ctx);
  },
} satisfies ExportedHandler<Env, WorkMessage>;
