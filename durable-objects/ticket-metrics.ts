/**
 * A ticket's metrics where its consumptions are serialized (issue 37 item 1, an extension): every logged
 * consumption, dry run, retry, dead letter and flood refusal adds to its minute's counters of the ticket
 * and of its project (pending-metrics.ts), and the failures in a row are kept for the alert on them.
 */
import type { Counters } from '../src/metrics/counters';
import { pushStatements, streakStatement, trimStatements } from '../src/metrics/metric-store';
import { retentionDays } from '../src/ticket-log/retention';
import type { LogScope } from '../src/ticket-log/ticket-log';
import { PENDING_METRICS_SCHEMA, PendingMetrics, PUSH_QUERIES } from './pending-metrics';

export const TICKET_METRICS_SCHEMA = `${PENDING_METRICS_SCHEMA}
  CREATE TABLE IF NOT EXISTS metric_streak (id INTEGER PRIMARY KEY CHECK (id = 1), streak INTEGER NOT NULL, reported INTEGER NOT NULL);`;

/** D1 queries of one report step: the points and their hourly trim, and the failure streak. */
export const TICKET_METRICS_QUERIES = PUSH_QUERIES + 1;

export class TicketMetrics {
  readonly pending: PendingMetrics;
  private streak?: { now: number; reported: number };

  constructor(
    private readonly sql: SqlStorage,
    schedule: { flush(at: number): void; report(at: number): void },
    private readonly now: () => number,
  ) {
    this.pending = new PendingMetrics(sql, schedule, now);
  }

  /** Adds counters to the minute of `at` (ms), for the ticket and its project. */
  count(ticketId: string, at: number, counters: Counters): void {
    this.pending.count(at, [`ticket:${ticketId}`, 'project'], counters);
  }

  /** A consumption's outcome for the failures-in-a-row count (dry runs and duplicates are not). */
  outcome(failed: boolean): void {
    const streak = this.streakState();
    streak.now = failed ? streak.now + 1 : 0;
    this.pending.willHold();
  }

  /** Writes held counts and the streak to storage. */
  flush(): void {
    const streak = this.streakState();
    this.sql.exec(
      'INSERT INTO metric_streak (id, streak, reported) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET streak = excluded.streak',
      streak.now,
      streak.reported,
    );
    this.pending.flush(streak.now !== streak.reported);
  }

  /** Pushes the oldest pending counts (and a changed streak) to D1; answers whether more are pending. */
  async report(db: D1Database, ticket: LogScope): Promise<boolean> {
    this.flush();
    const deltas = this.pending.take();
    const streak = this.streakState();
    const statements = pushStatements(db, ticket.service_id, deltas);
    if (statements.length > 0 && this.pending.trimDue(this.now())) {
      statements.push(...trimStatements(db, ticket.service_id, [`ticket:${ticket.ticket_id}`, 'project'], this.now(), retentionDays(ticket.plan)));
    }
    const streakChanged = streak.now !== streak.reported;
    if (streakChanged) statements.push(streakStatement(db, ticket.service_id, ticket.ticket_id, streak.now, this.now()));
    try {
      if (statements.length > 0) await db.batch(statements);
    } catch (err) {
      this.pending.restore(deltas);
      throw err;
    }
    if (streakChanged) {
      streak.reported = streak.now;
      this.sql.exec('UPDATE metric_streak SET reported = ?', streak.reported);
    }
    return this.pending.hasPending() || streak.now !== streak.reported;
  }

  private streakState(): { now: number; reported: number } {
    if (!this.streak) {
      const row = this.sql.exec<{ streak: number; reported: number }>('SELECT streak, reported FROM metric_streak').toArray()[0];
      this.streak = { now: row?.streak ?? 0, reported: row?.reported ?? 0 };
    }
    return this.streak;
  }
}
