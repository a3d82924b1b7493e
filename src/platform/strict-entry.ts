/**
 * Strict mode at the entry points (docs/limits.md): with SVC_STRICT_LIMITS set, each invocation of the
 * Worker (a request, a queue batch, a cron trigger) and of a Durable Object (a fetch, an alarm, an RPC
 * call, a WebSocket event) gets a budget of its own, and its bindings are wrapped to count against it.
 * Unset, nothing is wrapped: the Worker's handlers pass `env` through, a Durable Object stays as it is.
 */
import { countFetches, strictBindings, strictSql } from './strict-bindings';
import { currentBudget, enter, STRICT_CALL, strictPlan, takeCarried, type StrictVars } from './strict-context';
import { check, cloneBytes, InvocationBudget, LIMITS, type Carried, type InvocationKind, type StrictPlan } from './strict-limits';

const WORKER = 'worker';

/** `env` with its bindings counted when strict mode is on; `env` itself when it is off. */
export function strictEnv<E extends StrictVars & object>(env: E): E {
  if (!strictPlan(env)) return env;
  countFetches();
  return strictBindings(env);
}

/** The Worker's handlers, each invocation counted when strict mode is on. */
export function strictHandlers<E extends StrictVars & object, M>(handlers: Required<Pick<ExportedHandler<E, M>, 'fetch' | 'queue' | 'scheduled'>>) {
  const run = <T>(env: E, kind: InvocationKind, where: string, handler: (env: E) => T, from?: Carried): T => {
    const plan = strictPlan(env);
    if (!plan) return handler(env);
    return enter(new InvocationBudget(where, kind, plan, WORKER, Date.now, from), () => handler(strictEnv(env)));
  };
  return {
    fetch: (request: Request, env: E, ctx: ExecutionContext) => {
      type Incoming = Parameters<typeof handlers.fetch>[0];
      if (!strictPlan(env)) return handlers.fetch(request as Incoming, env, ctx);
      const url = new URL(request.url);
      // A fetch of the Worker's own host made in strict mode carries its chain (strict-bindings.ts).
      const carried = takeCarried(request);
      const from = carried?.carried ?? { chain: [], host: url.host };
      return run(env, 'request', `request ${request.method} ${url.pathname}`, (e) => handlers.fetch((carried?.request ?? request) as Incoming, e, ctx), from);
    },
    queue: (batch: MessageBatch<M>, env: E, ctx: ExecutionContext) =>
      run(env, 'queue', `queue batch of ${batch.queue} (${batch.messages.length} messages)`, (e) => handlers.queue(batch, e, ctx)),
    scheduled: (controller: ScheduledController, env: E, ctx: ExecutionContext) =>
      run(env, 'scheduled', `cron ${controller.cron}`, (e) => handlers.scheduled(controller, e, ctx)),
  } satisfies ExportedHandler<E, M>;
}

function kindOf(method: string): InvocationKind {
  if (method === 'alarm' || method === 'fetch') return method;
  return method.startsWith('webSocket') ? 'websocket' : 'rpc';
}

/** Checks what reaches an object from outside: an RPC call's arguments and answer, a WebSocket message. */
function checkPayload(kind: InvocationKind, args: unknown[], where: string): void {
  if (kind === 'rpc') check('RPC payload (bytes)', cloneBytes(args), LIMITS.rpcBytes, where);
  if (kind === 'websocket' && args[1] !== undefined) check('WebSocket message (bytes)', cloneBytes(args[1]), LIMITS.webSocketMessageBytes, where);
}

const prototypes = new WeakMap<object, object>();

/**
 * A prototype over `base` whose methods run as invocations of their own when called from outside the
 * object (the runtime's fetch/alarm/WebSocket events, RPC calls), and as plain calls from inside it.
 */
function strictPrototype(base: object, plan: StrictPlan, className: string): object {
  const known = prototypes.get(base);
  if (known) return known;
  const proto = Object.create(base) as Record<string, unknown>;
  const names = new Set<string>();
  for (let at: object | null = base; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at) as object | null) {
    for (const name of Object.getOwnPropertyNames(at)) {
      const descriptor = Object.getOwnPropertyDescriptor(at, name);
      if (name !== 'constructor' && typeof descriptor?.value === 'function') names.add(name);
    }
  }
  const invoke = (self: object, name: string, args: unknown[], from?: Carried): unknown => {
    const method = (base as Record<string, (...args: unknown[]) => unknown>)[name];
    const kind = kindOf(name);
    if (!from && currentBudget()?.owner === self) return method.apply(self, args);
    const where = `${kind} ${className}.${name}`;
    return enter(new InvocationBudget(where, kind, plan, self, Date.now, from), () => {
      checkPayload(kind, args, where);
      const result = method.apply(self, args);
      return kind === 'rpc' && result instanceof Promise
        ? result.then((value: unknown) => (check('RPC payload (bytes)', cloneBytes(value), LIMITS.rpcBytes, where), value))
        : result;
    });
  };
  for (const name of names) {
    proto[name] = function (this: object, ...args: unknown[]) {
      const carried = name === 'fetch' && args[0] instanceof Request && currentBudget()?.owner !== this ? takeCarried(args[0]) : null;
      if (carried) return invoke(this, name, [carried.request, ...args.slice(1)], carried.carried);
      return invoke(this, name, args);
    };
  }
  // An RPC call from another invocation's strict stub: the chain it came through, then the method. It goes on the
  // class's own prototype: workerd reaches any inherited method over RPC, the Vitest pool only the class's.
  Object.defineProperty(base, STRICT_CALL, {
    configurable: true,
    value(this: object, from: Carried, name: string, args: unknown[]) {
      if (!names.has(name) || kindOf(name) !== 'rpc') throw new TypeError(`${className} has no RPC method ${name}`);
      return invoke(this, name, args, from);
    },
  });
  prototypes.set(base, proto);
  return proto;
}

/**
 * Puts a Durable Object under strict mode when it is on: its SQLite statements checked, each of its
 * invocations counted. Call it in the constructor, after `super(ctx, strictEnv(env))`.
 */
export function strictObject(object: object, ctx: DurableObjectState, env: StrictVars): void {
  const plan = strictPlan(env);
  if (!plan) return;
  const className = (object.constructor as { name: string }).name;
  strictSql(ctx.storage.sql, `${className} SQLite`);
  Object.setPrototypeOf(object, strictPrototype(Object.getPrototypeOf(object) as object, plan, className));
}
