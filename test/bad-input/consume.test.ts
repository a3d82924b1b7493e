import { runCases } from './runner';
import { consumeCases } from './tables/consume';

runCases('consume routes', consumeCases());
