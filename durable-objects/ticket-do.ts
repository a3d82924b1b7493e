import { DurableObject } from 'cloudflare:workers';
import type { StoredTicket } from '../schemas/ticket-types';
import { runTicketActions } from '../src/actions/runner';
import { consumeTicket } from '../src/consume/consume-ticket';
import { logStatements } from '../src/consume/log-export';
import { hasRecordAccess, SecretCache } from '../src/consume/ports';
import type { ConsumeInput, ConsumeOutcome } from '../src/consume/types';
import { verifySignature } from '../src/engine/signature';
import type { Env } from '../src/env';
import { TicketStore } from './ticket-store';

/** Log rows written to D1 per alarm run; the alarm re-arms itself while the outbox has more. */
const LOG_EXPORT_BATCH = 100;
/** Delay before the outbox is exported, so a burst of consumptions goes out in one batch. */
const LOG_EXPORT_DELAY_MS = 200;

/**
 * One object per project + ticket: the definition the engine runs, the remaining count, the
 * per-user counters and the log outbox. Everything that must never double-spend is serialized here.
 */
export class TicketDO extends DurableObject<Env> {
  private readonly data: TicketStore;
  private readonly secrets: SecretCache;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.data = new TicketStore(ctx.storage.sql);
    this.secrets = new SecretCache(env);
  }

  /** Registers or replaces the definition; per-user counters survive. Returns the remaining count. */
  async store(ticket: StoredTicket, count: number | null | undefined): Promise<number | null> {
    return this.data.store(ticket, count, Date.now());
  }

  /** Whether the ticket exists and its remaining count (null = unlimited). */
  async status(): Promise<{ exists: boolean; remaining: number | null }> {
    return { exists: this.data.ticket() !== null, remaining: this.data.remaining() };
  }

  /** Deletes the definition and the per-user counters (the log lives in D1 and stays). */
  async remove(): Promise<boolean> {
    return this.data.remove();
  }

  async consume(input: ConsumeInput): Promise<ConsumeOutcome> {
    const serviceId = input.project.service_id;
    const outcome = await consumeTicket(this.data, input, {
      now: () => Date.now(),
      runActions: runTicketActions,
      hasRecordAccess: (recordId, user) => hasRecordAccess(this.env.DB, serviceId, recordId, user.user_id),
      verifySignature: async (config) => {
        const secret = await this.secrets.value(serviceId, config.secretName);
        if (secret === null) return false;
        return verifySignature(config, { rawBody: input.rawBody, method: input.request.method, headers: input.request.headers }, secret, Date.now());
      },
    });
    await this.scheduleLogExport();
    return outcome;
  }

  /** Log rows waiting in the outbox (for tests and operations). */
  async pendingLogCount(): Promise<number> {
    return this.data.outboxSize();
  }

  private async scheduleLogExport(): Promise<void> {
    if (this.data.outboxSize() > 0 && (await this.ctx.storage.getAlarm()) === null) {
      await this.ctx.storage.setAlarm(Date.now() + LOG_EXPORT_DELAY_MS);
    }
  }

  /** Exports the log outbox to D1; idempotent per log key, so a retried alarm writes each row once. */
  override async alarm(): Promise<void> {
    const pending = this.data.pendingLogs(LOG_EXPORT_BATCH);
    if (pending.length > 0) {
      await this.env.DB.batch(pending.flatMap(({ row, actionRows }) => logStatements(this.env.DB, row, actionRows)));
      this.data.dropLogs(pending.map(({ row }) => row.log_key));
    }
    if (this.data.outboxSize() > 0) await this.ctx.storage.setAlarm(Date.now());
  }
}

/** The TicketDO of one ticket of one project. */
export const ticketStub = (env: Env, serviceId: string, ticketId: string) =>
  env.TICKETS.get(env.TICKETS.idFromName(`${serviceId}/${ticketId}`));
