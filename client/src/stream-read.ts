/**
 * A read with a cursor (spec 4.3, 6.2): polls `since` the last piece handed to onStream, pages through
 * what is stored, and takes pieces the realtime socket pushes; the sequencer keeps them in order and
 * once each. The poll is the source of truth and keeps its interval: the socket only brings pieces
 * sooner, and losing it only slows the read down.
 */
import type { ForwardStatus, ForwardStatusEnvelope, RequestAddress } from '../../schemas/forward-rules.js';
import { cursorAnswerOf, isSettled } from './cursor-answers.js';
import type { ResponseType } from './forward-options.js';
import type { ForwardResponseMeta, OnStream, StreamEnd } from './forward-types.js';
import { failureOf, LiveRead, type ReadSpec } from './polls.js';
import type { RealtimeLink, RealtimeRoom } from './realtime-link.js';
import { reshape } from './responses.js';
import { StreamSequencer, type StreamVia } from './stream-sequencer.js';

/** Degraded reads in a row (the server could not read the pieces) after which a settled request resolves with what arrived. */
export const MAX_DEGRADED_READS = 3;

/** What a cursor read needs of the server: one poll with `since`, and the withdrawal of a waiting request. */
export interface CursorServer {
  cursor(address: RequestAddress, since: number): Promise<unknown>;
  withdraw(address: RequestAddress): void;
}

export interface StreamReadSpec extends ReadSpec {
  /** The last piece the reader already holds. */
  since: number;
  onStream?: OnStream;
  /** The room pieces are pushed to (with onStream, they then also come over the socket). */
  realtimeGroup?: string;
  /**
   * 'poll': the poll of a forwardRequest (a request not streamed ends as a plain poll does: its body,
   * or its failure; stopping it withdraws a request still waiting). 'reader': forwardRequestStream (every
   * request ends with its status envelope; stopping never touches the request).
   */
  mode: 'poll' | 'reader';
  /** The status last known. */
  status?: ForwardStatus;
  executed?: number;
  responseType?: ResponseType;
}

export class StreamRead extends LiveRead {
  private readonly sequencer: StreamSequencer;
  private room: RealtimeRoom | null = null;
  private degraded = 0;
  private status?: ForwardStatus;
  private executed?: number;

  constructor(
    override readonly spec: StreamReadSpec,
    private readonly server: CursorServer,
    private readonly link: RealtimeLink | null,
  ) {
    super(spec);
    this.sequencer = new StreamSequencer(spec.since);
    this.status = spec.status;
    this.executed = spec.executed;
  }

  protected async loop(): Promise<void> {
    const { realtimeGroup, onStream, address, latency } = this.spec;
    if (realtimeGroup && onStream && this.link) this.room = this.link.join(realtimeGroup, address.id, (seq, txt) => this.take(seq, txt, 'socket'));
    while (!this.settled) {
      let value: unknown;
      try {
        value = await this.server.cursor(address, this.sequencer.delivered);
      } catch (err) {
        return this.fail(err);
      }
      if (this.settled) return; // stopped while the read was on its way
      const answer = cursorAnswerOf(value);
      if (answer.kind === 'finalized') return this.finish(this.spec.mode === 'poll' ? reshape(answer.body, this.spec.responseType) : answer.body);
      const { envelope } = answer;
      this.status = envelope.status;
      if (typeof envelope.executed === 'number') this.executed = envelope.executed;
      if (answer.kind === 'plain') {
        if (isSettled(envelope)) return this.settlePlain(envelope);
      } else {
        for (const chunk of answer.chunks) this.take(chunk.seq, chunk.txt, 'poll');
        if (this.settled) return; // onStream threw
        if (answer.next === 'page') {
          this.degraded = 0;
          continue;
        }
        this.degraded = answer.next === 'degraded' && isSettled(envelope) ? this.degraded + 1 : 0;
        if (isSettled(envelope) && (answer.next === 'caught-up' || this.degraded >= MAX_DEGRADED_READS)) return this.finish(this.endOf(envelope, true));
      }
      await this.pause(latency);
    }
  }

  /** One piece from either transport: what is now in order goes to onStream; a piece ahead of a gap wakes the poll to fill it. */
  private take(seq: number, txt: string, via: StreamVia): void {
    if (this.settled) return;
    for (const piece of this.sequencer.offer(seq, txt, via)) {
      if (this.settled) return; // stopped from inside onStream: nothing more is handed over
      try {
        this.spec.onStream?.(piece.txt, piece.seq, piece.via);
      } catch (err) {
        void this.fail(err);
        return;
      }
    }
    if (via === 'socket' && this.sequencer.waiting) this.wakeUp();
  }

  private endOf(envelope: ForwardStatusEnvelope, stream: boolean): StreamEnd {
    return { ...envelope, stream, last_seq: this.sequencer.delivered };
  }

  /** A request sent without stream: a poll ends as a plain poll does, a reader with the envelope. */
  private settlePlain(envelope: ForwardStatusEnvelope): Promise<void> {
    if (this.spec.mode === 'reader') return this.finish(this.endOf(envelope, false));
    if (envelope.status === 'failed') return this.fail(failureOf(envelope));
    return this.finish(reshape(envelope.response_body, this.spec.responseType));
  }

  private finish(value: unknown): Promise<void> {
    if (this.spec.mode === 'reader') return this.succeed(value);
    const meta: ForwardResponseMeta = this.executed === undefined ? {} : { executed: this.executed };
    return this.succeed(value, meta);
  }

  protected withdrawsOnStop(): boolean {
    return this.spec.mode === 'poll' && this.status === 'pending';
  }

  protected override onWithdraw(): void {
    this.server.withdraw(this.spec.address);
  }

  protected override onEnd(): void {
    this.room?.release();
    this.room = null;
  }
}
