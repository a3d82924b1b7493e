import { runCases } from './runner';
import { realtimeCases } from './tables/realtime';

runCases('the realtime socket route', realtimeCases());
