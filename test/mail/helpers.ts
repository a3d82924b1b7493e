/** Helpers of the mail storage tests: what R2 and D1 hold of one project's mail. */
import { env } from 'cloudflare:workers';

/** Keys of every mail body object of a project, across all expiry days. */
export async function bodyKeysOf(serviceId: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.BODIES.list({ prefix: 'mail/', cursor, limit: 1000 });
    keys.push(...page.objects.map((object) => object.key).filter((key) => key.split('/')[2] === serviceId));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

export const outboxRows = async (serviceId: string, where = '1 = 1', ...params: unknown[]) =>
  (
    await env.DB.prepare(`SELECT * FROM mail_outbox WHERE service_id = ? AND ${where} ORDER BY created, message_key`)
      .bind(serviceId, ...params)
      .all<Record<string, any>>()
  ).results;

/** An R2 binding whose calls named in `failing` fail as if R2 were unavailable; the rest reach the real bucket. */
export function failingBucket(bucket: R2Bucket, failing: Array<'put' | 'get' | 'delete' | 'list'>): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      if (typeof prop === 'string' && (failing as string[]).includes(prop)) return () => Promise.reject(new Error('R2 is unavailable (test)'));
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Counts the statements a D1 binding runs (each statement of a batch counts, as D1's limit does). */
export function countingDb(db: D1Database): { db: D1Database; count: () => number } {
  let statements = 0;
  // The real statement objects go to the real batch(); only their own run/first/all/raw/bind are patched.
  const patch = (statement: D1PreparedStatement): D1PreparedStatement => {
    const bind = statement.bind.bind(statement);
    Object.assign(statement, { bind: (...values: unknown[]) => patch(bind(...values)) });
    for (const name of ['run', 'first', 'all', 'raw'] as const) {
      const original = (statement[name] as (...args: unknown[]) => unknown).bind(statement);
      Object.assign(statement, { [name]: (...args: unknown[]) => (statements++, original(...args)) });
    }
    return statement;
  };
  const counted = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => patch(target.prepare(sql));
      if (prop === 'batch') return (list: D1PreparedStatement[]) => ((statements += list.length), target.batch(list));
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: counted, count: () => statements };
}

/** Counts the calls made to an R2 binding. */
export function countingBucket(bucket: R2Bucket): { bucket: R2Bucket; count: () => number; deletedPerCall: number[] } {
  let calls = 0;
  const deletedPerCall: number[] = [];
  const counted = new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls++;
        if (prop === 'delete') deletedPerCall.push(Array.isArray(args[0]) ? args[0].length : 1);
        return value.apply(target, args);
      };
    },
  });
  return { bucket: counted, count: () => calls, deletedPerCall };
}
