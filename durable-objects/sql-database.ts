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

  execNow(): void {
    this.sql.exec(this.text, ...(this.values as SqlStorageValue[])).toArray();
  }

  /** changes(): the rows the statement itself changed (a cursor's rowsWritten also counts index and trigger writes). */
  run(): Promise<{ meta: { changes: number } }> {
    this.execNow();
    return Promise.resolve({ meta: { changes: this.sql.exec<{ n: number }>('SELECT changes() AS n').one().n } });
  }
}

/** D1's statement shape over a Durable Object's SQLite: the history's SQL runs unchanged in the caller's object. */
export class SqlDatabase implements HistoryDb {
  constructor(private readonly storage: DurableObjectStorage) {}

  prepare(text: string): HistoryStatement {
    return new SqlStatement(this.storage.sql, text);
  }

  /** Runs the statements now, in the caller's synchronous step (inside its implicit transaction). */
  execNow(statements: HistoryStatement[]): void {
    for (const statement of statements) (statement as SqlStatement).execNow();
  }

  batch(statements: HistoryStatement[]): Promise<unknown[]> {
    const run = () => statements.map((statement) => (statement as SqlStatement).execNow());
    // One statement is atomic by itself: no transaction to open.
    return Promise.resolve(statements.length === 1 ? run() : this.storage.transactionSync(run));
  }
}
