import type { StoredTicket } from '../../schemas/ticket-types';
import { TOKEN_ALGORITHM } from '../../schemas/signature';
import type { ActionRow } from '../actions/types';
import type { ConditionPorts } from '../engine/conditions';
import type { ActionContext } from '../engine/context';
import type { RequestSnapshot } from '../engine/snapshot';
import type { ErrorBody, ErrorCode, Stage } from '../wire/errors';
import { keepRequest, type KeptRequest } from '../ticket-log/kept-request';
import type { LogRow } from '../ticket-log/log-row';
import type { ConsumePorts } from './consume-ticket';
import { outcomeOf } from './continuation';
import { consumerName, newConsumeId, receiptHash, tkidOf } from './receipt';
import type { ConsumeStore } from './store';
import { checkTicket, type CheckFailure } from './ticket-checks';
import type { ConsumeInput, ConsumeOutcome } from './types';

/** What the actions read of the request: the body, query and placeholders as the condition left them. */
export type Reading = Pick<ActionContext, 'body' | 'params' | 'placeholders'>;

/**
 * One consumption (or dry run) of a ticket while it is judged and run: its identity (consume_id,
 * consumer, tkid), its log rows, its refusals and the context its actions run in. The receipt hash and
 * the kept request are made once, when first needed.
 */
export class Consumption {
  readonly now: number;
  readonly check: boolean;
  readonly consumeId: string;
  readonly consumer: string;
  readonly tkid: string;
  /** Which rules the condition is judged by. */
  readonly rules: 'legacy' | 'current';
  /** A ticket registered before rules_version: its references read the body alone. */
  readonly bodyAlone: boolean;
  private kept?: KeptRequest;
  private hashing?: Promise<string>;

  constructor(
    private readonly store: ConsumeStore,
    readonly ticket: StoredTicket,
    readonly input: ConsumeInput,
    readonly request: RequestSnapshot,
    private readonly ports: ConsumePorts,
  ) {
    this.now = ports.now();
    this.check = input.mode === 'check';
    this.consumeId = newConsumeId(this.now);
    this.consumer = consumerName(request.user?.user_id, request.ip, request.user_agent);
    this.tkid = tkidOf(input.ticket_id, this.consumeId, this.consumer);
    this.rules = ticket.legacy ? 'legacy' : 'current';
    this.bodyAlone = ticket.rules_version === undefined;
  }

  /** The ticket checks of spec 1.2 against the count and the user's limit as they are now. */
  refusal(at: number): CheckFailure | null {
    const user = this.request.user;
    const state = {
      ticket: this.ticket,
      remaining: this.store.remaining(),
      userUsed: user ? this.store.userUsed(user.user_id) : undefined,
      issuer: this.input.issuer,
      authError: this.input.authError,
    };
    return checkTicket(state, at);
  }

  /** This consumption's log row; a consumption (not a dry run) keeps its request for a replay. */
  logRow(failed: boolean, code: string | null, description: Record<string, unknown>): LogRow {
    const { input, check, consumeId } = this;
    return {
      service_id: input.project.service_id,
      ticket_id: input.ticket_id,
      log_key: check ? `${consumeId}:CHK` : consumeId,
      consume_id: consumeId,
      user_id: this.consumer,
      signed: input.signedRoute && this.request.user !== undefined,
      is_check: check,
      failed,
      code,
      timestamp: this.now,
      duration_ms: this.ports.now() - this.now,
      description: { ...description, ...(check ? { check: true } : {}), ...replayFacts(input.replay) },
      ...(check ? {} : { request: this.keptRequest() }),
      ...(input.replay ? { replay_of: input.replay.of } : {}),
    };
  }

  /** Writes this consumption's log row with its action rows. */
  log(failed: boolean, code: string | null, description: Record<string, unknown>, actions: ActionRow[] = []): void {
    this.store.enqueueLog(this.logRow(failed, code, description), actions);
  }

  /** Logs a refusal and answers it. */
  fail(stage: Stage, code: ErrorCode, message: string, detail?: Record<string, unknown>): ConsumeOutcome {
    this.log(true, code, { outcome: outcomeOf({ code, message, stage, ...(detail ? { detail } : {}) }) });
    return failure(this.input.ticket_id, stage, code, message, this.ticket.condition.return200 === true, detail);
  }

  /** The receipt hash, made once: by the actions, or earlier by a legacy ticket's check-time request. */
  hash(): Promise<string> {
    this.hashing ??= receiptHash(this.input.project.receipt_key, this.tkid);
    return this.hashing;
  }

  /** The context the actions (or a legacy ticket's check-time request) run in. */
  context(reading: Reading, hash: string): ActionContext {
    const { request, input, ticket } = this;
    const user = request.user;
    return {
      ...reading,
      headers: request.headers,
      ip: request.ip,
      user_agent: request.user_agent,
      method: request.method,
      user: user ? { ...user.attributes, user_id: user.user_id, email: user.email, access_group: user.access_group } : undefined,
      record_access: ticket.condition.record_access,
      ticket: { id: input.ticket_id, service: input.project.service_id, owner: input.project.owner_id, consume_id: this.consumeId, timestamp: this.now, hash },
    };
  }

  /** What the condition asks of the outside world: the signature's secret, record access, a legacy ticket's check-time request. */
  conditionPorts(): ConditionPorts {
    const ports = this.ports;
    return {
      verifySignature: (config) => ports.verifySignature(config),
      hasRecordAccess: (recordId, who) => ports.hasRecordAccess(recordId, who),
      sendRequestCondition: async (checkTime, reading) => {
        if (!ports.sendRequestCondition) throw new Error('no port sends the check-time request of a legacy ticket');
        return ports.sendRequestCondition(checkTime, this.context(reading, await this.hash()), this.bodyAlone);
      },
    };
  }

  /** The request as the log keeps it; a token signature's header holds the shared secret itself, so it is redacted. */
  private keptRequest(): KeptRequest {
    const signature = this.ticket.condition.signature;
    const tokenHeader = signature?.algorithm === TOKEN_ALGORITHM ? signature.header : undefined;
    this.kept ??= keepRequest(this.input, this.input.replay?.received_at ?? this.now, tokenHeader);
    return this.kept;
  }
}

export function failure(
  ticketId: string,
  stage: Stage,
  code: ErrorCode,
  message: string,
  return200: boolean,
  detail?: Record<string, unknown>,
  extra: Partial<ErrorBody> = {},
): ConsumeOutcome {
  const error: ErrorBody = { code, message, stage, ...extra, ...(detail ? { detail } : {}), ticket_id: ticketId };
  return { ok: false, status: return200 ? 200 : 400, error };
}

/** A partial replay's description says where it went on from; a bulk replay's names its batch (extensions). */
function replayFacts(replay: ConsumeInput['replay']): Record<string, unknown> {
  if (!replay) return {};
  const frame = replay.resume?.frames.at(-1);
  return {
    ...(frame ? { resumed_from: `${frame.path}[${frame.next}]` } : {}),
    ...(replay.batch !== undefined ? { bulk_replay: replay.batch } : {}),
  };
}
