import { runCases } from './runner';
import { alertCases } from './tables/alerts';

runCases('owner routes: alert rules and incidents', alertCases());
