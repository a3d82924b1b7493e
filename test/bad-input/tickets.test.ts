import { runCases } from './runner';
import { ticketCases } from './tables/tickets';

runCases('owner routes: tickets', ticketCases());
