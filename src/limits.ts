/** Time limits and sizes of spec 8, in one place; the sizes a registration checks are defined in schemas/. */
export const CONSUMPTION_BUDGET_MS = 25_000;
export const OUTBOUND_CALL_MS = 10_000;
export const RETRY_DELAYS_MS = [1_000, 2_000, 4_000] as const;
/** Largest request body a consumption or registration reads; larger bodies are refused. */
export const MAX_BODY_BYTES = 1_048_576;
/** Deepest JSON nesting accepted in a consumption's body or query value, and parsed from a destination's answer. */
export const MAX_JSON_DEPTH = 64;
/**
 * Deepest JSON nesting accepted on the owner and operator routes and in an id token's claims (which
 * carry a dev user's attributes). The deepest legal ticket fits: 49
 * Then chains nested in one action (3 levels each) whose innermost exe holds a 64-level value.
 */
export const MAX_DEFINITION_JSON_DEPTH = 256;
/** Most query-string keys read from one request. */
export const MAX_QUERY_KEYS = 256;
/** How long past the deadline the runner still waits for an action that honours the deadline itself. */
export const DEADLINE_GRACE_MS = 1_000;
/** Latest a resp may resume a run, counted from the resp (a longer delay fails the resp). */
export const MAX_RESUME_DELAY_MS = 366 * 24 * 60 * 60 * 1_000;
/** Queued ticket runs (runs that go on after resp) per project per calendar month (UTC); null = unlimited. */
export const QUEUED_RUN_QUOTA: Record<string, number | null> = { free: 1_000, standard: 100_000, premium: null };
/**
 * Storage a project's ticket logs may hold (each ticket object's SQLite plus its R2 segments), in
 * bytes, by plan; the operator may set another figure per project. Reasoning: docs/decisions.md,
 * "Storage quota (issue 24 item 6)".
 */
export const STORAGE_QUOTA_BYTES: Record<string, number> = { free: 1_000_000_000, standard: 100_000_000_000, premium: 1_000_000_000_000 };
/** Largest per-project storage quota the operator may set (100 TB). */
export const MAX_STORAGE_QUOTA_BYTES = 100_000_000_000_000;

/**
 * Flood control (issue 26, docs/limits.md): requests a caller may make per FLOOD_PERIOD_SECONDS, counted
 * by the Workers Rate Limiting bindings of wrangler.toml ([[ratelimits]]). A binding's figure is fixed per
 * namespace, so each figure an owner may pick is a namespace of its own: the steps below, in order, name
 * the bindings FLOOD_<LADDER>_1, _2, _3 (a test holds wrangler.toml to these figures).
 */
export const FLOOD_PERIOD_SECONDS = 10;
/** Consumptions (and dry runs) of one ticket from one address. */
export const TICKET_CALLER_STEPS: readonly number[] = [50, 500, 5_000];
export const TICKET_CALLER_DEFAULT = 500;
/** Consumptions (and dry runs) of all of one project's tickets, from every address together. */
export const TICKET_PROJECT_STEPS: readonly number[] = [1_000, 10_000, 100_000];
export const TICKET_PROJECT_DEFAULT = 10_000;
/** Fixed figures of the other public routes, per project and address (one namespace each). */
export const FLOOD_FIXED = {
  /** Forwarding (dispatch, poll, history, queue count, cancel, finalize), realtime joins, a signed-in user's listings. */
  FLOOD_CALLER: 2_000,
  /** secureRequest calls (each may send up to 50 requests), on top of FLOOD_CALLER. */
  FLOOD_SECURE: 300,
  /** The owner's routes (owner key), and /v1/owner. */
  FLOOD_OWNER: 5_000,
} as const;

/**
 * Outbound calls carry this deployment's hop marker (x-svc-hop: how many calls deep they are); a request
 * arriving more than this many calls deep is refused, so a ticket or forward aimed at the gateway itself
 * cannot multiply itself.
 */
export const MAX_HOPS = 2;
