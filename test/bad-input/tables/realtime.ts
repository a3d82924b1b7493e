/**
 * The realtime socket route: a request that is not a WebSocket upgrade, credentials (id token on the URL or
 * in the header) that do not verify, project ids that only look like the world's. Every case asks for the
 * upgrade unless the upgrade is what it breaks, so each refusal is about the one thing broken.
 */
import { REALTIME_ROUTE, REALTIME_TOKEN_PARAM } from '../../../schemas/forward-rules';
import type { BadInputCase, Credential, Expected, Target } from '../case';
import { lookalikeCases } from '../params';

const socket: Target = { route: `GET /v1/projects/{service_id}${REALTIME_ROUTE}`, auth: 'none', headers: { upgrade: 'websocket' } };

const authRequired: Expected = { status: 401, code: 'AUTH_REQUIRED' };
const noUpgrade: Expected = { status: 426, code: 'INVALID_REQUEST', message: 'Expected a WebSocket upgrade.' };
const noSuchProject: Expected = { status: 400, code: 'INVALID_SERVICE' };

const tokenQuery = (token: string) => `${REALTIME_TOKEN_PARAM}=${encodeURIComponent(token)}`;

const HEADER_CREDENTIALS: Array<[Credential, string]> = [
  ['malformed', 'a malformed token in the header'],
  ['control-chars', 'a header credential with control characters'],
  ['other-user', "an id token of another project's user in the header"],
  ['wrong-owner-key', 'an owner key no project has in the header'],
];

const QUERY_TOKENS: Array<[string, string]> = [
  ['not-a-token', 'a malformed token on the URL'],
  ['\u0001tok\u007fen', 'a token with control characters on the URL'],
  ['eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'an unsigned JWT on the URL'],
  ['a'.repeat(10_000), 'a token of 10,000 characters on the URL'],
  [`ok_${'0'.repeat(43)}`, 'an owner key no project has on the URL'],
];

export const realtimeCases = (): BadInputCase[] => [
  { ...socket, headers: {}, input: 'a GET without Upgrade', expect: noUpgrade },
  { ...socket, headers: { upgrade: 'h2c' }, input: 'an Upgrade to another protocol', expect: noUpgrade },
  ...HEADER_CREDENTIALS.map(([auth, input]): BadInputCase => ({ ...socket, auth, input, expect: authRequired })),
  ...QUERY_TOKENS.map(([token, input]): BadInputCase => ({ ...socket, input, query: tokenQuery(token), expect: authRequired })),
  {
    ...socket,
    auth: 'user',
    input: 'a bad token on the URL beside a valid one in the header (the URL wins)',
    query: tokenQuery('not-a-token'),
    expect: authRequired,
  },
  ...lookalikeCases(socket, 'service_id', "the project's service id", (w) => w.project.service_id, noSuchProject),
  { ...socket, input: 'a service id of 10,000 characters', params: { service_id: 'a'.repeat(10_000) }, expect: noSuchProject },
];

/** The valid request the cases above each break in one way (controls.test.ts checks it is accepted). */
export const realtimeControls = (): BadInputCase[] => [{ ...socket, input: 'a visitor asking for the upgrade', expect: { status: 101 } }];
