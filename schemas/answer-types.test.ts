/**
 * The answer types the client, the dashboard and the server import, held to the schemas of schemas/answers.ts
 * that the routes declare and /openapi.json is built from. They are generated from those schemas
 * (schemas/answer-types.generated.ts, `npm run answer-types`; CI fails when it is stale), or built from the
 * generated ones (a generic wrapper, a merge); this file holds both kinds to the schemas, so `npm run typecheck`
 * fails on a difference (the expectations are types; at run time this file checks nothing).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  actionRowAnswer,
  consumedAnswer,
  finalizeAnswer,
  forwardCheckAnswer,
  deadLetterAnswer,
  forwardStatusAnswer,
  forwardStatusEnvelopeAnswer,
  listingOf,
  logClearingAnswer,
  ownerTicketAnswer,
  publicTicketAnswer,
  queueCountAnswer,
  realtimeServerFrameAnswer,
  receiptAnswer,
  removalAnswer,
  pausedDestinationsAnswer,
  requestHistoryAnswer,
  secureRequestAnswer,
  ticketLogAnswer,
} from './answers';
import type {
  DeadLetter,
  FinalizeAnswer,
  ForwardCheckAnswer,
  ForwardFailure,
  ForwardStatusEnvelope,
  PausedDestinations,
  QueueCountAnswer,
  RealtimeServerFrame,
  RemovalAnswer,
  RequestHistory,
  StreamedEnvelope,
} from './forward-rules';
import type { OwnerTicket, PublicTicket, TicketCondition } from './answer-types.generated';
import type { ActionListingRow, ConsumedRow, DatabaseResponse, ListedTicket, LogClearAnswer, OwnerLogRow, SampledSummary } from './listings';
import type { storedCondition } from './stored-ticket';
import type { ReceiptBody } from './receipt';
import type { SecureAnswer, SecureFailure } from './secure-rules';

type Out<T extends z.ZodType> = z.output<T>;
/** The members a poll with `since` adds to the envelope. */
type CursorMembers = 'stream' | 'chunks' | 'last_seq' | 'more';
type Flat<T> = { [K in keyof T]: T[K] };
type SecureItem = Extract<Out<typeof secureRequestAnswer>, { url: string }>;

describe('the answer types are the schemas of the routes', () => {
  it('forwarding', () => {
    expectTypeOf<ForwardStatusEnvelope>().toEqualTypeOf<Out<typeof forwardStatusEnvelopeAnswer>>();
    expectTypeOf<ForwardFailure>().toEqualTypeOf<NonNullable<Out<typeof forwardStatusAnswer>['error']>>();
    expectTypeOf<Flat<StreamedEnvelope>>().toEqualTypeOf<
      Flat<Omit<Out<typeof forwardStatusAnswer>, CursorMembers> & Required<Pick<Out<typeof forwardStatusAnswer>, CursorMembers>>>
    >();
    expectTypeOf<FinalizeAnswer>().toEqualTypeOf<Out<typeof finalizeAnswer>>();
    expectTypeOf<RemovalAnswer>().toEqualTypeOf<Out<typeof removalAnswer>>();
    expectTypeOf<QueueCountAnswer>().toEqualTypeOf<Out<typeof queueCountAnswer>>();
    expectTypeOf<PausedDestinations>().toEqualTypeOf<Out<typeof pausedDestinationsAnswer>>();
    expectTypeOf<DeadLetter>().toEqualTypeOf<Out<typeof deadLetterAnswer>>();
    expectTypeOf<RequestHistory>().toEqualTypeOf<Out<typeof requestHistoryAnswer>>();
    expectTypeOf<ForwardCheckAnswer>().toEqualTypeOf<Out<typeof forwardCheckAnswer>>();
    expectTypeOf<RealtimeServerFrame>().toEqualTypeOf<Out<typeof realtimeServerFrameAnswer>>();
  });

  it('listings and receipts', () => {
    expectTypeOf<ConsumedRow>().toEqualTypeOf<Out<typeof consumedAnswer>>();
    expectTypeOf<DatabaseResponse<ConsumedRow>>().toEqualTypeOf<Out<ReturnType<typeof listingOf<typeof consumedAnswer>>>>();
    expectTypeOf<SampledSummary>().toEqualTypeOf<NonNullable<Out<typeof ticketLogAnswer>['sampled']>>();
    expectTypeOf<OwnerLogRow>().toEqualTypeOf<Out<typeof ticketLogAnswer>>();
    expectTypeOf<ActionListingRow>().toEqualTypeOf<Out<typeof actionRowAnswer>>();
    expectTypeOf<LogClearAnswer>().toEqualTypeOf<Out<typeof logClearingAnswer>>();
    expectTypeOf<ReceiptBody>().toEqualTypeOf<Out<typeof receiptAnswer>>();
  });

  it('tickets: the stored form the owner lists, the public subset a user lists', () => {
    expectTypeOf<OwnerTicket>().toEqualTypeOf<Out<typeof ownerTicketAnswer>>();
    expectTypeOf<PublicTicket>().toEqualTypeOf<Out<typeof publicTicketAnswer>>();
    expectTypeOf<TicketCondition>().toEqualTypeOf<Out<typeof storedCondition>>();
    expectTypeOf<Flat<ListedTicket>>().toEqualTypeOf<Flat<Out<typeof publicTicketAnswer> & Partial<Omit<Out<typeof ownerTicketAnswer>, keyof PublicTicket>>>>();
    expectTypeOf<OwnerTicket>().toExtend<ListedTicket>();
    expectTypeOf<PublicTicket>().toExtend<ListedTicket>();
  });

  it('secureRequest', () => {
    expectTypeOf<Flat<SecureAnswer>>().toEqualTypeOf<SecureItem>();
    expectTypeOf<SecureFailure>().toEqualTypeOf<NonNullable<SecureItem['error']>>();
    expectTypeOf<Flat<SecureAnswer<{ id: number }>>>().toEqualTypeOf<Flat<Omit<SecureItem, 'response'> & { response: { id: number } }>>();
  });
});
