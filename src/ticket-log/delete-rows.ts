/** Rows deleted per statement: small enough to keep each D1 write short, so a big log goes in many. */
export const DELETE_CHUNK = 500;

/** Which rows of D1's old log to delete: one project's (or one ticket's) rows older than `before`. */
export interface OldRowsScope {
  service_id: string;
  /** Absent = every ticket of the project. */
  ticket_id?: string;
  /** Rows with timestamp < before are deleted. */
  before: number;
}

/** Two statements deleting up to DELETE_CHUNK action rows and up to DELETE_CHUNK log rows of `scope`. */
export function deleteChunkStatements(db: D1Database, scope: OldRowsScope): D1PreparedStatement[] {
  // Two SQL texts rather than `?2 IS NULL OR ...`, so each one uses its own index.
  const ticketFilter = scope.ticket_id === undefined ? '' : 'AND ticket_id = ?4';
  return ['ticket_action_rows', 'ticket_logs'].map((table) =>
    db
      .prepare(
        `DELETE FROM ${table} WHERE rowid IN (
           SELECT rowid FROM ${table} WHERE service_id = ?1 ${ticketFilter} AND timestamp < ?2 LIMIT ?3)`,
      )
      .bind(scope.service_id, scope.before, DELETE_CHUNK, ...(scope.ticket_id === undefined ? [] : [scope.ticket_id])),
  );
}

/** Whether a scope's pair of delete results (from deleteChunkStatements) may have left rows behind. */
export const mayHaveMore = (results: D1Result[], pairIndex: number): boolean =>
  results[2 * pairIndex].meta.changes >= DELETE_CHUNK || results[2 * pairIndex + 1].meta.changes >= DELETE_CHUNK;
