import { runCases } from './runner';
import { secretsAndUsersCases } from './tables/secrets-and-users';

runCases('owner routes: development users, secret keys, records', secretsAndUsersCases());
