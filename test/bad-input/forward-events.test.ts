import { runCases } from './runner';
import { forwardEventCases } from './tables/forward-events';

runCases("owner routes: the event inspector's search of the forwarding history", forwardEventCases());
