import { runCases } from './runner';
import { ticketReplayCases } from './tables/ticket-replays';

runCases("owner routes: a ticket's dead letters and bulk replays", ticketReplayCases());
