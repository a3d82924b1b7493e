/**
 * Strict mode's wrappers around the real bindings (never mocks): each call is counted in the budget of
 * the invocation that makes it and checked before it reaches the binding. Installed only when
 * SVC_STRICT_LIMITS is set (strict-entry.ts).
 */
import { currentBudget, STRICT_CALL, withCarried } from './strict-context';
import { checkQueueMessage, checkSendBatch, checkStatement, countDurableObjectCall } from './strict-limits';

/** Counts one call (`what`) to a Cloudflare service, holding a connection while it is pending. */
async function serviceCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  const budget = currentBudget();
  budget?.subrequest(false, what);
  const close = budget?.openConnection(what);
  try {
    return await call();
  } finally {
    close?.();
  }
}

const where = (binding: string) => currentBudget()?.where ?? binding;

class StrictStatement {
  constructor(
    readonly real: D1PreparedStatement,
    readonly sql: string,
    readonly params: readonly unknown[],
  ) {}

  bind(...values: unknown[]): StrictStatement {
    return new StrictStatement(this.real.bind(...values), this.sql, values);
  }

  first(column?: string) {
    return this.run1(() => (column === undefined ? this.real.first() : this.real.first(column)));
  }

  run() {
    return this.run1(() => this.real.run());
  }

  all() {
    return this.run1(() => this.real.all());
  }

  raw(options?: { columnNames?: boolean }) {
    return this.run1(() => this.real.raw(options as { columnNames: true }));
  }

  private async run1<T>(call: () => Promise<T>): Promise<T> {
    checkStatement(this.sql, this.params, where('D1'));
    currentBudget()?.d1Queries(1);
    return serviceCall(`D1 ${this.sql.slice(0, 60)}`, call);
  }
}

const unwrap = (statement: D1PreparedStatement): D1PreparedStatement => (statement instanceof StrictStatement ? statement.real : statement);

/** D1 (or one of its sessions): every statement checked, each statement of a batch one query. */
class StrictD1 {
  constructor(private readonly real: D1Database | D1DatabaseSession) {}

  prepare(sql: string): D1PreparedStatement {
    return new StrictStatement(this.real.prepare(sql), sql, []) as unknown as D1PreparedStatement;
  }

  async batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    for (const statement of statements) {
      if (statement instanceof StrictStatement) checkStatement(statement.sql, statement.params, where('D1'));
    }
    currentBudget()?.d1Queries(statements.length);
    return serviceCall(`D1 batch of ${statements.length}`, () => this.real.batch<T>(statements.map(unwrap)));
  }

  async exec(sql: string): Promise<D1ExecResult> {
    const statements = sql.split(/;\s*(?:\n|$)/).filter((text) => text.trim() !== '');
    for (const statement of statements) checkStatement(statement, [], where('D1'));
    currentBudget()?.d1Queries(statements.length);
    return serviceCall('D1 exec', () => (this.real as D1Database).exec(sql));
  }

  withSession(constraint?: string): D1DatabaseSession {
    return new StrictD1((this.real as D1Database).withSession(constraint as D1SessionConstraint)) as unknown as D1DatabaseSession;
  }

  getBookmark(): string | null {
    return (this.real as D1DatabaseSession).getBookmark();
  }

  dump(): Promise<ArrayBuffer> {
    return serviceCall('D1 dump', () => (this.real as D1Database).dump());
  }
}

const R2_METHODS = ['head', 'get', 'put', 'delete', 'list', 'createMultipartUpload'] as const;

/** R2: each operation a subrequest holding a connection while it is pending (a multipart upload's parts are not counted). */
function strictR2(real: R2Bucket): R2Bucket {
  const bucket: Record<string, unknown> = { resumeMultipartUpload: real.resumeMultipartUpload.bind(real) };
  for (const name of R2_METHODS) {
    const method = (real[name] as (...args: unknown[]) => Promise<unknown>).bind(real);
    bucket[name] = (...args: unknown[]) => serviceCall(`R2 ${name}`, () => method(...args));
  }
  return bucket as unknown as R2Bucket;
}

/** A Queue producer: messages and batches checked against their sizes, each call a subrequest. */
function strictQueue<T>(real: Queue<T>, name: string): Queue<T> {
  return {
    send: async (body: T, options?: QueueSendOptions) => {
      checkQueueMessage(body, `${where(name)}: ${name}.send`);
      return serviceCall(`${name}.send`, () => real.send(body, options));
    },
    sendBatch: async (messages: Iterable<MessageSendRequest<T>>, options?: QueueSendBatchOptions) => {
      const list = [...messages];
      checkSendBatch(
        list.map((message) => message.body),
        `${where(name)}: ${name}.sendBatch`,
      );
      return serviceCall(`${name}.sendBatch`, () => real.sendBatch(list, options));
    },
  } as Queue<T>;
}

/**
 * A Durable Object stub: each call (fetch or RPC method) one subrequest of the calling invocation, and one
 * link deeper: an RPC call goes through the object's STRICT_CALL with the chain, a fetch carries it in a header.
 */
function strictStub<S extends DurableObjectStub>(stub: S, binding: string): S {
  return new Proxy(stub, {
    get(target, property) {
      const value = (target as unknown as Record<PropertyKey, unknown>)[property];
      if (typeof property === 'symbol' || property === 'id' || property === 'name' || property === 'then') return value;
      return (...args: unknown[]) => {
        const budget = currentBudget();
        let carried;
        try {
          budget?.subrequest(false, `Durable Object ${property}`);
          countDurableObjectCall();
          carried = budget?.call(`${binding}.${property}`);
        } catch (err) {
          return Promise.reject(err);
        }
        if (!carried) return Reflect.apply(value as (...args: unknown[]) => unknown, target, args);
        if (property === 'fetch') return target.fetch(withCarried(carried, args[0] as RequestInfo | URL, args[1] as RequestInit | undefined));
        return (target as unknown as Record<string, (...args: unknown[]) => unknown>)[STRICT_CALL](carried, property, args);
      };
    },
  });
}

function strictNamespace<T extends Rpc.DurableObjectBranded | undefined>(real: DurableObjectNamespace<T>, binding: string): DurableObjectNamespace<T> {
  return {
    newUniqueId: real.newUniqueId.bind(real),
    idFromName: real.idFromName.bind(real),
    idFromString: real.idFromString.bind(real),
    jurisdiction: (jurisdiction: DurableObjectJurisdiction) => strictNamespace(real.jurisdiction(jurisdiction), binding),
    get: (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => strictStub(real.get(id, options), binding),
    getByName: (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => strictStub(real.getByName(name, options), binding),
  } as DurableObjectNamespace<T>;
}

const has = (value: unknown, ...methods: string[]): boolean =>
  typeof value === 'object' && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');

function strictBinding(name: string, value: unknown): unknown {
  if (has(value, 'prepare', 'batch')) return new StrictD1(value as D1Database);
  if (has(value, 'createMultipartUpload', 'head')) return strictR2(value as R2Bucket);
  if (has(value, 'send', 'sendBatch')) return strictQueue(value as Queue, name);
  if (has(value, 'idFromName', 'get')) return strictNamespace(value as DurableObjectNamespace, name);
  return value;
}

const wrapped = new WeakMap<object, object>();

/**
 * `env` with its D1, R2, Queue and Durable Object bindings wrapped. A view, not a copy: the other values
 * are read from `env` when used (tests change settings on it between calls).
 */
export function strictBindings<E extends object>(env: E): E {
  const known = wrapped.get(env);
  if (known) return known as E;
  const bindings = new Map<PropertyKey, { real: unknown; strict: unknown }>();
  const read = (property: PropertyKey): unknown => {
    const value = Reflect.get(env, property);
    if (typeof property !== 'string' || typeof value !== 'object' || value === null) return value;
    let binding = bindings.get(property);
    if (binding?.real !== value) bindings.set(property, (binding = { real: value, strict: strictBinding(property, value) }));
    return binding.strict;
  };
  const view = new Proxy(env, {
    get: (_target, property) => read(property),
    getOwnPropertyDescriptor: (target, property) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target, property);
      return descriptor && 'value' in descriptor ? { ...descriptor, value: read(property) } : descriptor;
    },
  });
  wrapped.set(env, view);
  return view;
}

/** A Durable Object's SQLite: every statement checked like D1's (not counted: it is the object's own storage). */
export function strictSql(sql: SqlStorage, label: string): void {
  const exec = sql.exec.bind(sql);
  sql.exec = ((query: string, ...bindings: unknown[]) => {
    checkStatement(query, bindings, currentBudget()?.where ?? label);
    return exec(query, ...bindings);
  }) as SqlStorage['exec'];
}

let fetchCounted = false;

/**
 * Counts every global fetch made inside an invocation: a subrequest to the Internet, and an open connection
 * until its answer's headers arrive (Workers limits). A fetch to the host of the request that began the chain
 * reaches the Worker again: it is one link deeper and carries the chain to the request entry.
 */
export function countFetches(): void {
  if (fetchCounted) return;
  fetchCounted = true;
  const real = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const budget = currentBudget();
    if (!budget) return real(input, init);
    let close: () => void;
    let carrying: Request | undefined;
    try {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const what = `fetch ${url.href}`.slice(0, 100);
      budget.subrequest(true, what);
      if (budget.host !== undefined && url.host === budget.host) carrying = withCarried(budget.call(what), input, init);
      close = budget.openConnection(what);
    } catch (err) {
      return Promise.reject(err);
    }
    return (carrying ? real(carrying) : real(input, init)).finally(close);
  };
}
