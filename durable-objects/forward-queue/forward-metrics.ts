/**
 * Forwarding's metrics where a caller's requests settle (issue 37 item 1, an extension): each settled
 * call, direct or queued, adds to its minute's counters of its Secret Key and of its destination's origin
 * (pending-metrics.ts); a `report-metrics` job pushes them to D1 off the request path.
 */
import type { ForwardRecord } from '../../src/forward/record';
import type { HistoryOwner } from '../../src/forward/history';
import { originOf } from '../../src/forward/destination-pause';
import { COUNTER, forwardCounters } from '../../src/metrics/counters';
import { pushStatements, trimStatements } from '../../src/metrics/metric-store';
import { retentionDays } from '../../src/ticket-log/retention';
import { utf8Bytes } from '../../schemas/utf8';
import { PendingMetrics, PUSH_QUERIES } from '../pending-metrics';
import type { ForwardJobTable } from './forward-jobs';

/** D1 queries of one report step: the points, and hourly the plan and their trim. */
export const FORWARD_METRICS_QUERIES = PUSH_QUERIES + 1;

/** The scopes a settled call counts in: its key's (when it used one) and its destination's. */
export function forwardScopes(record: Pick<ForwardRecord, 'url'>, keyName: string | undefined): string[] {
  const origin = originOf(record.url);
  return [...(keyName ? [`key:${keyName}`] : []), ...(origin ? [`dest:${origin}`] : [])];
}

export class ForwardMetrics {
  readonly pending: PendingMetrics;
  /** Whose counts these are: the object's one caller of one project. */
  private owner?: HistoryOwner;

  constructor(
    sql: SqlStorage,
    jobs: ForwardJobTable,
    private readonly db: D1Database,
  ) {
    this.pending = new PendingMetrics(
      sql,
      {
        flush: (at) => jobs.addOnce('flush-metrics', at),
        report: (at) => {
          if (this.owner) jobs.addOnce('report-metrics', at, this.owner);
        },
      },
      Date.now,
    );
  }

  /** A call that settled (not one that waits to be sent again). */
  settled(owner: HistoryOwner, record: ForwardRecord, keyName: string | undefined): void {
    this.owner = owner;
    if (record.executed === undefined) return;
    const scopes = forwardScopes(record, keyName);
    if (scopes.length === 0) return;
    const bytes = record.response_body ? utf8Bytes(record.response_body) : 0;
    const ms = Math.max(0, (record.responded ?? record.updated) - record.executed);
    this.pending.count(record.executed, scopes, forwardCounters(record.status_code ?? null, bytes, ms));
    // A dead letter counts in its project's dead letters too, beside its tickets' (the alert on a dead letter added reads them).
    if (record.dead_letter !== undefined) this.pending.count(record.updated, ['project'], { [COUNTER.deadLetters]: 1 });
  }

  /** Pushes the oldest pending counts; answers whether more are pending. */
  async report(owner: HistoryOwner, now: number): Promise<boolean> {
    const deltas = this.pending.take();
    if (deltas.length === 0) return this.pending.hasPending();
    try {
      const statements = pushStatements(this.db, owner.serviceId, deltas);
      if (this.pending.trimDue(now)) {
        const project = await this.db.prepare('SELECT plan FROM projects WHERE service_id = ?').bind(owner.serviceId).first<{ plan: string }>();
        const scopes = [...new Set(deltas.flatMap((delta) => delta.scopes))];
        statements.push(...trimStatements(this.db, owner.serviceId, scopes, now, project ? retentionDays(project.plan) : null));
      }
      await this.db.batch(statements);
    } catch (err) {
      this.pending.restore(deltas);
      throw err;
    }
    return this.pending.hasPending();
  }
}
