import { runCases } from './runner';
import { metricsCases } from './tables/metrics';

runCases('owner routes: metrics over time', metricsCases());
