import type { HistoryDb, HistoryStatement } from '../src/forward/history-db';

/** A statement over a Durable Object's SQLite, run when it is read (synchronously underneath). */
class SqlStatement implements HistoryStatement {
  constructor(
    private readonly sql: SqlStorage,
    readonly text: string,
    readonly values: unknown[] = [],
  ) {}

  bind(...values: unknown[]): HistoryStatement {
    return new SqlStatement(this.sql, this.text, values);
  }

  rows<T>(): T[] {
    return this.sql.exec(this.text, ...(this.values as SqlStorageValue[])).toArray() as T[];
  }

  first<T>(): Promise<T | null> {
    return Promise.resolve(this.rows<T>()[0] ?? null);
  }

  all<T>(): Promise<{ results: T[] }> {
    return Promise.resolve({ results: this.rows<T>() });
  }

  /** changes(): the rows the statement itself changed (a cursor's rowsWritten also counts index and trigger writes). */
  runNow(): { meta: { changes: number } } {
    this.sql.exec(this.text, ...(this.values as SqlStorageValue[])).toArray();
    return { meta: { changes: this.sql.exec<{ n: number }>('SELECT changes() AS n').one().n } };
  }

  run(): Promise<{ meta: { changes: number } }> {
    return Promise.resolve(this.runNow());
  }
}

/** D1's statement shape over a Durable Object's SQLite: the history's SQL runs unchanged in the caller's object. */
export class SqlDatabase implements HistoryDb {
  constructor(private readonly storage: DurableObjectStorage) {}

  prepare(text: string): HistoryStatement {
    return new SqlStatement(this.storage.sql, text);
  }

  batch(statements: HistoryStatement[]): Promise<unknown[]> {
    return Promise.resolve(this.storage.transactionSync(() => statements.map((statement) => (statement as SqlStatement).runNow())));
  }
}
