/**
 * Cloudflare's documented per-invocation and per-statement limits (docs/limits.md, "Platform limits"),
 * counted the way strict mode (SVC_STRICT_LIMITS) counts them. Pure: no bindings, no I/O; the wrappers
 * of strict-bindings.ts and strict-context.ts feed it. A breach throws a LimitBreach naming the limit
 * and the count, and logs it.
 */
import { utf8Bytes } from '../../schemas/utf8';

export type StrictPlan = 'free' | 'paid';

/** The limits that depend on the Workers plan, per invocation. */
export interface PlanLimits {
  /** Subrequests to Cloudflare services (D1, R2, Queues, Durable Objects) plus fetches to the Internet. */
  subrequests: number;
  /** Fetches to the Internet alone. */
  internetSubrequests: number;
  d1Queries: number;
}

export const PLAN_LIMITS: Record<StrictPlan, PlanLimits> = {
  // Workers Paid: 10,000 subrequests by default; D1: 1,000 queries per invocation.
  paid: { subrequests: 10_000, internetSubrequests: 10_000, d1Queries: 1_000 },
  // Workers Free: 50 fetches to the Internet, 1,000 operations on Cloudflare services; D1: 50 queries.
  free: { subrequests: 1_000, internetSubrequests: 50, d1Queries: 50 },
};

/** The limits every plan shares. */
export const LIMITS = {
  openConnections: 6,
  /** Largest string, BLOB or row of D1 and of Durable Object SQLite, as encoded. */
  sqlValueBytes: 2_000_000,
  sqlRowBytes: 2_000_000,
  sqlBoundParameters: 100,
  sqlStatementBytes: 100_000,
  rpcBytes: 32 * 1024 * 1024,
  webSocketMessageBytes: 32 * 1024 * 1024,
  /** 128 KB (1 KB = 1,000 bytes), ~100 bytes of which the queue's own metadata may take. */
  queueMessageBytes: 128_000,
  queueMetadataBytes: 100,
  sendBatchMessages: 100,
  sendBatchBytes: 256_000,
  /** An alarm, a queue consumer or a cron trigger: 15 minutes of wall time. */
  wallTimeMs: 15 * 60_000,
  /** Workers and Durable Objects one request may recurse through, itself the first (Workers errors, "Loop limit"). */
  callDepth: 16,
} as const;

export class LimitBreach extends Error {
  constructor(
    readonly limit: string,
    readonly count: number,
    readonly max: number,
    readonly where: string,
  ) {
    super(`Cloudflare limit breached (strict limits): ${limit}: ${count} > ${max}, in ${where}`);
    this.name = 'LimitBreach';
  }
}

/** Throws (and logs) a breach when `count` is over `max`. */
export function check(limit: string, count: number, max: number, where: string): void {
  if (count <= max) return;
  const breach = new LimitBreach(limit, count, max, where);
  console.error(breach.message);
  throw breach;
}

/** Bytes of one bound SQL value as SQLite stores it: text in UTF-8, a BLOB's bytes, 8 for a number. */
export function sqlValueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8Bytes(value);
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (typeof value === 'boolean') return 1;
  return 0;
}

/**
 * An estimate of a value's serialized size (RPC arguments and results, queue messages): strings in
 * UTF-8, binary data by length, 8 per number, object keys and values summed. Streams, Requests and
 * Responses are streamed over RPC and count 0; stubs and functions too.
 */
export function cloneBytes(value: unknown, seen = new Set<object>()): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === 'string') return utf8Bytes(value) + 1;
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (typeof value === 'boolean') return 1;
  if (typeof value !== 'object') return 0;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (value instanceof ReadableStream || value instanceof Request || value instanceof Response) return 0;
  if (seen.has(value)) return 1;
  seen.add(value);
  if (value instanceof Date) return 8;
  if (value instanceof Map) return [...value].reduce((sum, [k, v]) => sum + cloneBytes(k, seen) + cloneBytes(v, seen), 1);
  if (value instanceof Set || Array.isArray(value)) return [...value].reduce((sum: number, v) => sum + cloneBytes(v, seen), 1);
  return Object.entries(value).reduce((sum, [k, v]) => sum + utf8Bytes(k) + cloneBytes(v, seen), 1);
}

const WRITES = /^\s*(?:WITH\b[\s\S]*?\b)?(?:INSERT|REPLACE|UPDATE)\b/i;

/**
 * The bound values of each row a write statement writes: one group per `VALUES (…)` tuple when it
 * has several (anonymous `?` placeholders only), else every bound value in one row.
 */
export function rowGroups(sql: string, params: readonly unknown[]): unknown[][] {
  const values = /\bVALUES\s*\(/i.exec(sql);
  if (!values || /\?\d/.test(sql)) return [[...params]];
  const counts: number[] = [];
  let depth = 0;
  let quote: string | null = null;
  const before = (sql.slice(0, values.index).match(/\?/g) ?? []).length;
  for (let i = values.index + values[0].length - 1; i < sql.length; i++) {
    const c = sql[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(') {
      if (depth++ === 0) counts.push(0);
    } else if (c === ')') depth--;
    else if (c === '?' && depth > 0) counts[counts.length - 1]++;
    else if (depth === 0 && !/[\s,]/.test(c)) break;
  }
  if (counts.length < 2) return [[...params]];
  const groups: unknown[][] = [];
  let at = before;
  for (const count of counts) {
    groups.push(params.slice(at, at + count));
    at += count;
  }
  // Values bound before the tuples or after them (an upsert's SET) are counted in every row.
  const rest = [...params.slice(0, before), ...params.slice(at)];
  return groups.map((group) => [...group, ...rest]);
}

/**
 * Checks one SQL statement (D1 or Durable Object SQLite) before it runs: its text against 100 KB,
 * its bound parameters against 100, each bound value against 2,000,000 bytes and, for a write, the
 * values bound into each row together against 2,000,000 bytes. What it cannot see: bytes SQLite
 * computes (a `||`, a `json_set`, an `INSERT … SELECT`) and columns an UPDATE leaves as they are.
 */
export function checkStatement(sql: string, params: readonly unknown[], where: string): void {
  check('SQL statement length (bytes)', utf8Bytes(sql), LIMITS.sqlStatementBytes, where);
  check('SQL bound parameters per query', params.length, LIMITS.sqlBoundParameters, where);
  const sizes = new Map(params.map((value) => [value, sqlValueBytes(value)]));
  for (const size of sizes.values()) check('SQL string or BLOB size (bytes)', size, LIMITS.sqlValueBytes, where);
  if (!WRITES.test(sql)) return;
  for (const row of rowGroups(sql, params)) {
    check(
      'SQL row size (bytes, bound values of one row)',
      row.reduce((sum: number, value) => sum + (sizes.get(value) ?? 0), 0),
      LIMITS.sqlRowBytes,
      where,
    );
  }
}

/** Checks one Queue message, as `send` and each entry of `sendBatch` carry it; answers its size. */
export function checkQueueMessage(body: unknown, where: string): number {
  const bytes = cloneBytes(body) + LIMITS.queueMetadataBytes;
  check('Queue message size (bytes)', bytes, LIMITS.queueMessageBytes, where);
  return bytes;
}

export function checkSendBatch(bodies: readonly unknown[], where: string): void {
  check('Queue sendBatch messages', bodies.length, LIMITS.sendBatchMessages, where);
  const total = bodies.reduce((sum: number, body) => sum + checkQueueMessage(body, where), 0);
  check('Queue sendBatch size (bytes)', total, LIMITS.sendBatchBytes, where);
}

export type InvocationKind = 'request' | 'queue' | 'scheduled' | 'alarm' | 'rpc' | 'fetch' | 'websocket';

/** Invocations with a wall-time limit: an alarm, a queue consumer, a cron trigger. */
const TIMED: ReadonlySet<InvocationKind> = new Set(['alarm', 'queue', 'scheduled']);

export interface Spent {
  subrequests: number;
  internet: number;
  d1Queries: number;
  open: number;
}

/**
 * The most any invocation spent, by where it ran (`alarm TicketDO.alarm`, `queue batch of …`): so a test
 * run under one plan shows its work fits the other's limits too (the Free plan's 50 D1 queries).
 */
const mostSpent = new Map<string, Spent>();

/** The most spent by the invocations whose `where` starts with `prefix` (each figure its own maximum). */
export function mostSpentIn(prefix: string): Spent {
  const most: Spent = { subrequests: 0, internet: 0, d1Queries: 0, open: 0 };
  for (const [where, spent] of mostSpent) {
    if (!where.startsWith(prefix)) continue;
    for (const key of Object.keys(most) as (keyof Spent)[]) most[key] = Math.max(most[key], spent[key]);
  }
  return most;
}

/** D1 queries and Durable Object calls of every invocation since the process started: what a whole flood cost. */
const total = { d1Queries: 0, durableObjectCalls: 0 };
export const d1QueriesSoFar = (): number => total.d1Queries;
export const durableObjectCallsSoFar = (): number => total.durableObjectCalls;
export const countDurableObjectCall = (): void => void total.durableObjectCalls++;

export function forgetSpent(): void {
  mostSpent.clear();
}

/** The invocations a call came through, the first one first; `host` is the host of the request that began them. */
export interface Carried {
  chain: readonly string[];
  host?: string;
}

/** The deepest chain each place of invocation was reached by (`where` → its chain, itself the last link). */
const deepest = new Map<string, readonly string[]>();

/** The deepest chain of the invocations whose `where` starts with `prefix`: its depth (1 for a request) and its links. */
export function deepestChain(prefix = ''): { depth: number; chain: string[] } {
  let most: readonly string[] = [];
  for (const [where, chain] of deepest) if (where.startsWith(prefix) && chain.length > most.length) most = chain;
  return { depth: most.length, chain: [...most] };
}

export function forgetDeepest(): void {
  deepest.clear();
}

/** What one invocation (a request, an alarm, a queue batch, one RPC call) has spent. */
export class InvocationBudget {
  private readonly started: number;
  private subrequests = 0;
  private internet = 0;
  private queries = 0;
  private open = 0;

  /** The invocations that led to this one and this one, the first one first: a request, an alarm… starts at 1. */
  readonly chain: readonly string[];
  readonly host?: string;

  constructor(
    readonly where: string,
    readonly kind: InvocationKind,
    readonly plan: StrictPlan,
    /** Whose invocation this is (the Worker, or a Durable Object instance). */
    readonly owner: unknown,
    private readonly now: () => number = Date.now,
    /** What the call that began this invocation carried; nothing for a request at the edge, an alarm, a queue batch. */
    from: Carried = { chain: [] },
  ) {
    this.started = now();
    this.chain = [...from.chain, where];
    this.host = from.host;
    const known = deepest.get(where);
    if (!known && deepest.size >= 10_000) deepest.clear();
    if (!known || known.length < this.chain.length) deepest.set(where, this.chain);
  }

  get depth(): number {
    return this.chain.length;
  }

  /**
   * A call of this invocation that the callee runs one deeper (a Durable Object call, a fetch to the Worker's own
   * host); answers what the call carries. Production refuses one past 16: "Subrequest depth limit exceeded".
   */
  call(what: string, host = this.host): Carried {
    check('subrequest depth (Workers and Durable Objects one request recursed through)', this.depth + 1, LIMITS.callDepth, [...this.chain, what].join(' → '));
    return { chain: this.chain, host };
  }

  /** One subrequest (`what`): a fetch to the Internet, or a call to D1, R2, a Queue or a Durable Object. */
  subrequest(internet: boolean, what = 'a call'): void {
    this.checkWallTime();
    const limits = PLAN_LIMITS[this.plan];
    const where = `${this.where}, at ${what}`;
    if (internet) check('Internet subrequests per invocation', ++this.internet, limits.internetSubrequests, where);
    check('subrequests per invocation', ++this.subrequests, limits.subrequests, where);
    this.note();
  }

  /** D1 queries, each statement of a batch one. */
  d1Queries(statements: number): void {
    this.queries += statements;
    total.d1Queries += statements;
    check('D1 queries per invocation', this.queries, PLAN_LIMITS[this.plan].d1Queries, this.where);
    this.note();
  }

  /** Opens one connection (for `what`); answers the function that closes it (once). */
  openConnection(what = 'a call'): () => void {
    check('simultaneous open connections', this.open + 1, LIMITS.openConnections, `${this.where}, at ${what}`);
    this.open += 1;
    this.note();
    let closed = false;
    return () => {
      if (!closed) this.open -= 1;
      closed = true;
    };
  }

  /** What the invocation has spent so far, and the connections open now. */
  spent(): Spent {
    return { subrequests: this.subrequests, internet: this.internet, d1Queries: this.queries, open: this.open };
  }

  private note(): void {
    const most = mostSpent.get(this.where);
    const spent = this.spent();
    // Requests are named by their paths: a long `npm start` would otherwise keep one entry per path.
    if (!most && mostSpent.size >= 10_000) mostSpent.clear();
    if (!most) mostSpent.set(this.where, spent);
    else for (const key of Object.keys(spent) as (keyof Spent)[]) most[key] = Math.max(most[key], spent[key]);
  }

  checkWallTime(): void {
    if (TIMED.has(this.kind)) check(`${this.kind} wall time (ms)`, this.now() - this.started, LIMITS.wallTimeMs, this.where);
  }
}
