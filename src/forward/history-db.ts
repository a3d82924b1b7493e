/**
 * The SQL the forwarding history is written in: D1's statement shape (prepare, bind, first/all/run, batch),
 * which a caller's ForwardQueueDO answers from its own SQLite (durable-objects/sql-database.ts) and D1
 * answers for the rows written before the history moved there (history-import.ts).
 */
export interface HistoryStatement {
  bind(...values: unknown[]): HistoryStatement;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  all<T = Record<string, unknown>>(): Promise<{ results: T[] }>;
  run(): Promise<{ meta: { changes: number } }>;
}

export interface HistoryDb {
  prepare(sql: string): HistoryStatement;
  /** Runs the statements in order, all or none. */
  batch(statements: HistoryStatement[]): Promise<unknown[]>;
}
