/**
 * The forwarding history as the tests read it behind the routes: since issue 34 it lives in each caller's
 * ForwardQueueDO (durable-objects/history-schema.ts), and D1's caller index says which. `historyOf(service)`
 * answers D1's statement shape over every caller's object of the project (results joined; `first` the first
 * found), so a test reads and writes the rows as it read D1's.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { HistoryOwner } from '../../src/forward/history';
import type { HistoryDb, HistoryStatement } from '../../src/forward/history-db';
import { forwardQueueStub } from '../../src/platform/object-stubs';

export async function callersOf(serviceId: string): Promise<HistoryOwner[]> {
  const { results } = await env.DB.prepare('SELECT caller_key FROM forward_callers WHERE service_id = ?').bind(serviceId).all<{ caller_key: string }>();
  return results.map((row) => ({ serviceId, callerKey: row.caller_key }));
}

/** Runs one statement in the caller's object. */
export function inCaller<T>(owner: HistoryOwner, sql: string, values: unknown[] = []): Promise<{ rows: T[]; changes: number }> {
  return runInDurableObject(forwardQueueStub(env, owner), (_instance, state: DurableObjectState) => {
    const rows = state.storage.sql.exec(sql, ...(values as SqlStorageValue[])).toArray() as T[];
    return { rows, changes: state.storage.sql.exec<{ n: number }>('SELECT changes() AS n').one().n };
  });
}

class Statement implements HistoryStatement {
  constructor(
    private readonly owners: () => Promise<HistoryOwner[]>,
    private readonly sql: string,
    private readonly values: unknown[] = [],
  ) {}

  bind(...values: unknown[]): HistoryStatement {
    return new Statement(this.owners, this.sql, values);
  }

  private async each<T>() {
    return Promise.all((await this.owners()).map((owner) => inCaller<T>(owner, this.sql, this.values)));
  }

  async first<T>(): Promise<T | null> {
    for (const { rows } of await this.each<T>()) if (rows.length > 0) return rows[0];
    return null;
  }

  async all<T>(): Promise<{ results: T[] }> {
    return { results: (await this.each<T>()).flatMap(({ rows }) => rows) };
  }

  async run(): Promise<{ meta: { changes: number } }> {
    return { meta: { changes: (await this.each()).reduce((sum, { changes }) => sum + changes, 0) } };
  }
}

/** The history of every caller of the project (or of the named callers), as one database. */
export function historyOf(serviceId: string, owners?: HistoryOwner[]): HistoryDb {
  const list = () => (owners ? Promise.resolve(owners) : callersOf(serviceId));
  return {
    prepare: (sql) => new Statement(list, sql),
    batch: async (statements) => {
      const out: unknown[] = [];
      for (const statement of statements) out.push(await statement.run());
      return out;
    },
  };
}
