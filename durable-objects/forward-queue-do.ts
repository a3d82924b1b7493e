import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../src/env';
import { migrateSchema } from './schema';

const SCHEMA = [
  `CREATE TABLE request (
     id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL,
     status TEXT NOT NULL,
     created INTEGER NOT NULL
   );
   CREATE INDEX request_seq ON request (seq);`,
];

/**
 * One object per project + queue: the FIFO of forwarded requests, run one at a time. The
 * forwarding surface builds on this; for now it answers how many requests wait.
 */
export class ForwardQueueDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => migrateSchema(ctx.storage.sql, SCHEMA));
  }

  /** Requests currently waiting or running in this queue. */
  async inQueue(): Promise<number> {
    return this.ctx.storage.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM request WHERE status IN ('pending', 'running')")
      .one().n;
  }
}
