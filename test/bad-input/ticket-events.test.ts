import { runCases } from './runner';
import { ticketEventCases } from './tables/ticket-events';

runCases("owner routes: the event inspector's search of a ticket's log", ticketEventCases());
