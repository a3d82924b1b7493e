/**
 * Versioned SQLite schema for a Durable Object: each entry of `steps` runs once, in order, and the
 * version reached is kept in `_schema`. Append new steps; never edit one that has shipped.
 */
export function migrateSchema(sql: SqlStorage, steps: readonly string[]): void {
  sql.exec('CREATE TABLE IF NOT EXISTS _schema (version INTEGER NOT NULL)');
  const row = sql.exec<{ version: number }>('SELECT version FROM _schema').toArray()[0];
  let version = row?.version ?? 0;
  if (!row) sql.exec('INSERT INTO _schema (version) VALUES (0)');
  for (; version < steps.length; version++) {
    sql.exec(steps[version]);
    sql.exec('UPDATE _schema SET version = ?', version + 1);
  }
}
