/**
 * The listing answers of the ticket surface (spec 2.1.1, 2.6, 4.2) as they travel on the wire, generated from
 * the routes' answer schemas (answer-types.generated.ts).
 */
import type { OwnerTicket, PublicTicket } from './answer-types.generated';

export type { ActionListingRow, ConsumedRow, LogClearAnswer, LoggedRequest, OwnerLogRow, SampledSummary } from './answer-types.generated';
export type { BulkReplay, BulkReplayStart, DeadLetterReplay, MetricsAnswer } from './answer-types.generated';
export type { LogEvent, LogEventDetail, LogEventPage } from './answer-types.generated';

/** Every listing answers this shape; pass startKey back for the next page. */
export interface DatabaseResponse<T> {
  list: T[];
  startKey: string | null;
  endOfList: boolean;
}

/** A ticket as getTickets lists it (spec 2.1.1): the owner-only members are present for the project owner. */
export type ListedTicket = PublicTicket & Partial<Omit<OwnerTicket, keyof PublicTicket>>;
