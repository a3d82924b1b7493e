import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../src/env';
import { migrateSchema } from './schema';

const SCHEMA = [
  `CREATE TABLE ticket (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     definition TEXT NOT NULL,
     remaining INTEGER,
     updated INTEGER NOT NULL
   );
   CREATE TABLE user_usage (user_id TEXT PRIMARY KEY, used INTEGER NOT NULL);`,
];

/** What the registry writes: the stored ticket and whether a blank count keeps the current one. */
export interface StoredDefinition {
  definition: Record<string, unknown>;
  /** null = unlimited; undefined = keep the current remaining count (update with a blank count). */
  count: number | null | undefined;
}

/**
 * One object per project + ticket: the definition the engine runs, the remaining count and the
 * per-user counters. Everything that must never double-spend is serialized here.
 */
export class TicketDO extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => migrateSchema(ctx.storage.sql, SCHEMA));
  }

  /** Registers or replaces the definition; per-user counters survive. Returns the remaining count. */
  async store({ definition, count }: StoredDefinition): Promise<number | null> {
    const sql = this.ctx.storage.sql;
    const current = sql.exec<{ remaining: number | null }>('SELECT remaining FROM ticket').toArray()[0];
    const remaining = count === undefined ? (current ? current.remaining : null) : count;
    sql.exec(
      `INSERT INTO ticket (id, definition, remaining, updated) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET definition = excluded.definition, remaining = excluded.remaining, updated = excluded.updated`,
      JSON.stringify(definition),
      remaining,
      Date.now(),
    );
    return remaining;
  }

  /** The stored definition and remaining count, or null when the ticket does not exist. */
  async read(): Promise<{ definition: Record<string, unknown>; remaining: number | null } | null> {
    const row = this.ctx.storage.sql
      .exec<{ definition: string; remaining: number | null }>('SELECT definition, remaining FROM ticket')
      .toArray()[0];
    return row ? { definition: JSON.parse(row.definition), remaining: row.remaining } : null;
  }

  /** Deletes the definition and the per-user counters (the log lives in D1 and stays). */
  async remove(): Promise<boolean> {
    const sql = this.ctx.storage.sql;
    const existed = sql.exec('SELECT 1 FROM ticket').toArray().length > 0;
    sql.exec('DELETE FROM ticket');
    sql.exec('DELETE FROM user_usage');
    return existed;
  }
}

/** The TicketDO of one ticket of one project. */
export const ticketStub = (env: Env, serviceId: string, ticketId: string) =>
  env.TICKETS.get(env.TICKETS.idFromName(`${serviceId}/${ticketId}`));
